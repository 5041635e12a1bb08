// The search query (src/render/search.ts): the shape each query node asks for, children walked by
// name, items chosen by key, and the errors a malformed query gets, naming where it is.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isProblem } from '../../../src/core/problems.js';
import { printJson } from '../../../src/render/json-text.js';
import { wholeText } from '../../../src/render/streamed.js';
import { beanAt, configRoot, context, domainRuntimeRoot, rels, searcher, serverRuntimeTree, smallDomain } from '../../support/small-tree.js';

const { tree } = smallDomain();
const edit = configRoot(tree);
type Json = Record<string, any>;

const search = (query: Json, root = edit): Json => searcher.search(beanAt(root, []), query, context());

/** The detail of the 400 a query gets. */
function refusal(query: Json): string {
  try {
    search(query);
  } catch (err) {
    assert.ok(isProblem(err, 'invalid'), String(err));
    return err.message;
  }
  assert.fail(`${JSON.stringify(query)} was accepted`);
}

test('an empty query returns the root with every field and link', () => {
  const body = search({});
  assert.equal(body.name, 'd1');
  assert.deepEqual(body.identity, []);
  assert.ok(rels(body).includes('self'));
  assert.equal('servers' in body, false, 'children only when asked');
});

test('fields selects properties; an empty list selects none', () => {
  assert.deepEqual(Object.keys(search({ fields: ['name'], links: [] })), ['name']);
  assert.deepEqual(Object.keys(search({ fields: [], links: [] })), []);
  assert.deepEqual(Object.keys(search({ fields: ['identity', 'name'], links: [] })).sort(), ['identity', 'name']);
});

test('excludeFields drops properties', () => {
  const body = search({ excludeFields: ['name', 'identity'] });
  assert.equal('name' in body, false);
  assert.equal('identity' in body, false);
  assert.ok('adminServerName' in body);
});

test('links selects relations; an empty list drops the links key', () => {
  assert.deepEqual(rels(search({ links: ['self', 'search'], fields: [] })), ['self', 'search']);
  assert.equal('links' in search({ links: [] }), false);
  assert.equal(rels(search({ excludeLinks: ['self'] })).includes('self'), false);
});

test('entries of a list that are not strings are ignored', () => {
  assert.deepEqual(Object.keys(search({ fields: ['name', 7, null, { x: 1 }], links: [] })), ['name']);
});

test('a collection child lists its items, each shaped by the child query', () => {
  const body = search({ fields: [], links: [], children: { servers: { fields: ['name', 'listenPort'], links: [] } } });
  assert.deepEqual(body, {
    servers: {
      items: [
        { name: 'AdminServer', listenPort: 7001 },
        { name: 'ms2', listenPort: 7005 },
        { name: 'ms1', listenPort: 7003 },
      ],
    },
  });
});

test('items are chosen by their key property', () => {
  const body = search({ fields: [], links: [], children: { servers: { name: ['ms1', 'nope', 'AdminServer'], fields: ['name'], links: [] } } });
  assert.deepEqual(body.servers.items, [{ name: 'AdminServer' }, { name: 'ms1' }], 'in collection order');
  const none = search({ fields: [], links: [], children: { servers: { name: [], fields: ['name'] } } });
  assert.deepEqual(none.servers.items, []);
});

test('children nest, and a singleton child is an object', () => {
  const body = search({
    fields: [],
    links: [],
    children: { servers: { name: ['ms1'], fields: [], links: [], children: { log: { fields: ['name'], links: [] }, SSL: { fields: [], links: [] } } } },
  });
  assert.deepEqual(body.servers.items, [{ log: { name: 'ms1' }, SSL: {} }]);
});

test('an optional singleton not created is null', () => {
  const body = search({
    fields: [],
    links: [],
    children: { securityConfiguration: { fields: [], links: [], children: { realms: { fields: [], links: [], children: { adjudicator: {}, userLockoutManager: { fields: [], links: [] } } } } } },
  });
  assert.deepEqual(body.securityConfiguration.realms.items, [{ adjudicator: null, userLockoutManager: {} }]);
});

test('unknown children are left out, and a child query that is no object asks for everything', () => {
  const body = search({ fields: [], links: [], children: { nope: {}, name: {}, clusters: true } });
  assert.deepEqual(Object.keys(body), ['clusters']);
  const c1 = body.clusters.items[0];
  assert.equal(c1.name, 'c1');
  assert.ok(rels(c1).includes('self'));
});

test('an empty collection is an empty list of items', () => {
  assert.deepEqual(search({ fields: [], links: [], children: { virtualTargets: {} } }), { virtualTargets: { items: [] } });
});

test('a mounted collection is searched through the mounted trees', () => {
  const runtime = domainRuntimeRoot({ ms1: serverRuntimeTree('ms1'), AdminServer: serverRuntimeTree('AdminServer') });
  const body = search(
    { fields: [], links: [], children: { serverRuntimes: { name: ['ms1'], fields: ['name', 'state'], links: [], children: { applicationRuntimes: { fields: ['name'], links: [] } } } } },
    runtime,
  );
  assert.deepEqual(body.serverRuntimes.items, [{ name: 'ms1', state: 'RUNNING', applicationRuntimes: { items: [{ name: 'benefits' }] } }]);
});

test('a partition scope hides the other partitions from a search', () => {
  const scoped = configRoot(tree, 'edit', { filter: (prop, name) => prop.name !== 'partitions' || name === 'p1' });
  const body = search({ fields: [], links: [], children: { partitions: { fields: ['name'], links: [] } } }, scoped);
  assert.deepEqual(body.partitions.items, [{ name: 'p1' }]);
});

test('a list that is not an array is refused, naming it', () => {
  for (const key of ['fields', 'excludeFields', 'links', 'excludeLinks']) {
    assert.match(refusal({ [key]: 'name' }), new RegExp(`'${key}' must be an array`));
  }
});

test('children that are not an object are refused', () => {
  for (const children of [[], 'servers', 1, null]) {
    assert.match(refusal({ children }), /'children' must be an object/, JSON.stringify(children));
  }
});

test('an error deep in the query says where it is', () => {
  assert.match(refusal({ children: { servers: { fields: 'name' } } }), /'fields' must be an array in children\.servers/);
  assert.match(refusal({ children: { servers: { children: { log: { links: 'self' } } } } }), /'links' must be an array in children\.servers in children\.log/);
  assert.match(refusal({ children: { servers: { name: 'ms1' } } }), /'name' must be an array in children\.servers/);
});

test('the result printed piece by piece is the text of the result printed whole, for every layout', () => {
  const queries: Json[] = [
    {},
    { fields: [], links: [] },
    { children: { servers: {} } },
    { children: { servers: { name: ['ms1'] }, clusters: { fields: ['name'] } } },
    { children: { servers: { name: ['nobody'] }, machines: { children: { nodeManager: { links: [] } } }, noSuchChild: {} } },
    { fields: ['name'], children: { partitions: { excludeFields: ['name'], children: { resourceGroups: { links: ['self'] } } }, securityConfiguration: { children: { realms: {} } } } },
    { excludeLinks: ['self'], children: { servers: { excludeFields: ['listenPort'], children: { log: {}, SSL: { fields: [] } } } } },
  ];
  for (const query of queries) {
    const root = beanAt(edit, []);
    const streamed = searcher.stream(root, query, context());
    assert.equal(streamed.options.whole, false);
    assert.equal(wholeText(streamed), printJson(searcher.search(root, query, context())), JSON.stringify(query));
  }
  // A key that only the walk can judge (here: `name` is no list, and names servers): sent only whole.
  assert.equal(searcher.stream(beanAt(edit, []), { children: { clusters: { name: 3 } } }, context()).options.whole, true);
});
