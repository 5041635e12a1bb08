// A remote domain as a Lifecycle Manager runtime: two servers started here (two data directories).
// The first registers the second as a `wls` runtime, and makes, lists and deletes partitions on it
// through its own lifecycle interface; the second's configuration shows the effects.
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.js';
import {
  addToEnvironment,
  assertDetail,
  assertEmptySuccess,
  assertError,
  association,
  configPartitions,
  createDatabase,
  createEnvironment,
  createRuntimePartition,
  dbTier,
  environments,
  type Http,
  lcOf,
  mOf,
  names,
  ok200,
  partitionRuntimes,
  type Reply,
  runtimePartitions,
  wlsTier,
} from '../support/lcm.js';

let a: TestServer;
let b: TestServer;
let lcA: Http;
let mA: Http;
let mB: Http;

before(async () => {
  a = await startTestServer();
  b = await startTestServer();
  lcA = lcOf(() => a);
  mA = mOf(() => a);
  mB = mOf(() => b);
});

after(async () => {
  await a?.stop(true);
  await b?.stop(true);
});

const remoteBody = (name: string, port: number, password = 'welcome1', hostName = '127.0.0.1') => ({
  name,
  type: 'wls',
  hostName,
  port,
  protocol: 'http',
  properties: [
    { name: 'username', value: 'admin' },
    { name: 'password', value: password },
  ],
});

/** A port nothing listens on (taken from the system, then released). */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

async function runtimeNames(): Promise<string[]> {
  return names(ok200(await lcA.get('runtimes'), 'runtimes'));
}

describe('a remote domain as a runtime', () => {
  test('registering the second server: 201, and its password is never shown', async () => {
    const r = await lcA.post('runtimes', remoteBody('remote1', b.server.port));
    assertEmptySuccess(r, 201, 'register remote1', lcA.url('runtimes/remote1'));
    const rt = await lcA.get('runtimes/remote1');
    const body = ok200(rt, 'remote1');
    assert.deepEqual(
      { type: body.type, hostName: body.hostName, port: body.port, protocol: body.protocol },
      { type: 'wls', hostName: '127.0.0.1', port: b.server.port, protocol: 'http' },
    );
    assert.deepEqual(body.properties.find((p: any) => p.name === 'username'), { name: 'username', value: 'admin' });
    assert.ok(!rt.text.includes('welcome1'), 'the password is not shown');
    assert.ok(!(await lcA.get('runtimes')).text.includes('welcome1'), 'the password is not shown in the list');
  });

  test('a partition made through the first server appears in the second server configuration, and is listed by the first', async () => {
    await createRuntimePartition(lcA, 'remote1', 'remote-p1');
    assert.ok((await configPartitions(mB)).includes('remote-p1'), "remote-p1 in the second server's serverConfig/partitions");
    assert.ok((await partitionRuntimes(mB)).includes('remote-p1'), "remote-p1 in the second server's domainPartitionRuntimes");
    assert.ok(!(await configPartitions(mA)).includes('remote-p1'), 'the first server is not changed');
    const listed = await runtimePartitions(lcA, 'remote1');
    assert.deepEqual([...listed].sort(), ['partition1', 'partition2', 'remote-p1'], 'the remote runtime lists the second domain partitions');
    const p = ok200(await lcA.get('runtimes/remote1/partitions/remote-p1'), 'remote-p1 through the first server');
    const onB = ok200(await mB.get('serverConfig/partitions/remote-p1?links=none'), 'remote-p1 on the second server');
    assert.equal(p.id, onB.partitionID, 'the id is the partitionID of the second server');
    assert.equal(p.runtimeName, 'remote1');
  });

  test('deleting it through the first server removes it from the second', async () => {
    assertEmptySuccess(await lcA.del('runtimes/remote1/partitions/remote-p1'), 200, 'delete remote-p1');
    assert.ok(!(await configPartitions(mB)).includes('remote-p1'), 'remote-p1 is gone from the second server');
    assertError(await mB.get('serverConfig/partitions/remote-p1'), 404, 'serverConfig/partitions/remote-p1 on the second server');
    assert.ok(!(await runtimePartitions(lcA, 'remote1')).includes('remote-p1'));
    assertError(await lcA.get('runtimes/remote1/partitions/remote-p1'), 404, 'GET the deleted remote partition');
  });

  test('partition properties (available targets, resource groups and their settings) reach the remote domain as they reach this one', async () => {
    const properties = [
      { name: 'availableTargets', values: ['vt1'] },
      { name: 'resourceGroups', properties: [{ name: 'rgX', properties: [{ name: 'useDefaultTarget', value: 'false' }] }] },
    ];
    await createRuntimePartition(lcA, 'demo_domain', 'local-props', properties);
    await createRuntimePartition(lcA, 'remote1', 'remote-props', properties);
    const read = async (m: Http, name: string) => {
      const p = ok200(await m.get(`serverConfig/partitions/${name}?links=none`), name);
      const rg = ok200(await m.get(`serverConfig/partitions/${name}/resourceGroups/rgX?links=none`), `${name} rgX`);
      return { availableTargets: p.availableTargets, useDefaultTarget: rg.useDefaultTarget };
    };
    const local = await read(mA, 'local-props');
    assert.deepEqual(local, { availableTargets: [{ identity: ['virtualTargets', 'vt1'] }], useDefaultTarget: false }, 'this domain');
    assert.deepEqual(await read(mB, 'remote-props'), local, 'the remote domain gets the same partition');
    assertEmptySuccess(await lcA.del('runtimes/remote1/partitions/remote-props'), 200, 'clean up remote-props');
    assertEmptySuccess(await lcA.del('runtimes/demo_domain/partitions/local-props'), 200, 'clean up local-props');
  });

  test('a remote partition an environment uses cannot be deleted; an orchestration on the remote runtime rolls back there too', async () => {
    await createDatabase(lcA, 'db1', 'dbhost', 1521);
    await createRuntimePartition(lcA, 'db1', 'pdb-taken');
    await createRuntimePartition(lcA, 'remote1', 'remote-used');
    await createEnvironment(lcA, 'renv');
    await addToEnvironment(lcA, 'renv', 'remote1', 'remote-used');
    assertDetail(assertError(await lcA.del('runtimes/remote1/partitions/remote-used'), 400, 'delete a used remote partition'), /renv/);
    assert.ok((await configPartitions(mB)).includes('remote-used'), 'remote-used stays on the second server');

    const r = await lcA.post('environments', {
      name: 'renv-fail',
      orchestration: { name: 'provision', args: [wlsTier('remote-orch', 'remote1', { resourceGroups: ['rgA'], associateWith: 'db' }), dbTier('pdb-taken', 'db1')] },
    });
    assert.ok(r.status >= 400 && r.status < 500, `the orchestration fails: ${r.status} ${r.text.slice(0, 300)}`);
    assertError(r, r.status, 'failing remote orchestration');
    assert.ok(!(await configPartitions(mB)).includes('remote-orch'), 'the partition made on the second server is removed again');
    assert.ok(!(await environments(lcA)).includes('renv-fail'));
  });

  test('an association of a remote partition with a PDB (jdbcSystemResource) points the remote data source at the PDB', async () => {
    await createRuntimePartition(lcA, 'db1', 'pdb-r');
    await createEnvironment(lcA, 'renv-ds');
    await addToEnvironment(lcA, 'renv-ds', 'remote1', 'partition1');
    await addToEnvironment(lcA, 'renv-ds', 'db1', 'pdb-r');
    const r = await lcA.post('environments/renv-ds/associatePartitions', association('partition1', 'remote1', 'pdb-r', 'db1', [{ name: 'jdbcSystemResource', value: 'partition1-ds' }]));
    assertEmptySuccess(r, 200, 'associate the remote partition1 with pdb-r');
    const params = ok200(
      await mB.get('serverConfig/partitions/partition1/resourceGroups/partition1-rg/JDBCSystemResources/partition1-ds/JDBCResource/JDBCDriverParams?links=none'),
      'remote partition1-ds',
    );
    assert.equal(params.url, 'jdbc:postgresql://dbhost:1521/pdb-r');
  });
});

describe('a runtime is registered without being called, and what is wrong with it shows when it is used', () => {
  /** Registers a remote runtime that cannot be used, then uses it: the use fails naming the runtime; the runtime is removed again. */
  async function registeredThenRefused(name: string, port: number, password: string | undefined, pattern: RegExp): Promise<void> {
    // `localhost`: remote1 already names 127.0.0.1 and this port.
    const r = await lcA.post('runtimes', remoteBody(name, port, password, 'localhost'));
    assertEmptySuccess(r, 201, `register ${name}`, lcA.url(`runtimes/${name}`));
    const used = await lcA.get(`runtimes/${name}/partitions`);
    assert.ok(used.status === 400 || used.status === 502 || used.status === 504, `${name}: using it should fail, got ${used.status} ${used.text.slice(0, 300)}`);
    assertDetail(assertError(used, used.status, `${name} used`), pattern);
    assertEmptySuccess(await lcA.del(`runtimes/${name}`), 200, `unregister ${name}`);
  }

  test('a wrong password: registered, and its first use says the password was refused', async () => {
    await registeredThenRefused('remote-badpw', b.server.port, 'not-the-password', /remote-badpw.*(user name and password|refused)/);
  });

  test('an unreachable port: registered, and its first use says it cannot be reached', async () => {
    await registeredThenRefused('remote-down', await closedPort(), undefined, /remote-down/);
  });

  test('an HTTP server that is not an appserver-admin server: its first use is a JSON error naming the runtime, not an internal error', async () => {
    const html = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body>not a domain</body></html>');
    });
    await new Promise<void>((resolve) => html.listen(0, '127.0.0.1', resolve));
    try {
      await registeredThenRefused('remote-html', (html.address() as net.AddressInfo).port, undefined, /remote-html/);
    } finally {
      html.closeAllConnections();
      await new Promise<void>((resolve) => html.close(() => resolve()));
    }
  });

  test('the same host and port under another name: 400 naming them', async () => {
    const before = await runtimeNames();
    const r = await lcA.post('runtimes', remoteBody('remote-again', b.server.port));
    assertDetail(assertError(r, 400, 'same host and port'), new RegExp(String(b.server.port)));
    assert.deepEqual(await runtimeNames(), before);
  });
});

describe('after a restart of the first server', () => {
  test('the remote runtime is still driven with its stored password', async () => {
    a = await a.restart();
    const listed = await runtimePartitions(lcA, 'remote1');
    assert.ok(listed.includes('partition1') && listed.includes('remote-used'), `remote partitions after the restart: ${listed.join(', ')}`);
    await createRuntimePartition(lcA, 'remote1', 'remote-after');
    assert.ok((await configPartitions(mB)).includes('remote-after'));
    assertEmptySuccess(await lcA.del('runtimes/remote1/partitions/remote-after'), 200, 'delete remote-after');
    assert.ok(!(await configPartitions(mB)).includes('remote-after'));
  });
});
