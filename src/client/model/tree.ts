// The one shape both sides of a comparison take: a tree of beans with their values in the model's
// terms (references as names), read from the live domain (live.ts) or from a model file (read.ts).

/** Where something stands in a model file: its dotted path and, when read from a file, line and column. */
export interface Place {
  path: string;
  file?: string;
  line?: number;
  col?: number;
}

export function placeText(at: Place): string {
  const pos = at.file !== undefined ? ` (${at.file}${at.line !== undefined ? `:${at.line}:${at.col ?? 1}` : ''})` : '';
  return `${at.path || '(top)'}${pos}`;
}

export interface Problem {
  at: Place;
  message: string;
}

export function problemText(p: Problem): string {
  return `${placeText(p.at)}: ${p.message}`;
}

export interface Node {
  /** Full type name. */
  type: string;
  /** The item's name (undefined for the domain and singletons). */
  name?: string;
  /**
   * Property values by REST name: scalars as JSON, scalar lists as arrays, `Properties` as objects,
   * a reference as the name it points to (or null), a list of references as a list of names.
   */
  values: Map<string, unknown>;
  /** Secret properties given in the model: REST name -> the value to send (tokens already resolved). */
  secrets: Map<string, string>;
  /** Singletons by child name; collections by child name, then item name. */
  singletons: Map<string, Node>;
  collections: Map<string, Map<string, Node>>;
  /** The model's place of the bean and of each value (model side only). */
  at?: Place;
  valueAt?: Map<string, Place>;
  /** Path segments below the edit tree root (live side; computed for model beans). */
  path: string[];
  /** Names of the items on the way to this bean, itself included (for secret names). */
  itemNames?: string[];
  /**
   * Archive paths of a deployment (model side only): REST name (`sourcePath`, `planPath`) -> the
   * local file the model's `wlsdeploy/...` path names, uploaded when the deployment is created.
   */
  archives?: Map<string, string>;
  /** The domain only: the security realm's users and groups (the model's `topology.Security`; live, when read). */
  realm?: Realm;
}

export function newNode(type: string, path: string[], name?: string): Node {
  return { type, ...(name !== undefined ? { name } : {}), values: new Map(), secrets: new Map(), singletons: new Map(), collections: new Map(), path };
}

/** Values the same in the model's terms: lists of references compare as sets, numbers and their text alike. */
export function sameValue(a: unknown, b: unknown, unordered = false): boolean {
  if (a === b) return true;
  if (isEmpty(a) && isEmpty(b)) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    if (unordered) {
      const sa = a.map((x) => JSON.stringify(x)).sort();
      const sb = b.map((x) => JSON.stringify(x)).sort();
      return sa.every((x, i) => x === sb[i]);
    }
    return a.every((x, i) => sameValue(x, b[i]));
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a).sort();
    const kb = Object.keys(b).sort();
    return ka.length === kb.length && ka.every((k, i) => k === kb[i] && sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return false;
}

export function isEmpty(v: unknown): boolean {
  return v === null || v === undefined || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0);
}

/** A user or a group, as the model or the domain has it. */
export interface Principal {
  name: string;
  description: string;
  /** The groups it is a direct member of, sorted. */
  memberOf: string[];
  /** Model side: where it stands, and where its values do. */
  at?: Place;
  descriptionAt?: Place;
  memberOfAt?: Place;
  /** Whether the model gave a description / a membership list (left out: none). */
  hasDescription?: boolean;
  /** Model side, users: the password to create it with, or why there is none. */
  password?: string;
  passwordProblem?: { at: Place; message: string };
}

export interface Realm {
  users: Map<string, Principal>;
  groups: Map<string, Principal>;
  /** Model side: whether the model has the User / Group folder (what --prune covers). */
  coversUsers?: boolean;
  coversGroups?: boolean;
  at?: Place;
  /** Live side: the authenticator's path in the serverConfig tree. */
  path?: string;
}

export function newRealm(): Realm {
  return { users: new Map(), groups: new Map() };
}
