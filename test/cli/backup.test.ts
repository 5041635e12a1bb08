// Backup and restore as a user runs them: `appserver-admin backup` against a running server (and
// offline), `appserver-admin restore` into a new data directory, then a server on the restored domain
// answers with what was committed at the backup and nothing after it. On the PostgreSQL pass the
// backup is taken from PostgreSQL and restored into SQLite, then backed up offline from SQLite and
// restored into PostgreSQL. Damaged, truncated, foreign and hostile files are refused and change
// nothing.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startServer } from '../../src/cli/server.js';
import { cliOutcome, dataDirs } from '../support/cli.js';
import { AUTHN, type Client, client, createUser } from '../support/edit.js';
import { createDatabase, createEnvironment, environments, http } from '../support/lcm.js';
import { ADMIN, TEST_MAX_EVENT_LOOP_DELAY, type TestServer, basic, call, startTestServer } from '../support/server.js';
import { onPostgres, storeFor } from '../support/store.js';
import { makeZip, webXml } from '../support/zip.js';

const newDir = dataDirs('appserver-backup-');
const CREDENTIALS = ['--user', ADMIN.user, '--password', ADMIN.password];

let srv: TestServer;
let admin: Client;
let backupFile: string;
const work = newDir();

async function activate(c: Client, change: (c: Client) => Promise<void>): Promise<void> {
  assert.equal((await c.post('edit/changeManager/startEdit')).status, 200);
  await change(c);
  const r = await c.post('edit/changeManager/activate');
  assert.equal(r.status, 200, `activate: ${r.text}`);
}

async function createServer(c: Client, name: string, port: number): Promise<void> {
  await activate(c, async () => {
    const r = await c.post('edit/servers', { name, listenPort: port });
    assert.equal(r.status, 201, `create ${name}: ${r.text}`);
  });
}

const cli = cliOutcome;

/** Starts a server on a restored data directory, on SQLite or on the store named. */
function serveRestored(dataDir: string, store: string, secretKeyFile: string) {
  return startServer({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    store,
    logLevel: 'silent',
    quiet: true,
    secretKeyFile,
    listeners: false,
    maxEventLoopDelay: TEST_MAX_EVENT_LOOP_DELAY,
  });
}

before(async () => {
  srv = await startTestServer(newDir());
  admin = client(() => srv.latest);
  await createServer(admin, 'backedUp', 9123);
  await createUser(admin, 'operator7', 'operator-pw7', 'Operators');
  await createUser(admin, 'monitor7', 'monitor-pw7', 'Monitors');
  const lc = http(() => `${srv.origin}/management/lifecycle/latest`);
  await createEnvironment(lc, 'env-backup');
  // A Lifecycle Manager database runtime: its password is sealed with the domain's key.
  await createDatabase(lc, 'db-backup');
  // An uploaded application: its archive lives in the data directory.
  const form = new FormData();
  form.append('model', JSON.stringify({ name: 'shop', targets: [{ identity: ['servers', 'AdminServer'] }] }));
  const war = makeZip({ 'WEB-INF/web.xml': webXml([{ name: 'cart', className: 'shop.Cart', patterns: ['/cart/*'] }]) });
  form.append('sourcePath', new Blob([new Uint8Array(war)]), 'shop.war');
  const up = await fetch(`${srv.latest}/edit/appDeployments`, { method: 'POST', body: form, headers: { authorization: admin.auth, 'x-requested-by': 'backup-test', accept: 'application/json' } });
  assert.ok(up.status === 201 || up.status === 202, `upload: ${up.status} ${await up.text()}`);
});

after(async () => {
  await srv?.stop().catch(() => undefined);
});

test('GET /appserver/backup: administrators only, with X-Requested-By; a streamed JSON-lines file', async () => {
  const url = `${srv.origin}/appserver/backup`;
  assert.equal((await call(url, { auth: null, headers: { 'x-requested-by': 't' } })).status, 401);
  const monitor = await call(url, { auth: basic('monitor7', 'monitor-pw7'), headers: { 'x-requested-by': 't' } });
  assert.equal(monitor.status, 403);
  assert.match(monitor.json.detail, /role Admin/);
  const operator = await call(url, { auth: basic('operator7', 'operator-pw7'), headers: { 'x-requested-by': 't' } });
  assert.equal(operator.status, 403);
  const noHeader = await call(url);
  assert.equal(noHeader.status, 400);
  assert.match(noHeader.json.detail, /X-Requested-By/);
  const ok = await call(url, { headers: { 'x-requested-by': 't', accept: 'application/x-ndjson' } });
  assert.equal(ok.status, 200, ok.text.slice(0, 300));
  assert.match(ok.headers.get('content-type') ?? '', /^application\/x-ndjson/);
  assert.match(ok.headers.get('content-disposition') ?? '', /attachment; filename="[A-Za-z0-9._-]+-v\d+\.backup"/);
  const lines = ok.text.trimEnd().split('\n');
  assert.equal(JSON.parse(lines[0]!).format, 'appserver-admin backup');
  assert.equal(JSON.parse(lines[0]!).secretKey, false);
  const end = JSON.parse(lines.at(-1)!);
  assert.equal(end.lines, lines.length - 1);
  assert.equal(end.sha256, createHash('sha256').update(`${lines.slice(0, -1).join('\n')}\n`).digest('hex'));
  // The key never travels: neither the key nor a key file's content is in the backup.
  const key = readFileSync(join(srv.dataDir, 'secret.key'), 'utf8').trim();
  assert.ok(!ok.text.includes(key), 'the secret key is in the backup');
  // Nor does a password hash come out in clear text of any user's password.
  assert.ok(!ok.text.includes('operator-pw7'));
});

test('backup of a running server restores into a new data directory: what was committed at the backup, nothing after it', async () => {
  backupFile = join(work, 'domain.backup');
  const taken = await cli(['backup', '--url', srv.origin, ...CREDENTIALS, '--out', backupFile]);
  assert.equal(taken.code, 0, taken.err);
  assert.match(taken.out, /Wrote .*domain\.backup: \d+ bytes, configuration version \d+/);
  assert.equal(statSync(backupFile).mode & 0o777, 0o600);
  assert.deepEqual(readdirSync(work).filter((f) => f.includes('partial')), [], 'no partial file is left');
  // Changes after the backup are not in it.
  await createServer(admin, 'afterBackup', 9124);
  await srv.stop();

  const target = newDir();
  const keyFile = join(srv.dataDir, 'secret.key');
  const restored = await cli(['restore', backupFile, '--data-dir', target, '--secret-key-file', keyFile]);
  assert.equal(restored.code, 0, restored.err);
  assert.match(restored.out, /Restored .* \d+ rows, 1 of 1 archives/);
  assert.equal(restored.err, '', 'the key at hand opens the restored domain: nothing to note');

  const server = await serveRestored(target, 'sqlite', keyFile);
  try {
    const origin = `http://127.0.0.1:${server.port}`;
    const c = client(() => `${origin}/management/appserver/latest`);
    const kept = await c.get('edit/servers/backedUp');
    assert.equal(kept.status, 200, kept.text);
    assert.equal(kept.json.listenPort, 9123);
    assert.equal((await c.get('edit/servers/afterBackup')).status, 404);
    // Users and their groups: the operator signs in and has its role.
    const asOperator = c.as(basic('operator7', 'operator-pw7'));
    assert.equal((await asOperator.get('domainRuntime')).status, 200);
    assert.equal((await asOperator.post(`${AUTHN}/createUser`, { userName: 'x', password: 'pw-x12345' })).status, 403);
    // The Lifecycle Manager's records, the sealed password among them (the server started with the key).
    assert.ok((await environments(http(() => `${origin}/management/lifecycle/latest`))).includes('env-backup'));
    // The deployment, its archive in the new data directory, and the path that names it there.
    const app = await c.get('edit/appDeployments/shop');
    assert.equal(app.status, 200, app.text);
    assert.ok(String(app.json.sourcePath).startsWith(join(target, 'applications')), `sourcePath ${app.json.sourcePath}`);
    assert.ok(existsSync(app.json.sourcePath), 'the archive was restored');
  } finally {
    await server.close();
  }

  // A domain is there now: a second restore is refused without --force, and replaces it with it.
  const again = await cli(['restore', backupFile, '--data-dir', target]);
  assert.equal(again.code, 1);
  assert.match(again.err, /already holds a domain: give --force/);
  const forced = await cli(['restore', backupFile, '--data-dir', target, '--force']);
  assert.equal(forced.code, 0, forced.err);
  assert.match(forced.err, /the backup holds no secret key: before serving, give the domain's key/);
});

test('offline backup with the secret key, restored into the other store: the key goes to the key file and opens the domain', { skip: onPostgres() ? false : 'SQLite pass: the other store, PostgreSQL, is tried on the PostgreSQL pass' }, async () => {
  // The data directory restored above is SQLite: back it up offline, with its key.
  const sqliteDir = newDir();
  const keyFile = join(srv.dataDir, 'secret.key');
  assert.equal((await cli(['restore', backupFile, '--data-dir', sqliteDir, '--secret-key-file', keyFile])).code, 0);
  const file = join(work, 'with-key.backup');
  const taken = await cli(['backup', '--data-dir', sqliteDir, '--include-secret-key', '--secret-key-file', keyFile, '--out', file]);
  assert.equal(taken.code, 0, taken.err);
  assert.match(taken.out, /with the secret key/);
  const pgDir = newDir();
  const store = (await storeFor(pgDir))!;
  const restored = await cli(['restore', file, '--data-dir', pgDir, '--store', store]);
  assert.equal(restored.code, 0, restored.err);
  assert.match(restored.err, /secret key was written to .*secret\.key/);
  assert.equal(readFileSync(join(pgDir, 'secret.key'), 'utf8'), readFileSync(keyFile, 'utf8'));
  const server = await serveRestored(pgDir, store, join(pgDir, 'secret.key'));
  try {
    const c = client(() => `http://127.0.0.1:${server.port}/management/appserver/latest`);
    assert.equal((await c.get('edit/servers/backedUp')).json.listenPort, 9123);
    assert.equal((await c.get('edit/servers/afterBackup')).status, 404);
    assert.equal((await c.get('edit/appDeployments/shop')).status, 200);
  } finally {
    await server.close();
  }
});

/** A backup file made by hand: the lines given, then a correct end line. */
function handMade(lines: unknown[]): string {
  const body = lines.map((l) => `${JSON.stringify(l)}\n`).join('');
  return `${body}${JSON.stringify({ end: true, lines: lines.length, sha256: createHash('sha256').update(body).digest('hex') })}\n`;
}

const AUDIT_COLUMNS = ['id', 'at', 'username', 'address', 'action', 'bean', 'outcome', 'detail', 'count', 'last_at'];

const BEAN_COLUMNS = ['tree', 'key', 'collection', 'name', 'ord', 'type', 'data'];

test('damaged, truncated, foreign and hostile backup files are refused, and nothing is written', async () => {
  const good = readFileSync(backupFile, 'utf8');
  const lines = good.trimEnd().split('\n');
  const header = JSON.parse(lines[0]!);
  const meta = [{ table: 'meta', columns: ['key', 'value'], rows: 1 }, ['created', '2026-01-01T00:00:00Z']];
  const cases: { name: string; text: string; error: RegExp }[] = [
    { name: 'truncated', text: good.slice(0, Math.floor(good.length / 2)), error: /truncated|checksum/ },
    { name: 'without its end line', text: `${lines.slice(0, -1).join('\n')}\n`, error: /truncated/ },
    { name: 'one character changed', text: good.replace('backedUp', 'backedUq'), error: /checksum at its end does not match/ },
    { name: 'more after its end', text: `${good}{"table":"users"}\n`, error: /more after the end line/ },
    { name: 'another format', text: '{"hello":"world"}\n', error: /not a backup of appserver-admin/ },
    { name: 'empty', text: '', error: /empty/ },
    { name: 'a path climbing out', text: handMade([header, ...meta, { file: 'applications/../../escaped.txt', bytes: 2 }, Buffer.from('hi').toString('base64'), { fileEnd: true, sha256: createHash('sha256').update('hi').digest('hex') }]), error: /'\.\.' segment/ },
    { name: 'an absolute path', text: handMade([header, ...meta, { file: '/tmp/escaped.txt', bytes: 0 }]), error: /not a path below applications/ },
    { name: 'the staging folder', text: handMade([header, ...meta, { file: 'applications/.incoming/x', bytes: 0 }]), error: /staging folder/ },
    { name: 'a huge size', text: handMade([header, ...meta, { file: 'applications/big.war', bytes: 1e15 }]), error: /not a size up to/ },
    { name: 'more bytes than announced', text: handMade([header, ...meta, { file: 'applications/a.war', bytes: 1 }, Buffer.from('hello').toString('base64')]), error: /more bytes than its header says/ },
    { name: 'an unknown table', text: handMade([header, { table: 'sqlite_master', columns: ['name'], rows: 0 }]), error: /not one a backup holds/ },
    { name: 'a wrong column', text: handMade([header, { table: 'users', columns: ['name', 'hash', 'description; DROP TABLE users'], rows: 0 }]), error: /columns of users must be/ },
    { name: 'a value of the wrong type', text: handMade([header, { table: 'meta', columns: ['key', 'value'], rows: 1 }, ['created', 5]]), error: /meta\.value must be text/ },
    { name: 'an audit record of no request', text: handMade([header, ...meta, { table: 'audit', columns: AUDIT_COLUMNS, rows: 1 }, [1, 1, 'admin', '127.0.0.1', 'x', 'y', 'success', '', 0, 1]]), error: /audit\.count must be at least 1, not 0/ },
    { name: 'an audit count that is no whole number', text: handMade([header, ...meta, { table: 'audit', columns: AUDIT_COLUMNS, rows: 1 }, [1, 1, 'admin', '127.0.0.1', 'x', 'y', 'success', '', 1e300, 1]]), error: /audit\.count must be a whole number/ },
    { name: 'audit columns neither old nor new', text: handMade([header, ...meta, { table: 'audit', columns: [...AUDIT_COLUMNS.slice(0, -2), 'count'], rows: 0 }]), error: /columns of audit must be .*\(or, in a backup written before the last ones were added/ },
    { name: 'a bean whose values are not JSON', text: handMade([header, ...meta, { table: 'beans', columns: BEAN_COLUMNS, rows: 1 }, ['config', 'servers/x', 'servers', 'x', 0, 'T', '{"name":']]), error: /beans\.data must be the JSON text of an object/ },
    { name: 'a bean whose values are a list', text: handMade([header, ...meta, { table: 'beans', columns: BEAN_COLUMNS, rows: 1 }, ['config', 'servers/x', 'servers', 'x', 0, 'T', '[1]']]), error: /beans\.data must be the JSON text of an object, not "\[1\]"/ },
    { name: 'a newer schema', text: handMade([{ ...header, schema: 999 }]), error: /newer than this version knows/ },
    { name: 'no domain', text: handMade([header]), error: /no meta table|no created domain/ },
  ];
  for (const c of cases) {
    const file = join(work, `bad-${c.name.replace(/\W+/g, '-')}.backup`);
    writeFileSync(file, c.text);
    const target = newDir();
    const r = await cli(['restore', file, '--data-dir', target]);
    assert.equal(r.code, 1, `${c.name}: ${r.out}${r.err}`);
    assert.match(r.err, c.error, c.name);
    assert.deepEqual(readdirSync(target), [], `${c.name}: the data directory was left as it was`);
  }
  assert.ok(!existsSync(join(work, '..', 'escaped.txt')) && !existsSync('/tmp/escaped.txt'));

  // A damaged file given with --force leaves the domain already there as it was.
  const target = newDir();
  assert.equal((await cli(['restore', backupFile, '--data-dir', target])).code, 0);
  const before = readdirSync(join(target, 'applications'), { recursive: true });
  const damaged = join(work, 'damaged.backup');
  writeFileSync(damaged, good.replace('backedUp', 'backedUq'));
  const r = await cli(['restore', damaged, '--data-dir', target, '--force']);
  assert.equal(r.code, 1);
  assert.deepEqual(readdirSync(join(target, 'applications'), { recursive: true }), before);
  const server = await serveRestored(target, 'sqlite', join(srv.dataDir, 'secret.key'));
  try {
    assert.equal((await client(() => `http://127.0.0.1:${server.port}/management/appserver/latest`).get('edit/servers/backedUp')).status, 200);
  } finally {
    await server.close();
  }
});
