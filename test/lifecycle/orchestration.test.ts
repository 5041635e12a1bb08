// Orchestrated environments: the partitions an orchestration makes (on this domain through an
// activated edit, on a database as PDBs), associations that point data sources at a PDB, rollback
// of a failing orchestration, deprovisioning, and partitions protected while an environment uses them.
import assert from 'node:assert/strict';
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
  createService,
  createTenant,
  dbTier,
  environments,
  envPartitions,
  type Http,
  href,
  lcOf,
  mOf,
  names,
  ok200,
  partitionRuntimes,
  type Reply,
  runtimePartitions,
  wlsTier,
} from '../support/lcm.js';

let srv: TestServer;
let lc: Http;
let m: Http;
let LC: string;

const DS_PARAMS = 'serverConfig/partitions/partition1/resourceGroups/partition1-rg/JDBCSystemResources/partition1-ds/JDBCResource/JDBCDriverParams';

before(async () => {
  srv = await startTestServer();
  lc = lcOf(() => srv);
  m = mOf(() => srv);
  LC = `${srv.origin}/management/lifecycle/latest`;
  await createDatabase(lc, 'db1', 'dbhost', 1521);
  await createRuntimePartition(lc, 'db1', 'pdb-existing');
});

after(async () => {
  await srv?.stop(true);
});

async function dataSourceUrl(): Promise<string> {
  return ok200(await m.get(`${DS_PARAMS}?links=none`), 'partition1-ds driver params').url;
}

async function associations(env: string): Promise<string[][]> {
  const b = ok200(await lc.get(`environments/${env}`), env);
  return (b.associations ?? []).map((a: any) => [a.partition1Name, a.partition1RuntimeName, a.partition2Name, a.partition2RuntimeName]);
}

/** A refused orchestration: a 4xx JSON error. */
function assertRefused(r: Reply, what: string): void {
  assert.ok(r.status >= 400 && r.status < 500, `${what}: expected a 4xx, got ${r.status} ${r.text.slice(0, 400)}`);
  assertError(r, r.status, what);
}

/** Nothing of a failed orchestration is left: no environment, no partitions anywhere. */
async function assertNothingLeft(env: string, partitions: { runtime: string; name: string }[]): Promise<void> {
  assertError(await lc.get(`environments/${env}`), 404, `environment ${env} after the failure`);
  assert.ok(!(await environments(lc)).includes(env), `${env} is not listed`);
  const config = await configPartitions(m);
  const runtimes = await partitionRuntimes(m);
  for (const p of partitions) {
    assert.ok(!(await runtimePartitions(lc, p.runtime)).includes(p.name), `${p.runtime}/${p.name} is left in the Lifecycle Manager`);
    if (p.runtime === 'demo_domain') {
      assert.ok(!config.includes(p.name), `${p.name} is left in serverConfig/partitions`);
      assertError(await m.get(`serverConfig/partitions/${p.name}`), 404, `serverConfig/partitions/${p.name}`);
      assert.ok(!runtimes.includes(p.name), `${p.name} is left in domainPartitionRuntimes`);
      assertError(await m.get(`edit/partitions/${p.name}`), 404, `edit/partitions/${p.name}`);
    }
  }
}

describe('orchestrated provisioning', () => {
  test('an orchestration makes p-orch (with its resource group) and a PDB, then the environment holding and associating them', async () => {
    await createEnvironment(lc, 'orch-env', {
      name: 'provision',
      args: [wlsTier('p-orch', 'demo_domain', { availableTargets: ['vt1'], resourceGroups: ['rgA'], associateWith: 'db' }), dbTier('pdb-orch', 'db1')],
    });
    // This domain: the partition is in the activated configuration, with its resource group, and runs.
    assert.ok((await configPartitions(m)).includes('p-orch'), 'p-orch in serverConfig/partitions');
    const p = ok200(await m.get('serverConfig/partitions/p-orch?links=none'), 'serverConfig p-orch');
    assert.deepEqual(p.availableTargets, [{ identity: ['virtualTargets', 'vt1'] }]);
    const rgs = ok200(await m.get('serverConfig/partitions/p-orch/resourceGroups?links=none'), 'p-orch resource groups');
    assert.deepEqual(names(rgs), ['rgA']);
    assert.equal(rgs.items[0].useDefaultTarget, true);
    assert.ok((await partitionRuntimes(m)).includes('p-orch'), 'p-orch in domainRuntime/domainPartitionRuntimes');
    // The Lifecycle Manager: both partitions, in the environment, associated.
    assert.deepEqual(await envPartitions(lc, 'orch-env'), [
      { runtimeName: 'demo_domain', name: 'p-orch' },
      { runtimeName: 'db1', name: 'pdb-orch' },
    ]);
    assert.deepEqual(await associations('orch-env'), [['p-orch', 'demo_domain', 'pdb-orch', 'db1']]);
    assert.ok((await runtimePartitions(lc, 'demo_domain')).includes('p-orch'));
    assert.ok((await runtimePartitions(lc, 'db1')).includes('pdb-orch'));
    const rp = ok200(await lc.get('runtimes/demo_domain/partitions/p-orch'), 'runtime partition p-orch');
    assert.equal(rp.id, p.partitionID, 'the runtime partition id is the configured partitionID');
    assert.equal(href(rp, 'environment'), `${LC}/environments/orch-env`);
  });

  test('an association with property jdbcSystemResource points the data source of partition1 at the PDB', async () => {
    await createRuntimePartition(lc, 'db1', 'pdb-ds');
    await createEnvironment(lc, 'ds-env');
    await addToEnvironment(lc, 'ds-env', 'demo_domain', 'partition1');
    await addToEnvironment(lc, 'ds-env', 'db1', 'pdb-ds');
    assert.equal(await dataSourceUrl(), 'jdbc:derby:memory:partition1;create=true', 'the demo data source before');
    const r = await lc.post('environments/ds-env/associatePartitions', association('partition1', 'demo_domain', 'pdb-ds', 'db1', [{ name: 'jdbcSystemResource', value: 'partition1-ds' }]));
    assertEmptySuccess(r, 200, 'associate with jdbcSystemResource');
    assert.equal(await dataSourceUrl(), 'jdbc:postgresql://dbhost:1521/pdb-ds');
    assert.deepEqual(await associations('ds-env'), [['partition1', 'demo_domain', 'pdb-ds', 'db1']]);
  });

  test('jdbcSystemResourceOverride creates, then updates, the partition override bean (database named first)', async () => {
    assertEmptySuccess(await lc.post('environments/ds-env/dissociatePartitions', association('partition1', 'demo_domain', 'pdb-ds', 'db1')), 200, 'dissociate');
    // The database partition named first: the association is normalised, the application partition first.
    const r = await lc.post('environments/ds-env/associatePartitions', association('pdb-ds', 'db1', 'partition1', 'demo_domain', [{ name: 'jdbcSystemResourceOverride', value: 'partition1-ds' }]));
    assertEmptySuccess(r, 200, 'associate with jdbcSystemResourceOverride');
    assert.deepEqual(await associations('ds-env'), [['partition1', 'demo_domain', 'pdb-ds', 'db1']]);
    const override = ok200(await m.get('serverConfig/partitions/partition1/JDBCSystemResourceOverrides/partition1-ds?links=none'), 'override bean');
    assert.equal(override.URL, 'jdbc:postgresql://dbhost:1521/pdb-ds');
    // A second database: the same override now points there.
    await createDatabase(lc, 'db2', 'db2host', 1522);
    await createRuntimePartition(lc, 'db2', 'pdb-ds2');
    await addToEnvironment(lc, 'ds-env', 'db2', 'pdb-ds2');
    const r2 = await lc.post('environments/ds-env/associatePartitions', association('partition1', 'demo_domain', 'pdb-ds2', 'db2', [{ name: 'jdbcSystemResourceOverride', value: 'partition1-ds' }]));
    assertEmptySuccess(r2, 200, 'associate with the second database');
    const overrides = ok200(await m.get('serverConfig/partitions/partition1/JDBCSystemResourceOverrides?links=none'), 'overrides');
    assert.deepEqual(names(overrides), ['partition1-ds'], 'one override bean, updated');
    assert.equal(overrides.items[0].URL, 'jdbc:postgresql://db2host:1522/pdb-ds2');
  });

  test('an association naming a data source the partition lacks is refused and changes nothing', async () => {
    assertEmptySuccess(await lc.post('environments/ds-env/deprovision', {}), 200, 'deprovision (dissociate all)');
    assert.deepEqual(await associations('ds-env'), []);
    const before = await dataSourceUrl();
    const r = await lc.post('environments/ds-env/associatePartitions', association('partition1', 'demo_domain', 'pdb-ds', 'db1', [{ name: 'jdbcSystemResource', value: 'no-such-ds' }]));
    assertDetail(assertError(r, 400, 'unknown data source'), /no-such-ds/);
    assert.deepEqual(await associations('ds-env'), [], 'no association recorded');
    assert.equal(await dataSourceUrl(), before);
  });
});

describe('a failing orchestration rolls back', () => {
  test('second tier names an unknown runtime: no environment, no partition', async () => {
    const r = await lc.post('environments', {
      name: 'fail-env1',
      orchestration: { name: 'provision', args: [wlsTier('p-fail1', 'demo_domain', { resourceGroups: ['rgA'], associateWith: 'db' }), dbTier('pdb-fail1', 'no-such-db')] },
    });
    assertRefused(r, 'unknown runtime');
    assertDetail(assertError(r, r.status, 'unknown runtime'), /no-such-db/);
    await assertNothingLeft('fail-env1', [
      { runtime: 'demo_domain', name: 'p-fail1' },
      { runtime: 'db1', name: 'pdb-fail1' },
    ]);
  });

  test("second tier's partition already exists on the database: the first tier's partition is removed again", async () => {
    const r = await lc.post('environments', {
      name: 'fail-env2',
      orchestration: { name: 'provision', args: [wlsTier('p-fail2', 'demo_domain', { availableTargets: ['vt1'], resourceGroups: ['rgA'], associateWith: 'db' }), dbTier('pdb-existing', 'db1')] },
    });
    assertRefused(r, 'existing PDB');
    assertDetail(assertError(r, r.status, 'existing PDB'), /pdb-existing/);
    await assertNothingLeft('fail-env2', [{ runtime: 'demo_domain', name: 'p-fail2' }]);
    assert.ok((await runtimePartitions(lc, 'db1')).includes('pdb-existing'), 'the existing PDB is untouched');
  });

  test("second tier's partition already exists on this domain: the PDB made first is removed, partition2 untouched", async () => {
    const r = await lc.post('environments', {
      name: 'fail-env3',
      orchestration: { name: 'provision', args: [dbTier('pdb-fail3', 'db1'), wlsTier('partition2', 'demo_domain')] },
    });
    assertRefused(r, 'existing partition2');
    assertDetail(assertError(r, r.status, 'existing partition2'), /partition2/);
    await assertNothingLeft('fail-env3', [{ runtime: 'db1', name: 'pdb-fail3' }]);
    assert.ok((await configPartitions(m)).includes('partition2'), 'partition2 is still configured');
    assert.ok((await partitionRuntimes(m)).includes('partition2'), 'partition2 still has its runtime');
  });

  test('a failing association step (data source missing in the new partition) removes both partitions', async () => {
    const r = await lc.post('environments', {
      name: 'fail-env4',
      orchestration: {
        name: 'provision',
        args: [wlsTier('p-fail4', 'demo_domain', { resourceGroups: ['rgA'], associateWith: 'db', associateProperties: [{ name: 'jdbcSystemResource', value: 'missing-ds' }] }), dbTier('pdb-fail4', 'db1')],
      },
    });
    assertRefused(r, 'association step');
    await assertNothingLeft('fail-env4', [
      { runtime: 'demo_domain', name: 'p-fail4' },
      { runtime: 'db1', name: 'pdb-fail4' },
    ]);
  });

  test('after a rollback the same names can be provisioned', async () => {
    await createEnvironment(lc, 'retry-env', { name: 'provision', args: [wlsTier('p-fail2', 'demo_domain', { resourceGroups: ['rgA'], associateWith: 'db' }), dbTier('pdb-fail4', 'db1')] });
    assert.ok((await configPartitions(m)).includes('p-fail2'));
    assert.deepEqual(await associations('retry-env'), [['p-fail2', 'demo_domain', 'pdb-fail4', 'db1']]);
    assertEmptySuccess(
      await lc.post('environments/retry-env/deprovision', { orchestration: { name: 'deleteAll', args: [wlsTier('p-fail2', 'demo_domain'), dbTier('pdb-fail4', 'db1')] } }),
      200,
      'deprovision retry-env',
    );
    assert.ok(!(await configPartitions(m)).includes('p-fail2'));
  });
});

describe('deprovisioning', () => {
  test('deprovision with an orchestration removes the provisioned partitions and the environment', async () => {
    const before = await configPartitions(m);
    assert.ok(before.includes('p-orch'));
    const r = await lc.post('environments/orch-env/deprovision', { orchestration: { name: 'deleteAll', args: [wlsTier('p-orch', 'demo_domain'), dbTier('pdb-orch', 'db1')] } });
    assertEmptySuccess(r, 200, 'deprovision orch-env');
    assert.deepEqual(await configPartitions(m), before.filter((p) => p !== 'p-orch'), 'only p-orch left serverConfig');
    assertError(await m.get('serverConfig/partitions/p-orch'), 404, 'serverConfig p-orch');
    assert.ok(!(await partitionRuntimes(m)).includes('p-orch'), 'p-orch left domainPartitionRuntimes');
    assert.ok(!(await runtimePartitions(lc, 'demo_domain')).includes('p-orch'));
    assert.ok(!(await runtimePartitions(lc, 'db1')).includes('pdb-orch'), 'the PDB is gone');
    assertError(await lc.get('environments/orch-env'), 404, 'the environment is gone');
    assert.ok(!(await environments(lc)).includes('orch-env'));
  });

  test('after a deprovision removed the environment, no service still refers to it (as after DELETE)', async () => {
    await createEnvironment(lc, 'svc-env', { name: 'provision', args: [wlsTier('p-svc', 'demo_domain')] });
    await createTenant(lc, 'tn');
    await createService(lc, 'tn', { name: 'svc', serviceType: 'JaaS', environmentRef: 'svc-env' });
    assertEmptySuccess(await lc.post('environments/svc-env/deprovision', { orchestration: { name: 'deleteAll', args: [wlsTier('p-svc', 'demo_domain')] } }), 200, 'deprovision svc-env');
    assertError(await lc.get('environments/svc-env'), 404, 'svc-env is gone');
    const s = ok200(await lc.get('tenants/tn/services/svc'), 'service svc');
    assert.equal(s.environmentRef, null, `the service still names the removed environment: ${JSON.stringify(s.environmentRef)}`);
    assert.ok(!(s.links ?? []).some((l: any) => l.rel === 'environment'), 'no environment link to a removed environment');
  });
});

describe('partitions in use', () => {
  test('a partition an environment uses cannot be deleted through LC/runtimes/demo_domain/partitions/{p} until removed from it', async () => {
    await createRuntimePartition(lc, 'demo_domain', 'p-used');
    assert.ok((await configPartitions(m)).includes('p-used'), 'the runtime partition is made through an activated edit');
    await createRuntimePartition(lc, 'db1', 'pdb-used');
    await createEnvironment(lc, 'use-env');
    await addToEnvironment(lc, 'use-env', 'demo_domain', 'p-used');
    await addToEnvironment(lc, 'use-env', 'db1', 'pdb-used');
    assertEmptySuccess(await lc.post('environments/use-env/associatePartitions', association('p-used', 'demo_domain', 'pdb-used', 'db1')), 200, 'associate');

    assertDetail(assertError(await lc.del('runtimes/demo_domain/partitions/p-used'), 400, 'delete a used partition'), /use-env/);
    assert.ok((await configPartitions(m)).includes('p-used'), 'p-used stays configured');
    assertDetail(assertError(await lc.del('runtimes/db1/partitions/pdb-used'), 400, 'delete a used PDB'), /use-env/);
    assertError(await lc.del('runtimes/db1'), 400, 'unregister a runtime an environment uses');
    ok200(await lc.get('runtimes/db1'), 'db1 is still registered');

    // An associated partition cannot leave the environment before it is dissociated.
    assertError(await lc.del('environments/use-env/runtimes/demo_domain/partitions/p-used'), 400, 'remove an associated partition');
    assertEmptySuccess(await lc.post('environments/use-env/dissociatePartitions', association('p-used', 'demo_domain', 'pdb-used', 'db1')), 200, 'dissociate');
    assertEmptySuccess(await lc.del('environments/use-env/runtimes/demo_domain/partitions/p-used'), 200, 'remove p-used from the environment');

    assertEmptySuccess(await lc.del('runtimes/demo_domain/partitions/p-used'), 200, 'delete p-used');
    assert.ok(!(await configPartitions(m)).includes('p-used'), 'p-used left serverConfig');
    assert.ok(!(await partitionRuntimes(m)).includes('p-used'), 'p-used left domainPartitionRuntimes');
    assertError(await lc.get('runtimes/demo_domain/partitions/p-used'), 404, 'the deleted runtime partition');
  });
});

describe('environments never hold partitions their runtime no longer has', () => {
  /** Every partition of every environment, with whether its runtime still has it. */
  async function dangling(envs: string[]): Promise<string[]> {
    const out: string[] = [];
    for (const env of envs) {
      for (const p of await envPartitions(lc, env)) {
        if (!(await runtimePartitions(lc, p.runtimeName)).includes(p.name)) out.push(`${env}: ${p.runtimeName}/${p.name}`);
      }
    }
    return out;
  }

  test('deprovisioning does not delete a provisioned partition that another environment now uses', async () => {
    await createEnvironment(lc, 'prov-env', { name: 'provision', args: [wlsTier('p-moved', 'demo_domain', { resourceGroups: ['rgM'] })] });
    // The partition moves to another environment.
    assertEmptySuccess(await lc.del('environments/prov-env/runtimes/demo_domain/partitions/p-moved'), 200, 'remove p-moved from prov-env');
    await createEnvironment(lc, 'other-env');
    await addToEnvironment(lc, 'other-env', 'demo_domain', 'p-moved');
    const r = await lc.post('environments/prov-env/deprovision', { orchestration: { name: 'deleteAll', args: [wlsTier('p-moved', 'demo_domain')] } });
    assert.ok(r.status === 200 || r.status === 400, `deprovision prov-env: ${r.status} ${r.text.slice(0, 300)}`);
    assert.deepEqual(await envPartitions(lc, 'other-env'), [{ runtimeName: 'demo_domain', name: 'p-moved' }]);
    assert.ok((await configPartitions(m)).includes('p-moved'), `p-moved, used by other-env, was deleted by deprovisioning prov-env (status ${r.status})`);
    assert.deepEqual(await dangling(['other-env']), []);
  });

  test('deleting the PDB of a service does not leave an environment holding it', async () => {
    await createEnvironment(lc, 'pdb-env');
    await createTenant(lc, 'tp');
    await createService(lc, 'tp', { name: 'sp', serviceType: 'JaaS', environmentRef: 'pdb-env' });
    await addToEnvironment(lc, 'pdb-env', 'db1', 'pdb-existing');
    assertEmptySuccess(await lc.post('tenants/tp/services/sp/PDB', { name: 'pdb-sp', id: 'id-sp', status: 'ACTIVE' }), 201, 'PDB of sp', lc.url('tenants/tp/services/sp/PDB'));
    assert.ok((await runtimePartitions(lc, 'db1')).includes('pdb-sp'), 'the PDB is made on the database of the environment');
    await addToEnvironment(lc, 'pdb-env', 'db1', 'pdb-sp');
    const r = await lc.del('tenants/tp/services/sp/PDB');
    assert.ok(r.status === 200 || r.status === 400, `delete the PDB: ${r.status} ${r.text.slice(0, 300)}`);
    assert.deepEqual(await dangling(['pdb-env']), [], `after DELETE PDB answered ${r.status}`);
  });
});
