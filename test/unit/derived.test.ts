// Derived references, derived defaults and dynamic servers on small configurations, without a
// server: the beans no tree reaches (a JMS store's JMS server, a component's activated targets),
// every derived default either computed or listed as unknown, the dynamic servers a cluster makes
// (names, ports, machines chosen by expression, one kept while it stops) and the tree source that
// shows them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { BeanView } from '../../src/behaviour/bean.js';
import { ConfigIndex } from '../../src/behaviour/config-view.js';
import { UNKNOWN_DERIVED_DEFAULTS, computesDefault } from '../../src/behaviour/derived-defaults.js';
import { derivedValues } from '../../src/behaviour/derived-values.js';
import { dynamicServers, settingsOf } from '../../src/behaviour/dynamic-servers.js';
import { standardBehaviours } from '../../src/behaviour/index.js';
import type { CatalogFile } from '../../src/catalog/format.js';
import { WithDynamicServers } from '../../src/config/dynamic-servers.js';
import { Topology } from '../../src/config/topology.js';
import { keyOfIdentity } from '../../src/core/identity.js';
import { catalogWithOperations } from '../../src/operations/catalog.js';
import { BeanTree } from '../../src/tree/records.js';

const catalog = catalogWithOperations();
const behaviours = standardBehaviours(catalog);
const C = 'appserver.management.configuration.';

/** A configuration from `[identity, type, values]` rows (items get listed in their collections). */
function config(rows: [string[], string, Record<string, unknown>][]): BeanTree {
  const tree = new BeanTree();
  tree.setRoot({ type: `${C}DomainMBean`, values: { name: 'd1', adminServerName: 'admin' } });
  for (const [identity, type, values] of rows) {
    const key = keyOfIdentity(identity);
    if (identity.length % 2 === 0) tree.putRaw(key, { type, values: { name: identity.at(-1), ...values } }, keyOfIdentity(identity.slice(0, -1)), identity.at(-1)!);
    else tree.putRaw(key, { type, values }, null, null);
  }
  return tree;
}

function view(tree: BeanTree, identity: string[]): BeanView {
  const record = tree.bean(keyOfIdentity(identity));
  assert.ok(record, `no bean ${identity.join('/')}`);
  return { type: catalog.type(record.type), key: keyOfIdentity(identity), identity, scope: {}, record };
}

/** The derived values of a bean, as a configuration tree shows them. */
function derived(tree: BeanTree, identity: string[]): Record<string, unknown> {
  // Configuration beans: no runtime, so no workload figures either.
  const ctx = { config: new ConfigIndex(tree), runtime: {} } as unknown as Parameters<typeof derivedValues>[2];
  return derivedValues(behaviours, view(tree, identity), ctx) ?? {};
}

describe('derived references no tree reaches', () => {
  const tree = config([
    [['fileStores', 'fs1'], `${C}FileStoreMBean`, {}],
    [['JMSServers', 'jms1'], `${C}JMSServerMBean`, { persistentStore: ['fileStores', 'fs1'] }],
    [['JMSServers', 'jms2'], `${C}JMSServerMBean`, { persistentStore: ['JMSStores', 'old'] }],
  ]);

  test("a JMS store's JMS server is the one keeping its messages there", () => {
    // JMS stores are listed nowhere the REST trees reach: the rule is shown on a bean made for it.
    tree.putRaw('JMSStores/old', { type: `${C}JMSFileStoreMBean`, values: { name: 'old' } }, 'JMSStores', 'old');
    assert.deepEqual(derived(tree, ['JMSStores', 'old']).JMSServer, ['JMSServers', 'jms2']);
    tree.putRaw('JMSStores/none', { type: `${C}JMSFileStoreMBean`, values: { name: 'none' } }, 'JMSStores', 'none');
    assert.equal(derived(tree, ['JMSStores', 'none']).JMSServer, null);
  });

  test("a component's activated targets are its targets", () => {
    tree.putRaw('components/c1', { type: `${C}WebAppComponentMBean`, values: { name: 'c1', targets: [['servers', 'ms1']] } }, 'components', 'c1');
    assert.deepEqual(derived(tree, ['components', 'c1']).activatedTargets, [['servers', 'ms1']]);
  });

  test("a destination's parameters take their template from it", () => {
    const jms = ['JMSSystemResources', 'm1', 'JMSResource'];
    const t = config([
      [['JMSSystemResources', 'm1'], `${C}JMSSystemResourceMBean`, {}],
      [jms, 'appserver.j2ee.descriptor.wl.JMSBean', {}],
      [[...jms, 'templates', 't1'], 'appserver.j2ee.descriptor.wl.TemplateBean', { maximumMessageSize: 1024 }],
      [[...jms, 'templates', 't1', 'deliveryFailureParams'], 'appserver.j2ee.descriptor.wl.DeliveryFailureParamsBean', { redeliveryLimit: 5 }],
      [[...jms, 'queues', 'q1'], 'appserver.j2ee.descriptor.wl.QueueBean', { template: [...jms, 'templates', 't1'] }],
      [[...jms, 'queues', 'q1', 'deliveryFailureParams'], 'appserver.j2ee.descriptor.wl.DeliveryFailureParamsBean', {}],
      [[...jms, 'queues', 'q2'], 'appserver.j2ee.descriptor.wl.QueueBean', {}],
      [[...jms, 'queues', 'q2', 'deliveryFailureParams'], 'appserver.j2ee.descriptor.wl.DeliveryFailureParamsBean', {}],
    ]);
    const q1 = derived(t, [...jms, 'queues', 'q1', 'deliveryFailureParams']);
    assert.deepEqual([q1.templateBean, q1.redeliveryLimit, q1.expirationPolicy], [[...jms, 'templates', 't1'], 5, 'Discard']);
    const q2 = derived(t, [...jms, 'queues', 'q2', 'deliveryFailureParams']);
    assert.deepEqual([q2.templateBean, q2.redeliveryLimit], [null, -1]);
    assert.equal(derived(t, [...jms, 'templates', 't1', 'deliveryFailureParams']).templateBean?.toString(), [...jms, 'templates', 't1'].toString());
    assert.equal(derived(t, [...jms, 'queues', 'q1']).maximumMessageSize, 1024);
    assert.equal(derived(t, [...jms, 'queues', 'q2']).maximumMessageSize, 2147483647);
    assert.equal(derived(t, [...jms, 'queues', 'q2']).subDeploymentName, 'q2');
  });
});

describe('derived defaults', () => {
  test('every derived default of the catalog is computed, or listed as unknown (and none listed is computed)', () => {
    const raw = (JSON.parse(readFileSync(new URL('../../../catalog/catalog.json', import.meta.url), 'utf8')) as CatalogFile).types;
    const computed = new Set<string>();
    const unknown = new Set<string>();
    for (const [name, t] of Object.entries(raw)) {
      for (const p of t.p ?? []) {
        // A bean's name is its own; runtime beans are not configured.
        if (!p.dd || p.n === 'name' || t.kind === 'runtime' || !catalog.type(name).prop.has(p.n)) continue;
        const key = `${raw[p.by ?? name]?.s ?? name}.${p.n}`;
        (computesDefault(behaviours, catalog.type(name), p.n) ? computed : unknown).add(key);
      }
    }
    for (const k of computed) unknown.delete(k);
    assert.deepEqual([...unknown].sort(), [...UNKNOWN_DERIVED_DEFAULTS].sort());
    assert.ok(computed.size >= 90, `${computed.size} computed`);
  });

  test('a value set on the bean keeps its own; the domain moves the others', () => {
    const tree = config([
      [['servers', 'a'], `${C}ServerMBean`, {}],
      [['servers', 'b'], `${C}ServerMBean`, { administrationPort: 9999 }],
    ]);
    assert.equal(derived(tree, ['servers', 'a']).administrationPort, 9002);
    assert.equal('administrationPort' in derived(tree, ['servers', 'b']), false);
    tree.setRoot({ type: `${C}DomainMBean`, values: { name: 'd1', administrationPort: 9100 } });
    assert.equal(derived(tree, ['servers', 'a']).administrationPort, 9100);
  });
});

describe('dynamic servers', () => {
  const base = (dynamic: Record<string, unknown>, template: Record<string, unknown> = {}) =>
    config([
      [['machines', 'm-a1'], `${C}MachineMBean`, {}],
      [['machines', 'm-b1'], `${C}MachineMBean`, {}],
      [['machines', 'm-a2'], `${C}MachineMBean`, {}],
      [['clusters', 'c1'], `${C}ClusterMBean`, {}],
      [['clusters', 'c1', 'dynamicServers'], `${C}DynamicServersMBean`, { serverTemplate: ['serverTemplates', 't1'], ...dynamic }],
      [['serverTemplates', 't1'], `${C}ServerTemplateMBean`, { cluster: ['clusters', 'c1'], ...template }],
    ]);

  test("named after the cluster when no prefix is set; default ports from 7100 and 8100; the template's machine", () => {
    const tree = base({ dynamicClusterSize: 2 }, { machine: ['machines', 'm-b1'] });
    const list = dynamicServers(new ConfigIndex(tree));
    assert.deepEqual(list.map((d) => [d.name, d.listenPort, d.sslListenPort, d.machine]), [['c1-1', 7101, 8101, undefined], ['c1-2', 7102, 8102, undefined]]);
    const layer = new WithDynamicServers(tree);
    assert.deepEqual(layer.bean('servers/c1-1')?.values.machine, ['machines', 'm-b1']);
    assert.equal(derived(tree, ['clusters', 'c1', 'dynamicServers']).serverNamePrefix, 'c1-');
  });

  test('machines chosen by the match expression, in turn; ports not calculated keep the template’s', () => {
    const tree = base({ dynamicClusterSize: 3, calculatedMachineNames: true, machineNameMatchExpression: 'm-a*', calculatedListenPorts: false }, { listenPort: 8001 });
    const layer = new WithDynamicServers(tree);
    assert.deepEqual(
      ['c1-1', 'c1-2', 'c1-3'].map((n) => [layer.bean(`servers/${n}`)?.values.machine, layer.bean(`servers/${n}`)?.values.listenPort]),
      [[['machines', 'm-a1'], 8001], [['machines', 'm-a2'], 8001], [['machines', 'm-a1'], 8001]],
    );
  });

  test('a name a configured server holds is left to it; a server beyond the size is kept only while retained', () => {
    const tree = base({ dynamicClusterSize: 2, serverNamePrefix: 'x' });
    tree.putRaw('servers/x2', { type: `${C}ServerMBean`, values: { name: 'x2', listenPort: 1 } }, 'servers', 'x2');
    const topology = new Topology(tree);
    assert.deepEqual(topology.servers().map((s) => [s.name, s.values.dynamicallyCreated ?? false]), [['x2', false], ['x1', true]]);
    assert.ok(topology.couldBeDynamic('x7'));
    assert.ok(!topology.couldBeDynamic('x2') && !topology.couldBeDynamic('x0') && !topology.couldBeDynamic('x01') && !topology.couldBeDynamic('y1'));
    const kept = topology.retaining(['x7']);
    assert.deepEqual(kept.servers().map((s) => s.name), ['x2', 'x1', 'x7']);
    assert.equal(kept.bean(['servers', 'x7'])?.values.listenPort, 7107);
  });

  test('settings a request sends as text are read as the write will store them', () => {
    const tree = base({});
    const s = settingsOf(tree, 'c1', { dynamicClusterSize: '4', calculatedListenPorts: 'false', serverTemplate: { identity: ['serverTemplates', 't1'] } });
    assert.deepEqual([s?.size, s?.calculatedPorts, s?.template], [4, false, 't1']);
    assert.equal(settingsOf(tree, 'c1', { serverTemplate: null }), undefined);
  });
});
