// The live domain's configuration in one request: a search of the edit tree whose query is built
// from the type facts (every configuration child, recursively), turned into a tree of Nodes with
// references as names.
import type { AppserverClient } from '../client.js';
import { AppserverError } from '../errors.js';
import { type Child, DOMAIN_TYPE, type Prop, factsOf, subtypesOf, typeByDiscriminator, typeInfo } from './format.js';
import { readRealm } from './realm.js';
import { type Node, newNode } from './tree.js';

/** Domain children that are not the user's configuration: the product's own applications, debug switches, REST-only resources. */
const NOT_DISCOVERED = new Set(['internalAppDeployments', 'internalLibraries', 'changeManager', 'debugPatches']);
/** Children left out wherever they are: hundreds of debug flags per server. */
const NEVER = new Set(['serverDebug']);

/** Whether a child is part of what discover, plan and apply cover. */
export function covered(parentType: string, child: string, childType: string): boolean {
  if (NEVER.has(child)) return false;
  if (parentType === DOMAIN_TYPE && NOT_DISCOVERED.has(child)) return false;
  const k = factsOf(childType)?.k;
  return k === 'config' || k === 'descriptor' || k === 'security';
}

/** The search query of everything below a type: no links, all fields, every covered child. */
export function queryOf(type: string): Record<string, unknown> {
  let q = queries.get(type);
  if (q === undefined) queries.set(type, (q = buildQuery(type)));
  return q;
}

/** Queries built, by type: the type facts do not change while the client runs. */
const queries = new Map<string, Record<string, unknown>>();

function buildQuery(type: string): Record<string, unknown> {
  // Servers refuse search queries over 64 KiB: name the fields as deep as that allows.
  for (let depth = 8; depth > 0; depth--) {
    const q = queryBelow(type, new Set(), 0, depth);
    if (JSON.stringify(q).length < 60_000) return q;
  }
  return queryBelow(type, new Set(), 0, 0);
}

function queryBelow(type: string, seen: Set<string>, depth: number, fieldDepth: number): Record<string, unknown> {
  const info = typeInfo(type);
  // Only the fields a model carries (and the name and type of each bean): a third of the answer.
  const fields = new Set(['name', 'type']);
  for (const t of subtypesOf(type)) {
    for (const p of typeInfo(t)?.props.values() ?? []) if ((p.writable || p.createOnly) && !p.secret) fields.add(p.name);
  }
  const q: Record<string, unknown> = depth < fieldDepth ? { links: [], fields: [...fields] } : { links: [] };
  if (!info) return q;
  const children: Record<string, unknown> = {};
  for (const c of info.children.values()) {
    if (!covered(type, c.name, c.type) || seen.has(c.type)) continue;
    // Subtypes of the declared type may hold children of their own: ask for the union.
    const q1 = queryBelow(c.type, new Set([...seen, type, c.type]), depth + 1, fieldDepth);
    children[c.name] = q1;
  }
  if (Object.keys(children).length > 0) q.children = children;
  return q;
}

/** The name a reference value points to: the last segment of its identity. */
export function refName(v: unknown): string | null {
  const identity = Array.isArray(v) ? v : v && typeof v === 'object' && Array.isArray((v as { identity?: unknown }).identity) ? (v as { identity: unknown[] }).identity : undefined;
  if (!identity || identity.length === 0) return null;
  return String(identity[identity.length - 1]);
}

/** What convert reads of a type's beans: the properties a model carries, the covered children. */
interface Reading {
  props: Prop[];
  children: Child[];
}

const readings = new Map<string, Reading | undefined>();

function readingOf(type: string): Reading | undefined {
  if (readings.has(type)) return readings.get(type);
  const info = typeInfo(type);
  const r = info && {
    props: [...info.props.values()].filter((p) => (p.writable || p.createOnly) && !p.key && !p.secret),
    children: [...info.children.values()].filter((c) => covered(type, c.name, c.type)),
  };
  readings.set(type, r);
  return r;
}

function convert(body: Record<string, unknown>, type: string, path: string[], name?: string, owners: string[] = []): Node {
  const node = newNode(type, path, name);
  node.itemNames = owners;
  const info = readingOf(type);
  if (!info) return node;
  for (const p of info.props) {
    if (!Object.hasOwn(body, p.name)) continue;
    const v = body[p.name];
    if (p.reference) {
      node.values.set(p.name, p.array ? (Array.isArray(v) ? v.map(refName).filter((n): n is string => n !== null) : []) : refName(v));
    } else node.values.set(p.name, v);
  }
  for (const c of info.children) {
    const v = body[c.name];
    if (!v || typeof v !== 'object') continue;
    if (c.shape === 'collection') {
      const items = (v as { items?: unknown }).items;
      if (!Array.isArray(items)) continue;
      const map = new Map<string, Node>();
      for (const it of items as Record<string, unknown>[]) {
        const n = typeof it.name === 'string' ? it.name : undefined;
        if (n === undefined) continue;
        const t = typeByDiscriminator(it.type, c.type);
        map.set(n, convert(it, t, [...path, c.name, n], n, [...owners, n]));
      }
      node.collections.set(c.name, map);
    } else {
      const b = v as Record<string, unknown>;
      node.singletons.set(c.name, convert(b, typeByDiscriminator(b.type, c.type), [...path, c.name], undefined, owners));
    }
  }
  return node;
}

export interface ReadLiveOptions {
  /** Also read the realm's users and groups (a few requests per user and group); `if-allowed`: not when the user may not list them. */
  realm?: boolean | 'if-allowed';
  /** Abandons the search (its answer is not wanted any more). */
  signal?: AbortSignal;
}

/** Reads the whole configuration of the domain (one search of the edit tree), and with `realm` its users and groups. */
export async function readLive(client: AppserverClient, opts: ReadLiveOptions = {}): Promise<Node> {
  const root = await readConfiguration(client, opts.signal);
  if (opts.realm) await addRealm(client, root, opts.realm === 'if-allowed');
  return root;
}

/** Reads the realm's users and groups into a live domain read without them. */
export async function addRealm(client: AppserverClient, root: Node, ifAllowed = false): Promise<Node> {
  const realm = await readRealm(client, root, ifAllowed);
  if (realm) root.realm = realm;
  return root;
}

async function readConfiguration(client: AppserverClient, signal?: AbortSignal): Promise<Node> {
  let body: Record<string, unknown>;
  try {
    // The answer is large (tens of MB for a thousand servers): a worker reads it, so the caller may read its model meanwhile.
    body = (await client.search('edit', queryOf(DOMAIN_TYPE), { background: true, ...(signal ? { signal } : {}) })) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof AppserverError && err.kind === 'auth' && err.status === 403) {
      throw new AppserverError('auth', `${client.options.user ?? 'this user'} may not read the configuration (the edit tree needs the Admin or Deployer role): ${err.message}`, err.status);
    }
    throw err;
  }
  if (!body || typeof body !== 'object' || typeof body.name !== 'string') throw new AppserverError('server', 'the search of the edit tree did not answer with the domain');
  return convert(body, DOMAIN_TYPE, [], undefined);
}
