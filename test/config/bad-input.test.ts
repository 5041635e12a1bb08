// Bad writes, table-driven: each row is one write made without a lock (an implicit session) that
// must be refused with a 4xx JSON error naming what was wrong, and must leave nothing behind.
// Then the relaxed body dialects real clients send must each create a bean.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { assertProblem, changeManager, type Client, errorItems, postHuge, type Reply, serverForTests } from '../support/edit.js';
import { type TestServer } from '../support/server.js';

let srv: TestServer;
let admin: Client;
serverForTests((started, administrator) => {
  srv = started;
  admin = administrator;
});

interface Row {
  name: string;
  method?: 'POST' | 'DELETE';
  /** Relative to the version root. */
  path: string;
  /** A string is sent as is; anything else as JSON. */
  body?: unknown;
  headers?: Record<string, string>;
  status: number;
  /** What one detail must say (the offending property or value). */
  detail: RegExp | string;
  /** The property the problem must be reported on (`o:errorPath`). */
  errorPath?: string;
}

const DEEP = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;

const rows: Row[] = [
  // bodies that are not a JSON object
  { name: 'malformed JSON', path: 'edit/servers', body: '{name: }', status: 400, detail: /not valid JSON.*line 1, column 8/ },
  { name: 'malformed JSON on an update', path: 'edit/servers/ms1', body: '{"listenPort": 7003,', status: 400, detail: /not valid JSON/ },
  { name: 'a JSON array body', path: 'edit/servers', body: '[{"name": "arr1"}]', status: 400, detail: /must be a JSON object/ },
  { name: 'a JSON string body', path: 'edit/servers', body: '"x"', status: 400, detail: /must be a JSON object/ },
  { name: 'a JSON number body on an update', path: 'edit/servers/ms1', body: '42', status: 400, detail: /must be a JSON object/ },

  // wrong types
  { name: 'listenPort as a word', path: 'edit/servers/ms1', body: { listenPort: 'abc' }, status: 400, detail: /listenPort.*"abc"/, errorPath: 'listenPort' },
  { name: 'listenPort as a fraction', path: 'edit/servers/ms1', body: { listenPort: 1.5 }, status: 400, detail: /listenPort.*1\.5/, errorPath: 'listenPort' },
  { name: 'listenPort beyond an int', path: 'edit/servers/ms1', body: { listenPort: 99999999999 }, status: 400, detail: /listenPort.*99999999999/, errorPath: 'listenPort' },
  { name: 'listenPort as an array', path: 'edit/servers/ms1', body: { listenPort: [7003] }, status: 400, detail: /listenPort/, errorPath: 'listenPort' },
  { name: 'listenPort as an object on create', path: 'edit/servers', body: { name: 'typed1', listenPort: { value: 7 } }, status: 400, detail: /listenPort/, errorPath: 'listenPort' },
  { name: 'autoRestart as maybe', path: 'edit/servers/ms1', body: { autoRestart: 'maybe' }, status: 400, detail: /autoRestart.*"maybe"/, errorPath: 'autoRestart' },
  { name: 'tags as a string', path: 'edit/servers/ms1', body: { tags: 'red' }, status: 400, detail: /tags.*"red"/, errorPath: 'tags' },
  { name: 'notes as an object', path: 'edit/servers/ms1', body: { notes: { a: 1 } }, status: 400, detail: /notes/, errorPath: 'notes' },
  // 10 000 nested arrays: parses fine, and must be refused like any other wrong type (not a 500).
  { name: 'a deeply nested array for a string', path: 'edit/servers/ms1', body: `{"notes": ${DEEP}}`, status: 400, detail: /notes/, errorPath: 'notes' },
  { name: 'a deeply nested array for an int on create', path: 'edit/servers', body: `{"name": "deep1", "listenPort": ${DEEP}}`, status: 400, detail: /listenPort/, errorPath: 'listenPort' },
  { name: 'a deeply nested array for a read-only property', path: 'edit/servers/ms1', body: `{"id": ${DEEP}}`, status: 400, detail: /'id'/, errorPath: 'id' },

  // properties the bean does not have, or may not change
  { name: 'unknown property', path: 'edit/servers/ms1', body: { noSuchProperty: 1 }, status: 400, detail: /noSuchProperty/, errorPath: 'noSuchProperty' },
  { name: 'unknown property on create', path: 'edit/servers', body: { name: 'unk1', listenPort: 7999, colour: 'blue' }, status: 400, detail: /colour/, errorPath: 'colour' },
  { name: '__proto__ as a property', path: 'edit/servers/ms1', body: '{"__proto__": {"listenPort": 1}}', status: 400, detail: /__proto__/, errorPath: '__proto__' },
  { name: 'read-only id with another value', path: 'edit/servers/ms1', body: { id: 12345 }, status: 400, detail: /'id'.*read-only/, errorPath: 'id' },
  {
    name: 'illegal value of a property with legal values',
    path: 'edit/clusters/cluster1',
    body: { clusterMessagingMode: 'carrier-pigeon' },
    status: 400,
    detail: /clusterMessagingMode.*carrier-pigeon/,
    errorPath: 'clusterMessagingMode',
  },
  {
    name: 'illegal value on create',
    path: 'edit/clusters',
    body: { name: 'illegal1', clusterMessagingMode: 'smoke-signals' },
    status: 400,
    detail: /clusterMessagingMode.*smoke-signals/,
    errorPath: 'clusterMessagingMode',
  },

  // references
  { name: 'dangling reference', path: 'edit/servers/ms1', body: { cluster: ['clusters', 'nope'] }, status: 400, detail: /cluster.*nope/, errorPath: 'cluster' },
  { name: 'dangling reference on create', path: 'edit/servers', body: { name: 'dang1', cluster: ['clusters', 'nope'] }, status: 400, detail: /nope/, errorPath: 'cluster' },
  { name: 'reference of the wrong type', path: 'edit/servers/ms1', body: { cluster: ['servers', 'ms1'] }, status: 400, detail: /cluster.*"servers","ms1"/, errorPath: 'cluster' },
  { name: 'reference as a path string', path: 'edit/servers/ms1', body: { cluster: 'clusters/cluster1' }, status: 400, detail: /cluster.*clusters\\?\/cluster1/, errorPath: 'cluster' },
  { name: 'empty reference', path: 'edit/servers/ms1', body: { cluster: [] }, status: 400, detail: /cluster/, errorPath: 'cluster' },
  { name: 'dangling reference in a list', path: 'edit/JMSServers/JMSServer1', body: { targets: [{ identity: ['servers', 'ghost'] }] }, status: 400, detail: /ghost/, errorPath: 'targets' },

  // names on create
  { name: 'duplicate name on create', path: 'edit/servers', body: { name: 'ms1', listenPort: 7777 }, status: 400, detail: /'ms1'.*already exists/, errorPath: 'name' },
  { name: 'missing name on create', path: 'edit/servers', body: { listenPort: 7777 }, status: 400, detail: /name/, errorPath: 'name' },
  { name: 'a number as the name', path: 'edit/servers', body: { name: 123 }, status: 400, detail: /123/, errorPath: 'name' },
  { name: 'a name with a slash', path: 'edit/servers', body: { name: 'a/b' }, status: 400, detail: /"\/"/, errorPath: 'name' },
  { name: 'the name ..', path: 'edit/servers', body: { name: '..' }, status: 400, detail: /'\.\.'/, errorPath: 'name' },
  { name: 'the name .', path: 'edit/servers', body: { name: '.' }, status: 400, detail: /'\.'/, errorPath: 'name' },
  { name: 'an empty name', path: 'edit/servers', body: { name: '' }, status: 400, detail: /empty/, errorPath: 'name' },
  { name: 'a name with a leading space', path: 'edit/servers', body: { name: ' lead' }, status: 400, detail: /" lead"/, errorPath: 'name' },
  { name: 'a name with a trailing space', path: 'edit/clusters', body: { name: 'trail ' }, status: 400, detail: /"trail "/, errorPath: 'name' },
  { name: 'a name with a zero-width space', path: 'edit/servers', body: { name: 'a\u200bb' }, status: 400, detail: '\u200b', errorPath: 'name' },
  { name: 'a name with a control character', path: 'edit/servers', body: { name: 'a\u0001b' }, status: 400, detail: /\\u0001/, errorPath: 'name' },
  { name: 'a name with a newline', path: 'edit/clusters', body: { name: 'line\nbreak' }, status: 400, detail: /\\n/, errorPath: 'name' },
  { name: 'renaming via update', path: 'edit/servers/ms1', body: { name: 'ms1-renamed' }, status: 400, detail: /"ms1"/, errorPath: 'name' },
  { name: 'a type that cannot be created there', path: 'edit/servers', body: { name: 'typed2', type: 'Cluster' }, status: 400, detail: /Cluster/, errorPath: 'type' },

  // children are not properties; some beans cannot be deleted
  { name: 'a child bean posted as a property', path: 'edit/servers/ms1', body: { SSL: {} }, status: 400, detail: /SSL/, errorPath: 'SSL' },
  { name: 'a child collection posted as a property on create', path: 'edit/servers', body: { name: 'kids1', networkAccessPoints: [] }, status: 400, detail: /networkAccessPoints/, errorPath: 'networkAccessPoints' },
  { name: 'deleting an always-present singleton', method: 'DELETE', path: 'edit/servers/ms1/SSL', status: 400, detail: /'SSL'/ },
  { name: 'deleting the edit root', method: 'DELETE', path: 'edit', status: 400, detail: /root/ },
];

describe('bad writes are refused and leave the configuration as it was', () => {
  let serversBefore: unknown;
  let clustersBefore: unknown;
  let jmsBefore: unknown;

  before(async () => {
    serversBefore = (await admin.get('serverConfig/servers?links=none')).json;
    clustersBefore = (await admin.get('serverConfig/clusters?links=none')).json;
    jmsBefore = (await admin.get('serverConfig/JMSServers?links=none')).json;
    assert.ok(Array.isArray((serversBefore as { items: unknown[] }).items));
  });

  for (const row of rows) {
    test(row.name, async () => {
      const r: Reply = row.method === 'DELETE' ? await admin.del(row.path) : await admin.post(row.path, row.body, row.headers);
      const items = errorItems(r, row.status, row.name);
      assertProblem(items, row.detail, row.errorPath);
      // The failed implicit session released its lock and left no changes.
      const cm = await changeManager(admin);
      assert.equal(cm.locked, false, `locked after '${row.name}': ${JSON.stringify(cm)}`);
    });
  }

  test('a body over the size limit (declared length) is refused with 413 JSON', async () => {
    const r = await postHuge(`${srv.latest}/edit/servers`, 1024 * 1024 + 64 * 1024, { declared: true });
    assert.equal(r.status, 413, r.text);
    assert.match(r.contentType, /^application\/json\b/);
    assert.equal(r.json?.status, 413);
    assert.equal(r.json?.title, 'FAILURE');
    assert.match(r.json?.detail, /larger than the server accepts/);
  });

  test('a body over the size limit (chunked) is refused with 413 JSON', async () => {
    const r = await postHuge(`${srv.latest}/edit/servers`, 2 * 1024 * 1024, { declared: false });
    assert.equal(r.status, 413, r.text);
    assert.match(r.contentType, /^application\/json\b/);
    assert.equal(r.json?.status, 413);
    assert.match(r.json?.detail, /larger than the server accepts/);
  });

  test('a body just under the limit is read (and judged on its content)', async () => {
    // Nearly 1 MiB of notes on a duplicate name: read whole, then refused for the name, not the size.
    const body = JSON.stringify({ name: 'ms1', notes: 'y'.repeat(1024 * 1024 - 100) });
    const r = await admin.post('edit/servers', body);
    assertProblem(errorItems(r, 400), /already exists/, 'name');
  });

  test('after the whole table the activated configuration is unchanged and unlocked', async () => {
    assert.deepEqual((await admin.get('serverConfig/servers?links=none')).json, serversBefore);
    assert.deepEqual((await admin.get('serverConfig/clusters?links=none')).json, clustersBefore);
    assert.deepEqual((await admin.get('serverConfig/JMSServers?links=none')).json, jmsBefore);
    // The edit tree (the default session's view) shows nothing either.
    const edit = (await admin.get('edit/servers?links=none&fields=name')).json;
    assert.deepEqual(
      edit.items.map((i: { name: string }) => i.name),
      (serversBefore as { items: { name: string }[] }).items.map((i) => i.name),
    );
    const cm = await changeManager(admin);
    assert.equal(cm.locked, false);
    assert.equal(cm.mergeNeeded, false);
    assert.equal('lockOwner' in cm, false, JSON.stringify(cm));
    const acts = (await admin.get('edit/changeManager/activations?links=none')).json;
    assert.deepEqual(acts.items, [], 'a refused write was recorded as an activation');
  });
});

describe('relaxed request bodies create beans', () => {
  const created: [string, string, Record<string, string>?][] = [
    ['rx1', "{name: 'rx1', notes: 'single-quoted, unquoted keys',}"],
    ['rx2', 'name=rx2&notes=from%20a%20form', { 'content-type': 'text/plain' }],
    ['rx3', '{"name": "rx3", "listenPort": 7303}', { 'content-type': 'text/plain' }],
    ['rx4', "{name: 'rx4', listenPort: 7304}", { 'content-type': 'text/plain;charset=utf-8' }],
  ];

  for (const [name, body, headers] of created) {
    test(`${name}: ${headers?.['content-type'] ?? 'application/json'} body ${body}`, async () => {
      const r = await admin.post('edit/servers', body, headers);
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(r.json, {});
      assert.equal(r.headers.get('location'), `${srv.latest}/edit/servers/${name}`);
      const got = await admin.get(`serverConfig/servers/${name}?links=none&fields=name,notes,listenPort`);
      assert.equal(got.status, 200, got.text);
      assert.equal(got.json.name, name);
    });
  }

  test('the values of the relaxed bodies arrived intact', async () => {
    const get = async (n: string) => (await admin.get(`serverConfig/servers/${n}?links=none&fields=name,notes,listenPort`)).json;
    assert.equal((await get('rx1')).notes, 'single-quoted, unquoted keys');
    assert.equal((await get('rx2')).notes, 'from a form');
    assert.equal((await get('rx3')).listenPort, 7303);
    assert.equal((await get('rx4')).listenPort, 7304);
    assert.equal((await changeManager(admin)).locked, false);
  });
});

describe('echoing back what the server shows is not a bad write', () => {
  // Clients post back (parts of) the entity they read; read-only properties then carry the very
  // value the server showed, which changes nothing and must not be refused.
  for (const path of ['edit/servers/ms2', 'edit/clusters/cluster1']) {
    test(`POST ${path} with its own GET body`, async () => {
      const shown = await admin.get(`${path}?links=none`);
      assert.equal(shown.status, 200, shown.text);
      const activeBefore = (await admin.get(`${path.replace(/^edit/, 'serverConfig')}?links=none`)).json;
      const r = await admin.post(path, shown.json);
      assert.equal(r.status, 200, `posting back the unchanged GET body of ${path}: ${r.text}`);
      assert.deepEqual((await admin.get(`${path}?links=none`)).json, shown.json);
      assert.deepEqual((await admin.get(`${path.replace(/^edit/, 'serverConfig')}?links=none`)).json, activeBefore);
    });
  }

  test('a read-only property with the value shown for it', async () => {
    const shown = (await admin.get('edit/servers/ms1?links=none')).json;
    const r = await admin.post('edit/servers/ms1', { id: shown.id, listenPort: shown.listenPort });
    assert.equal(r.status, 200, `id ${JSON.stringify(shown.id)} as shown: ${r.text}`);
  });

  test('the create form posted back with a name creates the bean', async () => {
    const form = await admin.get('edit/serverCreateForm?links=none');
    assert.equal(form.status, 200, form.text);
    const r = await admin.post('edit/servers', { ...form.json, name: 'fromform1' });
    assert.equal(r.status, 201, r.text);
    assert.equal((await admin.get('serverConfig/servers/fromform1')).status, 200);
  });
});
