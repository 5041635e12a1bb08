// A backup is read from the store as it is written out, on a read of its own: it holds one committed
// state however long its client takes (what is committed meanwhile is not in it), writes are not
// held back while it is open, and a backup stopped part-way ends its read (on SQLite the journal can
// be folded again; on PostgreSQL no connection is left inside a transaction).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { takeBackup } from '../../src/store/backup/take.js';
import { client, type Client, serverForTests } from '../support/edit.js';
import { type TestServer } from '../support/server.js';
import { onPostgres, storeFor } from '../support/store.js';

let srv: TestServer;
let admin: Client;
serverForTests((started, administrator) => {
  srv = started;
  admin = administrator;
});

async function activate(names: string[]): Promise<void> {
  assert.equal((await admin.post('edit/changeManager/startEdit')).status, 200);
  for (const name of names) assert.equal((await admin.post('edit/servers', { name })).status, 201);
  const r = await admin.post('edit/changeManager/activate');
  assert.equal(r.status, 200, r.text);
}

/** The backup's lines, parsed. */
async function lines(bytes: AsyncIterable<Buffer>): Promise<unknown[]> {
  const chunks: Buffer[] = [];
  for await (const b of bytes) chunks.push(b);
  return Buffer.concat(chunks)
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as unknown);
}

/** The rows of one table in a backup's lines. */
function rowsOf(all: unknown[], table: string): unknown[][] {
  const at = all.findIndex((l) => (l as { table?: unknown }).table === table);
  assert.ok(at >= 0, `no table ${table}`);
  const n = (all[at] as { rows: number }).rows;
  return all.slice(at + 1, at + 1 + n) as unknown[][];
}

test('a backup holds the state it began with while activations commit during it, and they are not held back', async () => {
  await activate(['streamed-before']);
  const version = Number((await admin.get('domainRuntime?links=none&fields=activationVersion')).json.activationVersion ?? NaN);
  const taken = await takeBackup(srv.server.domain.store);
  try {
    const first = await taken.bytes.next();
    assert.equal(first.done, false);
    // The backup is open and unread: an activation commits all the same.
    await activate(['streamed-during-1', 'streamed-during-2']);
    const rest = await lines({ [Symbol.asyncIterator]: () => taken.bytes });
    const all = [JSON.parse(first.value!.toString('utf8').split('\n')[0]!) as unknown, ...rest];
    const header = all[0] as { configVersion: number };
    if (Number.isFinite(version)) assert.equal(header.configVersion, version);
    const keys = rowsOf(all, 'beans').map((r) => String(r[1]));
    assert.ok(keys.some((k) => k.includes('streamed-before')), 'the server activated before the backup is in it');
    assert.ok(!keys.some((k) => k.includes('streamed-during')), `servers activated during the backup are in it: ${keys.filter((k) => k.includes('streamed')).join(', ')}`);
    const versions = rowsOf(all, 'activations').map((r) => Number(r[1]));
    assert.equal(Math.max(...versions), header.configVersion, 'the last activation in it is the one its header names');
  } finally {
    await taken.close();
  }
  // Taken now, the two are in.
  const again = await takeBackup(srv.server.domain.store);
  const keys = rowsOf(await lines(again.bytes), 'beans').map((r) => String(r[1]));
  assert.ok(keys.some((k) => k.includes('streamed-during-2')));
});

test('a backup stopped part-way ends its read of the store', async () => {
  const taken = await takeBackup(srv.server.domain.store);
  assert.equal((await taken.bytes.next()).done, false);
  if (onPostgres()) {
    const url = (await storeFor(srv.dataDir))!;
    const database = new URL(url).pathname.slice(1);
    const inTransaction = async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        const r = await c.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND state LIKE 'idle in transaction%'", [database]);
        return r.rows[0].n as number;
      } finally {
        await c.end();
      }
    };
    assert.equal(await inTransaction(), 1, 'the open backup reads in a transaction of its own');
    await taken.close();
    assert.equal(await inTransaction(), 0, 'a stopped backup left a connection inside its transaction');
    return;
  }
  // On SQLite an open read keeps the journal from being folded back into the file entirely.
  await activate(['streamed-after-open']);
  const db = new Database(join(srv.dataDir, 'domain.db'));
  try {
    const busy = () => (db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[])[0]!.busy;
    assert.equal(busy(), 1, 'the open backup holds its snapshot');
    await taken.close();
    assert.equal(busy(), 0, 'a stopped backup still holds its snapshot');
  } finally {
    db.close();
  }
});
