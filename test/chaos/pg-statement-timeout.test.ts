// A store that does not answer: another connection holds a lock on a table the server needs, so its
// statements wait. With --store-statement-timeout 2 the database cancels them: a write answers 503
// with Retry-After and a message saying the store did not answer in time, and changed nothing;
// reads are answered from what the server holds; once the lock is gone the server goes on. Before
// the timeout existed such a request waited as long as the lock was held.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { dataDirs } from '../support/cli.js';
import { type PrivatePostgres, postgresUnavailable, startPostgres } from './support/postgres.js';
import { type Answer, SECOND_PASS, type ServedChild, editAndActivate, serveChild } from './support/serve-child.js';

const skip = SECOND_PASS ?? postgresUnavailable();
const newDir = dataDirs('appserver-chaos-statement-');

/** Holds an exclusive lock on `table` from a connection of its own until `release` is called. */
async function lockTable(url: string, table: string): Promise<{ release(): Promise<void> }> {
  const c = new pg.Client({ connectionString: url });
  c.on('error', () => undefined);
  await c.connect();
  await c.query('BEGIN');
  await c.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
  return {
    release: async () => {
      await c.query('ROLLBACK');
      await c.end();
    },
  };
}

function assertTimedOut(a: Answer, what: string): void {
  assert.equal(a.status, 503, `${what}: status ${a.status}, ${a.text.slice(0, 400)}`);
  assert.ok(Number(a.headers.get('retry-after')) > 0, `${what}: Retry-After`);
  assert.match(String(a.json?.detail), /did not answer within 2 s/, `${what}: ${a.text.slice(0, 400)}`);
  assert.match(String(a.json?.detail), /nothing was changed/, what);
}

async function names(s: ServedChild): Promise<string[]> {
  const r = await s.get('serverConfig/servers?links=none&fields=name');
  assert.equal(r.status, 200, r.text);
  return (r.json.items as { name: string }[]).map((i) => i.name);
}

describe('a PostgreSQL store whose statements wait on a lock', { skip }, () => {
  let db: PrivatePostgres;
  before(async () => {
    db = await startPostgres();
  });
  after(async () => {
    await db?.remove();
  });

  test('writes answer 503 with Retry-After once the statement timeout passes, reads go on, and the server goes on when the lock is gone', { timeout: 90_000 }, async (t) => {
    // A request that waited as long as the lock is held would end the test by this time-out.
    const url = await db.createDatabase('locked');
    const s = await serveChild(newDir(), ['--store', url, '--store-statement-timeout', '2']);
    assert.deepEqual((await editAndActivate(s, 'before-lock')).map((a) => a.status), [200, 201, 200]);

    // The configuration's table is locked: an activation's statements wait on it.
    let lock = await lockTable(url, 'beans');
    let started = Date.now();
    assertTimedOut(await s.post('edit/servers', { name: 'while-beans-locked' }), 'a create while the configuration table is locked');
    t.diagnostic(`the create answered 503 after ${Date.now() - started} ms`);
    assert.ok((await names(s)).includes('before-lock'), 'reads go on');
    await lock.release();
    assert.equal((await s.post('edit/servers', { name: 'after-beans-lock' })).status, 201);

    // The table every request reads first to catch up with other servers: writes are refused,
    // reads are answered from what the server holds.
    lock = await lockTable(url, 'versions');
    started = Date.now();
    assertTimedOut(await s.post('edit/servers', { name: 'while-versions-locked' }), 'a create while the versions table is locked');
    t.diagnostic(`the create answered 503 after ${Date.now() - started} ms`);
    const read = await names(s);
    assert.ok(read.includes('after-beans-lock'), read.join(', '));
    await lock.release();

    // Nothing refused was made, and the server goes on.
    assert.equal((await s.post('edit/servers', { name: 'after-versions-lock' })).status, 201);
    const all = await names(s);
    for (const name of ['before-lock', 'after-beans-lock', 'after-versions-lock']) assert.ok(all.includes(name), `${name} is missing: ${all.join(', ')}`);
    for (const name of ['while-beans-locked', 'while-versions-locked']) assert.ok(!all.includes(name), `${name} was refused and is there`);
    assert.ok(s.alive(), s.run.stderr());
    await s.run.stop();
  });
});
