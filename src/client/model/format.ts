// The deploy tooling's model as the client knows it, from the generated type facts alone: what a
// bean type holds (properties, children), how each is spelt in the model (`listenPort` is
// `ListenPort`, the collection `servers` is the folder `Server`, `targets` is `Target`), which
// section a domain child belongs to, and which types a reference may name. The spelling follows the
// same rules as the server's import and export of models; a test compares the two on every type.
import type { PropertyFact, TypeFacts } from '../facts-format.js';
import { TYPE_FACTS } from '../generated/facts.js';
import { MODEL_FORMAT } from '../generated/model-format.js';

export const DOMAIN_TYPE = 'appserver.management.configuration.DomainMBean';
export const SECTIONS = ['domainInfo', 'topology', 'resources', 'appDeployments'] as const;
export type Section = (typeof SECTIONS)[number];

/** One property of a type, as discover, plan and apply use it. */
export interface Prop {
  name: string;
  javaType: string;
  writable: boolean;
  key: boolean;
  restart: boolean;
  secret: boolean;
  array: boolean;
  reference: boolean;
  derived: boolean;
  /** Read-only, but a create may set it (where an application comes from). */
  createOnly: boolean;
  /** The default; undefined when the facts give none. */
  default?: unknown;
  legal?: unknown[];
}

export interface Child {
  name: string;
  /** Declared type of its beans. */
  type: string;
  shape: 'collection' | 'singleton' | 'optional';
  /** Types it may create, its default first. */
  creators: string[];
}

/** What the model reads and writes of one type. */
export interface TypeInfo {
  name: string;
  short: string;
  discriminator: string;
  props: Map<string, Prop>;
  children: Map<string, Child>;
  /** Model spelling (squashed) -> what it names. */
  slots: Map<string, Slot>;
}

export type Slot =
  | { kind: 'prop'; prop: Prop; encrypted?: boolean }
  | { kind: 'child'; child: Child; creator?: string };

/** A name with case, hyphens and underscores set aside. */
export function squash(name: string): string {
  return name.toLowerCase().replace(/[-_]/g, '');
}

/** `listenPort` -> `ListenPort`. */
export function beanName(rest: string): string {
  return rest.length === 0 ? rest : rest[0]!.toUpperCase() + rest.slice(1);
}

/** English singular of a capitalised plural: `Servers` -> `Server`, `Properties` -> `Property`. */
export function singularOf(name: string): string {
  if (/aches$/.test(name)) return name.slice(0, -1);
  if (/ies$/.test(name)) return `${name.slice(0, -3)}y`;
  if (/(sses|xes|ches|shes)$/.test(name)) return name.slice(0, -2);
  if (/[^s]s$/.test(name)) return name.slice(0, -1);
  return name;
}

function shortOf(type: string): string {
  return type.slice(type.lastIndexOf('.') + 1).replace(/(MBean|Bean)$/, '');
}

/** Model key of a property or child. */
export function modelKey(name: string, list: boolean, encrypted = false): string {
  if (encrypted) return `${beanName(name)}Encrypted`;
  if (list) return MODEL_FORMAT.folders[name] ?? singularOf(beanName(name));
  return beanName(name);
}

const C = 'appserver.management.configuration.';
/** Read-only properties a create may set, by the type that has them (the interface's documented create forms). */
const CREATE_ONLY: [string, string[]][] = [
  [`${C}BasicDeploymentMBean`, ['sourcePath']],
  [`${C}PartitionMBean`, ['partitionID']],
  [`${C}AppDeploymentMBean`, ['sourcePath', 'planPath', 'planDir', 'installDir', 'stagingMode', 'planStagingMode', 'securityDDModel', 'altDescriptorPath', 'altDescriptorDir', 'versionIdentifier']],
];

function propOf(row: PropertyFact, createOnly: Set<string>): Prop {
  const [name, javaType, flags, dflt, legal] = row;
  return {
    name,
    javaType,
    createOnly: !flags.includes('w') && createOnly.has(name),
    writable: flags.includes('w'),
    key: flags.includes('k'),
    restart: flags.includes('r'),
    secret: flags.includes('s'),
    array: flags.includes('a'),
    reference: flags.includes('@'),
    derived: flags.includes('d'),
    ...(row.length > 3 && dflt !== null && !flags.includes('d') ? { default: dflt } : {}),
    ...(Array.isArray(legal) ? { legal } : {}),
  };
}

const cache = new Map<string, TypeInfo | undefined>();
const byDiscriminator = new Map<string, string[]>();
for (const [name, f] of Object.entries(TYPE_FACTS)) {
  const list = byDiscriminator.get(f.s);
  if (list) list.push(name);
  else byDiscriminator.set(f.s, [name]);
}

export function factsOf(type: string): TypeFacts | undefined {
  return Object.hasOwn(TYPE_FACTS, type) ? TYPE_FACTS[type] : undefined;
}

export function typeInfo(type: string): TypeInfo | undefined {
  if (cache.has(type)) return cache.get(type);
  const f = factsOf(type);
  let info: TypeInfo | undefined;
  if (f) {
    const createOnly = new Set(CREATE_ONLY.filter(([base]) => isA(type, base)).flatMap(([, names]) => names));
    const props = new Map(f.p.map((r) => [r[0], propOf(r, createOnly)]));
    const creatorsOf = MODEL_FORMAT.creators[type] ?? {};
    const children = new Map<string, Child>(
      f.c.map(([name, t, shape]) => [name, { name, type: t, shape: shape === 'c' ? 'collection' : shape === 'o' ? 'optional' : 'singleton', creators: creatorsOf[name] ?? [t] }]),
    );
    const slots = new Map<string, Slot>();
    const add = (spelling: string, slot: Slot) => {
      const k = squash(spelling);
      if (!slots.has(k)) slots.set(k, slot);
    };
    for (const p of props.values()) add(modelKey(p.name, p.array), { kind: 'prop', prop: p });
    for (const c of children.values()) add(modelKey(c.name, c.shape === 'collection'), { kind: 'child', child: c });
    for (const p of props.values()) {
      if (p.array) add(beanName(p.name), { kind: 'prop', prop: p });
      if (p.secret) add(modelKey(p.name, false, true), { kind: 'prop', prop: p, encrypted: true });
    }
    for (const c of children.values()) {
      if (c.shape !== 'collection') continue;
      add(beanName(c.name), { kind: 'child', child: c });
      if (c.creators.length > 1) for (const cr of c.creators) add(shortOf(cr), { kind: 'child', child: c, creator: cr });
    }
    info = { name: type, short: shortOf(type), discriminator: f.s, props, children, slots };
  }
  cache.set(type, info);
  return info;
}

/** Whether beans of `type` may be named where `wanted` is expected. */
export function isA(type: string, wanted: string): boolean {
  return type === wanted || (MODEL_FORMAT.ancestors[type] ?? []).includes(wanted);
}

/** Answers of typeByDiscriminator, by discriminator and declared type (a domain has thousands of beans of a few types). */
const byDiscriminatorIn = new Map<string, string>();

/** The concrete type of a bean whose `type` field is `discriminator`, found where `declared` beans live. */
export function typeByDiscriminator(discriminator: unknown, declared: string): string {
  if (typeof discriminator !== 'string') return declared;
  const key = `${discriminator}\n${declared}`;
  let type = byDiscriminatorIn.get(key);
  if (type !== undefined) return type;
  // Providers are told apart by their implementation's class name, whose package another server
  // may spell differently: the simple name decides when the whole one is not known.
  const simple = discriminator.slice(discriminator.lastIndexOf('.') + 1);
  const known = byDiscriminator.get(discriminator) ?? [...byDiscriminator.entries()].filter(([d]) => d.endsWith(`.${simple}`)).flatMap(([, names]) => names);
  const found = known.filter((t) => isA(t, declared));
  type = found.length === 1 ? found[0]! : found.includes(declared) ? declared : (found[0] ?? declared);
  if (byDiscriminatorIn.size < 10_000) byDiscriminatorIn.set(key, type);
  return type;
}

/** The type a model folder names among the types a child may be: `UnixMachine`, `DefaultAuthenticator`. */
export function subtypeNamed(child: Child, spelling: string): string | undefined {
  const wanted = squash(spelling);
  for (const t of child.creators) if (squash(shortOf(t)) === wanted) return t;
  return subtypesOf(child.type).find((t) => squash(shortOf(t)) === wanted);
}

/** The folder an item of `child` of type `type` is written under, and whether it is wrapped in its type's name. */
export function folderOf(child: Child, type: string): { folder: string; wrap?: string } {
  const base = modelKey(child.name, child.shape === 'collection');
  const dflt = child.creators[0] ?? child.type;
  if (type === dflt) return { folder: base };
  if (child.shape === 'collection' && child.creators.length > 1 && child.creators.includes(type)) return { folder: shortOf(type) };
  return { folder: base, wrap: shortOf(type) };
}

export function shortName(type: string): string {
  return shortOf(type);
}

/** The section of the model a domain child is written in. */
export function sectionOf(child: string): Exclude<Section, 'domainInfo'> {
  if (MODEL_FORMAT.resources.includes(child)) return 'resources';
  if (MODEL_FORMAT.appDeployments.includes(child)) return 'appDeployments';
  return 'topology';
}

/** Levenshtein distance, for "did you mean". */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}

/** The known spelling nearest to `wrong`, when one is near enough to be a likely typo. */
export function nearest(wrong: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  const w = squash(wrong);
  for (const k of known) {
    const d = distance(w, squash(k));
    if (d < bestD) {
      bestD = d;
      best = k;
    }
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(w.length / 3)) ? best : undefined;
}

/** The model keys a type accepts (for suggestions). */
export function spellings(info: TypeInfo): string[] {
  const out: string[] = [];
  for (const p of info.props.values()) if (p.writable && !p.key) out.push(p.secret ? modelKey(p.name, false, true) : modelKey(p.name, p.array));
  for (const c of info.children.values()) out.push(modelKey(c.name, c.shape === 'collection'));
  return out;
}

let subtypes: Map<string, string[]> | undefined;

/** The types that are `type` or derive from it. */
export function subtypesOf(type: string): string[] {
  if (!subtypes) {
    subtypes = new Map();
    for (const [t, bases] of Object.entries(MODEL_FORMAT.ancestors)) for (const b of bases) subtypes.set(b, [...(subtypes.get(b) ?? []), t]);
  }
  return [type, ...(subtypes.get(type) ?? [])];
}
