// The Lifecycle Manager's records survive a restart: runtimes (with their partitions), environments
// (partitions, associations, what an orchestration provisioned), tenants, services and PDBs read
// back the same, and confidential values are never shown in clear, before or after, nor stored in
// clear.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.js';
import {
  addToEnvironment,
  assertEmptySuccess,
  association,
  configPartitions,
  createDatabase,
  createEnvironment,
  createRuntimePartition,
  createService,
  createTenant,
  dbTier,
  storedIn,
  type Http,
  lcOf,
  mOf,
  ok200,
  runtimePartitions,
  wlsTier,
} from '../support/lcm.js';

let srv: TestServer;
let lc: Http;
let m: Http;

/** Confidential values sent in this file; none may ever come back, nor be stored in clear. */
const SECRETS = {
  databasePassword: 'db1-secret-Zq81',
  trafficDirectorPassword: 'otd-secret-Kw27',
  nestedConfidential: 'otd-nested-secret-Pp05',
  partitionConfidential: 'pdb-partition-secret-Lx33',
  associationConfidential: 'association-secret-Mm64',
};

/** The lifecycle resources compared across the restart. */
const RESOURCES = [
  'runtimes',
  'runtimes/demo_domain',
  'runtimes/db1',
  'runtimes/otd1',
  'runtimes/db1/partitions',
  'runtimes/db1/partitions/pdb-a',
  'runtimes/demo_domain/partitions',
  'runtimes/demo_domain/partitions/p-persist',
  'runtimes/demo_domain/partitions/partition1',
  'environments',
  'environments/env-a',
  'environments/env-o',
  'environments/env-a/partitions',
  'environments/env-o/partitions',
  'environments/env-a/runtimes/db1/partitions/pdb-a',
  'environments/env-o/runtimes/demo_domain/partitions/p-orch-persist',
  'tenants',
  'tenants/t1',
  'tenants/t2',
  'tenants/t1/services',
  'tenants/t1/services/s1',
  'tenants/t1/services/s2',
  'tenants/t1/services/s1/PDB',
  'plugins',
];

const DS_PARAMS = 'serverConfig/partitions/partition1/resourceGroups/partition1-rg/JDBCSystemResources/partition1-ds/JDBCResource/JDBCDriverParams?links=none';

/** Every resource's body as text, with the server's origin (which a restart changes) neutralised. */
async function snapshot(): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const path of RESOURCES) {
    const r = await lc.get(path);
    ok200(r, `GET ${path}`);
    for (const secret of Object.values(SECRETS)) assert.ok(!r.text.includes(secret), `${path} shows a confidential value in clear`);
    out[path] = JSON.parse(r.text.split(srv.origin.replace(/\//g, '\\/')).join('ORIGIN').split(srv.origin).join('ORIGIN'));
  }
  out.dataSourceUrl = ok200(await m.get(DS_PARAMS), 'partition1-ds').url;
  out.configPartitions = await configPartitions(m);
  return out;
}

let first: Record<string, unknown>;

before(async () => {
  srv = await startTestServer();
  lc = lcOf(() => srv);
  m = mOf(() => srv);

  await createDatabase(lc, 'db1', 'dbhost', 1521, SECRETS.databasePassword);
  assertEmptySuccess(
    await lc.post('runtimes', {
      name: 'otd1',
      type: 'otd',
      hostName: 'otdhost',
      port: 8989,
      protocol: 'https',
      properties: [
        { name: 'username', value: 'otdadmin' },
        { name: 'password', value: SECRETS.trafficDirectorPassword },
        { name: 'configuration', value: 'mt' },
        { name: 'tls', properties: [{ name: 'keystorePassphrase', confidentialValue: SECRETS.nestedConfidential }, { name: 'alias', value: 'otd' }] },
      ],
    }),
    201,
    'register otd1',
    lc.url('runtimes/otd1'),
  );
  await createRuntimePartition(lc, 'db1', 'pdb-a', [
    { name: 'tablespace', value: 'users' },
    { name: 'adminPassword', confidentialValue: SECRETS.partitionConfidential },
  ]);
  await createRuntimePartition(lc, 'demo_domain', 'p-persist', [{ name: 'resourceGroups', properties: [{ name: 'rgP', properties: [{ name: 'useDefaultTarget', value: 'true' }] }] }]);
  await createEnvironment(lc, 'env-o', { name: 'provision', args: [wlsTier('p-orch-persist', 'demo_domain', { resourceGroups: ['rgO'], associateWith: 'db' }), dbTier('pdb-o', 'db1')] });
  await createEnvironment(lc, 'env-a');
  await addToEnvironment(lc, 'env-a', 'demo_domain', 'partition1');
  await addToEnvironment(lc, 'env-a', 'db1', 'pdb-a');
  await addToEnvironment(lc, 'env-a', 'demo_domain', 'p-persist');
  assertEmptySuccess(
    await lc.post(
      'environments/env-a/associatePartitions',
      association('partition1', 'demo_domain', 'pdb-a', 'db1', [
        { name: 'jdbcSystemResource', value: 'partition1-ds' },
        { name: 'dbCredential', confidentialValue: SECRETS.associationConfidential },
      ]),
    ),
    200,
    'associate partition1 with pdb-a',
  );
  await createTenant(lc, 't1', '/u01/tenants/t1');
  await createTenant(lc, 't2', '/u01/tenants/t2');
  await createService(lc, 't1', { name: 's1', id: 'svc-1', serviceType: 'JaaS', environmentRef: 'env-a', identityDomain: 'idd1', topLevelDir: '/u01/t1/s1', twoTask: 'tt1' });
  await createService(lc, 't1', { name: 's2', serviceType: 'DBaaS' });
  assertEmptySuccess(await lc.post('tenants/t1/services/s1/PDB', { name: 'pdb-s1', id: 'id-s1', status: 'ACTIVE' }), 201, 'PDB of s1', lc.url('tenants/t1/services/s1/PDB'));
});

after(async () => {
  await srv?.stop(true);
});

describe('the lifecycle records before the restart', () => {
  test('hold what was made, with confidential values hidden', async () => {
    first = await snapshot();
    const env = first['environments/env-a'] as any;
    assert.deepEqual(
      env.associations.map((a: any) => [a.partition1Name, a.partition1RuntimeName, a.partition2Name, a.partition2RuntimeName]),
      [['partition1', 'demo_domain', 'pdb-a', 'db1']],
    );
    const hidden = env.associations[0].properties.find((p: any) => p.name === 'dbCredential');
    assert.deepEqual(hidden, { name: 'dbCredential', confidentialValue: null }, 'the association secret is shown as null');
    const db = first['runtimes/db1'] as any;
    assert.deepEqual(db.properties.find((p: any) => p.name === 'password'), { name: 'password', confidentialValue: null });
    const otd = first['runtimes/otd1'] as any;
    assert.equal(otd.properties.find((p: any) => p.name === 'password').value, undefined, 'a password given as value is not shown');
    assert.deepEqual(otd.properties.find((p: any) => p.name === 'tls').properties, [
      { name: 'keystorePassphrase', confidentialValue: null },
      { name: 'alias', value: 'otd' },
    ]);
    assert.equal(first.dataSourceUrl, 'jdbc:postgresql://dbhost:1521/pdb-a');
    assert.deepEqual((first['tenants/t1/services/s1/PDB'] as any).name, 'pdb-s1');
    const pdbs = (first['runtimes/db1/partitions'] as any).items.map((i: any) => i.name).sort();
    assert.deepEqual(pdbs, ['pdb-a', 'pdb-o', 'pdb-s1']);
  });
});

describe('after a restart', () => {
  test('every lifecycle resource reads back the same', async () => {
    assert.ok(first, 'the first snapshot was taken');
    srv = await srv.restart();
    const second = await snapshot();
    for (const path of Object.keys(first)) assert.deepEqual(second[path], first[path], `${path} changed across the restart`);
  });

  test('what the orchestration provisioned is still known: deprovisioning removes it', async () => {
    assert.ok((await configPartitions(m)).includes('p-orch-persist'));
    assertEmptySuccess(
      await lc.post('environments/env-o/deprovision', { orchestration: { name: 'deleteAll', args: [wlsTier('p-orch-persist', 'demo_domain'), dbTier('pdb-o', 'db1')] } }),
      200,
      'deprovision env-o',
    );
    assert.ok(!(await configPartitions(m)).includes('p-orch-persist'), 'the provisioned partition is removed');
    assert.ok(!(await runtimePartitions(lc, 'db1')).includes('pdb-o'), 'the provisioned PDB is removed');
  });

  test('the PDB of a service is still tied to its database', async () => {
    assertEmptySuccess(await lc.del('tenants/t1/services/s1/PDB'), 200, 'delete the PDB of s1');
    assert.ok(!(await runtimePartitions(lc, 'db1')).includes('pdb-s1'), 'the PDB partition is gone from db1');
  });

  test('confidential values are not stored in clear', async () => {
    // Every change is committed before it is acknowledged, so the store (files of the data
    // directory, or the tables of its PostgreSQL database) holds it.
    const found: { what: string; where: string[] }[] = [];
    for (const [what, secret] of Object.entries(SECRETS)) {
      const where = await storedIn(srv.dataDir, secret);
      if (where.length > 0) found.push({ what, where });
    }
    assert.deepEqual(found, [], 'confidential values stored in clear');
  });
});
