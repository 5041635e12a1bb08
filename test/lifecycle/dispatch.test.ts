// The Lifecycle Manager through the same dispatch as the management trees: HEAD and the shaping
// query parameters work there too, a wrong method gets 405 with the methods the resource takes, a
// missing resource is a 404 whatever the method, every change (actions included) is audited, and a
// remote runtime is asked for its partitions only when the request needs them.
import assert from 'node:assert/strict';
import http from 'node:http';
import type net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { call, startTestServer, type TestServer } from '../support/server.js';
import {
  addToEnvironment,
  assertDetail,
  assertEmptySuccess,
  assertError,
  association,
  createDatabase,
  createEnvironment,
  createRuntimePartition,
  createTenant,
  type Http,
  lcOf,
  mOf,
  ok200,
  rels,
} from '../support/lcm.js';

let srv: TestServer;
let lc: Http;
let m: Http;

before(async () => {
  srv = await startTestServer();
  lc = lcOf(() => srv);
  m = mOf(() => srv);
  await createDatabase(lc, 'db1');
  await createRuntimePartition(lc, 'db1', 'pdb-a');
  await createEnvironment(lc, 'env1');
  await addToEnvironment(lc, 'env1', 'demo_domain', 'partition1');
  await addToEnvironment(lc, 'env1', 'db1', 'pdb-a');
  await createTenant(lc, 't1');
});

after(async () => {
  await srv?.stop(true);
});

describe('reads', () => {
  test('HEAD answers like GET, without a body, as on the management trees', async () => {
    for (const path of ['', 'environments', 'environments/env1', 'environmentCreateForm', 'environments/env1/runtimes/db1/partitions/pdb-a', 'runtimes/db1/partitions']) {
      const r = await call(lc.url(path), { method: 'HEAD' });
      assert.equal(r.status, 200, `HEAD LC/${path}`);
      assert.equal(r.text, '');
    }
    assert.equal((await call(`${srv.origin}/management/lifecycle`, { method: 'HEAD' })).status, 200);
  });

  test('fields, excludeFields, links and excludeLinks shape bodies, items and forms', async () => {
    const full = ok200(await lc.get('runtimes'), 'runtimes').items;
    const runtimes = ok200(await lc.get('runtimes?fields=name,port&links=self'), 'runtimes');
    assert.deepEqual(rels(runtimes), ['self']);
    assert.deepEqual(
      runtimes.items.map((i: any) => ({ ...i, links: rels(i) })),
      full.map((i: any) => ({ links: ['self'], name: i.name, port: i.port })),
    );
    const env = ok200(await lc.get('environments/env1?excludeLinks=associatePartitions,dissociatePartitions,deprovision&excludeFields=associations'), 'env1');
    assert.deepEqual(rels(env), ['parent', 'self', 'canonical', 'partitionCreateForm', 'partitions']);
    assert.deepEqual(Object.keys(env), ['links', 'name']);
    const form = ok200(await lc.get('runtimeCreateForm?links=none&fields=type,port'), 'runtimeCreateForm');
    assert.deepEqual(form, { type: 'wls', port: 7001 });
    const partition = ok200(await lc.get('runtimes/db1/partitions/pdb-a?links=environment&fields=environment'), 'pdb-a');
    assert.deepEqual(partition, { links: [{ rel: 'environment', href: lc.url('environments/env1') }] }, 'a reference link, never a field');
  });

  test("the shaping parameters' own errors are those of the other trees", async () => {
    const both = assertError(await lc.get('tenants?fields=name&excludeFields=id'), 400, 'fields and excludeFields');
    assertDetail(both, /cannot be used together/);
    const mgmt = assertError(await m.get('edit/servers?fields=name&excludeFields=id'), 400, 'the same on the edit tree');
    assert.deepEqual(both, mgmt);
  });

  test('no search at the Lifecycle Manager: no link, and 404', async () => {
    assert.ok(!rels(ok200(await lc.get(''), 'version')).includes('search'));
    assertError(await lc.post('search', {}), 404, 'POST LC/search');
  });
});

describe('methods', () => {
  const cases: [string, string, string][] = [
    ['PUT', '', 'GET'],
    ['DELETE', 'environments', 'GET, POST'],
    ['POST', 'environments/env1', 'GET, DELETE'],
    ['PATCH', 'runtimes/db1', 'GET, POST, DELETE'],
    ['POST', 'runtimes/db1/partitions/pdb-a', 'GET, DELETE'],
    ['POST', 'environments/env1/runtimes/db1/partitions/pdb-a', 'GET, DELETE'],
    ['POST', 'plugins', 'GET'],
    ['DELETE', 'plugins/appserver-runtime', 'GET'],
    ['POST', 'environmentCreateForm', 'GET'],
    ['DELETE', 'environments/env1/partitionCreateForm', 'GET'],
    ['DELETE', 'environments/env1/associatePartitions', 'POST'],
    ['GET', 'environments/env1/deprovision', 'POST'],
    ['DELETE', '', 'GET'],
  ];
  for (const [method, path, allow] of cases) {
    test(`${method} LC/${path}: 405, Allow ${allow}`, async () => {
      const r = await call(lc.url(path), { method, headers: { 'x-requested-by': 't' } });
      assertError(r, 405, `${method} ${path}`);
      assert.equal(r.headers.get('allow'), allow);
    });
  }

  test('a resource that does not exist is a 404 whatever the method, as on the management trees', async () => {
    for (const [method, path, name] of [
      ['POST', 'environments/nope', 'nope'],
      ['PUT', 'runtimes/nope', 'nope'],
      ['DELETE', 'tenants/t1/services/nope/PDB', 'nope'],
      ['POST', 'environments/env1/runtimes/db1/partitions/nope', 'nope'],
    ] as const) {
      const r = await call(lc.url(path), { method, headers: { 'x-requested-by': 't' }, ...(method === 'POST' ? { body: {} } : {}) });
      assertDetail(assertError(r, 404, `${method} ${path}`), `'${name}'`);
    }
    const m405 = await call(`${srv.latest}/edit/servers/nope`, { method: 'PUT', headers: { 'x-requested-by': 't' } });
    assertError(m405, 404, 'the same on the edit tree');
  });
});

describe('changes', () => {
  test('actions are audited like every other change, as POST on their path below lifecycle/', async () => {
    assertEmptySuccess(await lc.post('environments/env1/associatePartitions', association('partition1', 'demo_domain', 'pdb-a', 'db1')), 200, 'associate');
    assertEmptySuccess(await lc.post('environments/env1/dissociatePartitions', association('partition1', 'demo_domain', 'pdb-a', 'db1')), 200, 'dissociate');
    assertError(await lc.post('environments/env1/dissociatePartitions', association('partition1', 'demo_domain', 'pdb-a', 'db1')), 400, 'dissociate again');
    const records = ok200(await m.get('domainRuntime/auditRecords?links=none&fields=action,bean,outcome'), 'audit records').items;
    const mine = records.filter((r: any) => r.bean.startsWith('lifecycle/environments/env1/'));
    assert.deepEqual(mine.slice(0, 3), [
      { action: 'POST', bean: 'lifecycle/environments/env1/dissociatePartitions', outcome: 'failure' },
      { action: 'POST', bean: 'lifecycle/environments/env1/dissociatePartitions', outcome: 'success' },
      { action: 'POST', bean: 'lifecycle/environments/env1/associatePartitions', outcome: 'success' },
    ]);
  });

  test('a POST to a PDB that exists is refused (it is made once); the Location of a new one is its URL', async () => {
    assertEmptySuccess(await lc.post('tenants/t1/services', { name: 's1' }), 201, 'service', lc.url('tenants/t1/services/s1'));
    assertEmptySuccess(await lc.post('tenants/t1/services/s1/PDB', { name: 'pdb-s1' }), 201, 'PDB', lc.url('tenants/t1/services/s1/PDB'));
    assertDetail(assertError(await lc.post('tenants/t1/services/s1/PDB', { name: 'pdb-s1b' }), 400, 'a second PDB'), /already has a PDB/);
    assert.equal(ok200(await lc.get('tenants/t1/services/s1/PDB'), 'PDB').name, 'pdb-s1');
  });
});

describe('a remote runtime is asked for its partitions only when the request needs them', () => {
  let remote: http.Server;
  let port: number;
  const seen: string[] = [];
  const made = new Set<string>();

  before(async () => {
    // An administration server with partitions, answering the calls the Lifecycle Manager makes.
    remote = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const path = new URL(req.url ?? '/', 'http://x').pathname;
        seen.push(`${req.method} ${path}`);
        const answer = (status: number, json: unknown) => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(json));
        };
        if (req.method === 'GET') return answer(200, { items: [...made].map((name) => ({ name, partitionID: `id-${name}` })) });
        if (req.method === 'POST') made.add(JSON.parse(body).name);
        if (req.method === 'DELETE') made.delete(decodeURIComponent(path.split('/').pop()!));
        answer(req.method === 'POST' ? 201 : 200, {});
      });
    });
    await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
    port = (remote.address() as net.AddressInfo).port;
    const properties = [
      { name: 'username', value: 'admin' },
      { name: 'password', value: 'x' },
    ];
    assertEmptySuccess(await lc.post('runtimes', { name: 'far', type: 'wls', hostName: '127.0.0.1', port, protocol: 'http', properties }), 201, 'register', lc.url('runtimes/far'));
  });

  after(async () => {
    remote.closeAllConnections();
    await new Promise<void>((resolve) => remote.close(() => resolve()));
  });

  /** The calls the remote got while `run` ran. */
  async function calls(run: () => Promise<unknown>): Promise<string[]> {
    const from = seen.length;
    await run();
    return seen.slice(from);
  }

  const LIST = 'GET /management/appserver/latest/edit/partitions';

  test('reading the runtime or its form: no call', async () => {
    assert.deepEqual(await calls(async () => ok200(await lc.get('runtimes/far'), 'far')), []);
    assert.deepEqual(await calls(async () => ok200(await lc.get('runtimes/far/partitionCreateForm'), 'form')), []);
  });

  test('creating a partition: the creation only, no list first', async () => {
    const got = await calls(async () => assertEmptySuccess(await lc.post('runtimes/far/partitions', { name: 'rp1' }), 201, 'create', lc.url('runtimes/far/partitions/rp1')));
    assert.deepEqual(got, ['POST /management/appserver/latest/edit/partitions']);
  });

  test('listing the partitions, or reading one: one list', async () => {
    const list = await calls(async () => assert.deepEqual(ok200(await lc.get('runtimes/far/partitions'), 'list').items.map((i: any) => i.name), ['rp1']));
    assert.deepEqual(list, [LIST]);
    const one = await calls(async () => assert.equal(ok200(await lc.get('runtimes/far/partitions/rp1'), 'rp1').id, 'id-rp1'));
    assert.deepEqual(one, [LIST]);
    const missing = await calls(async () => assertError(await lc.get('runtimes/far/partitions/nope'), 404, 'nope'));
    assert.deepEqual(missing, [LIST]);
  });

  test('deleting one: it is found in the list, then deleted', async () => {
    const got = await calls(async () => assertEmptySuccess(await lc.del('runtimes/far/partitions/rp1'), 200, 'delete'));
    assert.equal(got.at(-1), 'DELETE /management/appserver/latest/edit/partitions/rp1');
    assert.deepEqual(new Set(got.slice(0, -1)), new Set([LIST]));
    assert.deepEqual([...made], []);
  });
});
