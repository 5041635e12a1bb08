// Bean trees held in memory: a record per materialised bean, addressed by a key built from its
// identity. Lookups are one map access per path segment, whatever the size of the domain, and a
// subtree is found through a children index, never by scanning the tree.
import { ROOT_KEY, childKey, itemKey, lastSegment, ownerKey, upKey } from '../core/identity.js';

/** One stored bean: its concrete type and the values explicitly set on it (REST names). */
export interface BeanRecord {
  type: string;
  values: Record<string, unknown>;
}

/** Read access to a bean tree. */
export interface TreeSource {
  bean(key: string): BeanRecord | undefined;
  /** Names of the items of a child collection, in creation order. */
  itemNames(collectionKey: string): readonly string[];
  /**
   * The records of those items, in the same order, where the source keeps them listed (a reader
   * of a whole collection then looks up no key); undefined where it does not.
   */
  itemRecords?(collectionKey: string): readonly BeanRecord[] | undefined;
}

/** A mutable in-memory tree. */
export class BeanTree implements TreeSource {
  private readonly beans = new Map<string, BeanRecord>();
  private readonly collections = new Map<string, string[]>();
  // The indexes are kept lean: a running server's runtime tree holds thousands of beans, and a
  // hundred such trees live at once. Arrays cost a fraction of a Set, and an item's collection key
  // and name are read back from its key instead of being kept beside it.
  /** owner key -> keys of the beans directly below it (singletons and collection items), in order. */
  private readonly kids = new Map<string, string[]>();
  /**
   * item key -> its order in its collection, so storage keeps the order (singletons have none).
   * Trees that are never stored (runtime trees) keep none: an item's order is its place in its list.
   */
  private readonly order: Map<string, number> | undefined;
  /**
   * Stored trees: each collection's item records in the order of its names (a topology lists the
   * 50,000 applications of a large domain without 50,000 key lookups). A list is dropped when one
   * of its records is replaced and made again when next asked for: finding the place of a replaced
   * item would cost a search of its collection on every change.
   */
  private readonly listed: Map<string, BeanRecord[]> | undefined;

  /**
   * Collections whose items are put when first needed (collection key -> what puts them): a
   * runtime list of tens of thousands of beans that a start would otherwise make before it can
   * answer, though nobody may read it. Undefined when none waits, so reads pay one check.
   */
  private deferred: Map<string, Deferral> | undefined;
  /**
   * Items of deferred collections made one at a time (a read of one bean), before their collection
   * is filled: key -> record. The fill keeps these records, so what a reader was given stays the bean.
   */
  private early: Map<string, BeanRecord> | undefined;

  constructor(opts: { stored?: boolean } = {}) {
    this.order = opts.stored === false ? undefined : new Map();
    this.listed = opts.stored === false ? undefined : new Map();
  }

  /**
   * Has `fill` put the items of the collection at `collectionKey` when the collection, a bean in
   * it or a walk over it is first asked for. What `fill` puts must not depend on when it runs.
   */
  defer(collectionKey: string, fill: () => void, one?: (name: string) => BeanRecord | undefined): void {
    (this.deferred ??= new Map()).set(collectionKey, { fill, one });
  }

  /**
   * The item at `key` when it is an item of a deferred collection that can make one item alone:
   * its record, or null when the collection has no such item; undefined when `key` is not one.
   */
  private earlyItem(key: string): BeanRecord | null | undefined {
    for (const [collectionKey, deferral] of this.deferred!) {
      if (deferral.one === undefined || key === collectionKey || !liesIn(key, collectionKey)) continue;
      // Below an item: the collection is filled first.
      if (key.indexOf('/', collectionKey.length + 1) >= 0) return undefined;
      let record = this.early?.get(key);
      if (record === undefined) {
        record = deferral.one(lastSegment(key));
        if (record === undefined) return null;
        (this.early ??= new Map()).set(key, record);
      }
      return record;
    }
    return undefined;
  }

  /** Fills the deferred collections that `key` lies in and, with `below`, those lying below `key`. */
  private settle(key: string, below: boolean): void {
    const pending = this.deferred;
    if (pending === undefined) return;
    let due: string[] | undefined;
    for (const collectionKey of pending.keys()) {
      if (liesIn(key, collectionKey) || (below && liesIn(collectionKey, key))) (due ??= []).push(collectionKey);
    }
    if (due === undefined) return;
    for (const collectionKey of due) {
      const deferral = pending.get(collectionKey);
      if (deferral === undefined) continue;
      pending.delete(collectionKey);
      if (pending.size === 0) this.deferred = undefined;
      deferral.fill();
      if (this.early === undefined) continue;
      for (const [k, record] of this.early) {
        if (!liesIn(k, collectionKey)) continue;
        if (this.beans.has(k)) this.replace(k, record);
        this.early.delete(k);
      }
    }
  }

  /** Fills every deferred collection (a walk over the whole tree). */
  private settleAll(): void {
    this.settle(ROOT_KEY, true);
  }

  bean(key: string): BeanRecord | undefined {
    if (this.deferred !== undefined) {
      const early = this.earlyItem(key);
      if (early !== undefined) return early ?? undefined;
      this.settle(key, false);
    }
    return this.beans.get(key);
  }

  itemNames(collectionKey: string): readonly string[] {
    if (this.deferred !== undefined) this.settle(collectionKey, false);
    return this.collections.get(collectionKey) ?? [];
  }

  itemRecords(collectionKey: string): readonly BeanRecord[] | undefined {
    if (this.listed === undefined) return undefined;
    if (this.deferred !== undefined) this.settle(collectionKey, false);
    const names = this.collections.get(collectionKey);
    if (names === undefined) return [];
    let list = this.listed.get(collectionKey);
    if (list === undefined) {
      list = names.map((name) => this.beans.get(itemKey(collectionKey, name))!);
      this.listed.set(collectionKey, list);
    }
    return list;
  }

  setRoot(record: BeanRecord): void {
    this.beans.set(ROOT_KEY, record);
  }

  /** Forgets every bean (a whole configuration is about to be put back). */
  clear(): void {
    this.deferred = undefined;
    this.early = undefined;
    this.beans.clear();
    this.collections.clear();
    this.listed?.clear();
    this.kids.clear();
    this.order?.clear();
  }

  /** Stores a singleton child; returns its key. */
  putSingleton(parentKey: string, prop: string, record: BeanRecord): string {
    const key = childKey(parentKey, prop);
    this.putRaw(key, record, null, null);
    return key;
  }

  /** Stores (or replaces) an item of a child collection; returns its key. */
  putItem(parentKey: string, collection: string, name: string, record: BeanRecord): string {
    const cKey = childKey(parentKey, collection);
    const key = itemKey(cKey, name);
    this.putRaw(key, record, cKey, name);
    return key;
  }

  /** Stores a bean by key; items (collection and name given) are listed in their collection. */
  putRaw(key: string, record: BeanRecord, collectionKey: string | null, name: string | null, ord?: number): void {
    if (this.deferred !== undefined) this.settle(key, false);
    if (key === ROOT_KEY) {
      this.beans.set(key, record);
      return;
    }
    if (!this.beans.has(key)) {
      if (collectionKey !== null && name !== null) {
        const position = ord ?? this.nextOrd(collectionKey);
        const names = this.collections.get(collectionKey);
        if (names) names.push(name);
        else this.collections.set(collectionKey, [name]);
        this.order?.set(key, position);
        if (this.listed !== undefined) {
          const list = this.listed.get(collectionKey);
          if (list !== undefined) list.push(record);
          else if (!names) this.listed.set(collectionKey, [record]);
        }
      }
      this.link(ownerKey(key, collectionKey), key);
      this.beans.set(key, record);
      return;
    }
    this.replace(key, record);
  }

  /** Puts a new record for a bean stored already. */
  private replace(key: string, record: BeanRecord): void {
    this.beans.set(key, record);
    if (this.listed !== undefined && this.order!.has(key)) this.listed.delete(upKey(key));
  }

  /**
   * Lists `key` under its owner. An owner that is not stored (an always-present singleton nobody
   * configured) is itself listed under its own owner, so every subtree can be walked from the top.
   */
  private link(owner: string, key: string): void {
    for (;;) {
      const list = this.kids.get(owner);
      if (list) {
        list.push(key);
        return;
      }
      this.kids.set(owner, [key]);
      if (owner === ROOT_KEY || this.beans.has(owner)) return;
      key = owner;
      owner = upKey(owner);
    }
  }

  /** Keys of the bean at `key` and every bean below it, parents first. */
  subtree(key: string): string[] {
    if (this.deferred !== undefined) this.settle(key, true);
    return this.walk(key).filter((k) => this.beans.has(k));
  }

  /** Every key below `key`, stored beans and the unstored singletons between them, parents first. */
  private walk(key: string): string[] {
    const out: string[] = [];
    const visit = (k: string) => {
      out.push(k);
      for (const child of this.kids.get(k) ?? []) visit(child);
    };
    visit(key);
    return out;
  }

  /** Removes a bean and everything below it. */
  remove(key: string): void {
    if (this.deferred !== undefined) this.settle(key, true);
    const owner = ownerKey(key, this.isItem(key) ? upKey(key) : null);
    const keys = this.walk(key);
    for (const k of keys.reverse()) {
      const collectionKey = this.isItem(k) ? upKey(k) : null;
      this.beans.delete(k);
      this.kids.delete(k);
      if (collectionKey !== null) {
        this.order?.delete(k);
        const names = this.collections.get(collectionKey);
        if (names) {
          const i = names.indexOf(lastSegment(k));
          if (i >= 0) {
            names.splice(i, 1);
            this.listed?.get(collectionKey)?.splice(i, 1);
          }
          if (names.length === 0) {
            this.collections.delete(collectionKey);
            this.listed?.delete(collectionKey);
          }
        }
      }
    }
    // Everything below `key` went with its owner's list; only `key` itself is unlisted from its owner.
    const list = this.kids.get(owner);
    const i = list ? list.indexOf(key) : -1;
    if (i >= 0) list!.splice(i, 1);
  }

  /** Removes every item of a collection. */
  clearCollection(collectionKey: string): void {
    for (const name of [...this.itemNames(collectionKey)]) this.remove(itemKey(collectionKey, name));
  }

  /** Where an item sits: its collection key, name and order (undefined for singletons and the root). */
  placementOf(key: string): [string, string, number] | undefined {
    if (this.deferred !== undefined) this.settle(key, false);
    if (!this.isItem(key)) return undefined;
    const collectionKey = upKey(key);
    const name = lastSegment(key);
    const ord = this.order ? this.order.get(key)! : this.itemNames(collectionKey).indexOf(name);
    return [collectionKey, name, ord];
  }

  /**
   * Whether `key` names a stored collection item. Without the order index: it is stored and its
   * parent key is a listed collection's (a collection's key and a bean's can never be the same
   * string: the catalog gives each property one shape).
   */
  private isItem(key: string): boolean {
    if (this.order) return this.order.has(key);
    return key !== ROOT_KEY && this.beans.has(key) && this.collections.has(upKey(key));
  }

  /**
   * Trims the indexes' lists to their lengths: lists grown one push at a time keep room for more,
   * which a tree built once and then only read (a runtime tree) never uses.
   */
  compact(): void {
    this.settleAll();
    for (const [k, list] of this.kids) this.kids.set(k, list.slice());
    for (const [k, names] of this.collections) this.collections.set(k, names.slice());
  }

  /** Order number for an item appended to a collection: one past its last item's. */
  nextOrd(collectionKey: string): number {
    if (this.deferred !== undefined) this.settle(collectionKey, false);
    const names = this.collections.get(collectionKey);
    const last = names?.[names.length - 1];
    return last === undefined ? 0 : ((this.order ? this.order.get(itemKey(collectionKey, last)) : undefined) ?? names!.length - 1) + 1;
  }

  /** Every stored bean, for persistence and copying. */
  *entries(): IterableIterator<[string, BeanRecord]> {
    this.settleAll();
    yield* this.beans.entries();
  }

  *collectionEntries(): IterableIterator<[string, readonly string[]]> {
    this.settleAll();
    yield* this.collections.entries();
  }

  get size(): number {
    this.settleAll();
    return this.beans.size;
  }
}

/** A collection whose items are put when first needed, and what makes one of them alone, if anything can. */
interface Deferral {
  fill: () => void;
  one: ((name: string) => BeanRecord | undefined) | undefined;
}

/** Whether `key` is `ancestor` or lies below it (no string made: this runs on reads). */
function liesIn(key: string, ancestor: string): boolean {
  if (ancestor === ROOT_KEY || key === ancestor) return true;
  return key.length > ancestor.length && key.charCodeAt(ancestor.length) === 47 && key.startsWith(ancestor);
}
