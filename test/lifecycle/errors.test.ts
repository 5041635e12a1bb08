// Lifecycle errors: unknown names (404), duplicates (400 naming the duplicate), associations of
// partitions outside the environment, a Monitor who reads everything and changes nothing (403),
// bad bodies (400 naming the field), and the headers every change needs.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { basic, call, startTestServer, type TestServer } from '../support/server.js';
import {
  addToEnvironment,
  assertDetail,
  assertEmptySuccess,
  assertError,
  association,
  createDatabase,
  createEnvironment,
  createRuntimePartition,
  createService,
  createTenant,
  createUserIn,
  CSRF,
  environments,
  type Http,
  lcOf,
  mOf,
  names,
  ok200,
  type Reply,
  runtimePartitions,
} from '../support/lcm.js';

let srv: TestServer;
let lc: Http;
let m: Http;
let monitor: Http;

before(async () => {
  srv = await startTestServer();
  lc = lcOf(() => srv);
  m = mOf(() => srv);
  await createDatabase(lc, 'db1', 'dbhost', 1521);
  await createRuntimePartition(lc, 'db1', 'pdb-a');
  await createRuntimePartition(lc, 'db1', 'pdb-b');
  await createEnvironment(lc, 'env1');
  await addToEnvironment(lc, 'env1', 'demo_domain', 'partition1');
  await addToEnvironment(lc, 'env1', 'db1', 'pdb-a');
  assertEmptySuccess(await lc.post('environments/env1/associatePartitions', association('partition1', 'demo_domain', 'pdb-a', 'db1')), 200, 'associate');
  await createTenant(lc, 't1');
  await createService(lc, 't1', { name: 's1', serviceType: 'JaaS', environmentRef: 'env1' });
  await createService(lc, 't1', { name: 's-nopdb', serviceType: 'JaaS' });
  assertEmptySuccess(await lc.post('tenants/t1/services/s1/PDB', { name: 'pdb-s1', id: 'id-s1', status: 'ACTIVE' }), 201, 'PDB', lc.url('tenants/t1/services/s1/PDB'));
  monitor = lc.as(await createUserIn(m, 'lcmonitor', 'Monitor#Pass1', 'Monitors'));
});

after(async () => {
  await srv?.stop(true);
});

describe('unknown names: 404 JSON', () => {
  const cases: [string, 'GET' | 'POST' | 'DELETE', string, unknown?][] = [
    ['unknown environment', 'GET', 'environments/nope'],
    ['unknown environment', 'DELETE', 'environments/nope'],
    ['unknown environment', 'GET', 'environments/nope/partitions'],
    ['unknown environment', 'GET', 'environments/nope/partitionCreateForm'],
    ['unknown environment', 'POST', 'environments/nope/partitions', { name: 'partition1', runtimeName: 'demo_domain' }],
    ['unknown environment', 'POST', 'environments/nope/associatePartitions', association('partition1', 'demo_domain', 'pdb-a', 'db1')],
    ['unknown environment', 'POST', 'environments/nope/dissociatePartitions', association('partition1', 'demo_domain', 'pdb-a', 'db1')],
    ['unknown environment', 'POST', 'environments/nope/deprovision', {}],
    ['unknown environment', 'GET', 'environments/nope/runtimes/demo_domain/partitions/partition1'],
    ['unknown runtime', 'GET', 'runtimes/nope'],
    ['unknown runtime', 'DELETE', 'runtimes/nope'],
    ['unknown runtime', 'POST', 'runtimes/nope', { port: 1522 }],
    ['unknown runtime', 'GET', 'runtimes/nope/partitions'],
    ['unknown runtime', 'GET', 'runtimes/nope/partitionCreateForm'],
    ['unknown runtime', 'POST', 'runtimes/nope/partitions', { name: 'x' }],
    ['unknown runtime', 'GET', 'environments/env1/runtimes/nope/partitions/partition1'],
    ['unknown partition', 'GET', 'runtimes/demo_domain/partitions/nope'],
    ['unknown partition', 'DELETE', 'runtimes/demo_domain/partitions/nope'],
    ['unknown partition', 'GET', 'runtimes/db1/partitions/nope'],
    ['unknown partition', 'DELETE', 'runtimes/db1/partitions/nope'],
    ['unknown partition', 'GET', 'environments/env1/runtimes/demo_domain/partitions/nope'],
    ['unknown partition', 'DELETE', 'environments/env1/runtimes/demo_domain/partitions/nope'],
    ['partition not in the environment', 'GET', 'environments/env1/runtimes/demo_domain/partitions/partition2'],
    ['unknown tenant', 'GET', 'tenants/nope'],
    ['unknown tenant', 'DELETE', 'tenants/nope'],
    ['unknown tenant', 'GET', 'tenants/nope/services'],
    ['unknown tenant', 'POST', 'tenants/nope/services', { name: 's9', serviceType: 'JaaS' }],
    ['unknown tenant', 'GET', 'tenants/nope/services/s1'],
    ['unknown service', 'GET', 'tenants/t1/services/nope'],
    ['unknown service', 'POST', 'tenants/t1/services/nope', { topLevelDir: '/x' }],
    ['unknown service', 'DELETE', 'tenants/t1/services/nope'],
    ['unknown service', 'GET', 'tenants/t1/services/nope/PDB'],
    ['unknown service', 'POST', 'tenants/t1/services/nope/PDB', { name: 'p', id: 'i', status: 'ACTIVE' }],
    ['unknown service', 'GET', 'tenants/t1/services/nope/PDBCreateForm'],
    ['no PDB yet', 'GET', 'tenants/t1/services/s-nopdb/PDB'],
    ['no PDB yet', 'DELETE', 'tenants/t1/services/s-nopdb/PDB'],
    ['unknown plugin', 'GET', 'plugins/nope'],
    ['unknown resource', 'GET', 'nope'],
  ];
  for (const [what, method, path, body] of cases) {
    test(`${what}: ${method} LC/${path}`, async () => {
      const r = method === 'GET' ? await lc.get(path) : method === 'DELETE' ? await lc.del(path) : await lc.post(path, body);
      assertError(r, 404, `${method} ${path}`);
    });
  }

  test('an unknown lifecycle version: 404 JSON', async () => {
    assertError(await call(`${srv.origin}/management/lifecycle/9.9.9/environments`), 404, 'unknown version');
  });

  test('the failed requests changed nothing', async () => {
    assert.deepEqual(await environments(lc), ['env1']);
    assert.deepEqual(names(ok200(await lc.get('runtimes'), 'runtimes')), ['demo_domain', 'db1']);
    assert.deepEqual(names(ok200(await lc.get('tenants/t1/services'), 'services')), ['s1', 's-nopdb']);
  });
});

describe('duplicates: 400 JSON naming the duplicate', () => {
  const duplicate = (r: Reply, name: string, what: string) => assertDetail(assertError(r, 400, what), new RegExp(`${name}.*already|already.*${name}`));

  test('environment', async () => {
    duplicate(await lc.post('environments', { name: 'env1' }), 'env1', 'duplicate environment');
    assert.deepEqual(await environments(lc), ['env1']);
  });

  test('environment, with an orchestration: refused before anything is made', async () => {
    const r = await lc.post('environments', {
      name: 'env1',
      orchestration: { name: 'provision', args: [{ name: 'wls', properties: [{ name: 'partitionName', value: 'p-dup' }, { name: 'runtimeName', value: 'demo_domain' }] }] },
    });
    duplicate(r, 'env1', 'duplicate orchestrated environment');
    assert.ok(!(await runtimePartitions(lc, 'demo_domain')).includes('p-dup'), 'no partition made');
  });

  test('runtime (by name, and a wls runtime by host and port)', async () => {
    duplicate(await lc.post('runtimes', { name: 'db1', type: 'database', hostName: 'other', port: 1 }), 'db1', 'duplicate runtime');
    duplicate(await lc.post('runtimes', { name: 'demo_domain', type: 'database', hostName: 'other', port: 1 }), 'demo_domain', 'a runtime named like this domain');
    assert.deepEqual(names(ok200(await lc.get('runtimes'), 'runtimes')), ['demo_domain', 'db1']);
    assert.equal(ok200(await lc.get('runtimes/db1'), 'db1').hostName, 'dbhost', 'db1 is unchanged');
  });

  test('tenant', async () => {
    duplicate(await lc.post('tenants', { name: 't1' }), 't1', 'duplicate tenant');
    assert.deepEqual(names(ok200(await lc.get('tenants'), 'tenants')), ['t1']);
  });

  test('service', async () => {
    duplicate(await lc.post('tenants/t1/services', { name: 's1', serviceType: 'JaaS' }), 's1', 'duplicate service');
    assert.deepEqual(names(ok200(await lc.get('tenants/t1/services'), 'services')), ['s1', 's-nopdb']);
  });

  test('runtime partition, on a database and on this domain', async () => {
    duplicate(await lc.post('runtimes/db1/partitions', { name: 'pdb-a' }), 'pdb-a', 'duplicate PDB partition');
    duplicate(await lc.post('runtimes/demo_domain/partitions', { name: 'partition1' }), 'partition1', 'duplicate partition of this domain');
  });

  test('a partition added twice to an environment, a second PDB, an association made twice: 400', async () => {
    assertDetail(assertError(await lc.post('environments/env1/partitions', { name: 'pdb-a', runtimeName: 'db1' }), 400, 'partition added twice'), /pdb-a/);
    assertError(await lc.post('tenants/t1/services/s1/PDB', { name: 'pdb-other', id: 'x', status: 'ACTIVE' }), 400, 'second PDB');
    assertError(await lc.post('environments/env1/associatePartitions', association('partition1', 'demo_domain', 'pdb-a', 'db1')), 400, 'association made twice');
  });
});

describe('associations need both partitions in the environment', () => {
  test('a partition of the runtime that is not in the environment: 400 naming it, nothing associated', async () => {
    const before = ok200(await lc.get('environments/env1'), 'env1').associations;
    const r = await lc.post('environments/env1/associatePartitions', association('partition1', 'demo_domain', 'pdb-b', 'db1'));
    assertDetail(assertError(r, 400, 'pdb-b not in env1'), /pdb-b/);
    const r2 = await lc.post('environments/env1/associatePartitions', association('partition2', 'demo_domain', 'pdb-a', 'db1'));
    assertDetail(assertError(r2, 400, 'partition2 not in env1'), /partition2/);
    assert.deepEqual(ok200(await lc.get('environments/env1'), 'env1').associations, before);
  });

  test('dissociating partitions not in the environment, or not associated: 400', async () => {
    assertError(await lc.post('environments/env1/dissociatePartitions', association('partition2', 'demo_domain', 'pdb-b', 'db1')), 400, 'dissociate strangers');
  });

  test('adding a partition the runtime does not have: 4xx JSON naming it', async () => {
    const r = await lc.post('environments/env1/partitions', { name: 'no-such-partition', runtimeName: 'demo_domain' });
    assert.ok(r.status === 400 || r.status === 404, `${r.status} ${r.text}`);
    assertDetail(assertError(r, r.status, 'unknown partition'), /no-such-partition/);
    const r2 = await lc.post('environments/env1/partitions', { name: 'partition2', runtimeName: 'no-such-runtime' });
    assert.ok(r2.status === 400 || r2.status === 404, `${r2.status} ${r2.text}`);
    assertDetail(assertError(r2, r2.status, 'unknown runtime'), /no-such-runtime/);
  });
});

describe('a Monitor reads every lifecycle resource and changes none', () => {
  const READABLE = [
    '',
    'environmentCreateForm',
    'environments',
    'environments/env1',
    'environments/env1/partitionCreateForm',
    'environments/env1/partitions',
    'environments/env1/runtimes/demo_domain/partitions/partition1',
    'environments/env1/runtimes/db1/partitions/pdb-a',
    'runtimeCreateForm',
    'runtimes',
    'runtimes/demo_domain',
    'runtimes/demo_domain/partitionCreateForm',
    'runtimes/demo_domain/partitions',
    'runtimes/demo_domain/partitions/partition1',
    'runtimes/db1',
    'runtimes/db1/partitions',
    'runtimes/db1/partitions/pdb-a',
    'tenantCreateForm',
    'tenants',
    'tenants/t1',
    'tenants/t1/serviceCreateForm',
    'tenants/t1/services',
    'tenants/t1/services/s1',
    'tenants/t1/services/s1/PDB',
    'tenants/t1/services/s1/PDBCreateForm',
    'plugins',
  ];

  test('GET of every lifecycle resource: 200', async () => {
    const list = await call(`${srv.origin}/management/lifecycle/`, { auth: monitor.auth });
    ok200(list, 'the version list as a Monitor');
    for (const path of READABLE) ok200(await monitor.get(path), `Monitor GET LC/${path}`);
  });

  const CHANGES: [string, 'POST' | 'DELETE', string, unknown?][] = [
    ['create an environment', 'POST', 'environments', { name: 'mon-env' }],
    ['delete an environment', 'DELETE', 'environments/env1'],
    ['add a partition to an environment', 'POST', 'environments/env1/partitions', { name: 'pdb-b', runtimeName: 'db1' }],
    ['remove a partition from an environment', 'DELETE', 'environments/env1/runtimes/db1/partitions/pdb-a'],
    ['associate', 'POST', 'environments/env1/associatePartitions', association('partition1', 'demo_domain', 'pdb-a', 'db1')],
    ['dissociate', 'POST', 'environments/env1/dissociatePartitions', association('partition1', 'demo_domain', 'pdb-a', 'db1')],
    ['deprovision', 'POST', 'environments/env1/deprovision', {}],
    ['register a runtime', 'POST', 'runtimes', { name: 'mon-db', type: 'database', hostName: 'h', port: 1 }],
    ['update a runtime', 'POST', 'runtimes/db1', { port: 1599 }],
    ['unregister a runtime', 'DELETE', 'runtimes/db1'],
    ['create a runtime partition', 'POST', 'runtimes/demo_domain/partitions', { name: 'mon-p' }],
    ['delete a runtime partition', 'DELETE', 'runtimes/db1/partitions/pdb-b'],
    ['create a tenant', 'POST', 'tenants', { name: 'mon-t' }],
    ['update a tenant', 'POST', 'tenants/t1', { topLevelDir: '/mon' }],
    ['delete a tenant', 'DELETE', 'tenants/t1'],
    ['create a service', 'POST', 'tenants/t1/services', { name: 'mon-s', serviceType: 'JaaS' }],
    ['update a service', 'POST', 'tenants/t1/services/s1', { topLevelDir: '/mon' }],
    ['delete a service', 'DELETE', 'tenants/t1/services/s-nopdb'],
    ['create a PDB', 'POST', 'tenants/t1/services/s-nopdb/PDB', { name: 'mon-pdb', id: 'm', status: 'ACTIVE' }],
    ['delete a PDB', 'DELETE', 'tenants/t1/services/s1/PDB'],
  ];

  let before: string[];
  test('every POST and DELETE: 403 JSON', async () => {
    before = await Promise.all(READABLE.map(async (p) => (await lc.get(p)).text));
    for (const [what, method, path, body] of CHANGES) {
      const r = method === 'DELETE' ? await monitor.del(path) : await monitor.post(path, body);
      assertError(r, 403, `Monitor may not ${what} (${method} LC/${path})`);
    }
  });

  test('and nothing changed', async () => {
    assert.ok(before, 'the previous test read the resources');
    const afterTexts = await Promise.all(READABLE.map(async (p) => (await lc.get(p)).text));
    for (const [i, path] of READABLE.entries()) assert.equal(afterTexts[i], before[i], `LC/${path} changed`);
    assert.ok(!(await runtimePartitions(lc, 'demo_domain')).includes('mon-p'));
  });
});

describe('bad bodies: 400 JSON naming the field', () => {
  const field = async (r: Promise<Reply>, path: string, what: string, detail: RegExp = /./) => assertDetail(assertError(await r, 400, what), detail, path);

  test('an environment without a name, with an empty or non-string name', async () => {
    await field(lc.post('environments', {}), 'name', 'no name', /name/);
    await field(lc.post('environments', { name: '' }), 'name', 'empty name');
    await field(lc.post('environments', { name: { x: 1 } }), 'name', 'object name');
    await field(lc.post('environments', { name: 'a/b' }), 'name', 'a name with a slash');
    assert.deepEqual(await environments(lc), ['env1']);
  });

  test('an environment whose orchestration is not an object, or lacks name or args', async () => {
    await field(lc.post('environments', { name: 'bad-o1', orchestration: 'provision' }), 'orchestration', 'orchestration a string');
    await field(lc.post('environments', { name: 'bad-o2', orchestration: { args: [] } }), 'orchestration', 'orchestration without name');
    await field(lc.post('environments', { name: 'bad-o3', orchestration: { name: 'provision', args: [] } }), 'orchestration', 'orchestration without args');
    const r = await lc.post('environments', { name: 'bad-o4', orchestration: { name: 'provision', args: 'wls' } });
    assertDetail(assertError(r, 400, 'args not an array'), /args/);
    assert.deepEqual(await environments(lc), ['env1']);
  });

  test('a runtime with a bad type', async () => {
    await field(lc.post('runtimes', { name: 'bad-t', type: 'mainframe', hostName: 'h', port: 1 }), 'type', 'bad type', /mainframe/);
    await field(lc.post('runtimes', { name: 'bad-t2', type: 7, hostName: 'h', port: 1 }), 'type', 'a number as type');
  });

  test('a runtime with a bad port', async () => {
    const accepted: string[] = [];
    for (const [i, port] of ['abc', 0, 70000, -1, 1.5, true, [1521], { n: 1 }].entries()) {
      const name = `bad-port-${i}`;
      const r = await lc.post('runtimes', { name, type: 'database', hostName: 'h', port });
      if (r.status < 300) {
        // Accepted: remember it, and unregister it so that later tests see the runtimes they expect.
        accepted.push(`${JSON.stringify(port)} -> ${r.status}, port ${JSON.stringify(ok200(await lc.get(`runtimes/${name}`), name).port)}`);
        await lc.del(`runtimes/${name}`);
        continue;
      }
      assertDetail(assertError(r, 400, `port ${JSON.stringify(port)}`), /./, 'port');
    }
    assert.deepEqual(accepted, [], 'runtimes registered with a port that is not an integer from 1 to 65535');
    await field(lc.post('runtimes/db1', { port: 'abc' }), 'port', 'update with a bad port');
    assert.equal(ok200(await lc.get('runtimes/db1'), 'db1').port, 1521);
  });

  test('properties that are not an array, or entries without a name', async () => {
    await field(lc.post('runtimes', { name: 'bad-props', type: 'database', hostName: 'h', port: 1, properties: { username: 'x' } }), 'properties', 'properties an object');
    await field(lc.post('runtimes', { name: 'bad-props', type: 'database', hostName: 'h', port: 1, properties: 'x' }), 'properties', 'properties a string');
    await field(lc.post('runtimes', { name: 'bad-props', type: 'database', hostName: 'h', port: 1, properties: [{ value: 'x' }] }), 'properties', 'a property without a name');
    await field(lc.post('runtimes/db1/partitions', { name: 'bad-pp', properties: 5 }), 'properties', 'partition properties a number');
    await field(lc.post('environments/env1/associatePartitions', { ...association('partition1', 'demo_domain', 'pdb-a', 'db1'), properties: 'x' }), 'properties', 'association properties a string');
    assert.deepEqual(names(ok200(await lc.get('runtimes'), 'runtimes')), ['demo_domain', 'db1']);
  });

  test('environment partitions and associations missing a field', async () => {
    await field(lc.post('environments/env1/partitions', { name: 'pdb-b' }), 'runtimeName', 'no runtimeName');
    await field(lc.post('environments/env1/partitions', { runtimeName: 'db1' }), 'name', 'no name');
    const { partition2Name: _drop, ...noSecond } = association('partition1', 'demo_domain', 'pdb-a', 'db1');
    await field(lc.post('environments/env1/associatePartitions', noSecond), 'partition2Name', 'association without partition2Name');
  });

  test('tenants, services and PDBs without a name', async () => {
    await field(lc.post('tenants', { topLevelDir: '/x' }), 'name', 'tenant without a name');
    await field(lc.post('tenants/t1/services', { serviceType: 'JaaS' }), 'name', 'service without a name');
    await field(lc.post('tenants/t1/services/s-nopdb/PDB', { id: 'x', status: 'ACTIVE' }), 'name', 'PDB without a name');
    assertError(await lc.get('tenants/t1/services/s-nopdb/PDB'), 404, 'no PDB was made');
  });

  test('a body that is not a JSON object: 400 JSON', async () => {
    assertError(await lc.post('environments', [{ name: 'x' }]), 400, 'array body');
    assertError(await lc.post('environments', '{"name": '), 400, 'truncated JSON');
  });
});

describe('headers', () => {
  test('a change without X-Requested-By: 400 JSON, nothing made', async () => {
    const r = await call(lc.url('environments'), { method: 'POST', body: { name: 'no-csrf' } });
    assertDetail(assertError(r, 400, 'no X-Requested-By'), /X-Requested-By/);
    const d = await call(lc.url('environments/env1'), { method: 'DELETE' });
    assertError(d, 400, 'DELETE without X-Requested-By');
    assert.deepEqual(await environments(lc), ['env1']);
  });

  test('no or wrong credentials: 401 JSON', async () => {
    assertError(await call(lc.url('environments'), { auth: null }), 401, 'no credentials');
    assertError(await call(lc.url('environments'), { method: 'POST', auth: basic('admin', 'wrong'), headers: { ...CSRF }, body: { name: 'x' } }), 401, 'wrong password');
  });
});
