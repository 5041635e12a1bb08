// Round 3, item 14: a store is written only when it is ours and holds what we think. A store whose
// "created" mark is missing but which holds a domain is refused, not created again over its
// configuration; a database holding another application's tables is refused and left untouched;
// and a secret key migrated out of an old store leaves no copy in the store's files (SQLite: the
// database file and its logs; PostgreSQL: the meta table's files, read after a checkpoint).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { type TestServer, startTestServer } from '../support/server.js';
import { onPostgres, storeFor, storeQuery } from '../support/store.js';

const dirs: string[] = [];
const servers: TestServer[] = [];

after(async () => {
  for (const s of servers) await s.stop().catch(() => undefined);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function newDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'appserver-r3-14-'));
  dirs.push(d);
  return d;
}

async function started(dataDir: string): Promise<TestServer> {
  const s = await startTestServer(dataDir);
  servers.push(s);
  return s;
}

async function stopped(s: TestServer): Promise<void> {
  servers.splice(servers.indexOf(s), 1);
  await s.stop();
}

async function count(dataDir: string, sql: string): Promise<number> {
  return Number((await storeQuery<{ n: number | string }>(dataDir, sql))[0]?.n ?? 0);
}

test('round 3, item 14: a store holding a domain without its "created" mark is refused, its configuration kept', async () => {
  const dir = newDir();
  await stopped(await started(dir));
  const beans = await count(dir, 'SELECT count(*) AS n FROM beans');
  const users = await storeQuery<{ name: string; hash: string }>(dir, 'SELECT name, hash FROM users ORDER BY name');
  assert.ok(beans > 10 && users.length > 0);
  await storeQuery(dir, "DELETE FROM meta WHERE key = 'created'");

  await assert.rejects(started(dir), (err: Error) => {
    assert.match(err.message, /holds a domain's configuration or users but no record that the domain was created/);
    assert.match(err.message, /changed nothing/);
    return true;
  });
  assert.equal(await count(dir, 'SELECT count(*) AS n FROM beans'), beans, 'the configuration was written over');
  assert.deepEqual(await storeQuery(dir, 'SELECT name, hash FROM users ORDER BY name'), users, 'the users were written over');
  assert.equal(await count(dir, "SELECT count(*) AS n FROM meta WHERE key IN ('created', 'creating')"), 0);
});

test("round 3, item 14: a database holding another application's tables is refused and left as it was", async () => {
  const dir = newDir();
  if (onPostgres()) {
    const url = (await storeFor(dir))!;
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      await db.query('CREATE TABLE orders (id INTEGER PRIMARY KEY, item TEXT)');
      await db.query("INSERT INTO orders VALUES (1, 'kept')");
    } finally {
      await db.end();
    }
  } else {
    const db = new Database(join(dir, 'domain.db'));
    db.exec("CREATE TABLE orders (id INTEGER PRIMARY KEY, item TEXT); INSERT INTO orders VALUES (1, 'kept')");
    db.close();
  }
  await assert.rejects(started(dir), (err: Error) => {
    assert.match(err.message, /(tables of something else|SQLite database of something else) \(?(tables )?orders\)/);
    return true;
  });
  const tables = onPostgres()
    ? (await storeQuery<{ name: string }>(dir, "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()")).map((r) => r.name)
    : (await storeQuery<{ name: string }>(dir, "SELECT name FROM sqlite_master WHERE type = 'table'")).map((r) => r.name);
  assert.deepEqual(tables, ['orders'], 'tables were added to the foreign database');
  assert.deepEqual(await storeQuery(dir, 'SELECT id, item FROM orders'), [{ id: 1, item: 'kept' }]);
});

/** Where the text is found in the store's files: SQLite's file and logs, or PostgreSQL's meta table files. */
async function inStoreFiles(dataDir: string, text: string): Promise<string[]> {
  const needle = Buffer.from(text, 'latin1');
  if (!onPostgres()) {
    return readdirSync(dataDir)
      .filter((f) => f.startsWith('domain.db'))
      .filter((f) => readFileSync(join(dataDir, f)).includes(needle));
  }
  const db = new pg.Client({ connectionString: await storeFor(dataDir) });
  await db.connect();
  try {
    // What is in memory goes to the files first.
    await db.query('CHECKPOINT');
    const file = (await db.query<{ path: string }>("SELECT pg_relation_filepath('meta') AS path")).rows[0]!.path;
    const bytes = (await db.query<{ data: Buffer }>('SELECT pg_read_binary_file($1) AS data', [file])).rows[0]!.data;
    return bytes.includes(needle) ? [file] : [];
  } finally {
    await db.end();
  }
}

test('round 3, item 14: a key migrated out of an old store leaves no copy in its files', async () => {
  const dir = newDir();
  await stopped(await started(dir));
  const keyFile = join(dir, 'secret.key');
  const key = readFileSync(keyFile, 'utf8').trim();
  // The store as older versions left it: the key itself in the meta table, no key file.
  await storeQuery(dir, "INSERT INTO meta (key, value) VALUES ('secretKey', ?)", [key]);
  await storeQuery(dir, "DELETE FROM meta WHERE key = 'secretKeyCheck'");
  rmSync(keyFile);
  assert.ok((await inStoreFiles(dir, key)).length > 0, 'the old store holds its key in its files (the check can see it)');

  await stopped(await started(dir));
  assert.ok(existsSync(keyFile), 'the key did not move to the key file');
  assert.equal(readFileSync(keyFile, 'utf8').trim(), key);
  assert.equal(await count(dir, "SELECT count(*) AS n FROM meta WHERE key = 'secretKey'"), 0);
  assert.deepEqual(await inStoreFiles(dir, key), [], 'a copy of the migrated key is left in the store files');
});
