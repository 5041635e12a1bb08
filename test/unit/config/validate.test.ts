// Validation of a create or update body (src/config/validate.ts) against the real catalog: every
// problem reported at once, each naming its property; names, read-only echoes, create-only
// properties, secrets, nulls and references.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import fc from 'fast-check';
import { identityOfKey, itemKey, keyOfIdentity } from '../../../src/core/identity.js';
import { type Problem, isProblem } from '../../../src/core/problems.js';
import { Secrets, isSealed } from '../../../src/config/secrets.js';
import { type WriteContext, type WriteValues, nameProblem, validateWrite } from '../../../src/config/validate.js';
import { CFG, behaviours, catalog, smallDomain } from '../../support/small-tree.js';
import { text } from '../../support/arbitraries.js';

const { tree } = smallDomain();
const secrets = new Secrets(randomBytes(32));
const ctx: WriteContext = { catalog, behaviours, secrets, lookup: (key) => tree.bean(key) };

const server = catalog.type(`${CFG}ServerMBean`);
const appDeployment = catalog.type(`${CFG}AppDeploymentMBean`);
const library = catalog.type(`${CFG}LibraryMBean`);
const partition = catalog.type(`${CFG}PartitionMBean`);
const ms1 = tree.bean('servers/ms1')!.values;

type Body = Record<string, unknown>;
const create = (body: Body, type = server): WriteValues => validateWrite(ctx, type, body, undefined);
const update = (body: Body, current: Body = ms1, type = server): WriteValues => validateWrite(ctx, type, body, current);

/** The problem a write raises, checked to be one 400 with a detail per property. */
function problems(write: () => unknown): Problem['details'] {
  try {
    write();
  } catch (err) {
    assert.ok(isProblem(err, 'invalid'), `not a problem: ${String(err)}`);
    return err.details;
  }
  assert.fail('the write was accepted');
}

/** The one detail about `path`. */
function detailOf(write: () => unknown, path: string): string {
  const found = problems(write).filter((d) => d.path === path);
  assert.equal(found.length, 1, `${found.length} problems about ${path}`);
  return found[0]!.detail;
}

test('a valid create sets what it was given, with the name', () => {
  const out = create({ name: 'ms3', listenPort: 7010, listenAddress: 'h', autoRestart: 'false', tags: ['a'] });
  assert.deepEqual(out, { set: { name: 'ms3', listenPort: 7010, listenAddress: 'h', autoRestart: false, tags: ['a'] }, unset: [] });
});

test('links and identity echoed from a read are ignored', () => {
  assert.deepEqual(update({ links: [{ rel: 'self' }], identity: ['servers', 'ms1'], listenPort: 7004 }), { set: { listenPort: 7004 }, unset: [] });
});

test('every problem is reported at once, each naming its property', () => {
  const details = problems(() => update({ nope: 1, listenPort: 0, autoRestart: 'maybe', log: {}, id: 99 }));
  assert.deepEqual(details.map((d) => d.path).sort(), ['autoRestart', 'id', 'listenPort', 'log', 'nope']);
  for (const d of details) assert.ok(d.detail.includes(d.path!), `${d.path}: ${d.detail}`);
});

test('an unknown property is named with its type', () => {
  assert.equal(detailOf(() => update({ nope: 1 }), 'nope'), "Server has no property 'nope'.");
  assert.match(detailOf(() => update(JSON.parse('{"__proto__": 1}')), '__proto__'), /no property '__proto__'/);
});

test('a child is not a property: the problem says where to write it', () => {
  assert.match(detailOf(() => update({ log: { fileName: 'x' } }), 'log'), /'log' is a child of Server, not a property: write it at its own URL/);
  assert.match(detailOf(() => update({ networkAccessPoints: [] }), 'networkAccessPoints'), /child of Server/);
});

test('a value the property cannot take is named with property and type', () => {
  assert.equal(detailOf(() => update({ listenPort: 0 }), 'listenPort'), "The property 'listenPort' of Server must be between 1 and 65535, not 0.");
  assert.match(detailOf(() => update({ listenAddress: 'a\u0000' }), 'listenAddress'), /^The property 'listenAddress' of Server holds a NUL/);
  assert.match(detailOf(() => update({ listenAddress: 'a'.repeat(70_000) }), 'listenAddress'), /at most 65536 bytes/);
});

test('null sets a property back to its default', () => {
  assert.deepEqual(update({ listenPort: null, cluster: null }), { set: {}, unset: ['listenPort', 'cluster'] });
});

test('the type may be echoed, but not changed on an existing bean', () => {
  assert.deepEqual(update({ type: 'Server' }), { set: {}, unset: [] });
  assert.match(detailOf(() => update({ type: 'Cluster' }), 'type'), /The type of an existing Server cannot be changed to "Cluster"/);
  assert.deepEqual(create({ name: 'x', type: 'Server' }), { set: { name: 'x' }, unset: [] }, 'on create the type chose the bean already');
});

test('the name is checked on create', () => {
  for (const [name, why] of [
    ['', /must not be empty/],
    [' ms3', /must not begin or end with white space/],
    ['ms3\t', /white space/],
    ['a/b', /contains the character "\/"/],
    ['a%2Fb', /contains the character "%"/],
    ['..', /may not be '\.\.'/],
    ['x'.repeat(257), /at most 256 characters/],
    ['a\uD800', /not valid Unicode/],
    ['a\u200bb', /contains the character/],
    [5, /must be a string, not 5/],
    [null, /must be a string, not null/],
  ] as const) {
    assert.match(detailOf(() => create({ name }), 'name'), why, JSON.stringify(name));
  }
  assert.deepEqual(create({ name: 'ms-3_ü.日本' }).set, { name: 'ms-3_ü.日本' });
  assert.deepEqual(create({ name: 'x'.repeat(256) }).set.name, 'x'.repeat(256));
});

test('the name of an existing bean cannot be changed, but may be echoed', () => {
  assert.deepEqual(update({ name: 'ms1' }), { set: {}, unset: [] });
  assert.match(detailOf(() => update({ name: 'ms9' }), 'name'), /The name of an existing Server cannot be changed \(it is "ms1"\)/);
});

test('a read-only property may be echoed as a read shows it, or as null; any other value is refused', () => {
  const id = server.prop.get('id')!;
  assert.equal(id.writable, false);
  const shown = id.hasDefault ? id.defaultValue : 0;
  assert.deepEqual(update({ id: shown }), { set: {}, unset: [] });
  assert.deepEqual(update({ id: null }), { set: {}, unset: [] });
  assert.deepEqual(update({ id: 42 }, { ...ms1, id: 42 }), { set: {}, unset: [] }, 'the bean\'s own value echoed');
  assert.equal(detailOf(() => update({ id: 43 }), 'id'), "The property 'id' of Server is read-only.");
  assert.match(detailOf(() => create({ name: 'x', id: shown }), 'id'), /read-only/, 'on create nothing is echoed');
});

test('create-only properties may be given on create and never changed', () => {
  assert.equal(appDeployment.prop.get('sourcePath')!.writable, false);
  assert.deepEqual(create({ name: 'app', sourcePath: 'apps/a.war', planPath: 'plan.xml' }, appDeployment).set, { name: 'app', sourcePath: 'apps/a.war', planPath: 'plan.xml' });
  const current = { name: 'app', sourcePath: 'apps/a.war' };
  assert.match(detailOf(() => update({ sourcePath: 'apps/b.war' }, current, appDeployment), 'sourcePath'), /read-only/);
  assert.deepEqual(update({ sourcePath: 'apps/a.war' }, current, appDeployment), { set: {}, unset: [] }, 'an echo is fine');
  // Declared on a base type: a library is a deployment too.
  assert.deepEqual(create({ name: 'lib', sourcePath: 'libs/l.jar' }, library).set, { name: 'lib', sourcePath: 'libs/l.jar' });
  assert.deepEqual(create({ name: 'p', partitionID: 'id-1' }, partition).set, { name: 'p', partitionID: 'id-1' });
  assert.match(detailOf(() => update({ partitionID: 'id-2' }, { name: 'p', partitionID: 'id-1' }, partition), 'partitionID'), /read-only/);
});

test('a create-only value is still checked', () => {
  assert.match(detailOf(() => create({ name: 'app', sourcePath: 5 }, appDeployment), 'sourcePath'), /must be a string/);
});

test('a secret is stored sealed, and a null sent back keeps it', () => {
  const out = update({ customIdentityKeyStorePassPhrase: 'pa55' });
  const sealed = out.set.customIdentityKeyStorePassPhrase;
  assert.ok(isSealed(sealed), JSON.stringify(sealed));
  assert.equal(secrets.open(sealed), 'pa55');
  assert.ok(!JSON.stringify(out).includes('pa55'));
  assert.deepEqual(update({ customIdentityKeyStorePassPhrase: null }), { set: {}, unset: [] });
  assert.match(detailOf(() => update({ customIdentityKeyStorePassPhrase: 5 }), 'customIdentityKeyStorePassPhrase'), /must be a string/);
});

test('a reference must name an existing bean of the right type', () => {
  assert.deepEqual(update({ cluster: ['clusters', 'c1'] }).set, { cluster: ['clusters', 'c1'] });
  assert.deepEqual(update({ cluster: { identity: ['clusters', 'c1'] } }).set, { cluster: ['clusters', 'c1'] });
  assert.equal(
    detailOf(() => update({ cluster: ['clusters', 'nope'] }), 'cluster'),
    'The property \'cluster\' of Server refers to ["clusters","nope"], which does not exist or is not a Cluster.',
  );
  assert.match(detailOf(() => update({ cluster: ['machines', 'm1'] }), 'cluster'), /is not a Cluster/);
  assert.match(detailOf(() => update({ cluster: [''] }), 'cluster'), /refers to \[""\]/, 'not the root');
  assert.match(detailOf(() => update({ cluster: 'c1' }), 'cluster'), /must be a reference/);
});

test('a subtype is a valid target of a reference to its base type', () => {
  assert.equal(tree.bean('machines/m1')!.type, `${CFG}UnixMachineMBean`);
  assert.deepEqual(update({ machine: ['machines', 'm1'] }).set, { machine: ['machines', 'm1'] });
});

test('a list of references names only the ones that do not resolve', () => {
  assert.deepEqual(update({ candidateMachines: [['machines', 'm1']] }).set, { candidateMachines: [['machines', 'm1']] });
  const detail = detailOf(() => update({ candidateMachines: [['machines', 'm1'], ['machines', 'x'], ['clusters', 'c1']] }), 'candidateMachines');
  assert.match(detail, /refers to \["machines","x"\], \["clusters","c1"\], which does not exist or is not a Machine/);
  assert.ok(!detail.includes('"m1"'));
});

test('a reference that is not valid Unicode is refused as a problem', () => {
  assert.match(detailOf(() => update({ cluster: ['clusters', '\uD800'] }), 'cluster'), /cluster/);
  assert.match(detailOf(() => update({ candidateMachines: [['machines', '\uDC00']] }), 'candidateMachines'), /candidateMachines/);
});

test('nameProblem accepts ordinary names and says why it refuses others', () => {
  for (const name of ['ms1', 'My Server', 'a.b-c_d', 'ünïcødé', '日本', '😀', '__proto__', 'x'.repeat(256), '...']) {
    assert.equal(nameProblem(name), undefined, name);
  }
  for (const ch of ['/', '\\', ',', '=', ':', '*', '?', '"', '<', '>', '|', '%', '\u0000', '\u001f', '\u007f', '\u2028', '\u202e', '\u2066', '\ufeff']) {
    assert.match(nameProblem(`a${ch}b`) ?? '', /contains the character/, JSON.stringify(ch));
  }
  assert.match(nameProblem('.') ?? '', /may not be '\.'/);
  assert.match(nameProblem(['a']) ?? '', /must be a string/);
});

test('every name nameProblem accepts is one path segment that survives keys and URLs', () => {
  fc.assert(
    fc.property(text({ minLength: 1, maxLength: 30 }), (name) => {
      if (nameProblem(name) !== undefined) return;
      const key = itemKey('servers', name);
      assert.deepEqual(identityOfKey(key), ['servers', name]);
      assert.equal(keyOfIdentity(['servers', name]), key);
      assert.equal(decodeURIComponent(encodeURIComponent(name)), name);
      assert.ok(!name.includes('/'));
    }),
  );
});
