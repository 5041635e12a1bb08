// The Lifecycle Manager, the version lists and the management version as trees, served in-process
// by the one resolver and renderer (no HTTP): what each path names, and the bodies with their links
// in order. The irregular shapes come from the overlay: an environment's partitions addressed by
// runtime, link-only references, the Lifecycle Manager's link conventions, a list shown in place.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Caller, lifecycleRoot, versionListRoot, versionRoot } from '../../src/api/trees.js';
import { standardBehaviours } from '../../src/behaviour/index.js';
import { catalogWithOperations } from '../../src/operations/catalog.js';
import { LifecycleBeans } from '../../src/lifecycle/beans.js';
import { BUILT_IN_PLUGINS, type LifecycleData, type RuntimePartition } from '../../src/lifecycle/model.js';
import { type RenderContext, Renderer } from '../../src/render/entity.js';
import { Urls } from '../../src/render/links.js';
import { parseShape } from '../../src/render/query.js';
import { Resolver, type Target, type TreeRoot } from '../../src/tree/resolve.js';
import { isProblem } from '../../src/core/problems.js';

const catalog = catalogWithOperations();
const resolver = new Resolver(catalog, standardBehaviours(catalog));
const renderer = new Renderer(resolver);
const H = 'http://h';
const LC = `${H}/management/lifecycle/latest`;

const data: LifecycleData = {
  runtimes: [
    { name: 'demo_domain', type: 'wls', hostName: 'localhost', port: 7001, protocol: 'http', properties: [], local: true, partitions: [], created: 0, updated: 0 },
    { name: 'db1', type: 'database', hostName: 'dbhost', port: 1521, protocol: 'tcp', properties: [{ name: 'password', confidentialValue: 'x' }], partitions: [], created: 0, updated: 0 },
  ],
  environments: [
    {
      name: 'env1',
      partitions: [
        { name: 'p', runtimeName: 'demo_domain' },
        { name: 'p', runtimeName: 'db1' },
      ],
      associations: [{ partition1Name: 'p', partition1RuntimeName: 'demo_domain', partition2Name: 'p', partition2RuntimeName: 'db1', properties: [] }],
      provisioned: [],
      created: 0,
      updated: 0,
    },
  ],
  tenants: [
    {
      name: 't1',
      id: 'tid',
      topLevelDir: '/t1',
      services: [
        { name: 's1', id: 'sid', serviceType: 'JaaS', environmentRef: 'env1', identityDomain: null, topLevelDir: null, twoTask: null, pdb: { name: 'pdb1', id: 'pid', status: 'ACTIVE' }, created: 0, updated: 0 },
        { name: 's2', id: 'sid2', serviceType: 'JaaS', environmentRef: null, identityDomain: null, topLevelDir: null, twoTask: null, pdb: null, created: 0, updated: 0 },
      ],
      created: 0,
      updated: 0,
    },
  ],
  plugins: [...BUILT_IN_PLUGINS],
};
const partitions = new Map<string, RuntimePartition[]>([['db1', [{ name: 'p', id: 'pdb-id', properties: [] }]]]);
const lifecycle = lifecycleRoot(catalog, new LifecycleBeans(() => data, partitions));

const ctx = (root: string, query: Record<string, string> = {}, top = false): RenderContext => ({
  urls: new Urls(H, root, top),
  version: 'current',
  shape: parseShape(query),
  productionMode: false,
});
const lc = (query: Record<string, string> = {}) => ctx('/management/lifecycle/latest', query);

const resolve = (root: TreeRoot, path: string): Target => resolver.resolve(root, path === '' ? [] : path.split('/'), 'current');

/** The body GET answers for `path` (bean, collection or create form). */
function get(root: TreeRoot, path: string, c: RenderContext): Record<string, unknown> {
  const t = resolve(root, path);
  switch (t.kind) {
    case 'bean':
      return renderer.bean(t.node, c);
    case 'collection':
      return renderer.collection(t.owner, t.prop, t.path, c, t.mount);
    case 'createForm':
      return renderer.createForm(t.owner, t.prop, t.path, catalog.type(t.prop.creators[0]!), c);
    default:
      throw new Error(`${path} is a ${t.kind}`);
  }
}

const links = (body: Record<string, unknown>) => (body.links as { rel: string; href: string }[]).map((l) => `${l.rel} ${l.href.replace(H, '')}`);
const L = '/management/lifecycle/latest';

function notFound(root: TreeRoot, path: string, name: string): void {
  assert.throws(
    () => resolve(root, path),
    (err: unknown) => isProblem(err, 'not-found') && (err as Error).message.includes(`'${name}'`),
    `${path}: 404 naming ${name}`,
  );
}

describe('the Lifecycle Manager tree', () => {
  test('the version: its fields, then its forms before their collections, and no search', () => {
    const body = get(lifecycle, '', lc());
    assert.deepEqual(links(body), [
      'parent /management/lifecycle',
      `self ${L}`,
      `canonical ${L}`,
      `environmentCreateForm ${L}/environmentCreateForm`,
      `environments ${L}/environments`,
      `runtimeCreateForm ${L}/runtimeCreateForm`,
      `runtimes ${L}/runtimes`,
      `tenantCreateForm ${L}/tenantCreateForm`,
      `tenants ${L}/tenants`,
      `plugins ${L}/plugins`,
    ]);
    assert.deepEqual(Object.keys(body), ['links', 'version', 'isLatest', 'lifecycle'], 'no identity: not a configuration bean');
    notFound(lifecycle, 'search', 'search');
  });

  test('an environment: actions are links of their own names; associations shown on it, not in the list', () => {
    const body = get(lifecycle, 'environments/env1', lc());
    const self = `${L}/environments/env1`;
    assert.deepEqual(links(body), [
      `parent ${L}/environments`,
      `self ${self}`,
      `canonical ${self}`,
      `partitionCreateForm ${self}/partitionCreateForm`,
      `partitions ${self}/partitions`,
      `associatePartitions ${self}/associatePartitions`,
      `dissociatePartitions ${self}/dissociatePartitions`,
      `deprovision ${self}/deprovision`,
    ]);
    assert.deepEqual(Object.keys(body), ['links', 'name', 'associations']);
    const list = get(lifecycle, 'environments', lc());
    assert.deepEqual(links(list), [`parent ${L}`, `self ${L}/environments`, `canonical ${L}/environments`, `create-form ${L}/environmentCreateForm`]);
    assert.deepEqual((list.items as Record<string, unknown>[]).map((i) => ({ ...i, links: links(i) })), [{ links: [`self ${self}`, `canonical ${self}`], name: 'env1' }]);
    for (const op of ['associatePartitions', 'dissociatePartitions', 'deprovision']) {
      const t = resolve(lifecycle, `environments/env1/${op}`);
      assert.equal(t.kind === 'action' && t.op.name, op);
    }
  });

  test("an environment's partitions live at runtimes/{rt}/partitions/{p}, so two runtimes' partitions of one name both fit", () => {
    const list = get(lifecycle, 'environments/env1/partitions', lc());
    const env = `${L}/environments/env1`;
    assert.deepEqual(links(list), [`parent ${env}`, `self ${env}/partitions`, `canonical ${env}/partitions`, `create-form ${env}/partitionCreateForm`]);
    assert.deepEqual(
      (list.items as Record<string, unknown>[]).map((i) => [links(i)[0], i.runtimeName, i.name]),
      [
        [`self ${env}/runtimes/demo_domain/partitions/p`, 'demo_domain', 'p'],
        [`self ${env}/runtimes/db1/partitions/p`, 'db1', 'p'],
      ],
    );
    const one = get(lifecycle, 'environments/env1/runtimes/db1/partitions/p', lc());
    assert.deepEqual(links(one), [
      `parent ${env}/partitions`,
      `self ${env}/runtimes/db1/partitions/p`,
      `canonical ${env}/runtimes/db1/partitions/p`,
      `runtimePartition ${L}/runtimes/db1/partitions/p`,
    ]);
    assert.deepEqual(Object.keys(one), ['links', 'runtimeName', 'name'], 'a link-only reference is no field');
    notFound(lifecycle, 'environments/env1/runtimes/nope/partitions/p', 'p');
    notFound(lifecycle, 'environments/env1/runtimes/db1/partitions/nope', 'nope');
    notFound(lifecycle, 'environments/env1/runtimes/db1', 'runtimes');
    notFound(lifecycle, 'environments/env1/partitions/p', 'p');
    notFound(lifecycle, 'environments/nope/runtimes/db1/partitions/p', 'nope');
  });

  test('a runtime partition links the environment that holds it', () => {
    const body = get(lifecycle, 'runtimes/db1/partitions/p', lc());
    const self = `${L}/runtimes/db1/partitions/p`;
    assert.deepEqual(links(body), [`parent ${L}/runtimes/db1/partitions`, `self ${self}`, `canonical ${self}`, `environment ${L}/environments/env1`]);
    assert.deepEqual(Object.keys(body), ['links', 'name', 'id', 'runtimeName', 'properties']);
  });

  test("a service: its PDB's form and the PDB (linked whether it exists or not), then its environment", () => {
    const self = `${L}/tenants/t1/services/s1`;
    assert.deepEqual(links(get(lifecycle, 'tenants/t1/services/s1', lc())), [
      `parent ${L}/tenants/t1/services`,
      `self ${self}`,
      `canonical ${self}`,
      `PDBCreateForm ${self}/PDBCreateForm`,
      `PDB ${self}/PDB`,
      `environment ${L}/environments/env1`,
    ]);
    const s2 = `${L}/tenants/t1/services/s2`;
    assert.deepEqual(links(get(lifecycle, 'tenants/t1/services/s2', lc())).slice(3), [`PDBCreateForm ${s2}/PDBCreateForm`, `PDB ${s2}/PDB`]);
    const pdb = get(lifecycle, 'tenants/t1/services/s1/PDB', lc());
    assert.deepEqual(links(pdb), [`parent ${self}`, `self ${self}/PDB`, `canonical ${self}/PDB`, `create-form ${self}/PDBCreateForm`]);
    assert.equal(resolve(lifecycle, 'tenants/t1/services/s2/PDB').kind, 'absent', 'a POST makes it');
  });

  test('create forms: writable fields at their defaults, a link back to the collection by its name', () => {
    const form = get(lifecycle, 'runtimeCreateForm', lc());
    assert.deepEqual(links(form), [`parent ${L}`, `self ${L}/runtimeCreateForm`, `canonical ${L}/runtimeCreateForm`, `runtimes ${L}/runtimes`]);
    const { links: _l, ...fields } = form;
    assert.deepEqual(fields, { name: null, type: 'wls', hostName: null, port: 7001, protocol: 'http', properties: [] }, "the runtime's own type, not its bean type");
    const pdb = get(lifecycle, 'tenants/t1/services/s2/PDBCreateForm', lc());
    assert.deepEqual(links(pdb).at(-1), `PDB ${L}/tenants/t1/services/s2/PDB`);
    const { links: _p, ...pdbFields } = pdb;
    assert.deepEqual(pdbFields, { status: 'ACTIVE', name: null, id: null });
    notFound(lifecycle, 'environments/nope/partitionCreateForm', 'nope');
  });

  test('fields and links shape the Lifecycle Manager like the other trees', () => {
    const env = get(lifecycle, 'environments/env1', lc({ fields: 'associations', links: 'partitions,deprovision' }));
    assert.deepEqual(links(env), [`partitions ${L}/environments/env1/partitions`, `deprovision ${L}/environments/env1/deprovision`]);
    assert.deepEqual(Object.keys(env), ['links', 'associations']);
    const rt = get(lifecycle, 'runtimes/db1/partitions/p', lc({ fields: 'environment,name' }));
    assert.deepEqual(Object.keys(rt), ['links', 'name'], 'a link-only reference is never a field');
    const list = get(lifecycle, 'tenants/t1/services', lc({ links: 'none', excludeFields: 'id,serviceType,environmentRef,identityDomain,topLevelDir' }));
    assert.deepEqual(list, { items: [{ name: 's1', twoTask: null }, { name: 's2', twoTask: null }] });
    const svc = get(lifecycle, 'tenants/t1/services/s1', lc({ excludeLinks: 'environment,PDBCreateForm', fields: 'name' }));
    assert.deepEqual(links(svc).slice(3), [`PDB ${L}/tenants/t1/services/s1/PDB`]);
  });
});

describe('the version lists and the management version', () => {
  test('the management version list: its versions in place, a current link, no parent', () => {
    const body = get(versionListRoot(catalog, 'appserver'), '', ctx('/management/appserver', {}, true));
    assert.deepEqual(links(body), ['self /management/appserver', 'canonical /management/appserver', 'current /management/appserver/12.2.1.4.0']);
    assert.deepEqual(
      (body.items as Record<string, unknown>[]).map((i) => ({ ...i, links: links(i) })),
      [
        { links: ['self /management/appserver/12.2.1.4.0', 'canonical /management/appserver/12.2.1.4.0'], version: '12.2.1.4.0', isLatest: true, lifecycle: 'active' },
        { links: ['self /management/appserver/12.2.1.0', 'canonical /management/appserver/12.2.1.0'], version: '12.2.1.0', isLatest: false, lifecycle: 'deprecated' },
      ],
    );
    assert.deepEqual(Object.keys(body), ['links', 'items']);
  });

  test('the lifecycle version list names 12.2.1.0, and fields shape its items', () => {
    const body = get(versionListRoot(catalog, 'lifecycle'), '', ctx('/management/lifecycle', { fields: 'version' }, true));
    assert.deepEqual(links(body).at(-1), 'current /management/lifecycle/12.2.1.0');
    assert.deepEqual((body.items as Record<string, unknown>[]).map((i) => ({ ...i, links: links(i) })), [
      { links: ['self /management/lifecycle/12.2.1.0', 'canonical /management/lifecycle/12.2.1.0'], version: '12.2.1.0' },
    ]);
  });

  const caller: Caller = { user: 'u1', partitionId: 'id-1', partitionName: 'partition1', roles: ['Monitor'] };

  test('a management version links its five trees and currentUser, and offers no search', () => {
    const root = versionRoot(catalog, 'legacy', caller);
    const M = '/management/appserver/12.2.1.0.0';
    const body = get(root, '', ctx(M));
    assert.deepEqual(links(body), [
      'parent /management/appserver',
      `self ${M}`,
      `canonical ${M}`,
      ...['edit', 'domainConfig', 'domainRuntime', 'serverRuntime', 'serverConfig', 'currentUser'].map((t) => `${t} ${M}/${t}`),
    ]);
    assert.deepEqual(body.version, '12.2.1.0', 'the long spelling of the deprecated version shows its name');
    notFound(root, 'search', 'search');
    notFound(root, 'currentUser/x', 'x');
  });

  test('currentUser: the caller and the partition the request is scoped to', () => {
    const body = get(versionRoot(catalog, 'current', caller), 'currentUser', ctx('/partition1/management/appserver/latest'));
    assert.deepEqual(links(body), [
      'parent /partition1/management/appserver/latest',
      'self /partition1/management/appserver/latest/currentUser',
      'canonical /partition1/management/appserver/latest/currentUser',
    ]);
    const { links: _l, ...fields } = body;
    assert.deepEqual(fields, { partitionId: 'id-1', partitionName: 'partition1', user: 'u1', roles: ['Monitor'] });
  });
});
