// What the fuzz (fuzz.test.ts) found, pinned as deterministic tests: each test sends the smallest
// sequence of requests that shows one fault and asserts the right behaviour, so that it fails until
// the server is fixed. The fuzz itself keeps looking for these (and others) at random.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { adminAuth, startTestServer, type TestServer } from '../support/server.js';
import { Api, ERROR_TYPE, type RawReply, envelopeProblem, exitWhenStuck, referencesIn, send, walkConfig } from '../support/fuzz-lib.js';

const ESC = 'domainRuntime/editSessionConfigurationManager/editSessionConfigurations';
const LCM = '/management/lifecycle/latest';
const LONE = '\ud800'; // a lone UTF-16 surrogate: valid in a JSON string, not valid Unicode

after(() => exitWhenStuck());

function assertEnvelope(r: RawReply, status: number, what: string): void {
  assert.equal(r.status, status, `${what}: ${r.status} ${r.text.slice(0, 400)}`);
  assert.equal(envelopeProblem('GET', r), undefined, `${what}: ${r.text.slice(0, 400)}`);
}

/** A server of its own for a test that may break it. */
async function withServer(fn: (api: Api, srv: TestServer) => Promise<TestServer | void>): Promise<void> {
  let srv = await startTestServer();
  try {
    srv = (await fn(new Api(srv.server.port, adminAuth), srv)) ?? srv;
  } finally {
    await srv.stop(true).catch(() => undefined);
  }
}

describe('the administration server cannot be lost from the configuration', () => {
  test('DELETE edit/servers/AdminServer is refused, and serverRuntime keeps answering', async () => {
    await withServer(async (api) => {
      const r = await api.del('edit/servers/AdminServer');
      const sr = await api.get('serverRuntime?links=none&fields=name');
      assertEnvelope(r, 400, 'deleting the running administration server');
      assert.equal(sr.status, 200, `GET serverRuntime after the delete: ${sr.status} ${sr.text.slice(0, 300)}`);
    });
  });

  test("POST edit {adminServerName} naming no server is refused, and serverRuntime keeps answering", async () => {
    await withServer(async (api) => {
      for (const value of ['nope', '']) {
        const r = await api.post('edit', { adminServerName: value });
        const sr = await api.get('serverRuntime/JVMRuntime?links=none&fields=name');
        // Put it back (whatever the answer) so the next value is tried on a sound domain.
        await api.post('edit', { adminServerName: 'AdminServer' });
        assert.equal(r.status, 400, `adminServerName ${JSON.stringify(value)}: ${r.status} ${r.text.slice(0, 300)}`);
        assert.equal(sr.status, 200, `GET serverRuntime/JVMRuntime after adminServerName ${JSON.stringify(value)}: ${sr.status} ${sr.text.slice(0, 300)}`);
      }
    });
  });
});

describe('names that are not valid Unicode (a lone surrogate) are refused with 400', () => {
  let srv: TestServer;
  let api: Api;

  before(async () => {
    srv = await startTestServer();
    api = new Api(srv.server.port, adminAuth);
  });

  after(async () => {
    await srv.stop(true);
  });

  for (const [what, path] of [
    ['a Server', 'edit/servers'],
    ['a Cluster', 'edit/clusters'],
    ['a WebserviceLogicalStore of a partition', 'edit/partitions/partition1/webService/webServicePersistence/webServiceLogicalStores'],
  ] as const) {
    test(`creating ${what} named with a lone surrogate`, async () => {
      assertEnvelope(await api.post(path, { name: `a${LONE}b` }), 400, `POST ${path}`);
    });
  }

  for (const coll of ['environments', 'tenants', 'runtimes'] as const) {
    test(`LCM POST ${coll} named with a lone surrogate, and the collection stays readable`, async () => {
      const body = coll === 'runtimes' ? { name: `r${LONE}`, type: 'otd', hostName: 'localhost', port: 9998 } : { name: `x${LONE}` };
      const r = await api.post(`${LCM}/${coll}`, body);
      const list = await api.get(`${LCM}/${coll}?links=none`);
      assertEnvelope(r, 400, `POST ${LCM}/${coll}`);
      assert.equal(list.status, 200, `GET ${LCM}/${coll} afterwards: ${list.status} ${list.text.slice(0, 300)}`);
    });
  }

  test('an edit session named with a lone surrogate is refused, and the server still starts again', async () => {
    await withServer(async (own, s) => {
      const r = await own.post(ESC, { name: `s${LONE}` });
      const write = await own.post('edit', { notes: 'after' });
      let again: TestServer | undefined;
      let startError: unknown;
      try {
        again = await s.restart();
      } catch (err) {
        startError = err;
      }
      assertEnvelope(r, 400, `POST ${ESC}`);
      assert.equal(write.status, 200, `a configuration write afterwards: ${write.status} ${write.text.slice(0, 300)}`);
      assert.equal(startError, undefined, `the server no longer starts: ${String((startError as Error)?.stack ?? startError).slice(0, 400)}`);
      return again;
    });
  });
});

describe('deleting a bean deletes everything below it', () => {
  test('a child under an always-present singleton does not come back with a new bean of the same name', async () => {
    await withServer(async (api, srv) => {
      assert.equal((await api.post('edit/servers/ms1/serverDebug/debugScopes', { name: 'scope1' })).status, 201);
      assert.equal((await api.post('edit/virtualTargets/vt1/webServer/webServerLog', { ELFFields: 'x' })).status, 200);
      assert.equal((await api.del('edit/servers/ms1')).status, 200);
      assert.equal((await api.del('edit/virtualTargets/vt1')).status, 200);
      assert.equal((await api.post('edit/servers', { name: 'ms1' })).status, 201);
      assert.equal((await api.post('edit/virtualTargets', { name: 'vt1' })).status, 201);
      const scopes = await api.get('serverConfig/servers/ms1/serverDebug/debugScopes?links=none&fields=name');
      const log = await api.get('serverConfig/virtualTargets/vt1/webServer/webServerLog?links=none&fields=ELFFields');
      const again = await srv.restart();
      const api2 = new Api(again.server.port, adminAuth);
      const scopes2 = await api2.get('serverConfig/servers/ms1/serverDebug/debugScopes?links=none&fields=name');
      const log2 = await api2.get('serverConfig/virtualTargets/vt1/webServer/webServerLog?links=none&fields=ELFFields');
      assert.deepEqual(scopes.json.items, [], 'the new ms1 shows the deleted ms1 debug scope');
      assert.notEqual(log.json.ELFFields, 'x', 'the new vt1 shows the deleted vt1 web server log settings');
      assert.deepEqual(scopes2.json, scopes.json, 'the configuration read back after a restart differs');
      assert.deepEqual(log2.json, log.json, 'the configuration read back after a restart differs');
      return again;
    });
  });
});

describe('an activation never leaves a reference to a bean that is gone', () => {
  /** Every reference of the listed serverConfig beans resolves. */
  async function danglingOf(api: Api, paths: string[]): Promise<string[]> {
    const out: string[] = [];
    for (const p of paths) {
      const r = await api.get(`serverConfig/${p}?links=none`);
      if (r.status !== 200) continue;
      for (const [prop, value] of Object.entries(r.json)) {
        for (const id of referencesIn(value)) {
          if (prop === 'identity') continue;
          const t = await api.get(`serverConfig/${id.map(encodeURIComponent).join('/')}?links=none&fields=name`);
          if (t.status !== 200) out.push(`${p}.${prop} -> ${id.join('/')}`);
        }
      }
    }
    return out;
  }

  test('a pending delete activated after another session made a bean refer to it', async () => {
    await withServer(async (api) => {
      const sx = { 'appserver.edit.session': 'sx' };
      assert.equal((await api.post(ESC, { name: 'sx' })).status, 201);
      // a list reference
      assert.equal((await api.post('edit/clusters', { name: 'c6' })).status, 201);
      assert.equal((await api.post('edit/changeManager/startEdit', {})).status, 200);
      assert.equal((await api.del('edit/clusters/c6')).status, 200, 'the delete is pending in the default session');
      assert.equal((await api.post('edit/virtualTargets', { name: 'vtz', targets: [{ identity: ['clusters', 'c6'] }] }, sx)).status, 201, 'made and activated in sx');
      const first = await api.post('edit/changeManager/activate', {});
      if (first.status !== 200) await api.post('edit/changeManager/cancelEdit', {});
      // a single reference
      assert.equal((await api.post('edit/clusters', { name: 'c5' })).status, 201);
      assert.equal((await api.post('edit/changeManager/startEdit', {}, sx)).status, 200);
      assert.equal((await api.del('edit/clusters/c5', sx)).status, 200, 'the delete is pending in sx');
      assert.equal((await api.post('edit/servers/ms2', { cluster: ['clusters', 'c5'] })).status, 200, 'activated at once in the default session');
      const second = await api.post('edit/changeManager/activate', {}, sx);
      if (second.status !== 200) await api.post('edit/changeManager/cancelEdit', {}, sx);
      assert.deepEqual(await danglingOf(api, ['virtualTargets/vtz', 'servers/ms2']), [], `activations answered ${first.status} and ${second.status}`);
      const walk = await walkConfig(api, ['servers', 'virtualTargets', 'clusters']);
      assert.deepEqual(walk.dangling, []);
    });
  });
});

describe('an edit session shows no bean that is not there', () => {
  test('a pending update of a bean another activation deleted does not make a ghost named after the domain', async () => {
    await withServer(async (api) => {
      const sx = { 'appserver.edit.session': 'sx' };
      assert.equal((await api.post('edit/clusters', { name: 'c7' })).status, 201);
      assert.equal((await api.post(ESC, { name: 'sx' })).status, 201);
      assert.equal((await api.post('edit/changeManager/startEdit', {}, sx)).status, 200);
      assert.equal((await api.post('edit/clusters/c7', { notes: 'x' }, sx)).status, 200);
      assert.equal((await api.del('edit/clusters/c7')).status, 200);
      const bean = await api.get('edit/clusters/c7?links=none&fields=name,notes', sx);
      const list = await api.get('edit/clusters?links=none&fields=name', sx);
      const listed = list.json.items.some((i: { name: string }) => i.name === 'c7');
      // The session's view is one view: the bean reads back exactly when its collection lists it,
      // and under its own name.
      assert.equal(bean.status === 200, listed, `GET c7 in sx: ${bean.status} ${bean.text.slice(0, 200)}; listed: ${listed}`);
      if (bean.status === 200) assert.equal(bean.json.name, 'c7', `the session shows c7 as ${JSON.stringify(bean.json)}`);
    });
  });
});

describe('every error is the JSON envelope, even the ones raised before routing', () => {
  let srv: TestServer;

  before(async () => {
    srv = await startTestServer();
  });

  after(async () => {
    await srv.stop(true);
  });

  test('a request target over the 16 KB header limit gets a JSON envelope with status 431', async () => {
    const r = await send(srv.server.port, {
      method: 'GET',
      path: `/management/appserver/latest/edit/servers/${'y'.repeat(20_000)}`,
      headers: { authorization: adminAuth, accept: 'application/json' },
    });
    assert.equal(r.status, 431, r.text.slice(0, 300));
    assert.match(String(r.headers['content-type']), /^application\/json\b/);
    assert.equal(r.json?.type, ERROR_TYPE, `not the error envelope: ${r.text.slice(0, 300)}`);
    assert.equal(envelopeProblem('GET', r), undefined, r.text.slice(0, 300));
  });
});
