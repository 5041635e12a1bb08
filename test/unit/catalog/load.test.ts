// The type model (src/catalog/load.ts): how the generated catalog and the overlay become types with
// inherited properties and operations, hidden properties, ranges, create forms and visible fields.
// The rules are shown on a small made-up catalog; the real one is checked for consistency.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Catalog, loadCatalog, singular, visibleIn } from '../../../src/catalog/load.js';
import { catalogWithOperations } from '../../../src/operations/catalog.js';
import type { CatalogFile, CatalogType } from '../../../src/catalog/format.js';
import type { Overlay, TypeOverlay } from '../../../src/catalog/overlay-format.js';

const STRING = 'java.lang.String';
const VOID_OP = (name: string) => ({ name, overloads: [{ params: [], returns: 'void' }] });

/** Catalog property lists hold inherited properties already: Child repeats Base's. */
const baseProps: CatalogType['p'] = [
  { n: 'name', t: STRING, k: 1, w: 1 },
  { n: 'port', t: 'int', w: 1, d: 7001 },
  { n: 'timeout', t: 'long', w: 1, d: 30 },
  { n: 'old', t: 'boolean', w: 1, dep: '12.2.1.2.0' },
  { n: 'secret', t: STRING, w: 1, enc: 1 },
  { n: 'hidden', t: 'int' },
  { n: 'inner', t: 'int', ri: 1 },
  { n: 'mode', t: STRING, w: 1, d: 'a', lv: ['a', 'b'] },
];

const file: CatalogFile = {
  source: 'unit test',
  version: '1',
  types: {
    'x.Base': { s: 'Base', kind: 'config', p: baseProps },
    'x.Child': { s: 'Child', kind: 'config', b: ['x.Base'], p: [...baseProps, { n: 'extra', t: 'boolean', w: 1 }] },
    'x.GrandChild': { s: 'GrandChild', disc: 'special.GrandChild', kind: 'config', b: ['x.Child'], p: [...baseProps, { n: 'extra', t: 'boolean', w: 1 }] },
    // Same short name as x.Base, in another family: discriminators are told apart by base type.
    'y.Base': { s: 'Base', kind: 'descriptor', p: [{ n: 'name', t: STRING, k: 1 }] },
    'x.Holder': {
      s: 'Holder',
      kind: 'config',
      p: [
        { n: 'name', t: STRING, k: 1 },
        { n: 'bases', t: 'x.Base', rel: 'c', a: 1, cr: ['x.Child', 'x.GrandChild'] },
        { n: 'policies', t: 'x.Base', rel: 'c', a: 1, cr: ['x.Child'] },
        { n: 'fixed', t: 'x.Base', rel: 'c' },
        { n: 'maybe', t: 'x.Base', rel: 'c', cr: ['x.Child'] },
        { n: 'listed', t: 'x.Base', rel: 'c', a: 1 },
        { n: 'target', t: 'x.Base', rel: 'r', w: 1 },
        { n: 'targets', t: 'x.Base', rel: 'r', a: 1, w: 1 },
        { n: 'oldChild', t: 'x.Base', rel: 'c', dep: '12.2.1.2.0' },
      ],
    },
  },
};

const patches: Record<string, TypeOverlay> = {
  'x.Base': {
    properties: [
      { n: 'added', t: 'int' },
      { n: 'port', t: 'int', w: 1, d: 8001 },
    ],
    operations: [VOID_OP('start'), VOID_OP('stop')],
    hide: ['hidden'],
    ranges: { port: [1, 65535] },
  },
  'x.Child': {
    properties: [{ n: 'added', t: STRING }],
    operations: [{ name: 'stop', overloads: [{ params: [{ name: 'force', type: 'boolean' }], returns: 'void' }] }],
  },
  'x.Holder': { properties: [{ n: 'rest', t: 'x.Rest', rel: 'c', only: 'edit' }, { n: 'audit', t: 'x.Rest', rel: 'c', a: 1, admin: 1 }] },
};

const overlay: Overlay = {
  types: { 'x.Rest': { s: 'Rest', kind: 'rest', p: [{ n: 'locked', t: 'boolean' }] } },
  patches,
};

const catalog = new Catalog(file, overlay);
const base = catalog.type('x.Base');
const child = catalog.type('x.Child');
const grand = catalog.type('x.GrandChild');
const holder = catalog.type('x.Holder');
const names = (props: readonly { name: string }[]) => props.map((p) => p.name);

test('a type knows its whole ancestry, and isA follows it', () => {
  assert.deepEqual([...grand.ancestors].sort(), ['x.Base', 'x.Child']);
  assert.equal(catalog.isA(grand, 'x.Base'), true);
  assert.equal(catalog.isA(grand, 'x.GrandChild'), true);
  assert.equal(catalog.isA(base, 'x.Child'), false);
  assert.equal(catalog.isA(catalog.type('y.Base'), 'x.Base'), false);
});

test('a base type lists its subtypes, transitively', () => {
  assert.deepEqual(base.subtypes.map((t) => t.name).sort(), ['x.Child', 'x.GrandChild']);
  assert.deepEqual(child.subtypes.map((t) => t.name), ['x.GrandChild']);
  assert.deepEqual(grand.subtypes, []);
});

test('an unknown type name is an error naming it', () => {
  assert.throws(() => catalog.type('x.Nope'), /x\.Nope/);
});

test('the discriminator is the short name unless the catalog gives another', () => {
  assert.equal(child.discriminator, 'Child');
  assert.equal(grand.short, 'GrandChild');
  assert.equal(grand.discriminator, 'special.GrandChild');
});

test('subtypeByDiscriminator finds the type among the subtypes of the base given', () => {
  assert.equal(catalog.subtypeByDiscriminator(base, 'Child'), child);
  assert.equal(catalog.subtypeByDiscriminator(base, 'special.GrandChild'), grand);
  assert.equal(catalog.subtypeByDiscriminator(child, 'Child'), child, 'a base selects itself');
  // Two types share the wire name 'Base': each family finds its own.
  assert.equal(catalog.subtypeByDiscriminator(base, 'Base'), base);
  assert.equal(catalog.subtypeByDiscriminator(catalog.type('y.Base'), 'Base'), catalog.type('y.Base'));
  assert.equal(catalog.subtypeByDiscriminator(child, 'Base'), undefined, 'a base type is not a subtype');
  assert.equal(catalog.subtypeByDiscriminator(base, 'GrandChild'), undefined, 'the short name is not the discriminator here');
  assert.equal(catalog.subtypeByDiscriminator(base, 'Nope'), undefined);
  assert.equal(catalog.subtypeByDiscriminator(base, '__proto__'), undefined);
});

test('properties keep their catalog facts', () => {
  const port = child.prop.get('port')!;
  assert.equal(port.valueKind, 'int');
  assert.equal(port.shape, 'scalar');
  assert.equal(port.writable, true);
  assert.equal(port.hasDefault, true);
  assert.equal(base.prop.get('timeout')!.valueKind, 'long');
  assert.equal(base.prop.get('secret')!.encrypted, true);
  assert.deepEqual(base.prop.get('mode')!.legalValues, ['a', 'b']);
  assert.equal(base.prop.get('old')!.deprecatedIn, '12.2.1.2.0');
  assert.equal(base.prop.get('name')!.key, true);
  assert.equal(base.keyProp, 'name');
  assert.equal(base.prop.get('inner')!.internal, true);
  assert.equal(child.prop.get('extra')!.valueKind, 'boolean');
});

test('relationships become references, singletons and collections', () => {
  const shape = (n: string) => holder.prop.get(n)!.shape;
  assert.equal(shape('target'), 'reference');
  assert.equal(shape('targets'), 'reference');
  assert.equal(holder.prop.get('targets')!.array, true);
  assert.equal(shape('fixed'), 'singleton');
  assert.equal(shape('maybe'), 'singleton');
  assert.equal(shape('bases'), 'collection');
  assert.equal(holder.prop.get('target')!.valueKind, 'bean');
});

test('a singleton with creators is optional, one without is always there', () => {
  assert.equal(holder.prop.get('maybe')!.optional, true);
  assert.equal(holder.prop.get('fixed')!.optional, false);
  assert.equal(holder.prop.get('bases')!.optional, false, 'collections are never optional singletons');
});

test('children are listed in catalog order, overlay children after them', () => {
  assert.deepEqual(names(holder.children), ['bases', 'policies', 'fixed', 'maybe', 'listed', 'oldChild', 'rest', 'audit']);
});

test('creatable children get a create form named after the singular of the collection', () => {
  assert.equal(holder.prop.get('bases')!.createForm, 'baseCreateForm');
  assert.equal(holder.prop.get('policies')!.createForm, 'policyCreateForm');
  assert.equal(holder.prop.get('maybe')!.createForm, 'maybeCreateForm', 'an optional singleton keeps its name');
  assert.equal(holder.prop.get('listed')!.createForm, undefined, 'no creators, no form');
  assert.equal(holder.prop.get('fixed')!.createForm, undefined);
  assert.deepEqual([...holder.createForms.keys()].sort(), ['baseCreateForm', 'maybeCreateForm', 'policyCreateForm']);
  assert.equal(holder.createForms.get('policyCreateForm'), holder.prop.get('policies'));
});

test('fields are the scalars and references, without internal ones; deprecated ones only in legacy', () => {
  assert.ok(names(base.fields.legacy).includes('old'));
  assert.ok(!names(base.fields.current).includes('old'));
  assert.ok(!names(base.fields.legacy).includes('inner'), 'internal properties are no fields');
  assert.ok(!names(holder.fields.legacy).includes('bases'), 'children are no fields');
  assert.deepEqual(names(holder.fields.current), ['name', 'target', 'targets']);
});

test('visibleIn hides what was deprecated after 12.2.1.0 from current URLs only', () => {
  const old = base.prop.get('old')!;
  const port = base.prop.get('port')!;
  assert.equal(visibleIn(old, 'current'), false);
  assert.equal(visibleIn(old, 'legacy'), true);
  assert.equal(visibleIn(port, 'current'), true);
  assert.equal(visibleIn(holder.prop.get('oldChild')!, 'current'), false);
});

test('the overlay adds properties to the type it patches and to every subtype', () => {
  assert.equal(base.prop.get('added')!.valueKind, 'int');
  assert.equal(grand.prop.get('added')!.valueKind, 'string', 'GrandChild inherits Child\'s, the nearer declaration');
  assert.equal(child.prop.get('added')!.valueKind, 'string', 'a subtype\'s own patch wins');
  assert.equal(holder.prop.get('rest')!.onlyIn, 'edit');
  assert.equal(holder.prop.get('audit')!.adminOnly, true);
});

test('the overlay replaces a property of the type it patches, in place', () => {
  const port = base.prop.get('port')!;
  assert.equal(port.defaultValue, 8001);
  assert.equal(base.props.indexOf(port), 1, 'the replacement keeps the position');
  assert.equal(base.props.filter((p) => p.name === 'port').length, 1);
});

test('a property the overlay redeclares on a base type reaches its subtypes', () => {
  assert.equal(child.prop.get('port')!.defaultValue, 8001);
  const real = loadCatalog();
  const progress = (t: string) => real.type(`appserver.management.runtime.${t}`).prop.get('progress')!.legalValues;
  assert.deepEqual(progress('ServerLifeCycleTaskRuntimeMBean'), progress('TaskRuntimeMBean'));
});

test('a hidden property is gone from the type and its subtypes', () => {
  for (const t of [base, child, grand]) {
    assert.equal(t.prop.has('hidden'), false, t.short);
    assert.ok(!names(t.props).includes('hidden'), t.short);
    assert.ok(!names(t.fields.legacy).includes('hidden'), t.short);
  }
});

test('operations reach every subtype; a subtype\'s own declaration of a name wins', () => {
  assert.deepEqual([...base.operations.keys()].sort(), ['start', 'stop']);
  assert.equal(base.operations.get('stop')!.declaredBy, 'x.Base');
  assert.equal(grand.operations.get('start')!.declaredBy, 'x.Base');
  assert.equal(child.operations.get('stop')!.declaredBy, 'x.Child');
  assert.deepEqual(child.operations.get('stop')!.overloads[0]!.params.map((p) => p.name), ['force']);
  assert.equal(grand.operations.get('stop')!.declaredBy, 'x.Child', 'the nearest declaration');
  assert.equal(holder.operations.size, 0);
});

test('a range reaches every subtype', () => {
  for (const t of [base, child, grand]) {
    const port = t.prop.get('port')!;
    assert.deepEqual([port.min, port.max], [1, 65535], t.short);
  }
  assert.equal(base.prop.get('timeout')!.min, undefined);
});

/** Builds a catalog with one patch on x.Base, to see what the overlay refuses. */
const withPatch = (patch: TypeOverlay) => () => new Catalog(file, { types: {}, patches: { ...patches, 'x.Base': { ...patches['x.Base'], ...patch } } });

test('a range must name an integer property of the type and fit its default', () => {
  assert.throws(withPatch({ ranges: { nope: [0, 1] } }), /Base\.nope, which does not exist/);
  assert.throws(withPatch({ ranges: { mode: [0, 1] } }), /Base\.mode, which is not an integer/);
  assert.throws(withPatch({ ranges: { timeout: [100, 200] } }), /default 30 of Base\.timeout is outside its range 100\.\.200/);
  assert.doesNotThrow(withPatch({ ranges: { timeout: [0, 30] } }));
});

test('a patch of an unknown type is an error naming it', () => {
  assert.throws(() => new Catalog(file, { types: {}, patches: { 'x.Missing': { hide: ['a'] } } }), /x\.Missing/);
});

test('singular turns collection names into create-form names', () => {
  const cases: [string, string][] = [
    ['servers', 'server'],
    ['JMSServers', 'JMSServer'],
    ['policies', 'policy'],
    ['WSReliableDeliveryPolicies', 'WSReliableDeliveryPolicy'],
    ['classes', 'class'],
    ['boxes', 'box'],
    ['address', 'address'],
    ['JNDIProperties', 'JNDIProperty'],
    ['data', 'data'],
  ];
  for (const [plural, one] of cases) assert.equal(singular(plural), one, plural);
});

// ---- the real catalog ----------------------------------------------------------------------------

// With its operations, as servers load it.
const real = catalogWithOperations();
const C = 'appserver.management.configuration.';
const R = 'appserver.management.runtime.';

test('the catalog is loaded once and shared', () => {
  assert.equal(catalogWithOperations(), real);
  assert.equal(loadCatalog(), loadCatalog());
  assert.ok(real.types.size > 800, `${real.types.size} types`);
});

test('every type the catalog names exists, and every creator is a kind of its child', () => {
  const broken: string[] = [];
  for (const t of real.types.values()) {
    for (const a of t.ancestors) if (!real.types.has(a)) broken.push(`${t.name} extends missing ${a}`);
    for (const s of t.subtypes) if (!s.ancestors.has(t.name)) broken.push(`${s.name} listed under ${t.name}`);
    for (const p of t.props) {
      if (p.shape !== 'scalar' && !real.types.has(p.javaType)) broken.push(`${t.short}.${p.name}: missing ${p.javaType}`);
      for (const c of p.creators) {
        const ct = real.types.get(c);
        if (!ct || !real.isA(ct, p.javaType)) broken.push(`${t.short}.${p.name}: creator ${c}`);
      }
    }
    for (const [form, p] of t.createForms) if (t.prop.get(p.name) !== p || p.createForm !== form) broken.push(`${t.short}.${form}`);
    if (t.props.length !== t.prop.size) broken.push(`${t.short}: ${t.props.length} properties, ${t.prop.size} names`);
  }
  assert.deepEqual(broken, []);
});

test('the overlay\'s ports have their ranges, on the declaring type and its subtypes', () => {
  const range = (type: string, prop: string) => {
    const p = real.type(type).prop.get(prop)!;
    return [p.min, p.max];
  };
  assert.deepEqual(range(`${C}ServerTemplateMBean`, 'listenPort'), [1, 65535]);
  assert.deepEqual(range(`${C}ServerMBean`, 'listenPort'), [1, 65535]);
  assert.deepEqual(range(`${C}ServerMBean`, 'administrationPort'), [0, 65535]);
  assert.deepEqual(range(`${C}SSLMBean`, 'listenPort'), [1, 65535]);
});

test('the overlay\'s REST-only children are where the interface has them', () => {
  const domain = real.type(`${C}DomainMBean`);
  assert.equal(domain.prop.get('changeManager')!.onlyIn, 'edit');
  assert.equal(domain.createForms.get('serverCreateForm'), domain.prop.get('servers'));
  const runtime = real.type(`${R}DomainRuntimeMBean`);
  assert.equal(runtime.prop.get('serverRuntimes')!.shape, 'collection');
  assert.equal(runtime.prop.get('auditRecords')!.adminOnly, true);
  const manager = real.type('appserver.management.rest.ChangeManager');
  assert.equal(manager.kind, 'rest');
  for (const op of ['startEdit', 'activate', 'cancelEdit']) assert.ok(manager.operations.has(op), op);
});

test('task types carry the job fields clients poll', () => {
  for (const t of [`${R}ServerLifeCycleTaskRuntimeMBean`, `${R}DeploymentProgressObjectMBean`]) {
    const type = real.type(t);
    for (const f of ['startTime', 'endTime', 'completed', 'progress', 'intervalToPoll']) assert.ok(type.prop.has(f), `${type.short}.${f}`);
    assert.equal(type.prop.get('intervalToPoll')!.defaultValue, 1000);
  }
});

test('the real discriminators resolve within their family', () => {
  // 'DataSource' names a configuration bean and a descriptor bean.
  const config = real.subtypeByDiscriminator(real.type(`${C}DeploymentMBean`), 'DataSource');
  assert.equal(config?.name, `${C}DataSourceMBean`);
  const descriptor = real.subtypeByDiscriminator(real.type('appserver.descriptor.SettableBean'), 'DataSource');
  assert.equal(descriptor?.name, 'appserver.j2ee.descriptor.DataSourceBean');
  const machine = real.subtypeByDiscriminator(real.type(`${C}MachineMBean`), 'UnixMachine');
  assert.equal(machine?.name, `${C}UnixMachineMBean`);
});
