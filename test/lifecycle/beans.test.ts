// Unit tests of the Lifecycle Manager's records seen as beans (src/lifecycle/beans.ts): what each
// key holds, how collections list their items, that no secret reaches a bean, and which requests
// need a runtime's partitions fetched first.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  LIFECYCLE_ENVIRONMENT,
  LIFECYCLE_ENVIRONMENT_PARTITION,
  LIFECYCLE_PDB,
  LIFECYCLE_ROOT,
  LIFECYCLE_RUNTIME_PARTITION,
  LIFECYCLE_SERVICE,
} from '../../src/catalog/overlay/lifecycle.js';
import { keyOfIdentity } from '../../src/core/identity.js';
import { LifecycleBeans, partitionsNeeded, shownProperties } from '../../src/lifecycle/beans.js';
import { BUILT_IN_PLUGINS, type LifecycleData, type Property, type RuntimePartition } from '../../src/lifecycle/model.js';

const sealed = { $sealed: 'AAAA' };

/** Records of a small Lifecycle Manager: this domain, a database, an environment using both, a tenant. */
function records(): LifecycleData {
  const t = 0;
  return {
    runtimes: [
      { name: 'demo_domain', type: 'wls', hostName: 'localhost', port: 7001, protocol: 'http', properties: [], local: true, partitions: [], created: t, updated: t },
      {
        name: 'db1',
        type: 'database',
        hostName: 'dbhost',
        port: 1521,
        protocol: 'tcp',
        properties: [
          { name: 'username', value: 'sys' },
          { name: 'password', confidentialValue: sealed },
        ],
        partitions: [],
        created: t,
        updated: t,
      },
    ],
    environments: [
      {
        name: 'env1',
        partitions: [
          { name: 'partition1', runtimeName: 'demo_domain' },
          { name: 'pdb 1%', runtimeName: 'db1' },
        ],
        associations: [
          {
            partition1Name: 'partition1',
            partition1RuntimeName: 'demo_domain',
            partition2Name: 'pdb 1%',
            partition2RuntimeName: 'db1',
            properties: [{ name: 'nested', properties: [{ name: 'secret', confidentialValue: sealed }] }],
          },
        ],
        provisioned: [],
        created: t,
        updated: t,
      },
    ],
    tenants: [
      {
        name: 't1',
        id: 'tid',
        topLevelDir: null,
        services: [
          { name: 's1', id: 'sid1', serviceType: 'JaaS', environmentRef: 'env1', identityDomain: null, topLevelDir: null, twoTask: null, pdb: { name: 'pdb-s1', id: 'p1', status: 'ACTIVE' }, created: t, updated: t },
          { name: 's2', id: 'sid2', serviceType: 'JaaS', environmentRef: null, identityDomain: null, topLevelDir: null, twoTask: null, pdb: null, created: t, updated: t },
        ],
        created: t,
        updated: t,
      },
    ],
    plugins: [...BUILT_IN_PLUGINS],
  };
}

const fetched = new Map<string, RuntimePartition[]>([
  [
    'db1',
    [
      { name: 'pdb 1%', id: 'pdb-id', properties: [{ name: 'pw', confidentialValue: sealed }] },
      { name: 'pdb2', id: 'pdb2-id', properties: [] },
    ],
  ],
]);

const beans = (partitions: ReadonlyMap<string, RuntimePartition[]> = fetched) => new LifecycleBeans(records, partitions);
const key = (...identity: string[]) => keyOfIdentity(identity);

describe('the Lifecycle Manager as beans', () => {
  test('the root is the version, 12.2.1.0, latest and active', () => {
    assert.deepEqual(beans().bean(''), { type: LIFECYCLE_ROOT, values: { version: '12.2.1.0', isLatest: true, lifecycle: 'active' } });
  });

  test('collections list their items in record order', () => {
    const b = beans();
    assert.deepEqual(b.itemNames('environments'), ['env1']);
    assert.deepEqual(b.itemNames('runtimes'), ['demo_domain', 'db1']);
    assert.deepEqual(b.itemNames('tenants'), ['t1']);
    assert.deepEqual(b.itemNames(key('tenants', 't1', 'services')), ['s1', 's2']);
    assert.deepEqual(b.itemNames('plugins'), BUILT_IN_PLUGINS.map((p) => p.name));
    assert.deepEqual(b.itemNames(key('tenants', 'nope', 'services')), []);
    assert.deepEqual(b.itemNames('nope'), []);
  });

  test("an environment's partitions are named by runtime and partition, and found at runtimes/{rt}/partitions/{p}", () => {
    const b = beans();
    const names = b.itemNames(key('environments', 'env1', 'partitions'));
    assert.deepEqual(names, [key('demo_domain', 'partition1'), key('db1', 'pdb 1%')]);
    const item = b.bean(key('environments', 'env1', 'runtimes', 'db1', 'partitions', 'pdb 1%'));
    assert.deepEqual(item, {
      type: LIFECYCLE_ENVIRONMENT_PARTITION,
      values: { runtimeName: 'db1', name: 'pdb 1%', runtimePartition: ['runtimes', 'db1', 'partitions', 'pdb 1%'] },
    });
    assert.equal(b.bean(key('environments', 'env1', 'runtimes', 'db1', 'partitions', 'pdb2')), undefined, 'a partition of the runtime that the environment does not hold');
    assert.equal(b.bean(key('environments', 'env1', 'runtimes', 'demo_domain')), undefined);
    assert.equal(b.bean(key('environments', 'env1', 'partitions', 'partition1')), undefined, 'not at <collection>/<name>');
  });

  test('an environment shows its associations with every secret as null', () => {
    const env = beans().bean(key('environments', 'env1'))!;
    assert.equal(env.type, LIFECYCLE_ENVIRONMENT);
    const associations = env.values.associations as { properties: Property[] }[];
    assert.deepEqual(associations[0]!.properties, [{ name: 'nested', properties: [{ name: 'secret', confidentialValue: null }] }]);
    assert.ok(!JSON.stringify(env).includes('$sealed'));
    assert.ok(JSON.stringify(records().environments[0]!.associations).includes('$sealed'), 'the records themselves are left as they are');
  });

  test('runtimes show their settings without secrets', () => {
    const db = beans().bean(key('runtimes', 'db1'))!;
    assert.deepEqual(db.values, {
      name: 'db1',
      type: 'database',
      hostName: 'dbhost',
      port: 1521,
      protocol: 'tcp',
      properties: [
        { name: 'username', value: 'sys' },
        { name: 'password', confidentialValue: null },
      ],
    });
  });

  test("a runtime's partitions are those fetched for the request; each links the environment holding it", () => {
    const b = beans();
    assert.deepEqual(b.itemNames(key('runtimes', 'db1', 'partitions')), ['pdb 1%', 'pdb2']);
    assert.deepEqual(b.bean(key('runtimes', 'db1', 'partitions', 'pdb 1%')), {
      type: LIFECYCLE_RUNTIME_PARTITION,
      values: { name: 'pdb 1%', id: 'pdb-id', runtimeName: 'db1', properties: [{ name: 'pw', confidentialValue: null }], environment: ['environments', 'env1'] },
    });
    assert.equal(beans().bean(key('runtimes', 'db1', 'partitions', 'pdb2'))!.values.environment, undefined, 'in no environment: no link');
    assert.deepEqual(b.itemNames(key('runtimes', 'demo_domain', 'partitions')), [], 'not fetched: none shown');
    assert.equal(beans(new Map()).bean(key('runtimes', 'db1', 'partitions', 'pdb2')), undefined);
  });

  test('a service links its environment; its PDB exists only once made', () => {
    const b = beans();
    const s1 = b.bean(key('tenants', 't1', 'services', 's1'))!;
    assert.equal(s1.type, LIFECYCLE_SERVICE);
    assert.deepEqual(s1.values, {
      name: 's1',
      id: 'sid1',
      serviceType: 'JaaS',
      environmentRef: 'env1',
      identityDomain: null,
      topLevelDir: null,
      twoTask: null,
      environment: ['environments', 'env1'],
    });
    assert.equal(b.bean(key('tenants', 't1', 'services', 's2'))!.values.environment, undefined);
    assert.deepEqual(b.bean(key('tenants', 't1', 'services', 's1', 'PDB')), { type: LIFECYCLE_PDB, values: { status: 'ACTIVE', name: 'pdb-s1', id: 'p1' } });
    assert.equal(b.bean(key('tenants', 't1', 'services', 's2', 'PDB')), undefined);
    assert.equal(b.bean(key('tenants', 't1', 'services', 'nope', 'PDB')), undefined);
  });

  test('unknown names and shapes hold nothing', () => {
    const b = beans();
    for (const k of [key('environments', 'nope'), key('runtimes', 'nope'), key('tenants', 'nope'), key('plugins', 'nope'), key('nope'), key('environments'), key('tenants', 't1', 'services', 's1', 'x')]) {
      assert.equal(b.bean(k), undefined, k);
    }
  });

  test('the records are read at each lookup, not copied', () => {
    const data = records();
    const b = new LifecycleBeans(() => data, new Map());
    data.environments.push({ name: 'env2', partitions: [], associations: [], provisioned: [], created: 0, updated: 0 });
    assert.deepEqual(b.itemNames('environments'), ['env1', 'env2']);
  });
});

describe('shown properties', () => {
  test('secrets become null at any depth; other entries keep their fields, the secret before nested ones', () => {
    const shown = shownProperties([
      { name: 'a', value: '1' },
      { name: 'b', values: ['x', 'y'] },
      { name: 'c', properties: [{ name: 'd', confidentialValue: 'plain' }], confidentialValue: sealed },
    ]);
    assert.deepEqual(shown, [
      { name: 'a', value: '1' },
      { name: 'b', values: ['x', 'y'] },
      { name: 'c', confidentialValue: null, properties: [{ name: 'd', confidentialValue: null }] },
    ]);
    assert.deepEqual(Object.keys(shown[2]!), ['name', 'confidentialValue', 'properties']);
  });
});

describe("which requests need a runtime's partitions", () => {
  const cases: [string[], boolean, string | undefined][] = [
    [['runtimes', 'db1', 'partitions'], true, 'db1'],
    [['runtimes', 'db1', 'partitions'], false, undefined],
    [['runtimes', 'db1', 'partitions', 'p'], false, 'db1'],
    [['runtimes', 'db1', 'partitions', 'p'], true, 'db1'],
    [['runtimes', 'db1'], true, undefined],
    [['runtimes', 'db1', 'partitionCreateForm'], true, undefined],
    [['environments', 'e', 'runtimes', 'db1', 'partitions', 'p'], true, undefined],
    [['runtimes'], true, undefined],
    [[], true, undefined],
  ];
  for (const [segments, reading, expected] of cases) {
    test(`${reading ? 'reading' : 'changing'} ${segments.join('/') || '(the version)'}: ${expected ?? 'none'}`, () => {
      assert.equal(partitionsNeeded(segments, reading), expected);
    });
  }
});
