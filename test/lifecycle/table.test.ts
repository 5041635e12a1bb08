// The spec's lifecycle endpoint table, row by row, against one server: for each row the status, the
// Location of creations, the empty body of non-GET successes, the body fields and the link rels the
// spec lists. A crawl at the end follows every link of the lifecycle tree.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.js';
import {
  addToEnvironment,
  assertEmptySuccess,
  assertError,
  assertHasRels,
  assertRels,
  association,
  createDatabase,
  createEnvironment,
  createRuntimePartition,
  createService,
  createTenant,
  environments,
  envPartitions,
  type Http,
  href,
  lcOf,
  type Link,
  mOf,
  names,
  ok200,
  rels,
  runtimePartitions,
  configPartitions,
} from '../support/lcm.js';

let srv: TestServer;
let lc: Http;
let m: Http;
/** `{base_url}/management/lifecycle` */
let ROOT: string;
/** `LC` for `latest` */
let LC: string;

before(async () => {
  srv = await startTestServer();
  lc = lcOf(() => srv);
  m = mOf(() => srv);
  ROOT = `${srv.origin}/management/lifecycle`;
  LC = `${ROOT}/latest`;
  // What the rows need: a database runtime with a partition, an environment holding an application
  // partition of this domain and that database partition, a tenant with two services (one with a PDB).
  await createDatabase(lc, 'db1', 'dbhost', 1521);
  await createRuntimePartition(lc, 'db1', 'pdb-a');
  await createEnvironment(lc, 'env-t');
  await addToEnvironment(lc, 'env-t', 'demo_domain', 'partition1');
  await addToEnvironment(lc, 'env-t', 'db1', 'pdb-a');
  await createTenant(lc, 't1');
  await createService(lc, 't1', { name: 's1', serviceType: 'JaaS', environmentRef: 'env-t' });
  await createService(lc, 't1', { name: 's2', serviceType: 'JaaS' });
  const pdb = await lc.post('tenants/t1/services/s1/PDB', { name: 'pdb-s1', id: 'id-s1', status: 'ACTIVE' });
  assertEmptySuccess(pdb, 201, 'PDB of s1', `${LC}/tenants/t1/services/s1/PDB`);
});

after(async () => {
  await srv?.stop(true);
});

/** The body's fields other than `links`. */
function fields(body: Record<string, unknown>): Record<string, unknown> {
  const { links: _links, ...rest } = body;
  return rest;
}

describe('lifecycle endpoint table', () => {
  test('GET {base_url}/management/lifecycle/: collection of Version; links self, canonical, current', async () => {
    for (const url of [`${ROOT}/`, ROOT]) {
      const b = ok200(await lc.get(url), `GET ${url}`);
      assertRels(b, ['self', 'canonical', 'current'], url);
      assert.equal(href(b, 'self'), ROOT);
      assert.equal(href(b, 'current'), `${ROOT}/12.2.1.0`, 'the current link names 12.2.1.0');
      assert.ok(Array.isArray(b.items) && b.items.length >= 1, 'at least one version');
      const current = b.items.find((i: any) => i.version === '12.2.1.0');
      assert.ok(current, `no 12.2.1.0 item: ${JSON.stringify(b.items)}`);
      assert.deepEqual(fields(current), { version: '12.2.1.0', isLatest: true, lifecycle: 'active' });
      assertHasRels(current, ['self', 'canonical'], 'version item');
      for (const item of b.items) {
        assert.equal(typeof item.version, 'string');
        assert.equal(typeof item.isLatest, 'boolean');
        assert.equal(typeof item.lifecycle, 'string');
      }
      ok200(await lc.get(href(b, 'current')), 'the current link resolves');
    }
  });

  for (const version of ['latest', '12.2.1.0']) {
    test(`GET LC/{version} (${version}): Version with the ten links`, async () => {
      const url = `${ROOT}/${version}`;
      const b = ok200(await lc.get(url), `GET ${url}`);
      assertRels(b, ['parent', 'self', 'canonical', 'environmentCreateForm', 'environments', 'runtimeCreateForm', 'runtimes', 'tenantCreateForm', 'tenants', 'plugins'], url);
      assert.equal(href(b, 'parent'), ROOT);
      assert.equal(href(b, 'self'), url);
      for (const rel of ['environmentCreateForm', 'environments', 'runtimeCreateForm', 'runtimes', 'tenantCreateForm', 'tenants', 'plugins']) {
        assert.equal(href(b, rel), `${url}/${rel}`, `${rel} link`);
      }
      assert.equal(b.version, '12.2.1.0');
      assert.equal(b.isLatest, true);
      assert.equal(b.lifecycle, 'active');
      ok200(await lc.get(href(b, 'canonical')), 'the canonical link resolves');
    });
  }

  test('GET LC/environmentCreateForm: {name: null, links}; links parent, self, canonical, environments', async () => {
    const b = ok200(await lc.get('environmentCreateForm'), 'environmentCreateForm');
    assert.deepEqual(Object.keys(b).sort(), ['links', 'name']);
    assert.equal(b.name, null);
    assertRels(b, ['parent', 'self', 'canonical', 'environments'], 'environmentCreateForm');
    assert.equal(href(b, 'parent'), LC);
    assert.equal(href(b, 'self'), `${LC}/environmentCreateForm`);
    assert.equal(href(b, 'environments'), `${LC}/environments`);
  });

  test('GET LC/environments: collection of Environment (name, links); links parent, self, canonical, create-form', async () => {
    const b = ok200(await lc.get('environments'), 'environments');
    assertRels(b, ['parent', 'self', 'canonical', 'create-form'], 'environments');
    assert.equal(href(b, 'parent'), LC);
    assert.equal(href(b, 'self'), `${LC}/environments`);
    assert.equal(href(b, 'create-form'), `${LC}/environmentCreateForm`);
    const item = b.items.find((i: any) => i.name === 'env-t');
    assert.ok(item, `env-t is listed: ${JSON.stringify(names(b))}`);
    assertHasRels(item, ['self', 'canonical'], 'environment item');
    assert.equal(href(item, 'self'), `${LC}/environments/env-t`);
  });

  test('POST LC/environments {name}: 201, Location LC/environments/{name}, {}', async () => {
    const r = await lc.post('environments', { name: 'env-new' });
    assertEmptySuccess(r, 201, 'POST environments', `${LC}/environments/env-new`);
    const b = ok200(await lc.get(r.headers.get('location')!), 'GET the Location');
    assert.equal(b.name, 'env-new');
    assert.ok((await environments(lc)).includes('env-new'));
    // Under an explicit version the Location is under that version.
    const r2 = await lc.post(`${ROOT}/12.2.1.0/environments`, { name: 'env-v1' });
    assertEmptySuccess(r2, 201, 'POST 12.2.1.0/environments', `${ROOT}/12.2.1.0/environments/env-v1`);
    ok200(await lc.get(r2.headers.get('location')!), 'GET the 12.2.1.0 Location');
  });

  test('GET LC/environments/{e}: name; links parent, self, canonical, partitionCreateForm, partitions, associatePartitions', async () => {
    const b = ok200(await lc.get('environments/env-t'), 'env-t');
    assert.equal(b.name, 'env-t');
    assertHasRels(b, ['parent', 'self', 'canonical', 'partitionCreateForm', 'partitions', 'associatePartitions'], 'environment');
    const self = `${LC}/environments/env-t`;
    assert.equal(href(b, 'parent'), `${LC}/environments`);
    assert.equal(href(b, 'self'), self);
    assert.equal(href(b, 'partitionCreateForm'), `${self}/partitionCreateForm`);
    assert.equal(href(b, 'partitions'), `${self}/partitions`);
    assert.equal(href(b, 'associatePartitions'), `${self}/associatePartitions`);
  });

  test('DELETE LC/environments/{e}: 200, {}; the environment is gone and services no longer refer to it', async () => {
    await createEnvironment(lc, 'env-del');
    await createService(lc, 't1', { name: 's-del', serviceType: 'JaaS', environmentRef: 'env-del' });
    assertEmptySuccess(await lc.del('environments/env-del'), 200, 'DELETE environment');
    assertError(await lc.get('environments/env-del'), 404, 'GET the deleted environment');
    assert.ok(!(await environments(lc)).includes('env-del'));
    const s = ok200(await lc.get('tenants/t1/services/s-del'), 'service s-del');
    assert.equal(s.environmentRef, null, 'the service no longer names the deleted environment');
  });

  test('POST LC/environments/{e}/associatePartitions: 200, {}', async () => {
    const r = await lc.post('environments/env-t/associatePartitions', association('partition1', 'demo_domain', 'pdb-a', 'db1'));
    assertEmptySuccess(r, 200, 'associatePartitions');
    const b = ok200(await lc.get('environments/env-t'), 'env-t');
    assert.deepEqual(
      (b.associations ?? []).map((a: any) => [a.partition1Name, a.partition1RuntimeName, a.partition2Name, a.partition2RuntimeName]),
      [['partition1', 'demo_domain', 'pdb-a', 'db1']],
    );
  });

  test('POST LC/environments/{e}/dissociatePartitions: 200, {}; a second time is refused', async () => {
    const body = association('partition1', 'demo_domain', 'pdb-a', 'db1');
    assertEmptySuccess(await lc.post('environments/env-t/dissociatePartitions', body), 200, 'dissociatePartitions');
    assert.deepEqual(ok200(await lc.get('environments/env-t'), 'env-t').associations ?? [], []);
    assertError(await lc.post('environments/env-t/dissociatePartitions', body), 400, 'dissociating twice');
  });

  test('POST LC/environments/{e}/deprovision without an orchestration: 200, {}; associations removed, environment kept', async () => {
    for (const body of [undefined, {}]) {
      assertEmptySuccess(await lc.post('environments/env-t/associatePartitions', association('partition1', 'demo_domain', 'pdb-a', 'db1')), 200, 'associate');
      assertEmptySuccess(await lc.post('environments/env-t/deprovision', body), 200, `deprovision with body ${JSON.stringify(body)}`);
      const b = ok200(await lc.get('environments/env-t'), 'env-t after deprovision');
      assert.deepEqual(b.associations ?? [], []);
      assert.deepEqual(await envPartitions(lc, 'env-t'), [
        { runtimeName: 'demo_domain', name: 'partition1' },
        { runtimeName: 'db1', name: 'pdb-a' },
      ]);
    }
    assert.ok((await configPartitions(m)).includes('partition1'), 'partition1 stays in the configuration');
  });

  test('GET LC/environments/{e}/partitionCreateForm: {runtimeName: null, name: null, links}; links parent, self, canonical, partitions', async () => {
    const b = ok200(await lc.get('environments/env-t/partitionCreateForm'), 'partitionCreateForm');
    assert.deepEqual(Object.keys(b).sort(), ['links', 'name', 'runtimeName']);
    assert.deepEqual(fields(b), { runtimeName: null, name: null });
    assertRels(b, ['parent', 'self', 'canonical', 'partitions'], 'partitionCreateForm');
    assert.equal(href(b, 'parent'), `${LC}/environments/env-t`);
    assert.equal(href(b, 'self'), `${LC}/environments/env-t/partitionCreateForm`);
    assert.equal(href(b, 'partitions'), `${LC}/environments/env-t/partitions`);
  });

  test('GET LC/environments/{e}/partitions: items (runtimeName, name) linked by their runtime-qualified path', async () => {
    const b = ok200(await lc.get('environments/env-t/partitions'), 'env-t partitions');
    assertRels(b, ['parent', 'self', 'canonical', 'create-form'], 'environment partitions');
    assert.equal(href(b, 'parent'), `${LC}/environments/env-t`);
    assert.equal(href(b, 'self'), `${LC}/environments/env-t/partitions`);
    assert.equal(href(b, 'create-form'), `${LC}/environments/env-t/partitionCreateForm`);
    assert.deepEqual(
      b.items.map((i: any) => fields(i)),
      [
        { runtimeName: 'demo_domain', name: 'partition1' },
        { runtimeName: 'db1', name: 'pdb-a' },
      ],
    );
    for (const item of b.items) {
      const expected = `${LC}/environments/env-t/runtimes/${item.runtimeName}/partitions/${item.name}`;
      assert.equal(href(item, 'self'), expected, 'item self link');
      assert.equal(href(item, 'canonical'), expected, 'item canonical link');
      ok200(await lc.get(expected), `GET ${expected}`);
    }
  });

  test('POST LC/environments/{e}/partitions {name, runtimeName}: 201, Location the runtime-qualified path, {}', async () => {
    const r = await lc.post('environments/env-new/partitions', { name: 'partition2', runtimeName: 'demo_domain' });
    assertEmptySuccess(r, 201, 'add partition2', `${LC}/environments/env-new/runtimes/demo_domain/partitions/partition2`);
    assert.deepEqual(await envPartitions(lc, 'env-new'), [{ runtimeName: 'demo_domain', name: 'partition2' }]);
  });

  test('GET LC/environments/{e}/runtimes/{r}/partitions/{p}: runtimeName, name; links start with parent (the partitions)', async () => {
    const url = `${LC}/environments/env-t/runtimes/demo_domain/partitions/partition1`;
    const b = ok200(await lc.get(url), 'env partition');
    assert.equal(b.runtimeName, 'demo_domain');
    assert.equal(b.name, 'partition1');
    assert.deepEqual(b.links[0], { rel: 'parent', href: `${LC}/environments/env-t/partitions` }, 'first link');
    assertHasRels(b, ['self', 'canonical'], 'env partition');
    assert.equal(href(b, 'self'), url);
  });

  test('DELETE LC/environments/{e}/runtimes/{r}/partitions/{p}: 200, {}; the partition leaves the environment, not the runtime', async () => {
    const url = 'environments/env-new/runtimes/demo_domain/partitions/partition2';
    assertEmptySuccess(await lc.del(url), 200, 'remove partition2 from env-new');
    assertError(await lc.get(url), 404, 'GET the removed environment partition');
    assert.deepEqual(await envPartitions(lc, 'env-new'), []);
    assert.ok((await configPartitions(m)).includes('partition2'), 'partition2 stays in the configuration');
    assert.ok((await runtimePartitions(lc, 'demo_domain')).includes('partition2'), 'partition2 stays a runtime partition');
  });

  test('POST LC/tenants/{t}/services/{s} {topLevelDir}: 200, {}', async () => {
    assertEmptySuccess(await lc.post('tenants/t1/services/s1', { topLevelDir: '/u01/tenants/t1/s1' }), 200, 'update service');
    assert.equal(ok200(await lc.get('tenants/t1/services/s1'), 's1').topLevelDir, '/u01/tenants/t1/s1');
  });

  test('GET LC/tenants/{t}/services/{s}: links include PDBCreateForm and PDB', async () => {
    const b = ok200(await lc.get('tenants/t1/services/s1'), 's1');
    assertHasRels(b, ['parent', 'self', 'canonical', 'PDBCreateForm', 'PDB'], 'service');
    const self = `${LC}/tenants/t1/services/s1`;
    assert.equal(href(b, 'self'), self);
    assert.equal(href(b, 'PDBCreateForm'), `${self}/PDBCreateForm`);
    assert.equal(href(b, 'PDB'), `${self}/PDB`);
  });

  test('GET .../services/{s}/PDB: PDB (status, name, id); links parent, self, canonical, create-form', async () => {
    const b = ok200(await lc.get('tenants/t1/services/s1/PDB'), 'PDB of s1');
    assert.deepEqual(fields(b), { status: 'ACTIVE', name: 'pdb-s1', id: 'id-s1' });
    assertRels(b, ['parent', 'self', 'canonical', 'create-form'], 'PDB');
    const service = `${LC}/tenants/t1/services/s1`;
    assert.equal(href(b, 'parent'), service);
    assert.equal(href(b, 'self'), `${service}/PDB`);
    assert.equal(href(b, 'create-form'), `${service}/PDBCreateForm`);
    assert.ok((await runtimePartitions(lc, 'db1')).includes('pdb-s1'), 'the PDB is a partition of the database of the service environment');
  });

  test('POST .../services/{s}/PDB {name, id, status}: 201, Location the PDB URL, {}', async () => {
    const r = await lc.post('tenants/t1/services/s2/PDB', { name: 'pdb-s2', id: 'id-s2', status: 'ACTIVE' });
    assertEmptySuccess(r, 201, 'create PDB', `${LC}/tenants/t1/services/s2/PDB`);
    assert.deepEqual(fields(ok200(await lc.get(r.headers.get('location')!), 'GET the PDB')), { status: 'ACTIVE', name: 'pdb-s2', id: 'id-s2' });
    assert.ok((await runtimePartitions(lc, 'db1')).includes('pdb-s2'), 'the PDB is made on the only database runtime');
  });

  test('DELETE .../services/{s}/PDB: 200, {}; the PDB is gone from the service and the database', async () => {
    assertEmptySuccess(await lc.del('tenants/t1/services/s2/PDB'), 200, 'delete PDB');
    assertError(await lc.get('tenants/t1/services/s2/PDB'), 404, 'GET the deleted PDB');
    assert.ok(!(await runtimePartitions(lc, 'db1')).includes('pdb-s2'), 'the PDB partition is gone from db1');
  });

  test("GET .../services/{s}/PDBCreateForm: {status: 'ACTIVE', name: null, id: null, links}; links parent, self, canonical, PDB", async () => {
    const b = ok200(await lc.get('tenants/t1/services/s2/PDBCreateForm'), 'PDBCreateForm');
    assert.deepEqual(Object.keys(b).sort(), ['id', 'links', 'name', 'status']);
    assert.deepEqual(fields(b), { status: 'ACTIVE', name: null, id: null });
    assertRels(b, ['parent', 'self', 'canonical', 'PDB'], 'PDBCreateForm');
    const service = `${LC}/tenants/t1/services/s2`;
    assert.equal(href(b, 'parent'), service);
    assert.equal(href(b, 'self'), `${service}/PDBCreateForm`);
    assert.equal(href(b, 'PDB'), `${service}/PDB`);
  });

  test('LC/tenants and LC/tenantCreateForm answer 200 with a collection and a form', async () => {
    const t = ok200(await lc.get('tenants'), 'tenants');
    assertHasRels(t, ['parent', 'self', 'canonical', 'create-form'], 'tenants');
    assert.equal(href(t, 'create-form'), `${LC}/tenantCreateForm`);
    assert.deepEqual(names(t), ['t1']);
    assert.equal(href(t.items[0], 'self'), `${LC}/tenants/t1`);
    const f = ok200(await lc.get('tenantCreateForm'), 'tenantCreateForm');
    assert.equal(f.name, null);
    assertHasRels(f, ['parent', 'self', 'canonical', 'tenants'], 'tenantCreateForm');
    assert.equal(href(f, 'tenants'), `${LC}/tenants`);
    const one = ok200(await lc.get('tenants/t1'), 'tenant t1');
    assert.equal(one.name, 't1');
    assert.equal(one.topLevelDir, '/tenants/t1');
    const services = ok200(await lc.get('tenants/t1/services'), 'services');
    assert.deepEqual(names(services).sort(), ['s-del', 's1', 's2']);
  });

  test('LC/runtimes and LC/runtimeCreateForm answer 200: this domain and the database, and an empty form', async () => {
    const r = ok200(await lc.get('runtimes'), 'runtimes');
    assertHasRels(r, ['parent', 'self', 'canonical', 'create-form'], 'runtimes');
    assert.equal(href(r, 'create-form'), `${LC}/runtimeCreateForm`);
    const byName = new Map(r.items.map((i: any) => [i.name, i]));
    assert.deepEqual([...byName.keys()].sort(), ['db1', 'demo_domain']);
    const local = byName.get('demo_domain') as any;
    assert.equal(local.type, 'wls');
    const db = byName.get('db1') as any;
    assert.deepEqual({ type: db.type, hostName: db.hostName, port: db.port, protocol: db.protocol }, { type: 'database', hostName: 'dbhost', port: 1521, protocol: 'tcp' });
    assert.ok(!JSON.stringify(r).includes('db1-db-secret'), 'the database password is not shown');
    const f = ok200(await lc.get('runtimeCreateForm'), 'runtimeCreateForm');
    assert.equal(f.name, null);
    assertHasRels(f, ['parent', 'self', 'canonical', 'runtimes'], 'runtimeCreateForm');
    assert.equal(href(f, 'runtimes'), `${LC}/runtimes`);
  });

  test('LC/plugins answers 200 with one plugin per kind of runtime', async () => {
    const p = ok200(await lc.get('plugins'), 'plugins');
    assertHasRels(p, ['parent', 'self', 'canonical'], 'plugins');
    assert.ok(p.items.length >= 1);
    assert.deepEqual([...new Set(p.items.map((i: any) => i.type))].sort(), ['database', 'otd', 'wls']);
    for (const item of p.items) {
      assert.equal(typeof item.name, 'string');
      ok200(await lc.get(href(item, 'self')), `plugin ${item.name}`);
    }
  });
});

describe('the lifecycle tree is hypermedia', () => {
  /** Links that name POST-only resources. */
  const POST_ONLY = new Set(['associatePartitions', 'dissociatePartitions', 'deprovision']);

  test('every link reachable from the version list is absolute and answers 200 JSON with links', async () => {
    // The PDB of a service is an optional singleton: its link is there before it exists, and GET
    // answers 404 until it is created.
    const optional = (url: string) => /\/services\/(s2|s-del)\/PDB$/.test(url);
    const seen = new Set<string>();
    const queue = [`${ROOT}/`];
    const problems: string[] = [];
    while (queue.length > 0) {
      const url = queue.shift()!;
      if (seen.has(url)) continue;
      seen.add(url);
      const r = await lc.get(url);
      if (optional(url) && r.status === 404 && r.json?.status === 404) continue;
      if (r.status !== 200 || typeof r.json !== 'object' || r.json === null) {
        problems.push(`${url}: ${r.status} ${r.text.slice(0, 200)}`);
        continue;
      }
      const bodies = [r.json, ...(Array.isArray(r.json.items) ? r.json.items : [])];
      if (!Array.isArray(r.json.links)) problems.push(`${url}: no links`);
      for (const body of bodies) {
        for (const l of (body.links ?? []) as Link[]) {
          if (!/^http:\/\/127\.0\.0\.1:\d+\//.test(l.href)) problems.push(`${url}: link ${l.rel} is not absolute: ${l.href}`);
          if (POST_ONLY.has(l.rel) || !l.href.startsWith(ROOT)) continue;
          if (!seen.has(l.href)) queue.push(l.href);
        }
      }
      if (Array.isArray(r.json.items)) {
        for (const item of r.json.items) {
          const rs = rels(item);
          if (!rs.includes('self') || !rs.includes('canonical')) problems.push(`${url}: an item lacks self or canonical (${rs.join(', ')})`);
        }
      }
    }
    assert.deepEqual(problems, []);
    // The crawl reached the resources of every row.
    for (const path of [
      'environments/env-t/runtimes/db1/partitions/pdb-a',
      'environments/env-t/partitionCreateForm',
      'tenants/t1/services/s1/PDB',
      'tenants/t1/services/s2/PDBCreateForm',
      'runtimes/db1/partitions/pdb-a',
    ]) {
      assert.ok(seen.has(`${LC}/${path}`) || seen.has(`${ROOT}/12.2.1.0/${path}`), `the crawl did not reach ${path}`);
    }
  });
});
