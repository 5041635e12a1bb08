// An edit session: its lock and its unactivated changes, kept as an overlay over the activated
// configuration (per property for updates, so that activations made meanwhile by others stay
// visible and can be merged). The session's view of the tree is that overlay applied on the fly.
import { type BeanRecord, type BeanTree, type TreeSource } from '../tree/records.js';
import { ROOT_KEY, isWithin, upKey } from '../core/identity.js';

export type Change =
  /** A bean made in this session (replacing any activated bean of that key and its subtree). */
  | { op: 'create'; type: string; values: Record<string, unknown>; collection: string | null; name: string | null }
  /** Properties set or unset on an existing (or always-present) bean. */
  | { op: 'update'; type: string; set: Record<string, unknown>; unset: string[] }
  /** A bean removed with its subtree. */
  | { op: 'delete'; collection: string | null; name: string | null };

export interface SessionInfo {
  name: string;
  /** Partition the session belongs to; null for the domain. */
  partition: string | null;
  creator: string;
  description: string;
  /** User holding the edit lock; null when unlocked. */
  owner: string | null;
  /** When the lock lapses (epoch ms of the server's clock); null or absent: never. */
  lockExpires?: number | null;
  /** Configuration version the changes were made against. */
  baseVersion: number;
  /** When the session was last saved (created, changed, locked, released, activated): epoch ms of the server's clock. */
  touched?: number;
}

export const DEFAULT_SESSION = 'default';

export class EditSession implements TreeSource {
  readonly changes = new Map<string, Change>();
  /**
   * Whether `key` names an always-present singleton of a bean in this view (set by the service,
   * which knows the types): only such a bean may be updated without having been stored.
   */
  singletonAt: (key: string) => boolean = () => true;
  /** collection key -> names created in this session, in order. */
  private readonly added = new Map<string, string[]>();

  constructor(
    readonly info: SessionInfo,
    private readonly base: BeanTree,
  ) {}

  get hasChanges(): boolean {
    return this.changes.size > 0;
  }

  // ---- the session's view of the configuration ----

  bean(key: string): BeanRecord | undefined {
    if (this.changes.size === 0) return this.base.bean(key);
    const { hidden, fresh } = this.ancestry(key);
    if (hidden) return undefined;
    const change = this.changes.get(key);
    if (change?.op === 'delete') return undefined;
    if (change?.op === 'create') return { type: change.type, values: change.values };
    const base = fresh ? undefined : this.base.bean(key);
    if (change?.op === 'update') {
      // An update of a bean removed meanwhile (by another session's activation) shows nothing.
      if (!base && !this.singletonAt(key)) return undefined;
      return { type: base?.type ?? change.type, values: merge(base?.values, change) };
    }
    return base;
  }

  itemNames(collectionKey: string): readonly string[] {
    if (this.changes.size === 0) return this.base.itemNames(collectionKey);
    const owner = upKey(collectionKey);
    const { hidden, fresh } = this.ancestry(owner);
    if (hidden || this.changes.get(owner)?.op === 'delete') return [];
    const ownerFresh = fresh || this.changes.get(owner)?.op === 'create';
    const names = ownerFresh ? [] : this.base.itemNames(collectionKey).filter((n) => this.changes.get(`${collectionKey}/${encodeURIComponent(n)}`)?.op !== 'delete');
    const added = this.added.get(collectionKey);
    if (!added) return names;
    const seen = new Set(names);
    return [...names, ...added.filter((n) => !seen.has(n))];
  }

  /** Whether a strict ancestor of `key` was deleted (hidden) or created anew (fresh) in this session. */
  private ancestry(key: string): { hidden: boolean; fresh: boolean } {
    let fresh = false;
    let k = key;
    while (k !== ROOT_KEY) {
      k = upKey(k);
      const c = this.changes.get(k);
      if (c?.op === 'delete') return { hidden: true, fresh };
      if (c?.op === 'create') fresh = true;
      if (k === ROOT_KEY) break;
    }
    return { hidden: false, fresh };
  }

  // ---- recording changes ----

  recordCreate(key: string, type: string, values: Record<string, unknown>, collection: string | null, name: string | null): void {
    this.dropBelow(key);
    this.changes.set(key, { op: 'create', type, values, collection, name });
    if (collection !== null && name !== null) {
      const list = this.added.get(collection) ?? [];
      if (!list.includes(name)) list.push(name);
      this.added.set(collection, list);
    }
  }

  recordUpdate(key: string, type: string, set: Record<string, unknown>, unset: string[]): void {
    const existing = this.changes.get(key);
    if (existing?.op === 'create') {
      for (const [k, v] of Object.entries(set)) existing.values[k] = v;
      for (const k of unset) delete existing.values[k];
      return;
    }
    const change = existing?.op === 'update' ? existing : { op: 'update' as const, type, set: {}, unset: [] as string[] };
    for (const [k, v] of Object.entries(set)) {
      change.set[k] = v;
      change.unset = change.unset.filter((u) => u !== k);
    }
    for (const k of unset) {
      delete change.set[k];
      if (!change.unset.includes(k)) change.unset.push(k);
    }
    this.changes.set(key, change);
  }

  recordDelete(key: string, collection: string | null, name: string | null): void {
    const existing = this.changes.get(key);
    this.dropBelow(key);
    if (collection !== null && name !== null) {
      const list = this.added.get(collection);
      if (list) this.added.set(collection, list.filter((n) => n !== name));
    }
    // A bean made in this session and removed again leaves no trace, unless it replaced an activated one.
    if (existing?.op === 'create' && !this.base.bean(key)) this.changes.delete(key);
    else this.changes.set(key, { op: 'delete', collection, name });
  }

  /** Forgets changes below a key (its subtree is replaced or removed). */
  private dropBelow(key: string): void {
    for (const k of [...this.changes.keys()]) if (k !== key && isWithin(k, key)) this.changes.delete(k);
    for (const c of [...this.added.keys()]) if (isWithin(c, key)) this.added.delete(c);
  }

  /** Drops every change (cancel, or after activation). */
  clear(): void {
    this.changes.clear();
    this.added.clear();
  }

  /** Restores changes loaded from storage, in their original order. */
  restore(entries: [string, Change][]): void {
    for (const [key, change] of entries) {
      this.changes.set(key, change);
      if (change.op === 'create' && change.collection !== null && change.name !== null) {
        const list = this.added.get(change.collection) ?? [];
        list.push(change.name);
        this.added.set(change.collection, list);
      }
    }
  }
}

function merge(base: Record<string, unknown> | undefined, change: { set: Record<string, unknown>; unset: string[] }): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base, ...change.set };
  for (const k of change.unset) delete out[k];
  return out;
}
