// Every URL pattern of a tree, walked over the catalog: the beans, their child collections and
// singletons, create forms, actions and searches, with what the tree lets clients do at each. A type
// met again below itself ends the walk there (a recursion has no end); its first place is described.
import type { Catalog } from '../catalog/load.js';
import { singular, visibleIn } from '../catalog/load.js';
import type { ApiVersion, OperationDef, PropDef, TypeDef } from '../catalog/model.js';

/** What a tree lets clients change, judged by its writer from the types alone. */
export interface TreeAbilities {
  /** Items of `prop` (a collection or an optional singleton) of an `owner` can be created. */
  creates(owner: TypeDef, prop: PropDef): boolean;
  /** A bean of this type takes a POST that changes it. */
  updates(type: TypeDef): boolean;
  /** A bean of this type, reached through the child `via` of an `owner`, can be deleted. */
  deletes(owner: TypeDef, via: PropDef, type: TypeDef): boolean;
  /** Items of `prop` of an `owner` are deployed by a POST (JSON or an upload) and undeployed by a DELETE. */
  deploys?(owner: TypeDef, prop: PropDef): boolean;
}

export const READ_ONLY: TreeAbilities = { creates: () => false, updates: () => false, deletes: () => false };

export interface TreeSpec {
  /** Tag of its operations: `edit`, `domainRuntime`, `lifecycle`... */
  name: string;
  /** URL segments below `/management` to the tree's root, version included. */
  base: readonly string[];
  root: TypeDef;
  abilities: TreeAbilities;
  /** The root answers `search`. */
  search: boolean;
  /** Child collections whose items are trees of their own, each answering `search` (`serverRuntimes`). */
  mounts?: readonly string[];
  /** This tree's name, for children that exist in one tree only (the change manager). */
  only?: string;
  /** Children of the root that are trees of their own, described by their own specs (a version's trees). */
  apart?: readonly string[];
}

/** A URL pattern: literal segments and `{param}` segments. */
export interface Pattern {
  segments: readonly string[];
  /** The path parameters in order, each with the collection it names an item of. */
  params: readonly { name: string; of: string }[];
}

export type Place =
  /** `creates`: an optional singleton that a POST to its own URL makes. */
  | { kind: 'bean'; at: Pattern; type: TypeDef; via?: PropDef; updates: boolean; deletes: boolean; creates: boolean; deploys?: boolean }
  | { kind: 'collection'; at: Pattern; owner: TypeDef; prop: PropDef; item: TypeDef; creates: boolean; deploys?: boolean }
  | { kind: 'createForm'; at: Pattern; owner: TypeDef; prop: PropDef; item: TypeDef }
  | { kind: 'action'; at: Pattern; op: OperationDef; types: TypeDef[] }
  | { kind: 'search'; at: Pattern; type: TypeDef };

/**
 * A bean declared of type `t` may be of any of its subtypes (a realm's authentication providers, an
 * application's components), whose children and actions it then has too. A type that is the base of
 * a whole family (every runtime bean) says nothing of what stands there: only its own are taken.
 */
const MAX_SUBTYPES = 30;
function lineage(t: TypeDef): TypeDef[] {
  return t.subtypes.length <= MAX_SUBTYPES ? [t, ...t.subtypes] : [t];
}

/** Children of a type and of its subtypes, by name. */
function childrenOf(t: TypeDef): PropDef[] {
  const seen = new Map<string, PropDef>();
  for (const s of lineage(t)) for (const c of s.children) if (!seen.has(c.name)) seen.set(c.name, c);
  return [...seen.values()];
}

/** Operations of a type and of its subtypes, each with the types that offer it. */
function operationsOf(t: TypeDef, version: ApiVersion): { op: OperationDef; types: TypeDef[] }[] {
  const out = new Map<string, { op: OperationDef; types: TypeDef[] }>();
  for (const s of lineage(t)) {
    for (const op of s.operations.values()) {
      if (version === 'current' && op.deprecatedIn) continue;
      const entry = out.get(op.name);
      if (entry) entry.types.push(s);
      else out.set(op.name, { op, types: [s] });
    }
  }
  return [...out.values()];
}

/** A name for a path parameter: the singular of the collection, unique in its path. */
function paramName(collection: string, taken: readonly { name: string }[]): string {
  const base = singular(collection).replace(/[^A-Za-z0-9]/g, '') || 'name';
  const first = base[0]!.toLowerCase() + base.slice(1);
  let name = first;
  for (let i = 2; taken.some((p) => p.name === name); i++) name = `${first}${i}`;
  return name;
}

/** Every place of a tree, in walk order. */
export function placesOf(catalog: Catalog, spec: TreeSpec, version: ApiVersion): Place[] {
  const out: Place[] = [];
  const rootAt: Pattern = { segments: spec.base, params: [] };
  const visit = (type: TypeDef, at: Pattern, stack: readonly string[], via: PropDef | undefined, searchable: boolean, creates = false, deletes = false, deploys = false) => {
    out.push({ kind: 'bean', at, type, ...(via ? { via } : {}), updates: spec.abilities.updates(type), deletes: deletes || deploys, creates, ...(deploys ? { deploys } : {}) });
    if (searchable) out.push({ kind: 'search', at: extend(at, 'search'), type });
    for (const c of childrenOf(type)) {
      if (c.inline || !visibleIn(c, version) || (c.onlyIn && c.onlyIn !== spec.only)) continue;
      if (at === rootAt && spec.apart?.includes(c.name)) continue;
      const item = catalog.type(c.javaType);
      if (stack.includes(item.name)) continue;
      const deploys = c.shape === 'collection' && spec.abilities.deploys?.(type, c) === true;
      const creates = spec.abilities.creates(type, c);
      const deletes = spec.abilities.deletes(type, c, item);
      if (creates && c.createForm) out.push({ kind: 'createForm', at: extend(at, c.createForm), owner: type, prop: c, item });
      const next = [...stack, item.name];
      if (c.shape === 'singleton') {
        // An optional singleton is created by a POST to its own URL.
        visit(item, extend(at, c.name), next, c, false, creates, deletes);
        continue;
      }
      out.push({ kind: 'collection', at: extend(at, c.name), owner: type, prop: c, item, creates: creates || deploys, ...(deploys ? { deploys } : {}) });
      visit(item, itemPattern(at, c), next, c, spec.mounts?.includes(c.name) === true, false, deletes, deploys);
    }
    for (const { op, types } of operationsOf(type, version)) out.push({ kind: 'action', at: extend(at, op.name), op, types });
  };
  visit(spec.root, rootAt, [spec.root.name], undefined, spec.search);
  return out;
}

function extend(at: Pattern, segment: string): Pattern {
  return { segments: [...at.segments, segment], params: at.params };
}

/** Where an item of collection `c` lives: `<collection>/{item}`, or its own address with a parameter per `*`. */
function itemPattern(at: Pattern, c: PropDef): Pattern {
  const segments = [...at.segments];
  const params = [...at.params];
  const address = c.address ?? [c.name, '*'];
  address.forEach((seg, i) => {
    if (seg !== '*') {
      segments.push(seg);
      return;
    }
    // Each open part is named after the literal segment before it.
    const of = i > 0 && address[i - 1] !== '*' ? address[i - 1]! : c.name;
    const name = paramName(of, params);
    params.push({ name, of });
    segments.push(`{${name}}`);
  });
  return { segments, params };
}

/** The path of a pattern below `/management`. */
export function pathOf(at: Pattern): string {
  return `/${at.segments.map((s) => (s.startsWith('{') ? s : encodeURIComponent(s))).join('/')}`;
}
