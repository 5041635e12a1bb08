// A topology takes over from the previous configuration version what the changes since cannot have
// moved (src/config/topology.ts carry): the servers' list, clusters' members, indexes by name, the
// grouping of targeted items. Whatever the sequence of changes, a topology carried along each
// activation must answer every question as one made afresh from the same configuration.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { type ItemKind, Topology } from '../../../src/config/topology.js';
import { BeanTree } from '../../../src/tree/records.js';
import { childKey, itemKey } from '../../../src/core/identity.js';

const SERVERS = ['ms1', 'ms2', 'ms3', 'ms4', 'ms5', '__proto__'];
const CLUSTERS = ['c1', 'c2', 'dc'];
const APPS = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6'];

interface Change {
  operation: 'create' | 'modify' | 'delete';
  identity: string[];
}

function domain(): BeanTree {
  const t = new BeanTree();
  t.setRoot({ type: 'Domain', values: { name: 'd', adminServerName: 'ms1' } });
  for (const c of CLUSTERS) t.putItem('', 'clusters', c, { type: 'Cluster', values: {} });
  t.putItem('', 'serverTemplates', 't1', { type: 'Template', values: { listenPort: 8000 } });
  t.putSingleton(itemKey('clusters', 'dc'), 'dynamicServers', { type: 'Dynamic', values: { serverTemplate: ['serverTemplates', 't1'], dynamicClusterSize: 2 } });
  SERVERS.forEach((s, i) => t.putItem('', 'servers', s, { type: 'Server', values: { cluster: ['clusters', CLUSTERS[i % 2]!] } }));
  APPS.forEach((a, i) => t.putItem('', 'appDeployments', a, { type: 'App', values: { targets: [['clusters', CLUSTERS[i % 3]!]] } }));
  return t;
}

/** Items of one kind placed apart (as the runtime places resource adapters). */
const ADAPTERS: ItemKind = { name: 'rar', accept: (app) => app.values.moduleType === 'rar' };

const target = fc.oneof(
  fc.constantFrom(...CLUSTERS).map((c) => ['clusters', c]),
  fc.constantFrom(...SERVERS).map((s) => ['servers', s]),
);

/** One activation's change to the configuration, made on the tree; the change as the runtime is told of it. */
type Step = (t: BeanTree) => Change | undefined;

const modify = (t: BeanTree, collection: string, name: string, values: Record<string, unknown>): Change | undefined => {
  const key = itemKey(collection, name);
  const record = t.bean(key);
  if (!record) return undefined;
  t.putItem('', collection, name, { type: record.type, values: { ...record.values, ...values } });
  return { operation: 'modify', identity: [collection, name] };
};

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(fc.constantFrom(...APPS), fc.array(target, { maxLength: 3 })).map(([a, targets]): Step => (t) => modify(t, 'appDeployments', a, { targets })) },
  { weight: 2, arbitrary: fc.constantFrom(...APPS).map((a): Step => (t) => modify(t, 'appDeployments', a, { notes: String(Math.random()) })) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...APPS), fc.constantFrom('rar', 'war')).map(([a, moduleType]): Step => (t) => modify(t, 'appDeployments', a, { moduleType })) },
  { weight: 3, arbitrary: fc.tuple(fc.constantFrom(...SERVERS), fc.constantFrom(...CLUSTERS, null)).map(([s, c]): Step => (t) => modify(t, 'servers', s, { cluster: c === null ? null : ['clusters', c] })) },
  { weight: 2, arbitrary: fc.constantFrom(...SERVERS).map((s): Step => (t) => modify(t, 'servers', s, { notes: String(Math.random()) })) },
  { weight: 1, arbitrary: fc.constantFrom(...CLUSTERS).map((c): Step => (t) => modify(t, 'clusters', c, { notes: String(Math.random()) })) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 0, max: 4 }).map((size): Step => (t) => {
      t.putSingleton(itemKey('clusters', 'dc'), 'dynamicServers', { type: 'Dynamic', values: { serverTemplate: ['serverTemplates', 't1'], dynamicClusterSize: size } });
      return { operation: 'modify', identity: ['clusters', 'dc', 'dynamicServers'] };
    }),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom(...SERVERS), fc.boolean()).map(([s, add]): Step => (t) => {
      const key = itemKey('servers', s);
      if (add === (t.bean(key) !== undefined)) return undefined;
      if (add) t.putItem('', 'servers', s, { type: 'Server', values: { cluster: ['clusters', 'c1'] } });
      else t.remove(key);
      return { operation: add ? 'create' : 'delete', identity: ['servers', s] };
    }),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom(...APPS), fc.boolean()).map(([a, add]): Step => (t) => {
      const key = itemKey('appDeployments', a);
      if (add === (t.bean(key) !== undefined)) return undefined;
      if (add) t.putItem('', 'appDeployments', a, { type: 'App', values: { targets: [['clusters', 'dc']] } });
      else t.remove(key);
      return { operation: add ? 'create' : 'delete', identity: ['appDeployments', a] };
    }),
  },
);

/** Everything the runtime asks of a topology, as plain data. */
function answers(t: Topology): unknown {
  const servers = t.servers().map((s) => [s.name, s.values]);
  const names = [...SERVERS, 'dc-1', 'dc-2', 'dc-3', 'dc-4'];
  return {
    servers,
    byName: names.map((n) => t.server(n)?.values ?? null),
    members: CLUSTERS.map((c) => t.serversOf(['clusters', c])),
    placed: names.map((n) => t.placedOn('appDeployments', n).map((a) => [a.name, a.values])),
    placedOfKind: names.map((n) => t.placedOn('appDeployments', n, ADAPTERS).map((a) => a.name)),
    apps: t.appDeployments().map((a) => [a.name, a.values]),
    dynamicServersSource: t.source.bean(childKey(itemKey('clusters', 'dc'), 'dynamicServers'))?.values ?? null,
  };
}

test('a topology carried along activations answers as one made afresh', () => {
  fc.assert(
    fc.property(fc.array(fc.array(step, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 10 }), (activations) => {
      const tree = domain();
      let followed = new Topology(tree);
      answers(followed);
      for (const steps of activations) {
        const changes = steps.map((s) => s(tree)).filter((c): c is Change => c !== undefined);
        const carried = new Topology(tree).carry(followed, changes);
        assert.deepEqual(answers(carried), answers(new Topology(tree)), JSON.stringify(changes));
        followed = carried;
      }
    }),
    { numRuns: 400 },
  );
});
