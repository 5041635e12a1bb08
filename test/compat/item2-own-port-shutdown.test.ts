// Issue 26, item 2: an operator posts serverRuntime/shutdown (or forceShutdown) to a managed server
// on the server's own port. The server answers that request (200 {}, as through the administration
// server) before its port closes; only then is the port refused. A crash still drops the port at once.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Client, type RuntimeServer, assertAccepted, client, job, pollUntil, startRuntimeServer } from '../support/runtime-server.js';
import { freePortOffset, refused } from '../support/ports.js';

const LC = 'domainRuntime/serverLifeCycleRuntimes';

let srv: RuntimeServer;
let offset: number;
const own = (): Client => client(() => `http://127.0.0.1:${7003 + offset}/management/appserver/latest`);

before(async () => {
  offset = await freePortOffset([7003, 7005]);
  srv = await startRuntimeServer(undefined, undefined, { portOffset: offset });
});

after(async () => {
  await srv?.stop(true);
});

async function start(server: string): Promise<void> {
  const location = assertAccepted(await srv.admin.post(`${LC}/${server}/start`, {}, { prefer: 'respond-async' }), `start ${server}`);
  srv.advance(2000);
  const task = await pollUntil(() => job(srv.admin, location), (t) => t.completed === true, `start ${server}`);
  assert.equal(task.taskStatus, 'TASK COMPLETED', JSON.stringify(task));
  assert.equal((await own().get('serverRuntime?fields=state&links=none')).json?.state, 'RUNNING');
}

async function state(server: string): Promise<string> {
  return (await srv.admin.get(`${LC}/${server}?links=none&fields=state`)).json.state;
}

for (const op of ['shutdown', 'forceShutdown']) {
  test(`${op} posted to ms1's own serverRuntime answers 200 {} and then closes the port`, async () => {
    await start('ms1');
    // A dropped connection rejects: kept as the value, so the assertion below names it.
    const answer = own()
      .post(`serverRuntime/${op}`, {})
      .catch((err: Error) => ({ status: 0, text: `no HTTP answer: ${err.message} (${String((err.cause as Error | undefined)?.message)})`, json: undefined }));
    // The operation waits for its task on the domain's clock: move it until the server is down.
    await pollUntil(
      async () => {
        srv.advance(1000);
        return state('ms1');
      },
      (s) => s === 'SHUTDOWN',
      `ms1 shut down by ${op}`,
    );
    const reply = await answer;
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(reply.json, {});
    await pollUntil(() => refused(7003 + offset), (r) => r, `the port of ms1 closes after ${op}`);
  });
}
