#!/usr/bin/env node
// Compiles the harvested bean type definitions (one YAML file per type) and the console's
// polymorphic discriminators into catalog/catalog.json, whose shape is `CatalogFile` in
// src/catalog/format.ts. Facts only: no description prose; every name is rebranded.
//
// Usage: node scripts/generate-catalog.mjs [--source <dir>]
//   <dir> holds <version>/*.yaml for every version and remote-console-resources/<Type>/type.yaml
//   (default: ../shared/beantypes, relative to the project root).

import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import YAML from 'yaml';

// Every product version a domain may have. The default is stored whole in catalog/catalog.json; each
// other version as its differences from it in catalog/versions/<version>.json (only the domain's
// version is read at start-up). Keep DEFAULT_VERSION equal to src/catalog/versions.ts.
const VERSIONS = ['12.2.1.3.0', '12.2.1.4.0', '14.1.1.0.0', '14.1.2.0.0', '15.1.1.0.0'];
const DEFAULT_VERSION = '12.2.1.4.0';
const sourceLabel = (version) => `harvested bean types ${version} (UPL 1.0, see NOTICE.md)`;
const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT_FILE = join(PROJECT_ROOT, 'catalog', 'catalog.json');
const DIFF_DIR = join(PROJECT_ROOT, 'catalog', 'versions');

// Roots and package patterns that decide a type's kind (original names: the data is unmapped).
const RUNTIME_ROOT = 'weblogic.management.runtime.RuntimeMBean';
const CONFIG_ROOT = 'weblogic.management.configuration.ConfigurationMBean';
// The common root of config and runtime MBeans reaches neither; it belongs with the config tree.
const CONFIG_EXTRA = new Set(['weblogic.management.WebLogicMBean']);
const SECURITY_PACKAGE = /^(weblogic\.management\.security|weblogic\.security\.providers|com\.bea\.security)\./;

// REST names the product's REST layer gives that the bean data does not carry, keyed by the type that
// declares the Java property (original names). Subtypes that inherit or override the property keep it.
const REST_RENAMES = {
  'weblogic.management.runtime.TaskRuntimeMBean': {
    Status: 'taskStatus', Error: 'taskError', BeginTime: 'startTimeAsLong', EndTime: 'endTimeAsLong',
  },
  'weblogic.management.runtime.DeploymentProgressObjectMBean': {
    Messages: 'deploymentMessages', BeginTime: 'startTimeAsLong', EndTime: 'endTimeAsLong',
  },
};

const FIRST_REST_VERSION = '12.2.1.0.0';

// ---------------------------------------------------------------------------------------------
// Naming

/** The one place where brand words are mapped, case-preservingly. Used for every name and string. */
function rebrand(text) {
  return text
    .replace(/(?<![\w.])com\.bea\./g, 'appserver.')
    .replace(/weblogic|oracle/gi, (word) =>
      // Map "weblogic" hump by hump (Web|Logic -> App|Server) so camel case survives.
      word.length === 8
        ? matchCase(word.slice(0, 3), 'app') + matchCase(word.slice(3), 'server')
        : matchCase(word, 'appserver'));
}

function matchCase(source, target) {
  if (source === source.toLowerCase()) return target;
  if (source === source.toUpperCase()) return target.toUpperCase();
  if (source.slice(1) === source.slice(1).toLowerCase()) return target[0].toUpperCase() + target.slice(1);
  throw new Error(`rebrand: no case-preserving mapping for "${source}"`);
}

/** JavaBeans Introspector.decapitalize: `ListenPort` -> `listenPort`, `JDBCResource` unchanged. */
function decapitalize(name) {
  if (name.length > 1 && isUpper(name[0]) && isUpper(name[1])) return name;
  return name[0].toLowerCase() + name.slice(1);
}

function isUpper(ch) {
  return ch !== ch.toLowerCase() && ch === ch.toUpperCase();
}

function simpleName(typeName) {
  return typeName.slice(typeName.lastIndexOf('.') + 1);
}

/** Wire type name: `appserver.management.configuration.ServerMBean` -> `Server`. */
function shortName(mappedTypeName) {
  return simpleName(mappedTypeName).replace(/M?Bean$/, '');
}

// ---------------------------------------------------------------------------------------------
// Loading

function parseArgs(argv) {
  const args = { source: resolve(PROJECT_ROOT, '../shared/beantypes') };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--source' && argv[i + 1]) args.source = resolve(argv[++i]);
    else throw new Error(`unknown or incomplete argument "${argv[i]}" (usage: --source <dir>)`);
  }
  return args;
}

function parseYaml(file) {
  // YAML 1.2 core schema keeps `00:00` a string; the binary tag occurs once (an empty default).
  return YAML.parse(readFileSync(file, 'utf8'), { version: '1.2', schema: 'core', customTags: ['binary'] });
}

/** Map of original full type name -> parsed definition. */
function loadBeanTypes(dir) {
  const types = new Map();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort()) {
    const def = parseYaml(join(dir, file));
    if (!def?.name) throw new Error(`${file}: no type name`);
    if (simpleName(def.name) + '.yaml' !== file) throw new Error(`${file}: name ${def.name} does not match the file`);
    types.set(def.name, def);
  }
  return types;
}

/** Console type.yaml files that declare a subtype discriminator: [{ owner, property, subTypes }]. */
function loadDiscriminatorFiles(dir) {
  if (!existsSync(dir)) return [];
  const found = [];
  for (const owner of readdirSync(dir).sort()) {
    const file = join(dir, owner, 'type.yaml');
    if (!existsSync(file)) continue;
    const def = parseYaml(file) ?? {};
    if (def.subTypeDiscriminatorProperty && Array.isArray(def.subTypes)) {
      found.push({ owner, property: def.subTypeDiscriminatorProperty, subTypes: def.subTypes });
    }
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// Type graph

function makeGraph(types) {
  const closures = new Map();
  const closure = (name) => {
    if (!closures.has(name)) {
      const seen = new Set([name]);
      for (const base of types.get(name)?.baseTypes ?? []) for (const t of closure(base)) seen.add(t);
      closures.set(name, seen);
    }
    return closures.get(name);
  };
  const derived = new Map([...types.keys()].map((n) => [n, []]));
  for (const [name, def] of types) for (const base of def.baseTypes ?? []) derived.get(base)?.push(name);
  const descendants = (name) => {
    const seen = new Set();
    const walk = (n) => { if (!seen.has(n)) { seen.add(n); derived.get(n)?.forEach(walk); } };
    walk(name);
    return seen;
  };
  return { closure, descendants };
}

function checkClosedSet(types) {
  const missing = [];
  for (const def of types.values()) {
    for (const base of def.baseTypes ?? []) if (!types.has(base)) missing.push(`${def.name} base ${base}`);
    for (const p of def.properties ?? []) {
      if (p.relationship && !types.has(p.type)) missing.push(`${def.name}.${p.name} -> ${p.type}`);
      for (const c of p.creators ?? []) if (!types.has(c)) missing.push(`${def.name}.${p.name} creator ${c}`);
    }
  }
  if (missing.length) throw new Error(`types referenced but not defined:\n  ${missing.join('\n  ')}`);
}

function kindOf(name, closure) {
  if (closure.has(RUNTIME_ROOT)) return 'runtime';
  if (closure.has(CONFIG_ROOT) || CONFIG_EXTRA.has(name)) return 'config';
  if (SECURITY_PACKAGE.test(name)) return 'security';
  return 'descriptor';
}

/** Own properties first, then each base depth-first in order; the first definition of a name wins.
 *  Merging happens before filtering so that a subtype can hide an inherited property. */
function inheritedProperties(name, types) {
  const result = [];
  const seenProps = new Set();
  const seenTypes = new Set();
  const visit = (typeName) => {
    if (seenTypes.has(typeName)) return;
    seenTypes.add(typeName);
    const def = types.get(typeName);
    for (const raw of def.properties ?? []) {
      if (seenProps.has(raw.name)) continue;
      seenProps.add(raw.name);
      result.push({ raw, declaredBy: typeName });
    }
    for (const base of def.baseTypes ?? []) visit(base);
  };
  visit(name);
  return result;
}

// ---------------------------------------------------------------------------------------------
// Properties

function isRestVisible(raw) {
  if (raw.supported === false) return false;
  if (raw.excludeFromRest) return false;
  return !(raw.type === 'byte' && raw.array); // byte[] (e.g. the ...Encrypted twins) is not exposed
}

/** JSON-safe copy of a YAML value with brand words mapped inside strings. */
function jsonValue(value) {
  if (value instanceof Uint8Array) return null; // the single `!!binary ""` default
  if (typeof value === 'string') return rebrand(value);
  if (typeof value === 'number' && !Number.isFinite(value)) throw new Error(`non-finite number ${value}`);
  if (Array.isArray(value)) return value.map(jsonValue);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [rebrand(k), jsonValue(v)]));
  }
  return value ?? null;
}

function sameJson(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** d / dp / ds / dd from `defaultValue`; mode values only when given and different from `d`. */
function convertDefaults(defaultValue = {}, out, stats) {
  if (defaultValue.value) out.d = jsonValue(defaultValue.value.value);
  for (const [key, field] of [['productionModeValue', 'dp'], ['secureModeValue', 'ds']]) {
    if (!defaultValue[key]) continue;
    const v = jsonValue(defaultValue[key].value);
    if ('d' in out && sameJson(v, out.d)) stats.sameModeDefaults++;
    else out[field] = v;
  }
  if (defaultValue.derivedDefault) out.dd = 1;
}

function compareVersions(a, b) {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d) return Math.sign(d);
  }
  return 0;
}

/** The version of a deprecation after the first REST version, or undefined. */
function deprecatedIn(text) {
  const m = /^\s*(\d+(?:\.\d+)+)/.exec(text == null ? '' : String(text));
  return m && compareVersions(m[1], FIRST_REST_VERSION) > 0 ? m[1] : undefined;
}

function uniqueRoles(roles) {
  const list = [...new Set(roles?.allowed ?? [])];
  return list.length ? list : undefined;
}

/** The REST rename of a Java property when the owner (or an ancestor) declares one for it. */
function renameFor(ownerClosure, javaName) {
  for (const [declarer, renames] of Object.entries(REST_RENAMES)) {
    if (ownerClosure.has(declarer) && renames[javaName]) return renames[javaName];
  }
  return undefined;
}

/** One CatalogProperty; keys in the order of format.ts, false flags left out. */
function convertProperty(raw, declaredBy, ownerClosure, stats) {
  const out = { n: rebrand(renameFor(ownerClosure, raw.name) ?? decapitalize(raw.name)), t: rebrand(raw.type) };
  if (raw.array) out.a = 1;
  if (raw.relationship === 'containment') out.rel = 'c';
  else if (raw.relationship === 'reference') out.rel = 'r';
  else if (raw.relationship) throw new Error(`${declaredBy}.${raw.name}: unknown relationship ${raw.relationship}`);
  if (raw.creators?.length) out.cr = raw.creators.map(rebrand);
  if (raw.writable) out.w = 1;
  if (raw.key) out.k = 1;
  convertDefaults(raw.defaultValue, out, stats);
  if (raw.legalValues) out.lv = jsonValue(raw.legalValues);
  if (raw.encrypted) out.enc = 1;
  if (raw.sensitive) out.sen = 1;
  if (raw.restartNeeded) out.rs = 1;
  if (raw.redeployNeeded) out.rd = 1;
  if (raw.transient) out.tr = 1;
  const dep = deprecatedIn(raw.deprecated);
  if (dep) out.dep = dep;
  const gr = uniqueRoles(raw.getRoles);
  if (gr) out.gr = gr;
  const sr = uniqueRoles(raw.setRoles);
  if (sr) out.sr = sr;
  if (raw.restInternal) out.ri = 1;
  out.by = rebrand(declaredBy);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Types

function buildTypes(types, graph, stats) {
  const result = new Map(); // original name -> CatalogType
  for (const [name, def] of types) {
    const closure = graph.closure(name);
    const props = [];
    for (const { raw, declaredBy } of inheritedProperties(name, types)) {
      if (isRestVisible(raw)) props.push(convertProperty(raw, declaredBy, closure, stats));
      else if (declaredBy === name) stats.hidden++;
    }
    const type = { s: shortName(rebrand(name)), kind: kindOf(name, closure) };
    if (def.baseTypes?.length) type.b = def.baseTypes.map(rebrand);
    const roles = uniqueRoles(def.roles);
    if (roles) type.roles = roles;
    if (def.roles && Object.keys(def.roles).some((k) => k !== 'allowed')) stats.notes.push(`${name}: roles keys ${Object.keys(def.roles)}`);
    type.p = props;
    result.set(name, type);
  }
  return result;
}

/** Checks that the named REST renames hit real properties; returns report lines. */
function verifyRenames(types) {
  const lines = [];
  for (const [declarer, renames] of Object.entries(REST_RENAMES)) {
    const own = new Map((types.get(declarer)?.properties ?? []).map((p) => [p.name, p]));
    for (const [javaName, rest] of Object.entries(renames)) {
      const raw = own.get(javaName);
      if (!raw) throw new Error(`REST rename ${simpleName(declarer)}.${javaName} -> ${rest}: no such property in the data`);
      const visible = isRestVisible(raw) ? 'REST-visible' : 'hidden (supported:false or excluded)';
      lines.push(`${simpleName(declarer)}.${javaName} (${raw.array ? raw.type + '[]' : raw.type}, ${visible}) -> ${rest}`);
    }
  }
  return lines;
}

/** Sets `disc` from the console's `Type` discriminators; returns report lines. */
function applyDiscriminators(files, types, graph, catalogTypes, VERSION) {
  const report = [];
  const byType = new Map(); // original type name -> { value, owner }
  for (const { owner, property, subTypes } of files) {
    const ownerName = [...types.keys()].find((n) => simpleName(n) === owner);
    if (!ownerName) { report.push(`skipped ${owner}: not a ${VERSION} type`); continue; }
    // Only `Type` feeds the wire `type` field; other discriminators (JDBCResource.DatasourceType,
    // DestinationType, ...) select a subtype from some other property.
    if (property !== 'Type') { report.push(`skipped ${owner}: discriminator is ${property}, not Type`); continue; }
    const family = graph.descendants(ownerName);
    const ignored = [];
    for (const entry of subTypes) {
      const wanted = simpleName(String(entry.type));
      const match = types.has(entry.type) && family.has(entry.type)
        ? entry.type
        : [...family].find((n) => simpleName(n) === wanted);
      if (!match) {
        ignored.push(types.has(entry.type) ? `${wanted} (not a subtype of ${owner})` : wanted);
        continue;
      }
      const value = rebrand(String(entry.value));
      const prev = byType.get(match);
      if (prev && prev.value !== value) throw new Error(`conflicting discriminators for ${match}: ${prev.value} (${prev.owner}) vs ${value} (${owner})`);
      byType.set(match, { value, owner });
    }
    if (ignored.length) report.push(`${owner}: ignored ${ignored.length} entries without a matching ${VERSION} type: ${ignored.join(', ')}`);
  }
  let set = 0;
  for (const [name, { value }] of byType) {
    const type = catalogTypes.get(name);
    if (value !== type.s) { type.disc = value; set++; }
  }
  report.unshift(`${byType.size} subtypes matched, disc set on ${set} (the others equal s)`);
  return report;
}

/** Puts `disc` right after `s`, as format.ts lists the fields. */
function orderTypeFields(type) {
  const { s, disc, kind, b, roles, p } = type;
  return Object.fromEntries(Object.entries({ s, disc, kind, b, roles, p }).filter(([, v]) => v !== undefined));
}

function mapTypeNames(catalogTypes) {
  const mapped = new Map();
  for (const [name, type] of catalogTypes) {
    const to = rebrand(name);
    if (mapped.has(to)) throw new Error(`two types map to ${to}`);
    mapped.set(to, orderTypeFields(type));
  }
  return new Map([...mapped].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function checkConsistency(mappedTypes) {
  for (const [name, type] of mappedTypes) {
    const names = new Set();
    for (const p of type.p) {
      if (names.has(p.n)) throw new Error(`${name}: duplicate REST property name ${p.n}`);
      names.add(p.n);
      for (const t of [...(p.rel ? [p.t] : []), ...(p.cr ?? [])]) {
        if (!mappedTypes.has(t)) throw new Error(`${name}.${p.n}: unknown type ${t}`);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Always-present singleton children: can a walk over them loop?

/** Strongly connected components of the graph of non-optional singleton containments, as
 *  "Type.prop -> Target" edge lists. `targets` maps a declared child type to the types a walk may
 *  instantiate for it (just itself, or also its subtypes). */
function singletonCycles(mappedTypes, targets) {
  const edges = new Map();
  for (const [name, type] of mappedTypes) {
    edges.set(name, type.p.filter((p) => p.rel === 'c' && !p.a && !p.cr)
      .flatMap((p) => targets(p.t).map((to) => ({ prop: p.n, to }))));
  }
  return stronglyConnected(edges).map((component) => {
    const members = new Set(component);
    const grouped = new Map(); // "From.prop" -> targets inside the component
    for (const from of component) {
      for (const e of edges.get(from).filter((e) => members.has(e.to))) {
        const key = `${shortName(from)}.${e.prop}`;
        grouped.set(key, [...(grouped.get(key) ?? []), shortName(e.to)]);
      }
    }
    return [...grouped].map(([key, to]) => `${key} -> ${to.length > 1 ? `{${to.join(', ')}}` : to[0]}`);
  });
}

/** Tarjan's algorithm; returns the components that contain a cycle (size > 1 or a self-loop). */
function stronglyConnected(edges) {
  let counter = 0;
  const index = new Map(), low = new Map(), stack = [], onStack = new Set(), components = [];
  const connect = (v) => {
    index.set(v, counter); low.set(v, counter); counter++;
    stack.push(v); onStack.add(v);
    for (const { to } of edges.get(v)) {
      if (!index.has(to)) { connect(to); low.set(v, Math.min(low.get(v), low.get(to))); }
      else if (onStack.has(to)) low.set(v, Math.min(low.get(v), index.get(to)));
    }
    if (low.get(v) === index.get(v)) {
      const component = [];
      let w;
      do { w = stack.pop(); onStack.delete(w); component.push(w); } while (w !== v);
      components.push(component);
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) connect(v);
  return components.filter((c) => c.length > 1 || edges.get(c[0]).some((e) => e.to === c[0]));
}

function subtypeIndex(mappedTypes) {
  const derived = new Map([...mappedTypes.keys()].map((n) => [n, []]));
  for (const [name, type] of mappedTypes) for (const base of type.b ?? []) derived.get(base).push(name);
  return (name) => {
    const seen = new Set();
    const walk = (n) => { if (!seen.has(n)) { seen.add(n); derived.get(n).forEach(walk); } };
    walk(name);
    return [...seen];
  };
}

// ---------------------------------------------------------------------------------------------
// Output

function serialise(mappedTypes, version) {
  const lines = [...mappedTypes].map(([name, type]) => `${JSON.stringify(name)}:${JSON.stringify(type)}`);
  const head = `{"source":${JSON.stringify(sourceLabel(version))},"version":${JSON.stringify(version)},"types":{`;
  return `${head}\n${lines.join(',\n')}\n}}\n`;
}

/**
 * A version's differences from the default, as `CatalogDifferences` in src/catalog/format.ts: per
 * type, `null` (the version lacks it), the whole type (new), or a patch: the type-level fields that
 * differ (`b`/`roles`/`disc` given as null when the version has none), the properties it lacks
 * (`del`), those it has new or different (`put`, whole), and when the order differs from the default's
 * order after those edits, the full order (`o`).
 */
function differences(base, mine, version) {
  const types = {};
  for (const name of base.keys()) if (!mine.has(name)) types[name] = null;
  for (const [name, type] of mine) {
    const was = base.get(name);
    if (!was) { types[name] = type; continue; }
    if (sameJson(was, type)) continue;
    const patch = {};
    for (const key of ['s', 'disc', 'kind', 'b', 'roles']) {
      if (!sameJson(was[key], type[key])) patch[key] = type[key] ?? null;
    }
    const before = new Map(was.p.map((p) => [p.n, p]));
    const after = new Map(type.p.map((p) => [p.n, p]));
    const del = [...before.keys()].filter((n) => !after.has(n));
    const put = type.p.filter((p) => !sameJson(before.get(p.n), p));
    if (del.length) patch.del = del;
    if (put.length) patch.put = put;
    const order = applyPatchOrder(was.p.map((p) => p.n), del, put.map((p) => p.n));
    const wanted = type.p.map((p) => p.n);
    if (!sameJson(order, wanted)) patch.o = wanted;
    types[name] = patch;
  }
  const lines = Object.entries(types).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, t]) => `${JSON.stringify(name)}:${JSON.stringify(t)}`);
  const head = `{"source":${JSON.stringify(sourceLabel(version))},"version":${JSON.stringify(version)},"base":${JSON.stringify(DEFAULT_VERSION)},"types":{`;
  return { text: `${head}\n${lines.join(',\n')}\n}}\n`, changed: Object.keys(types).length };
}

/** The property order a patch gives when it has no `o`: the base order without `del`, new names appended (as the loader does). */
function applyPatchOrder(names, del, put) {
  const gone = new Set(del);
  const order = names.filter((n) => !gone.has(n));
  const present = new Set(order);
  for (const n of put) if (!present.has(n)) order.push(n);
  return order;
}

function verifyOutput(text) {
  for (const word of [/weblogic/i, /oracle/i]) {
    const m = word.exec(text);
    if (m) {
      const around = text.slice(Math.max(0, m.index - 60), m.index + 60);
      throw new Error(`catalog.json still contains a brand word (${word}) near: ...${around}...`);
    }
  }
}

/** Median of several JSON.parse runs, plus the first (cold) one. */
function timeParse(text) {
  const runs = [];
  for (let i = 0; i < 15; i++) {
    const t0 = performance.now();
    JSON.parse(text);
    runs.push(performance.now() - t0);
  }
  const first = runs[0];
  runs.sort((a, b) => a - b);
  return { first, median: runs[runs.length >> 1] };
}

function summarise(version, outFile, mappedTypes, text, stats, reports, cycles, polymorphicCycles) {
  const kinds = {};
  let props = 0;
  for (const type of mappedTypes.values()) {
    kinds[type.kind] = (kinds[type.kind] ?? 0) + 1;
    props += type.p.length;
  }
  const parse = timeParse(text);
  const out = [
    `catalog ${version}: ${outFile}`,
    `types: ${mappedTypes.size}  kinds: ${Object.entries(kinds).map(([k, n]) => `${k} ${n}`).join(', ')}`,
    `property entries (inheritance resolved): ${props}; own properties left out (unsupported/excludeFromRest/byte[]): ${stats.hidden}`,
    `mode defaults equal to the plain default (not written): ${stats.sameModeDefaults}`,
    `size: ${Buffer.byteLength(text)} bytes; JSON.parse: ${parse.first.toFixed(1)} ms first, ${parse.median.toFixed(1)} ms median`,
    'REST renames:', ...reports.renames.map((l) => `  ${l}`),
    'discriminators:', ...reports.disc.map((l) => `  ${l}`),
    ...stats.notes.map((l) => `note: ${l}`),
    cycles.length
      ? `containment cycles through always-present singletons: ${cycles.length}`
      : 'containment cycles through always-present singletons: none',
    ...cycles.map((edges, i) => `  cycle ${i + 1}: ${edges.join('; ')}`),
    `  only if a singleton may be instantiated as a subtype of its declared type: ${polymorphicCycles.length}`,
    ...polymorphicCycles.map((edges, i) => `  subtype cycle ${i + 1}: ${edges.join('; ')}`),
  ];
  console.log(out.join('\n'));
}

/** The catalog of one version: its types by mapped name, with the generator's report. */
function buildCatalog(source, version) {
  const types = loadBeanTypes(join(source, version));
  checkClosedSet(types);
  const graph = makeGraph(types);
  const stats = { hidden: 0, sameModeDefaults: 0, notes: [] };
  const renames = verifyRenames(types);
  const catalogTypes = buildTypes(types, graph, stats);
  const disc = applyDiscriminators(loadDiscriminatorFiles(join(source, 'remote-console-resources')), types, graph, catalogTypes, version);
  const mappedTypes = mapTypeNames(catalogTypes);
  checkConsistency(mappedTypes);
  return { mappedTypes, stats, reports: { renames, disc } };
}

function report(version, outFile, text, built) {
  const cycles = singletonCycles(built.mappedTypes, (t) => [t]);
  const polymorphicCycles = singletonCycles(built.mappedTypes, subtypeIndex(built.mappedTypes));
  summarise(version, outFile, built.mappedTypes, text, built.stats, built.reports, cycles, polymorphicCycles);
}

function write(file, text) {
  verifyOutput(text);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  verifyOutput(readFileSync(file, 'utf8'));
}

function main() {
  const { source } = parseArgs(process.argv.slice(2));
  const base = buildCatalog(source, DEFAULT_VERSION);
  const text = serialise(base.mappedTypes, DEFAULT_VERSION);
  write(OUT_FILE, text);
  report(DEFAULT_VERSION, OUT_FILE, text, base);
  for (const version of VERSIONS.filter((v) => v !== DEFAULT_VERSION)) {
    const built = buildCatalog(source, version);
    const diff = differences(base.mappedTypes, built.mappedTypes, version);
    const file = join(DIFF_DIR, `${version}.json`);
    write(file, diff.text);
    console.log(`\ndifferences ${version} -> ${file}: ${diff.changed} types differ from ${DEFAULT_VERSION}, ${Buffer.byteLength(diff.text)} bytes`);
    report(version, '(whole, not written)', serialise(built.mappedTypes, version), built);
  }
}

try {
  main();
} catch (err) {
  console.error(`generate-catalog: ${err.message}`);
  process.exit(1);
}
