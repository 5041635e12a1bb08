// The watch across two servers sharing one PostgreSQL store: what is changed through one reaches
// the watchers of both, with the same ids in the same order (the ids come from the store), and a
// watcher that drops from one server resumes on the other with its Last-Event-ID, losing nothing.
// PostgreSQL only (skipped without APPSERVER_TEST_PG).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ASYNC, type Client, adminAuth } from '../support/runtime-server.js';
import { type SharedPair, sharedStoreAvailable, startSharedPair } from '../support/shared-store.js';
import { type SseEvent, increasingIds, watch } from '../support/sse.js';

const LC = 'domainRuntime/serverLifeCycleRuntimes';
const skip = !sharedStoreAvailable();

let pair: SharedPair;

before(async () => {
  if (!skip) pair = await startSharedPair();
});

after(async () => {
  await pair?.stop();
});

async function ok(r: Promise<{ status: number; text: string }>, what: string): Promise<void> {
  const reply = await r;
  assert.ok(reply.status < 300, `${what}: ${reply.status} ${reply.text}`);
}

async function createServer(c: Client, name: string): Promise<void> {
  await ok(c.post('edit/changeManager/startEdit', {}), 'startEdit');
  await ok(c.post('edit/servers', { name }), `create ${name}`);
  await ok(c.post('edit/changeManager/activate', {}), 'activate');
}

const runtime = (server: string, state: string) => (e: SseEvent) => e.event === 'runtime' && e.data.path === `${LC}/${server}` && e.data.state === state;

test('events from either server reach the watchers of both, with the same ids; a watcher resumes on the other server', { skip }, async () => {
  const onA = await watch(pair.a.url('watch'), adminAuth);
  const onB = await watch(pair.b.url('watch'), adminAuth);

  // An activation through A reaches B's watcher.
  await createServer(pair.a, 'rw1');
  const seenOnB = await onB.next((e) => e.event === 'activation' && e.data.beans.some((b: any) => b.path === 'edit/servers/rw1'), 'A\'s activation, on B');
  await onB.next(runtime('rw1', 'SHUTDOWN'), 'rw1 SHUTDOWN, on B');

  // A server started through B: its task and states reach A's watcher.
  const r = await pair.b.post(`${LC}/rw1/start`, {}, ASYNC);
  assert.equal(r.status, 202, r.text);
  const task = `${LC}/rw1/tasks/${r.json.name}`;
  await onA.next((e) => e.event === 'task' && e.data.path === task, 'B\'s start task, on A');
  await onA.next(runtime('rw1', 'STARTING'), 'rw1 STARTING, on A');
  pair.advance(120_000);
  await onA.next(runtime('rw1', 'RUNNING'), 'rw1 RUNNING, on A');
  const doneOnA = await onA.next((e) => e.event === 'task' && e.data.path === task && e.data.completed === true, 'the completed task, on A');
  await onB.next((e) => e.id === doneOnA.id, 'the completed task, on B');

  // One sequence: both watchers saw the same events with the same ids, in the same order.
  const idsA = increasingIds(onA.events);
  const idsB = increasingIds(onB.events);
  const last = Number(doneOnA.id);
  assert.deepEqual(idsA.filter((id) => id <= last), idsB.filter((id) => id <= last));
  assert.ok(idsA.includes(Number(seenOnB.id)));

  // B's watcher drops; a change is made through B; it resumes on A with its Last-Event-ID.
  const lastOnB = Number(onB.events[onB.events.length - 1]!.id);
  onB.close();
  await createServer(pair.b, 'rw2');
  const resumed = await watch(pair.a.url('watch'), adminAuth, { 'last-event-id': String(lastOnB) });
  await resumed.next(runtime('rw2', 'SHUTDOWN'), 'rw2 SHUTDOWN, resumed on A');
  const missed = increasingIds(resumed.events);
  await onA.next((e) => e.id === String(missed[missed.length - 1]), 'the same events, on A');
  assert.deepEqual(missed, increasingIds(onA.events).filter((id) => id > lastOnB && id <= missed[missed.length - 1]!), 'nothing lost, nothing repeated');
  onA.close();
  resumed.close();
});
