// Property-based fuzzing of the whole HTTP surface with fast-check: thousands of generated requests
// against one running server — paths built from the catalog and the demo domain's real beans, then
// bent with hostile segments; every method; random query strings, headers, credentials and bodies of
// right and wrong shapes. Every answer must be below 500, JSON (HEAD aside) and, for an error, the
// JSON error envelope naming the HTTP status. After the run the server must still answer, the
// configuration it keeps must hold together (no reference to a bean that is not there, every bean
// readable, no edit lock left), and a restart must read back the same configuration.
//
// A second, stateful phase creates beans of many collections that point at one another, updates
// their references, deletes them, and steps edit sessions (the default one and a named one) through
// startEdit/activate/cancelEdit/resolve, so that the integrity check has something to check.
//
// A third phase sends hostile uploads (odd and path-like part and file names, parts out of order,
// too many, too large, bodies cut short) and hostile body shapes (pathological white space, deep
// nesting, repeated keys, null, huge strings) to a server of its own: every answer must be a JSON
// 4xx (or an upload accepted), nothing may be written outside its data directory, and nothing may
// stay staged.
//
// Environment: FUZZ_RUNS (default 2500) generated requests; FUZZ_WRITE_RUNS (default 600) commands
// of the stateful phase; FUZZ_SEED replays a run (the seed is printed; the stateful phase uses
// seed+1); FUZZ_CONCURRENCY (default 8) and FUZZ_WRITE_CONCURRENCY (default 3) requests in flight —
// set both to 1 for a replay that sends the same requests in the same order. While hunting:
// FUZZ_TRACE=<regex> prints every non-GET request whose path matches, with its answer;
// FUZZ_SKIP=<regex> leaves out generated requests whose "METHOD path body" matches (to look past
// a fault already known).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../../src/cli/server.js';
import { ManualScheduler } from '../../src/core/clock.js';
import type { OperationDef, PropDef, TypeDef } from '../../src/catalog/model.js';
import { TEST_MAX_EVENT_LOOP_DELAY, adminAuth, startTestServer, type TestServer } from '../support/server.js';
import {
  Api,
  type KnownBean,
  type RawReply,
  type RawRequest,
  type TreeName,
  catalog,
  childProps,
  childType,
  crawl,
  envelopeProblem,
  exitWhenStuck,
  histogram,
  pool,
  rootType,
  send,
  sendRaw,
  hostileMultipart,
  treeOf,
  type UploadPart,
  walkConfig,
} from '../support/fuzz-lib.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 2500);
const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : (Date.now() ^ Math.floor(Math.random() * 2 ** 31)) | 0;
const CONCURRENCY = Number(process.env.FUZZ_CONCURRENCY ?? 8);
const BODY_LIMIT = 1024 * 1024;
/** The collections of serverConfig whose subtrees the integrity check walks. */
const WALKED = [
  'servers', 'clusters', 'partitions', 'virtualTargets', 'JMSServers', 'appDeployments',
  'machines', 'fileStores', 'JDBCSystemResources', 'JMSSystemResources', 'migratableTargets', 'JDBCStores', 'SAFAgents', 'serverTemplates',
];
/** Collections the stateful write phase creates in, points at one another, and deletes from. */
const WRITTEN = [
  'servers', 'clusters', 'machines', 'virtualTargets', 'JMSServers', 'fileStores', 'JDBCSystemResources', 'partitions',
  'migratableTargets', 'JMSSystemResources', 'JDBCStores', 'SAFAgents', 'serverTemplates', 'mailSessions', 'coherenceClusterSystemResources',
];
const WRITE_RUNS = Number(process.env.FUZZ_WRITE_RUNS ?? 600);
const MGMT_PATH = '/management/appserver/latest';
const UPLOAD_RUNS = Number(process.env.FUZZ_UPLOAD_RUNS ?? 400);

let srv: TestServer;
let admin: Api;

// ---- the world the generators draw from (filled from the catalog and the running server) -------------

interface World {
  starts: KnownBean[];
  /** Collection property name -> item names seen in the demo domain. */
  itemNames: Map<string, string[]>;
  /** Identities of configuration beans, for reference values. */
  identities: string[][];
  /** Property names across the catalog, for query strings and bodies of unknown targets. */
  propNames: string[];
}

const world: World = { starts: [], itemNames: new Map(), identities: [], propNames: [] };

/** Names the fuzz creates things under (so that later requests hit them), and awkward ones. */
const FUZZ_NAMES = ['fz1', 'fz2', 'fz3', 'fzA-b_c.d'];
const AWKWARD_NAMES = ['', ' ', 'a/b', '..', '.', 'x'.repeat(300), 'nul\u0000byte', '%2F', '__proto__', 'constructor', 'ünïcødé', '😀', 'a b', "o'neil", 'line\nbreak', '<script>'];

const HOSTILE_SEGMENTS = [
  '..', '.', '%2F', '%2f', '%2e%2e', '%2E%2E%2F', '%00', 'a%00b', '%zz', '%', '%E0%A4%A', '%C0%AE', '%FF', '', '%20', ' ', '~',
  '%2F..%2F..', 'a%2Fb', '%252F', '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '%F0%9F%98%80',
  '%C3%BC', 'null', 'undefined', '*', 'search', 'links', 'items', 'identity', '?', ';', 'management', 'appserver', 'latest', 'edit',
  'changeManager', 'serverRuntimes', 'createForm', 'serverCreateForm', 'x'.repeat(3000), 'y'.repeat(8000), '%%%', '%u0041', '\\', '..\\..',
];

const pick = <T>(arr: readonly T[], n: number): T => arr[Math.abs(n) % arr.length]!;

/** Percent-encodes what node's client would refuse in a request target (keeps raw '%' and '/'). */
function sendable(path: string): string {
  return path.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c));
}

// ---- arbitraries -----------------------------------------------------------------------------------

const printable = (max: number) => fc.string({ maxLength: max });

/** `arb` in `percent` % of the draws, null otherwise. */
function maybe<T>(arb: fc.Arbitrary<T>, percent: number): fc.Arbitrary<T | null> {
  return fc.oneof({ weight: 100 - percent, arbitrary: fc.constant(null) }, { weight: percent, arbitrary: arb });
}

const hostileSegment = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...HOSTILE_SEGMENTS) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }).map((s) => encodeURIComponent(s)) },
  { weight: 2, arbitrary: printable(16) },
  { weight: 1, arbitrary: fc.nat({ max: 2600 }).map((n) => 'L'.repeat(n)) },
);

/** Values of every JSON type, and the shapes this interface gives meaning to. */
function valueArb(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.boolean(),
    fc.integer(),
    fc.constantFrom(0, -1, 1, 65535, 65536, 2 ** 31, -(2 ** 31) - 1, Number.MAX_SAFE_INTEGER, 1e308, 0.5, -0.0),
    fc.double(),
    fc.string(),
    fc.string({ unit: 'grapheme', maxLength: 20 }),
    fc.constant(null),
    fc.constantFrom(...FUZZ_NAMES, ...AWKWARD_NAMES),
    fc.nat().map((n) => world.identities.length ? pick(world.identities, n) : ['servers', 'ms1']),
    fc.array(fc.nat(), { maxLength: 3 }).map((ns) => ns.map((n) => ({ identity: world.identities.length ? pick(world.identities, n) : ['servers', 'ms1'] }))),
    fc.constantFrom<unknown>([], {}, [null], [[]], { identity: null }, { identity: 'servers/ms1' }, ['servers'], ['servers', 'nope'], ['..', '..'], 'true', '7001', 'NaN'),
    fc.jsonValue({ maxDepth: 3 }),
    fc.array(fc.string(), { maxLength: 4 }),
  );
}

const queryArb = fc.oneof(
  { weight: 45, arbitrary: fc.constant('') },
  {
    weight: 55,
    arbitrary: fc
      .array(
        fc.tuple(
          fc.oneof(
            { weight: 8, arbitrary: fc.constantFrom('fields', 'excludeFields', 'links', 'excludeLinks') },
            { weight: 2, arbitrary: fc.constantFrom('expandedValues', 'fields[]', '__proto__', 'constructor', 'FIELDS', '', 'links%00', '%zz', 'q') },
            { weight: 1, arbitrary: printable(8) },
          ),
          fc.oneof(
            { weight: 6, arbitrary: fc.array(fc.nat(), { maxLength: 4 }).map((ns) => ns.map((n) => pick(world.propNames, n)).join(',')) },
            { weight: 3, arbitrary: fc.constantFrom('none', 'self', 'parent,self', 'name', 'identity', '', ',', ',,,', 'name,,type', 'links', '__proto__', 'none,self', '*') },
            { weight: 2, arbitrary: printable(12) },
          ),
          fc.boolean(),
        ),
        { minLength: 1, maxLength: 4 },
      )
      .map((parts) => '?' + parts.map(([k, v, raw]) => (raw ? `${k}=${v}` : `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)).join('&')),
  },
  { weight: 3, arbitrary: fc.constantFrom('?', '?&&', '?fields', '?fields=name&excludeFields=name', '?links=none&excludeLinks=self', '?%', '?fields=%zz', '?a=1&a=2&a=3', `?fields=${'f,'.repeat(1500)}`) },
);

type BodySpec =
  | { kind: 'none' }
  | { kind: 'props'; keys: number[]; values: unknown[]; typed: boolean[]; withName: boolean; careful: number; nameIdx: number; format: string; extra: [string, unknown] | null }
  | { kind: 'json'; value: unknown; ctype: string }
  | { kind: 'truncated'; value: unknown; cut: number }
  | { kind: 'deep'; depth: number; open: string; closed: boolean }
  | { kind: 'binary'; bytes: Uint8Array; ctype: string | null }
  | { kind: 'text'; text: string; ctype: string | null };

const CONTENT_TYPES = [
  'application/json', 'text/plain', 'application/xml', 'text/xml', 'multipart/form-data; boundary=xyz', 'multipart/form-data',
  'application/x-www-form-urlencoded', 'application/octet-stream', 'application/merge-patch+json', 'APPLICATION/JSON',
  'application/json; charset=latin1', 'application/json;;', 'text/plain; charset=utf-16', 'application/vnd.example.resource+json', '*/*', 'garbage',
];

const bodyArb: fc.Arbitrary<BodySpec> = fc.oneof(
  { weight: 25, arbitrary: fc.constant<BodySpec>({ kind: 'none' }) },
  {
    weight: 38,
    arbitrary: fc.record({
      kind: fc.constant('props' as const),
      keys: fc.array(fc.nat(), { maxLength: 6 }),
      values: fc.array(valueArb(), { minLength: 6, maxLength: 6 }),
      typed: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
      withName: fc.boolean(),
      careful: fc.nat(99),
      nameIdx: fc.nat(),
      format: fc.constantFrom('json', 'json', 'json', 'json', 'relaxed', 'text', 'form', 'bom', 'noctype'),
      extra: maybe(fc.tuple(fc.constantFrom('__proto__', 'constructor', 'identity', 'links', 'type', 'name', '', 'prototype'), valueArb()), 15),
    }),
  },
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('json' as const), value: fc.jsonValue({ maxDepth: 4 }), ctype: fc.constantFrom('application/json', 'application/json', 'text/plain', 'application/merge-patch+json') }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('truncated' as const), value: fc.jsonValue({ maxDepth: 3 }), cut: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('deep' as const), depth: fc.integer({ min: 30, max: 30_000 }), open: fc.constantFrom('[', '{"a":', '{a:'), closed: fc.boolean() }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('binary' as const), bytes: fc.uint8Array({ maxLength: 400 }), ctype: maybe(fc.constantFrom(...CONTENT_TYPES), 80) }) },
  {
    weight: 9,
    arbitrary: fc.record({
      kind: fc.constant('text' as const),
      text: fc.oneof(
        fc.string({ maxLength: 200 }),
        fc.string({ unit: 'grapheme', maxLength: 60 }),
        fc.constantFrom(
          '<?xml version="1.0"?><server><name>fz1</name></server>',
          '--xyz\r\nContent-Disposition: form-data; name="model"\r\n\r\n{"name":"fz1"}\r\n--xyz--\r\n',
          '--xyz\r\nContent-Disposition: form-data; name="sourcePath"; filename="a.war"\r\nContent-Type: application/octet-stream\r\n\r\nPK\u0003\u0004garbage\r\n--xyz',
          '--xyz--', 'name=fz2&listenPort=7777', 'a=1&&b', '{', '}', '[', 'null', '"str"', '42', 'true', '{"name":', "{name:'fz3',}", '/* c */ {}', '{"a":1}{"b":2}',
          '\uFEFF{}', '{"name":"\\ud800"}', '{"name":"fz1","name":"fz2"}', 'NaN', 'Infinity', '{"a":NaN}', '{"a":1e999}', '[1,]', '{,}',
        ),
      ),
      ctype: maybe(fc.constantFrom(...CONTENT_TYPES), 85),
    }),
  },
);

const METHODS = fc.oneof(
  { weight: 30, arbitrary: fc.constant('GET') },
  { weight: 34, arbitrary: fc.constant('POST') },
  { weight: 12, arbitrary: fc.constant('DELETE') },
  { weight: 4, arbitrary: fc.constant('PUT') },
  { weight: 4, arbitrary: fc.constant('PATCH') },
  { weight: 8, arbitrary: fc.constant('HEAD') },
  { weight: 6, arbitrary: fc.constant('OPTIONS') },
);

type Cred = { kind: 'admin' } | { kind: 'none' } | { kind: 'raw'; value: string };

const credArb: fc.Arbitrary<Cred> = fc.oneof(
  { weight: 88, arbitrary: fc.constant<Cred>({ kind: 'admin' }) },
  { weight: 4, arbitrary: fc.constant<Cred>({ kind: 'none' }) },
  {
    weight: 5,
    arbitrary: fc
      .oneof(
        fc.constantFrom('Basic', 'Basic ', 'Basic !!!', 'Basic ====', 'Bearer abc.def.ghi', 'Digest username="admin"', 'basic', 'Basic YWRtaW4=', 'Basic Og==', `Basic ${'A'.repeat(6000)}`, 'Basic w7xuw68=', 'NTLM TlRMTVNTUAAB'),
        printable(40),
        fc.string({ maxLength: 30 }).map((s) => `Basic ${Buffer.from(`${s}:${s}`).toString('base64')}`),
        fc.string({ unit: 'grapheme', maxLength: 12 }).map((s) => `Basic ${Buffer.from(s).toString('base64')}`),
      )
      .map((value): Cred => ({ kind: 'raw', value })),
  },
  // Wrong passwords for a real user cost a hash each: kept rare.
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }).map((pw): Cred => ({ kind: 'raw', value: `Basic ${Buffer.from(`admin:${pw}x`).toString('base64')}` })) },
  { weight: 1, arbitrary: fc.constant<Cred>({ kind: 'raw', value: `basic ${Buffer.from('admin:welcome1').toString('base64')}` }) },
);

const preferArb = fc.oneof(
  { weight: 45, arbitrary: fc.constant<string | null>(null) },
  { weight: 20, arbitrary: fc.constant('respond-async') },
  { weight: 15, arbitrary: fc.constantFrom('wait=0', 'wait=1', 'respond-async, wait=1', 'respond-async; wait=0', 'WAIT=1', 'wait=0.5') },
  { weight: 10, arbitrary: fc.oneof(printable(20), fc.constantFrom('wait=-1', 'wait=abc', 'wait=', 'respond-sync', 'wait=99999999999999999999', ',,,', 'handling=lenient')) },
);

const acceptArb = fc.oneof(
  { weight: 60, arbitrary: fc.constant<string | null>(null) },
  { weight: 20, arbitrary: fc.constantFrom('application/json', '*/*', 'application/*', 'application/hal+json') },
  { weight: 4, arbitrary: fc.constantFrom('text/html', 'application/xml', 'application/json;q=0', 'text/*', 'image/png, text/html;q=0.9', '') },
  { weight: 1, arbitrary: printable(20) },
);

const specArb = fc.record({
  api: fc.oneof({ weight: 84, arbitrary: fc.constant('mgmt' as const) }, { weight: 12, arbitrary: fc.constant('lcm' as const) }, { weight: 4, arbitrary: fc.constant('other' as const) }),
  start: fc.nat(),
  steps: fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 3 }),
  mutation: maybe(fc.record({ how: fc.constantFrom('replace', 'insert', 'append'), at: fc.nat(), seg: hostileSegment }), 18),
  prefix: fc.nat(99),
  version: fc.nat(99),
  method: METHODS,
  query: queryArb,
  cred: credArb,
  csrf: fc.nat(99),
  prefer: preferArb,
  accept: acceptArb,
  session: fc.nat(99),
  forwarded: maybe(fc.tuple(printable(30), fc.constantFrom('http', 'https', 'ftp', '', 'javascript')), 4),
  body: bodyArb,
});

type Spec = typeof specArb extends fc.Arbitrary<infer T> ? T : never;

// ---- turning a spec into a request --------------------------------------------------------------------

interface Target {
  kind: 'bean' | 'collection' | 'action' | 'createForm' | 'search' | 'unknown' | 'lcm';
  type?: TypeDef;
  op?: OperationDef;
  prop?: PropDef;
  tree?: TreeName;
  /** Body keys that make sense here (LCM). */
  keys?: string[];
  lcmPath?: string[];
}

function mgmtPath(spec: Spec): { segs: string[]; target: Target } {
  const start = pick(world.starts, spec.start);
  const tree = start.tree;
  const segs = [...start.segs];
  let target: Target = { kind: 'bean', type: start.type, tree };
  for (const [kind, n] of spec.steps) {
    // An action, form or search ends a path (but now and then something follows).
    if (['action', 'createForm', 'search'].includes(target.kind) && kind % 10 !== 0) break;
    if (target.kind === 'bean' && target.type) {
      const t = target.type;
      const children = childProps(t, tree);
      const ops = [...t.operations.values()];
      const forms = [...t.createForms.keys()];
      const ways: string[] = ['junk'];
      if (children.length > 0) ways.push('child', 'child', 'child', 'child', 'child', 'child');
      if (ops.length > 0) ways.push('op', 'op', 'op');
      if (forms.length > 0) ways.push('form');
      if (segs.length === 0) ways.push('search');
      // A leaf bean mostly ends the path.
      if (ways.length === 1 && kind % 8 !== 0) break;
      const way = pick(ways, kind);
      if (way === 'child') {
        const p = pick(children, n);
        segs.push(p.name);
        const ct = childType(p);
        target = p.shape === 'collection' ? { kind: 'collection', prop: p, tree, ...(ct ? { type: ct } : {}) } : { kind: 'bean', tree, ...(ct ? { type: ct } : {}), prop: p };
      } else if (way === 'op') {
        const op = pick(ops, n);
        segs.push(op.name);
        target = { kind: 'action', type: t, op, tree };
      } else if (way === 'form') {
        const f = pick(forms, n);
        segs.push(f);
        target = { kind: 'createForm', type: t, prop: t.createForms.get(f)!, tree };
      } else if (way === 'search') {
        segs.push('search');
        target = { kind: 'search', type: t, tree };
      } else {
        segs.push(pick([...FUZZ_NAMES, ...world.propNames.slice(0, 50)], n));
        target = { kind: 'unknown', tree };
      }
    } else if (target.kind === 'collection' && target.prop) {
      const real = world.itemNames.get(target.prop.name) ?? [];
      const names = [...real, ...real, ...real, ...FUZZ_NAMES];
      segs.push(kind % 12 === 11 ? pick(AWKWARD_NAMES, n) : pick(names, n));
      target = { kind: 'bean', tree, ...(target.type ? { type: target.type } : {}) };
    } else {
      segs.push(pick([...FUZZ_NAMES, ...AWKWARD_NAMES], n));
      target = { kind: 'unknown', tree };
    }
  }
  return { segs: [tree, ...segs].map((s) => encodeURIComponent(s)), target };
}

const LCM_TEMPLATES: string[][] = [
  [], ['environments'], ['environments', ':env'], ['environments', ':env', 'partitions'], ['environments', ':env', 'partitionCreateForm'],
  ['environments', ':env', 'associatePartitions'], ['environments', ':env', 'dissociatePartitions'], ['environments', ':env', 'deprovision'],
  ['environments', ':env', 'runtimes', ':rt', 'partitions', ':p'], ['runtimes'], ['runtimes', ':rt'], ['runtimes', ':rt', 'partitions'],
  ['runtimes', ':rt', 'partitions', ':p'], ['runtimes', ':rt', 'partitionCreateForm'], ['tenants'], ['tenants', ':t'], ['tenants', ':t', 'services'],
  ['tenants', ':t', 'services', ':s'], ['tenants', ':t', 'services', ':s', 'PDB'], ['tenants', ':t', 'services', ':s', 'PDBCreateForm'],
  ['tenants', ':t', 'serviceCreateForm'], ['plugins'], ['plugins', ':plugin'], ['environmentCreateForm'], ['runtimeCreateForm'], ['tenantCreateForm'],
];
const LCM_NAMES: Record<string, string[]> = {
  env: ['fzenv1', 'fzenv2', 'fzenv3'],
  rt: ['demo_domain', 'fzrt1', 'fzrt2'],
  p: ['partition1', 'partition2', 'fzp1', 'fzp2'],
  t: ['fzt1', 'fzt2'],
  s: ['fzsvc1', 'fzsvc2'],
  plugin: ['wls', 'database', 'otd', 'nope'],
};
const LCM_KEYS = [
  'name', 'type', 'hostName', 'port', 'protocol', 'properties', 'id', 'topLevelDir', 'orchestration', 'runtimeName', 'partitions',
  'serviceType', 'environmentRef', 'identityDomain', 'twoTask', 'status', 'partition1Name', 'partition1RuntimeName', 'partition2Name',
  'partition2RuntimeName', 'partitionName',
];

function lcmPath(spec: Spec): { segs: string[]; target: Target } {
  const template = pick(LCM_TEMPLATES, spec.start);
  let n = spec.start;
  const segs = template.map((s, i) => {
    if (!s.startsWith(':')) return s;
    n = (spec.steps[i % Math.max(1, spec.steps.length)]?.[1] ?? n) + i;
    return pick(LCM_NAMES[s.slice(1)]!, n);
  });
  return { segs: segs.map((s) => encodeURIComponent(s)), target: { kind: 'lcm', keys: LCM_KEYS, lcmPath: template } };
}

const MGMT_VERSIONS = ['12.2.1.0', '12.2.1.1.0', '12.2.1.4.0', '12.2.1.0.0', '12.2.1.1', 'v9', '', '%00', '..'];
const LCM_VERSIONS = ['12.2.1.0', '12.2.1.0.0', '12.2.1.3.0', '12.2.1.9.0', 'v9', '', '%zz'];
const PREFIXES: string[][] = [['partition1'], ['partitions', 'partition1'], ['partitions', 'partition2'], ['nope'], ['partitions', 'nope'], ['a', 'b', 'c'], ['partitions'], ['%2e%2e']];
const OTHER_PATHS = ['/', '/management', '/management/', '/management/foo', '/favicon.ico', '/%zz', '/..%2F..%2Fetc%2Fpasswd', '/management/appserver/latest/../../lifecycle', '/console', '/management/lifecycle', '//management//appserver//latest', '/management/appserver/latest/edit/servers/ms1/../ms2', '/management/appserver/latest/./edit'];

/** Typed value for a property or argument of this kind, drawn from the spec's random numbers. */
function typedValue(p: { valueKind?: string; array?: boolean; legalValues?: unknown[]; shape?: string; defaultValue?: unknown }, random: unknown, n: number): unknown {
  if (p.legalValues && p.legalValues.length > 0 && n % 3 !== 0) return pick(p.legalValues, n);
  if (p.shape === 'reference' || p.valueKind === 'bean') {
    const id = world.identities.length ? pick(world.identities, n) : ['servers', 'ms1'];
    if (p.array) return n % 5 === 0 ? [] : [{ identity: id }, ...(n % 2 ? [{ identity: pick(world.identities, n >> 3) }] : [])];
    return n % 7 === 0 ? null : id;
  }
  const scalar = (() => {
    switch (p.valueKind) {
      case 'boolean':
        return n % 2 === 0;
      case 'int':
      case 'long':
        return n % 4 === 0 ? -n : n % 70000;
      case 'double':
        return n / 7;
      case 'string':
        return typeof random === 'string' ? random : pick([...FUZZ_NAMES, 'x', ''], n);
      case 'properties':
        return { a: 'b', [String(n)]: random === undefined ? null : random };
      default:
        return random;
    }
  })();
  return p.array ? [scalar] : scalar;
}

function paramKind(type: string): { valueKind: string; shape?: string } {
  if (type === 'int' || type === 'long') return { valueKind: 'int' };
  if (type === 'boolean') return { valueKind: 'boolean' };
  if (type === 'java.lang.String') return { valueKind: 'string' };
  if (type === 'java.util.Properties') return { valueKind: 'properties' };
  if (/MBean$/.test(type)) return { valueKind: 'bean', shape: 'reference' };
  return { valueKind: 'object' };
}

/** Body keys (with how to make a typed value for each) for the target. */
function bodyKeys(target: Target, n: number, careful: boolean): { name: string; typed: (random: unknown, n: number) => unknown }[] {
  // The domain's administration port is left alone: once activated it moves management to an
  // HTTPS port of its own and the plain port this fuzz speaks to refuses it, as it should
  // (test/compat/item7-administration-port.test.ts).
  const fromProps = (all: PropDef[]) =>
    (careful ? all.filter((p) => p.writable && !p.key) : all).filter((p) => p.name !== 'administrationPortEnabled').map((p) => ({ name: p.name, typed: (r: unknown, k: number) => typedValue(p, r, k) }));
  switch (target.kind) {
    case 'bean':
      return target.type ? fromProps(target.type.props.filter((p) => p.shape === 'scalar' || p.shape === 'reference')) : [];
    case 'collection': {
      const creators = target.prop?.creators ?? [];
      const t = creators.length > 0 ? catalog().types.get(pick(creators, n)) : target.type;
      if (!t) return [];
      const discriminators = t.subtypes.map((s) => s.discriminator);
      return [
        ...fromProps(t.props.filter((p) => p.shape === 'scalar' || p.shape === 'reference')),
        { name: 'type', typed: (_r, k) => (discriminators.length ? pick(discriminators, k) : t.discriminator) },
        // edit/appDeployments
        { name: 'sourcePath', typed: (_r, k) => pick(['/srv/apps/fz.war', '', '../../etc/passwd', '/nonexistent/x.ear'], k) },
      ];
    }
    case 'action': {
      const overloads = target.op?.overloads ?? [];
      if (overloads.length === 0) return [];
      const o = pick(overloads, n);
      return o.params.map((param) => {
        const kind = paramKind(param.type);
        return { name: param.name, typed: (r: unknown, k: number) => typedValue({ ...kind, array: param.array === true }, r, k) };
      });
    }
    case 'search':
      return [
        { name: 'fields', typed: (_r, k) => [pick(world.propNames, k), 'name'] },
        { name: 'links', typed: (_r, k) => (k % 2 ? [] : ['self']) },
        { name: 'children', typed: (_r, k) => ({ servers: { fields: ['name'], children: { [pick(world.propNames, k)]: {} } }, serverRuntimes: {} }) },
        { name: 'name', typed: (_r, k) => pick(world.propNames, k) },
      ];
    case 'lcm':
      return LCM_KEYS.map((name) => ({
        name,
        typed: (r: unknown, k: number) => {
          switch (name) {
            case 'name':
            case 'partitionName':
            case 'partition1Name':
            case 'partition2Name':
              return pick([...LCM_NAMES.env!, ...LCM_NAMES.t!, ...LCM_NAMES.s!, ...LCM_NAMES.p!, ...AWKWARD_NAMES], k);
            case 'runtimeName':
            case 'partition1RuntimeName':
            case 'partition2RuntimeName':
              return pick(LCM_NAMES.rt!, k);
            case 'type':
            case 'serviceType':
              return pick(['otd', 'database', 'wls', 'JDBC', 'bogus'], k);
            case 'port':
              return pick([1, 7001, 65535, 0, 70000, '8001', 'x'], k);
            case 'properties':
              return pick<unknown>([[{ name: 'a', value: 'b' }], [{ name: 'password', value: 's3cret!' }], [{ name: 'resourceGroups', properties: [{ name: 'rg1', properties: [{ name: 'targets', value: 'vt1' }] }] }], [{}], 'x', [{ name: 1 }]], k);
            case 'orchestration':
              return pick<unknown>([{ name: 'provision', args: [{ name: 'wls', properties: [{ name: 'partitionName', value: pick(LCM_NAMES.p!, k) }, { name: 'runtimeName', value: 'demo_domain' }] }] }, { name: 'o', args: [] }, 'provision', { args: 1 }], k);
            case 'environmentRef':
              return pick(LCM_NAMES.env!, k);
            default:
              return r;
          }
        },
      }));
    default:
      return world.propNames.slice(0, 80).map((name) => ({ name, typed: (r: unknown) => r }));
  }
}

/** The relaxed dialect real scripts send: unquoted keys, single quotes, a trailing comma. */
function relaxed(obj: Record<string, unknown>): string {
  const value = (v: unknown): string => (typeof v === 'string' ? `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'` : JSON.stringify(v) ?? 'null');
  const parts = Object.entries(obj).map(([k, v]) => `${/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k)}: ${value(v)}`);
  return `{ ${parts.join(', ')}, }`;
}

function buildBody(spec: Spec, target: Target): { body?: string | Buffer; ctype: string | null } {
  const b = spec.body;
  switch (b.kind) {
    case 'none':
      return { ctype: null };
    case 'props': {
      // Four bodies in ten are careful: few writable properties, each with a value of its type.
      const careful = b.careful < 40;
      const keys = bodyKeys(target, b.nameIdx, careful);
      const obj: Record<string, unknown> = {};
      if ((careful || b.withName) && (target.kind === 'collection' || target.kind === 'lcm')) {
        obj.name = pick([...FUZZ_NAMES, ...FUZZ_NAMES, ...(target.kind === 'lcm' ? [...LCM_NAMES.env!, ...LCM_NAMES.t!, ...LCM_NAMES.rt!.slice(1)] : []), ...AWKWARD_NAMES], b.nameIdx);
      }
      b.keys.slice(0, careful ? 2 : 6).forEach((k, i) => {
        if (keys.length === 0) return;
        const key = pick(keys, k);
        obj[key.name] = careful || b.typed[i] ? key.typed(b.values[i], k) : b.values[i];
      });
      if (b.extra && !careful) {
        if (b.extra[0] === '__proto__') Object.defineProperty(obj, '__proto__', { value: b.extra[1], enumerable: true, configurable: true, writable: true });
        else obj[b.extra[0]] = b.extra[1];
      }
      // Lifecycle runtimes of type wls are reached over the network when created or read: keep the
      // fuzz on this machine (no host it could wait on, no runtime that could become remote).
      if (target.kind === 'lcm' && target.lcmPath?.[0] === 'runtimes') {
        if (target.lcmPath.length === 1) obj.type = obj.type === 'database' ? 'database' : 'otd';
        else delete obj.type;
        delete obj.protocol;
      }
      switch (b.format) {
        case 'relaxed':
          return { body: relaxed(obj), ctype: 'application/json' };
        case 'text':
          return { body: JSON.stringify(obj), ctype: 'text/plain' };
        case 'form':
          return { body: new URLSearchParams(Object.entries(obj).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v) ?? ''])).toString(), ctype: 'application/x-www-form-urlencoded' };
        case 'bom':
          return { body: `\uFEFF${JSON.stringify(obj)}`, ctype: 'application/json' };
        case 'noctype':
          return { body: Buffer.from(JSON.stringify(obj)), ctype: null };
        default:
          return { body: JSON.stringify(obj), ctype: 'application/json' };
      }
    }
    case 'json':
      return { body: JSON.stringify(b.value) ?? 'null', ctype: b.ctype };
    case 'truncated': {
      const text = JSON.stringify(b.value) ?? 'null';
      return { body: text.slice(0, text.length > 1 ? b.cut % (text.length - 1) + 1 : 0) || '{', ctype: 'application/json' };
    }
    case 'deep': {
      const close = b.open === '[' ? ']' : '}';
      return { body: b.open.repeat(b.depth) + (b.closed ? '1' + close.repeat(b.depth) : ''), ctype: 'application/json' };
    }
    case 'binary':
      return { body: Buffer.from(b.bytes), ctype: b.ctype };
    case 'text':
      return { body: b.text, ctype: b.ctype };
  }
}

function build(spec: Spec): RawRequest & { target: Target } {
  let segs: string[];
  let target: Target;
  let path: string;
  if (spec.api === 'other') {
    target = { kind: 'unknown' };
    path = pick(OTHER_PATHS, spec.start);
  } else {
    ({ segs, target } = spec.api === 'mgmt' ? mgmtPath(spec) : lcmPath(spec));
    if (spec.mutation) {
      const at = segs.length === 0 ? 0 : spec.mutation.at % (segs.length + (spec.mutation.how === 'replace' ? 0 : 1));
      if (spec.mutation.how === 'replace' && segs.length > 0) segs[at] = spec.mutation.seg;
      else if (spec.mutation.how === 'insert') segs.splice(at, 0, spec.mutation.seg);
      else segs.push(spec.mutation.seg);
      target = { ...target, kind: target.kind === 'lcm' ? 'lcm' : 'unknown' };
    }
    const versions = spec.api === 'mgmt' ? MGMT_VERSIONS : LCM_VERSIONS;
    const prefix = spec.prefix < 92 ? [] : pick(PREFIXES, spec.prefix);
    let version: string | undefined = spec.version < 86 ? 'latest' : pick(versions, spec.version);
    if (spec.version === 99) version = undefined;
    const head = [...prefix, 'management', spec.api === 'mgmt' ? 'appserver' : 'lifecycle'];
    path = '/' + (version === undefined ? head : [...head, version, ...segs]).join('/');
  }
  path = sendable(path + spec.query);

  const headers: Record<string, string> = {};
  if (spec.cred.kind === 'admin') headers.authorization = adminAuth;
  else if (spec.cred.kind === 'raw') headers.authorization = spec.cred.value;
  if (spec.csrf < 92) headers['x-requested-by'] = 'fuzz';
  else if (spec.csrf < 95) headers['x-requested-by'] = '';
  else if (spec.csrf < 97) headers['x-requested-by'] = ' ';
  let prefer = spec.prefer;
  // Tasks (and the partition restart, which waits its `timeout`) answer once done unless asked
  // not to: mostly ask, so that a run stays short; a few still wait (a lifecycle step is seconds).
  if (target.kind === 'action' && target.op && (target.op.async || target.op.name === 'forceRestartPartition')) {
    const asks = prefer !== null && /respond-async|wait\s*=\s*[0-2](\.\d+)?\s*$/i.test(prefer);
    if (!asks && (spec.session % 10 !== 0 || target.op.name === 'forceRestartPartition')) prefer = 'respond-async';
  }
  if (prefer !== null) headers.prefer = prefer;
  if (spec.accept !== null) headers.accept = spec.accept;
  if (spec.session >= 93) headers['appserver.edit.session'] = pick(['fzs1', 'fzs2', 'nosuch', 'default', '', ' ', '%00', 'x'.repeat(300)], spec.session);
  if (spec.forwarded) {
    headers['x-forwarded-host'] = spec.forwarded[0];
    headers['x-forwarded-proto'] = spec.forwarded[1];
  }
  const { body, ctype } = buildBody(spec, target);
  if (ctype !== null && body !== undefined) headers['content-type'] = ctype;
  return { method: spec.method, path, headers, ...(body !== undefined ? { body } : {}), target };
}

// ---- the run --------------------------------------------------------------------------------------------

interface Violation {
  request: RawRequest;
  reply: RawReply;
  problem: string;
}

function describe(v: Violation): string {
  const h = { ...v.request.headers };
  if (h.authorization === adminAuth) h.authorization = '<admin>';
  else if (h.authorization && h.authorization.length > 80) h.authorization = `${h.authorization.slice(0, 80)}...`;
  const body = v.request.body === undefined ? '(none)' : `${Buffer.byteLength(v.request.body)} bytes: ${JSON.stringify(v.request.body.toString().slice(0, 300))}`;
  return [
    `${v.problem}`,
    `  ${v.request.method} ${v.request.path.length > 400 ? `${v.request.path.slice(0, 400)}... (${v.request.path.length} chars)` : v.request.path}`,
    `  headers ${JSON.stringify(h)}`,
    `  body ${body}`,
    `  -> ${v.reply.status} ${JSON.stringify(v.reply.text.slice(0, 400))}`,
  ].join('\n');
}

/** Prints each distinct kind of violation once, then fails if there was any. */
function reportViolations(list: Violation[], what: string): void {
  if (list.length === 0) return;
  const distinct = new Map<string, Violation>();
  for (const v of list) {
    const key = `${v.problem.replace(/\d+/g, 'N')} ${v.request.method}`;
    if (!distinct.has(key)) distinct.set(key, v);
  }
  console.log(`${what}: ${list.length} violations, ${distinct.size} distinct:\n${[...distinct.values()].map(describe).join('\n')}`);
  assert.fail(`${what}: ${list.length} answers broke the rules; first: ${describe(list[0]!)}`);
}

const statuses = new Map<string | number, number>();
const byKind = new Map<string | number, number>();
const violations: Violation[] = [];
let sent = 0;
let slowest = { ms: 0, what: '' };

let retried = 0;
const writes = new Map<string, number>();

async function fire(req: RawRequest & { target?: Target }): Promise<RawReply> {
  let reply = await send(srv.server.port, req, 20_000);
  sent++;
  // A kept-alive connection the server was closing as it got reused: once more on a new one.
  if (reply.error && /socket hang up|ECONNRESET|EPIPE/.test(reply.error)) {
    retried++;
    reply = await send(srv.server.port, req, 20_000, true);
  }
  const key = reply.error ? 'no answer' : reply.status;
  statuses.set(key, (statuses.get(key) ?? 0) + 1);
  if (reply.status >= 200 && reply.status < 300 && req.method !== 'GET' && req.method !== 'HEAD') {
    const w = `${req.method} ${reply.status}`;
    writes.set(w, (writes.get(w) ?? 0) + 1);
  }
  if (req.target) byKind.set(req.target.kind, (byKind.get(req.target.kind) ?? 0) + 1);
  if (reply.ms > slowest.ms) slowest = { ms: reply.ms, what: `${req.method} ${req.path.slice(0, 160)} -> ${reply.status}` };
  if (process.env.FUZZ_TRACE && new RegExp(process.env.FUZZ_TRACE).test(req.path) && req.method !== 'GET' && req.method !== 'HEAD') {
    console.log('TRACE', req.method, req.path.slice(0, 200), JSON.stringify(req.headers['appserver.edit.session'] ?? null), String(req.body ?? '').slice(0, 300), '->', reply.status, reply.text.replace(/\s+/g, ' ').slice(0, 200));
  }
  const problem = envelopeProblem(req.method, reply, req.headers.accept);
  if (problem) violations.push({ request: req, reply, problem });
  return reply;
}

before(async () => {
  srv = await startTestServer();
  admin = new Api(srv.server.port, adminAuth);
  // The fuzz guesses passwords on purpose: the realm must not lock the administrator (or this
  // address) out mid-run. Lockouts have their own tests (test/security/item-10-lockout.test.ts).
  const lockout = await admin.post('edit/securityConfiguration/realms/myrealm/userLockoutManager', { lockoutEnabled: false, lockoutThreshold: 1_000_000 });
  assert.equal(lockout.status, 200, lockout.text);
  // The demo domain's real beans, through the catalog.
  const edit = await crawl(admin, 'edit', 400);
  const dr = await crawl(admin, 'domainRuntime', 200);
  const sr = await crawl(admin, 'serverRuntime', 200);
  const roots = (['edit', 'serverConfig', 'domainConfig', 'domainRuntime', 'serverRuntime'] as TreeName[]).map((tree) => ({ tree, segs: [], type: rootType(tree) }));
  const config = edit.filter((b) => b.segs[0] !== 'changeManager');
  world.starts = [
    ...roots, ...roots, ...roots,
    ...edit,
    ...config.map((b) => ({ ...b, tree: 'serverConfig' as TreeName })),
    ...config.filter((_, i) => i % 3 === 0).map((b) => ({ ...b, tree: 'domainConfig' as TreeName })),
    ...dr,
    ...sr,
  ];
  for (const b of [...edit, ...dr, ...sr]) {
    if (b.segs.length < 2) continue;
    const coll = b.segs[b.segs.length - 2]!;
    const names = world.itemNames.get(coll) ?? [];
    if (!names.includes(b.segs[b.segs.length - 1]!)) names.push(b.segs[b.segs.length - 1]!);
    world.itemNames.set(coll, names);
  }
  world.identities = config.filter((b) => b.segs.length >= 2 && b.segs.length % 2 === 0).map((b) => b.segs);
  const names = new Set<string>();
  for (const b of world.starts) for (const p of b.type.props) names.add(p.name);
  world.propNames = [...names].sort();
});

after(async () => {
  await srv.stop(true).catch(() => undefined);
  exitWhenStuck();
});

test(`fuzz: ${RUNS} generated requests (seed ${SEED}) never get a 5xx and always a JSON answer`, async (t) => {
  console.log(`fuzz: seed ${SEED} (replay with FUZZ_SEED=${SEED} FUZZ_CONCURRENCY=1), ${RUNS} requests, ${CONCURRENCY} in flight`);
  t.diagnostic(`seed ${SEED}`);
  const started = Date.now();
  const specs = fc.sample(specArb, { seed: SEED, numRuns: RUNS });
  const requests = specs.map(build).filter((r) => !(process.env.FUZZ_SKIP && new RegExp(process.env.FUZZ_SKIP).test(`${r.method} ${r.path} ${String(r.body ?? '').slice(0, 2000)}`)));

  // Bodies near and over the size limit (10 MiB) on a few fixed targets, by Content-Length and chunked.
  const near = 'x'.repeat(BODY_LIMIT - 200);
  const huge: RawRequest[] = [
    { method: 'POST', path: '/management/appserver/latest/edit/servers/ms1', headers: { authorization: adminAuth, 'x-requested-by': 'fuzz', 'content-type': 'application/json' }, body: `{"zzNotAProperty":"${near}"}` },
    { method: 'POST', path: '/management/appserver/latest/serverRuntime/search', headers: { authorization: adminAuth, 'x-requested-by': 'fuzz', 'content-type': 'application/json' }, body: `{"fields":["${near}"]}` },
    { method: 'POST', path: '/management/appserver/latest/edit/servers', headers: { authorization: adminAuth, 'x-requested-by': 'fuzz', 'content-type': 'application/json' }, body: `{"name":"${'n'.repeat(100_000)}"}` },
    { method: 'POST', path: '/management/appserver/latest/edit/servers/ms1', headers: { authorization: adminAuth, 'x-requested-by': 'fuzz', 'content-type': 'application/json' }, body: `{"notes":"${near}${'x'.repeat(400)}"}` },
    { method: 'POST', path: '/management/lifecycle/latest/tenants', headers: { authorization: adminAuth, 'x-requested-by': 'fuzz', 'content-type': 'text/plain' }, body: `{"name":"${near}${'x'.repeat(400)}"}` },
    { method: 'POST', path: '/management/appserver/latest/edit/changeManager/startEdit', headers: { authorization: adminAuth, 'x-requested-by': 'fuzz', 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, body: `{"a":"${near}${'x'.repeat(400)}"}` },
    { method: 'POST', path: '/management/appserver/latest/edit/servers/ms1', headers: { 'x-requested-by': 'fuzz', 'content-type': 'application/json' }, body: `{"notes":"${near}${'x'.repeat(400)}"}` },
  ];
  for (const r of huge) {
    const reply = await fire(r);
    if (Buffer.byteLength(r.body!) > BODY_LIMIT && reply.status !== 0) {
      // Over the limit: refused (413, or 401 for no credentials), never read into a change.
      if (![401, 413].includes(reply.status)) violations.push({ request: { ...r, body: `${r.body!.slice(0, 100)}...` }, reply, problem: `a body over the limit answered ${reply.status}` });
    }
  }

  await pool(requests, CONCURRENCY, async (req) => {
    await fire(req);
  });
  const ms = Date.now() - started;
  console.log(`fuzz: ${sent} requests in ${ms} ms; status distribution: ${histogram(statuses)}`);
  console.log(`fuzz: accepted non-GET requests: ${histogram(writes)}`);
  console.log(`fuzz: targets: ${histogram(byKind)}; ${retried} resent after a closed kept-alive connection; slowest ${slowest.ms} ms (${slowest.what})`);
  reportViolations(violations, `fuzz (seed ${SEED})`);
});

// ---- the stateful write phase ------------------------------------------------------------------------

interface WriteCollection {
  name: string;
  type: TypeDef;
  /** Writable reference properties, each with the collections whose beans it may point at. */
  refs: { prop: PropDef; to: string[] }[];
}

function writeCollections(): WriteCollection[] {
  const c = catalog();
  const domain = rootType('edit');
  const typeOf = (coll: string) => {
    const p = domain.prop.get(coll);
    return p ? c.types.get(p.creators[0] ?? p.javaType) : undefined;
  };
  return WRITTEN.flatMap((name) => {
    const type = typeOf(name);
    if (!type) return [];
    const refs = type.props
      .filter((p) => p.shape === 'reference' && p.writable)
      .map((prop) => ({ prop, to: WRITTEN.filter((other) => { const t = typeOf(other); return t !== undefined && c.isA(t, prop.javaType); }) }))
      .filter((r) => r.to.length > 0);
    return [{ name, type, refs }];
  });
}

const writeCmdArb = fc.record({
  op: fc.oneof(
    { weight: 35, arbitrary: fc.constant('create' as const) },
    { weight: 35, arbitrary: fc.constant('update' as const) },
    { weight: 20, arbitrary: fc.constant('delete' as const) },
    { weight: 10, arbitrary: fc.constant('session' as const) },
  ),
  coll: fc.nat(),
  name: fc.nat(),
  refs: fc.array(fc.tuple(fc.nat(), fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 3 }), fc.boolean()), { maxLength: 3 }),
  named: fc.nat(99),
  sessionOp: fc.constantFrom('startEdit', 'startEdit', 'activate', 'activate', 'cancelEdit', 'safeResolve', 'forceResolve'),
});

test(`stateful write fuzz: ${WRITE_RUNS} creates, reference updates, deletes and session steps (seed ${SEED})`, async () => {
  const colls = writeCollections();
  const first = violations.length;
  const ESC_PATH = 'domainRuntime/editSessionConfigurationManager/editSessionConfigurations';
  const made = await admin.post(ESC_PATH, { name: 'fzw', description: 'stateful fuzz' });
  assert.ok(made.status === 201 || made.status === 400, `creating the session fzw: ${made.status} ${made.text.slice(0, 300)}`);
  const namesOf = (coll: string) => [...(world.itemNames.get(coll) ?? []).filter((n) => n !== 'AdminServer'), 'w1', 'w2', 'w3'];
  const cmds = fc.sample(writeCmdArb, { seed: SEED + 1, numRuns: WRITE_RUNS });
  const counts = new Map<string, number>();
  let index = 0;
  await pool(cmds, Number(process.env.FUZZ_WRITE_CONCURRENCY ?? 3), async (cmd) => {
    index++;
    const coll = pick(colls, cmd.coll);
    const name = pick(namesOf(coll.name), cmd.name);
    const session: Record<string, string> = cmd.named < 25 ? { 'appserver.edit.session': 'fzw' } : {};
    const headers: Record<string, string> = { authorization: adminAuth, 'x-requested-by': 'fuzz-writes', accept: 'application/json', ...session };
    const body: Record<string, unknown> = {};
    for (const [r, targets, empty] of cmd.refs) {
      if (coll.refs.length === 0) break;
      const ref = pick(coll.refs, r);
      const ids = targets.map(([t, n]) => { const to = pick(ref.to, t); return [to, pick(namesOf(to), n)]; });
      body[ref.prop.name] = ref.prop.array ? ids.map((identity) => ({ identity })) : empty || ids.length === 0 ? null : ids[0];
    }
    let req: RawRequest;
    const base = '/management/appserver/latest/edit';
    switch (cmd.op) {
      case 'create':
        req = { method: 'POST', path: `${base}/${coll.name}`, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ name, ...body }) };
        break;
      case 'update':
        req = { method: 'POST', path: `${base}/${coll.name}/${encodeURIComponent(name)}`, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) };
        break;
      case 'delete':
        req = { method: 'DELETE', path: `${base}/${coll.name}/${encodeURIComponent(name)}`, headers };
        break;
      default:
        req = { method: 'POST', path: `${base}/changeManager/${cmd.sessionOp}`, headers: { ...headers, 'content-type': 'application/json' }, body: '{}' };
    }
    const r = await fire(req);
    const key = `${cmd.op === 'session' ? cmd.sessionOp : cmd.op} ${r.status}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  });
  console.log(`writes: ${index} commands; ${histogram(counts)}`);
  // Leave no lock behind: cancel whatever the phase left open in either session.
  for (const s of [{}, { 'appserver.edit.session': 'fzw' }] as Record<string, string>[]) {
    const cm = await admin.get('edit/changeManager?links=none', s);
    if (cm.json?.locked) {
      const c = await admin.post('edit/changeManager/cancelEdit', {}, s);
      assert.equal(c.status, 200, `cancelEdit: ${c.text}`);
    }
  }
  const destroyed = await admin.del(`${ESC_PATH}/fzw`);
  assert.equal(destroyed.status, 200, `destroying fzw: ${destroyed.text}`);
  reportViolations(violations.slice(first), `writes (seed ${SEED + 1})`);
});

test('after the fuzz the server still answers and every configuration reference resolves', async () => {
  const me = await admin.get('currentUser?links=none');
  assert.equal(me.status, 200, `the administrator can no longer read: ${me.status} ${me.text.slice(0, 300)}`);
  assert.equal(me.json.user, 'admin');
  for (const path of ['serverConfig', 'domainRuntime', 'serverRuntime', 'edit', '/management/lifecycle/latest/environments']) {
    const r = await admin.get(path.startsWith('/') ? path : `${path}?links=none`);
    assert.equal(r.status, 200, `GET ${path}: ${r.status} ${r.text.slice(0, 300)}`);
  }
  const walk = await walkConfig(admin, WALKED);
  console.log(`integrity: ${walk.beans.size} serverConfig beans read, ${walk.references} references checked`);
  assert.deepEqual(walk.unreadable, [], 'beans of serverConfig that do not read back');
  assert.deepEqual(
    walk.dangling.map(([bean, prop, id]) => `${bean}.${prop} -> ${id.join('/')}`),
    [],
    'references to beans that do not exist',
  );
});

test('after the fuzz no edit lock is left once the fuzz user cancels, and a restart reads the same configuration', async () => {
  const cm = await admin.get('edit/changeManager?links=none');
  assert.equal(cm.status, 200, cm.text);
  if (cm.json.locked) {
    assert.equal(cm.json.lockOwner, 'admin', `the lock is held by ${cm.json.lockOwner}, who sent nothing`);
    const cancel = await admin.post('edit/changeManager/cancelEdit', {});
    assert.equal(cancel.status, 200, `cancelEdit: ${cancel.text}`);
  }
  const after = await admin.get('edit/changeManager?links=none');
  assert.equal(after.json.locked, false, `still locked: ${after.text}`);
  assert.ok(after.json.hasChanges === false || after.json.hasChanges === undefined, `changes left: ${after.text}`);

  const before = await walkConfig(admin, WALKED);
  const lcmBefore = await Promise.all(['environments', 'runtimes', 'tenants'].map((c) => admin.get(`/management/lifecycle/latest/${c}?links=none`)));
  srv = await srv.restart();
  admin = new Api(srv.server.port, adminAuth);
  const again = await walkConfig(admin, WALKED);
  assert.deepEqual(again.unreadable, []);
  assert.deepEqual([...again.beans.keys()].sort(), [...before.beans.keys()].sort(), 'the beans of serverConfig differ across the restart');
  for (const [path, bean] of before.beans) assert.deepEqual(again.beans.get(path), bean, `serverConfig/${path} changed across the restart`);
  const lcmAfter = await Promise.all(['environments', 'runtimes', 'tenants'].map((c) => admin.get(`/management/lifecycle/latest/${c}?links=none`)));
  lcmAfter.forEach((r, i) => {
    assert.equal(r.status, 200);
    // The local runtime follows the server's port, which a restart changes.
    const strip = (j: any) => JSON.stringify(j).replace(/"port":\d+/g, '"port":0');
    assert.equal(strip(r.json), strip(lcmBefore[i]!.json), 'the Lifecycle Manager records changed across the restart');
  });
  const cm2 = await admin.get('edit/changeManager?links=none');
  assert.equal(cm2.json.locked, false);
});

// ---- hostile uploads and body shapes --------------------------------------------------------------------

/** Upload limits of the upload phase's server: small, so that "too large" costs kilobytes. */
const UPLOAD_LIMITS = { fileBytes: 16 * 1024, stagingBytes: 96 * 1024 };
const PART_NAMES = [
  'model', 'sourcePath', 'deploymentPlan', '', '../../../../victim/pwned', '../../victim/x', '../x', '/tmp/pwned', '..', '.', 'sourcePath/../../x',
  '__proto__', 'constructor', 'a\\b', '..\\..\\x', '%2e%2e%2f', 'x'.repeat(300), 'nul\u0000byte', 'ünïcødé', 'model ', 'MODEL', 'sourcepath', '.incoming', 'a"b',
];
const FILE_NAMES = [
  'a.war', '../../../victim/evil.war', '..', '.', '', '/abs/path.war', 'C:\\x\\..\\y.war', '.hidden', 'x'.repeat(400), '%2e%2e', 'a/b/c.war', 'nul\u0000.war',
  '.incoming', '../.incoming/x', 'con', '😀.war', 'a"b.war',
];

const modelText = (n: number, kind: number): string => {
  const name = `fzu${n % 50}`;
  switch (kind % 9) {
    case 0:
      return `{ name: '${name}', targets: [ { identity: [ 'servers', 'AdminServer' ] } ] }`;
    case 1:
      return JSON.stringify({ name, targets: [{ identity: ['servers', 'AdminServer'] }] });
    case 2:
      return `{"name": "${name}", "name": "other"}`;
    case 3:
      return 'null';
    case 4:
      return `{ name: '${name}'`;
    case 5:
      return `{ name: '../../${name}' }`;
    case 6:
      return `a=${' '.repeat(50_000)}&`;
    case 7:
      return `{"name": "${name}", "notes": "${'n'.repeat(70_000)}"}`;
    default:
      return `{ name: 'inventory' }`;
  }
};

const partArb = fc.record({
  name: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...PART_NAMES) }, { weight: 1, arbitrary: printable(20) }),
  file: fc.option(fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...FILE_NAMES) }, { weight: 1, arbitrary: printable(30) }), { freq: 3 }),
  size: fc.oneof({ weight: 6, arbitrary: fc.nat(2000) }, { weight: 1, arbitrary: fc.constant(UPLOAD_LIMITS.fileBytes + 1) }, { weight: 1, arbitrary: fc.integer({ min: 20_000, max: 120_000 }) }),
  type: fc.option(fc.constantFrom('application/json', 'text/plain', 'application/octet-stream', 'garbage'), { freq: 4 }),
  model: fc.nat(),
});

const uploadArb = fc.record({
  // Mostly a valid start (model, archive) that the generated parts then bend.
  validStart: fc.nat(99),
  parts: fc.array(partArb, { maxLength: 7 }),
  shuffle: fc.nat(99),
  cut: fc.option(fc.nat(), { freq: 4 }),
  halfClose: fc.boolean(),
  chunked: fc.nat(99),
  boundary: fc.constantFrom('fzb', 'fzb', 'fzb', '', 'a'.repeat(100), 'x y'),
  auth: fc.nat(99),
  n: fc.nat(),
});

test(`fuzz: ${UPLOAD_RUNS} hostile uploads and body shapes get JSON 4xx answers, write nothing outside the data directory and leave nothing staged (seed ${SEED})`, async () => {
  const parent = mkdtempSync(join(tmpdir(), 'appserver-fuzz-uploads-'));
  const dataDir = join(parent, 'data');
  mkdirSync(dataDir);
  mkdirSync(join(parent, 'victim'));
  const server = await startServer({ host: '127.0.0.1', port: 0, listeners: false, dataDir, logLevel: 'silent', quiet: true, adminUser: 'admin', adminPassword: 'welcome1', scheduler: new ManualScheduler(), uploads: UPLOAD_LIMITS, maxEventLoopDelay: TEST_MAX_EVENT_LOOP_DELAY });
  const port = server.port;
  const found: Violation[] = [];
  const seen = new Map<string | number, number>();
  const check = (req: RawRequest, reply: RawReply, truncated: boolean) => {
    const key = reply.error ? 'no answer' : reply.status;
    seen.set(key, (seen.get(key) ?? 0) + 1);
    // A client that stopped short may get no answer; any answer must follow the rules.
    if (reply.error && truncated) return;
    // Concurrent uploads may fill the staging area: that one 503 is by design.
    const full = reply.status === 503 && /staging area is full/.test(String(reply.json?.detail)) ? { ...reply, status: 499, json: { ...reply.json, status: 499 } } : reply;
    const problem = envelopeProblem(req.method, full);
    if (problem) found.push({ request: { ...req, body: String(req.body ?? '').slice(0, 400) }, reply, problem });
  };
  try {
    const admin = new Api(port, adminAuth);
    const monitorAuth = `Basic ${Buffer.from('fzmon:fzmon-pw1').toString('base64')}`;
    const AUTHN = 'serverConfig/securityConfiguration/realms/myrealm/authenticationProviders/DefaultAuthenticator';
    assert.equal((await admin.post(`${AUTHN}/createUser`, { userName: 'fzmon', password: 'fzmon-pw1', description: 'fuzz monitor' })).status, 200);
    assert.equal((await admin.post(`${AUTHN}/addMemberToGroup`, { groupName: 'Monitors', memberUserOrGroupName: 'fzmon' })).status, 200);

    // Uploads.
    const specs = fc.sample(uploadArb, { seed: SEED + 2, numRuns: UPLOAD_RUNS });
    await pool(specs, 4, async (u) => {
      const parts: UploadPart[] = u.parts.map((p) => ({
        name: p.name,
        ...(p.file !== null ? { filename: p.file } : {}),
        ...(p.type !== null ? { contentType: p.type } : {}),
        data: p.name === 'model' && p.file === null ? Buffer.from(modelText(p.model, p.model >> 3)) : Buffer.alloc(p.size, 0x50),
      }));
      if (u.validStart < 60) {
        parts.unshift({ name: 'model', data: Buffer.from(modelText(u.n, u.n >> 4)) }, { name: 'sourcePath', filename: `fzu${u.n % 50}.war`, data: Buffer.alloc(u.n % 3000, 0x4b) });
        parts.splice(2, Math.max(0, parts.length - 2 - (u.n % 3)));
      }
      if (u.shuffle < 20 && parts.length > 1) parts.push(parts.shift()!);
      const boundary = u.boundary || 'fzb';
      const full = hostileMultipart(parts, boundary);
      const body = u.cut !== null && full.length > 0 ? full.subarray(0, u.cut % full.length) : full;
      const truncated = body.length < full.length;
      const auth = u.auth < 80 ? adminAuth : u.auth < 90 ? monitorAuth : null;
      const headers: Record<string, string> = {
        'x-requested-by': 'fuzz-uploads',
        accept: 'application/json',
        prefer: 'respond-async',
        'content-type': `multipart/form-data; boundary=${u.boundary}`,
        ...(auth ? { authorization: auth } : {}),
      };
      const chunked = u.chunked < 15;
      if (chunked) headers['transfer-encoding'] = 'chunked';
      else headers['content-length'] = String(truncated && u.halfClose ? full.length : body.length);
      const head = `POST ${MGMT_PATH}/edit/appDeployments HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n`;
      const wire = chunked ? Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from(truncated && u.halfClose ? '' : '\r\n0\r\n\r\n')]) : body;
      const req: RawRequest = { method: 'POST', path: `${MGMT_PATH}/edit/appDeployments`, headers, body };
      check(req, await sendRaw(port, head, wire, { halfClose: truncated && u.halfClose }), truncated && u.halfClose);
    });

    // Hostile body shapes, by an administrator, a Monitor, nobody, and at a context root.
    const shapes: [string, string][] = [
      ['pairs white space', `a=${' '.repeat(200_000)}&`],
      ['pairs white space, long', `a=${' '.repeat(1024 * 1024 - 8)}&`],
      ['keys white space', `{${' '.repeat(500_000)}"a"${' '.repeat(400_000)}:1}`],
      ['deep arrays', '['.repeat(200_000)],
      ['deep arrays closed', `${'['.repeat(100_000)}1${']'.repeat(100_000)}`],
      ['deep relaxed', '{a:'.repeat(15_000)],
      ['deep objects', `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`],
      ['duplicate keys', `{${Array.from({ length: 20_000 }, (_, i) => `"k${i % 10_000}":1`).join(',')}}`],
      ['many keys', `{${Array.from({ length: 40_000 }, (_, i) => `"k${i}":1`).join(',')}}`],
      ['escaped duplicate keys', '{"a\\u0062":1,"ab":2}'],
      ['null', 'null'],
      ['null padded', `${' '.repeat(1000)}null${' '.repeat(1000)}`],
      ['huge string', `{"notes":"${'s'.repeat(1024 * 1024 - 20)}"}`],
      ['huge relaxed string', `{notes:'${'s'.repeat(200_000)}'}`],
      ['many escapes', `{"notes":"${'\\u0041'.repeat(150_000)}"}`],
      ['comments', `{${'/*c*/'.repeat(12_000)}}`],
      ['unterminated comment', `{/*${' '.repeat(60_000)}`],
      ['unterminated string', `{"a":"${'x'.repeat(500_000)}`],
    ];
    const targets = [`${MGMT_PATH}/edit/servers/ms1`, `${MGMT_PATH}/edit/servers`, `${MGMT_PATH}/serverRuntime/search`, `${MGMT_PATH}/edit/changeManager/startEdit`, '/management/lifecycle/latest/environments', '/inventory/', `${MGMT_PATH}/edit/appDeployments`];
    const requests: RawRequest[] = [];
    for (const [, text] of shapes) {
      for (const [i, path] of targets.entries()) {
        const auth = i % 3 === 0 ? adminAuth : i % 3 === 1 ? monitorAuth : adminAuth;
        for (const ctype of ['application/json', 'text/plain']) {
          requests.push({ method: 'POST', path, headers: { authorization: auth, 'x-requested-by': 'fuzz-shapes', accept: 'application/json', 'content-type': ctype }, body: text });
        }
      }
      requests.push({ method: 'POST', path: `${MGMT_PATH}/edit/servers/ms1`, headers: { 'x-requested-by': 'fuzz-shapes', 'content-type': 'application/json' }, body: text });
    }
    await pool(requests, 3, async (req) => {
      check(req, await send(port, req, 30_000, true), false);
    });
    // The server is still itself.
    const me = await admin.get('currentUser?links=none');
    assert.equal(me.status, 200, me.text);
    const cm = await admin.get('edit/changeManager?links=none');
    if (cm.json?.locked) await admin.post('edit/changeManager/cancelEdit', {});
  } finally {
    // Requests cut short end when their connection does: wait for their staging to go.
    const incoming = join(dataDir, 'applications', '.incoming');
    for (let i = 0; i < 200 && treeOf(incoming).length > 0; i++) await new Promise((r) => setTimeout(r, 10));
    const staged = treeOf(incoming);
    const outside = treeOf(parent).filter((p) => p !== 'data' && !p.startsWith('data/') && p !== 'victim');
    await server.close();
    rmSync(parent, { recursive: true, force: true });
    console.log(`uploads: status distribution: ${histogram(seen)}`);
    assert.deepEqual(outside, [], 'files written outside the data directory');
    assert.deepEqual(staged, [], 'uploads left staged');
  }
  reportViolations(found, `uploads and body shapes (seed ${SEED + 2})`);
});
