// The bean type of a path, found in the generated facts by walking from its tree's root type
// through the children, then narrowed by the `type` field the server shows (a collection may hold
// several subtypes). The facts are loaded on first use only: most commands never need them.
import type { ChildFact, TypeFacts } from '../../client/facts-format.js';

const CFG = 'appserver.management.configuration.';
const RT = 'appserver.management.runtime.';
const ROOTS: Record<string, string> = {
  edit: `${CFG}DomainMBean`,
  serverConfig: `${CFG}DomainMBean`,
  domainConfig: `${CFG}DomainMBean`,
  serverRuntime: `${RT}ServerRuntimeMBean`,
  domainRuntime: `${RT}DomainRuntimeMBean`,
};

let loaded: Record<string, TypeFacts> | undefined;

export async function allFacts(): Promise<Record<string, TypeFacts>> {
  loaded ??= (await import('../../client/generated/facts.js')).TYPE_FACTS;
  return loaded;
}

export interface PathType {
  /** Full type name. */
  name: string;
  facts: TypeFacts;
  /** The path names a collection of beans of this type (not one bean). */
  collection: boolean;
}

/** Segments of a tree path (`edit/servers/s1`): relative paths only. */
export function treeSegments(path: string): string[] {
  return path.replace(/\?.*$/, '').split('/').filter((s) => s !== '').map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  });
}

/** The type at `path` as far as the facts know it; `wireType` is the bean's `type` field when read. */
export async function typeAt(path: string, wireType?: string): Promise<PathType | undefined> {
  if (path.startsWith('/') || /^https?:/.test(path)) return byWireType(wireType);
  const facts = await allFacts();
  const [root, ...rest] = treeSegments(path);
  const start = root !== undefined && Object.hasOwn(ROOTS, root) ? ROOTS[root] : undefined;
  if (start === undefined) return byWireType(wireType);
  let name: string = start;
  let item = false;
  for (const seg of rest) {
    if (item) {
      item = false;
      continue;
    }
    const child: ChildFact | undefined = facts[name]?.c.find((c) => c[0] === seg);
    if (!child) return byWireType(wireType);
    name = child[1];
    item = child[2] === 'c';
  }
  // The `type` a bean shows (or that a creation names) picks the subtype the path's declared type allows.
  if (wireType !== undefined && facts[name]?.s !== wireType) {
    const kind = facts[name]?.k;
    const candidates = Object.entries(facts).filter(([, f]) => f.s === wireType);
    const pick = candidates.find(([, f]) => f.k === kind) ?? candidates[0];
    if (pick) name = pick[0];
  }
  const f = facts[name];
  return f ? { name, facts: f, collection: item } : undefined;
}

async function byWireType(wireType: string | undefined): Promise<PathType | undefined> {
  if (wireType === undefined) return undefined;
  const facts = await allFacts();
  const hit = Object.entries(facts).find(([, f]) => f.s === wireType);
  return hit ? { name: hit[0], facts: hit[1], collection: false } : undefined;
}

const NUMBERS = new Set(['int', 'long', 'double', 'float', 'byte', 'short', 'java.lang.Integer', 'java.lang.Long', 'java.lang.Double', 'java.lang.Float']);

/** A sample value per property, whose JSON type a plain `name=value` takes. */
export function shapesOf(facts: TypeFacts): Record<string, unknown> {
  const out: [string, unknown][] = [];
  for (const [name, javaType, flags] of facts.p) {
    const array = flags.includes('a');
    let sample: unknown;
    if (flags.includes('@')) sample = array ? [{ identity: [] }] : ['reference'];
    else if (NUMBERS.has(javaType)) sample = array ? [] : 0;
    else if (javaType === 'boolean' || javaType === 'java.lang.Boolean') sample = false;
    else if (javaType === 'java.lang.String') sample = array ? [] : '';
    else sample = {};
    out.push([name, sample]);
  }
  return Object.fromEntries(out);
}
