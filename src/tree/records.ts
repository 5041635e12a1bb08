// Bean trees held in memory: a record per materialised bean, addressed by a key built from its
// identity. Lookups are one map access per path segment, whatever the size of the domain.

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
}

const ROOT = '';

export function segmentKey(segment: string): string {
  return encodeURIComponent(segment);
}

/** Key of a child (singleton or collection) of the bean at `parentKey`. */
export function childKey(parentKey: string, prop: string): string {
  return parentKey === ROOT ? prop : `${parentKey}/${prop}`;
}

/** Key of the item `name` of the collection at `collectionKey`. */
export function itemKey(collectionKey: string, name: string): string {
  return `${collectionKey}/${segmentKey(name)}`;
}

/** Key of the bean with this identity; every second segment after a collection is an item name,
 *  which is why callers pass the identity as (child, name?) steps when they build it. */
export function keyOfIdentity(identity: readonly string[]): string {
  return identity.map(segmentKey).join('/');
}

/** A mutable in-memory tree. */
export class BeanTree implements TreeSource {
  private readonly beans = new Map<string, BeanRecord>();
  private readonly collections = new Map<string, string[]>();

  bean(key: string): BeanRecord | undefined {
    return this.beans.get(key);
  }

  itemNames(collectionKey: string): readonly string[] {
    return this.collections.get(collectionKey) ?? [];
  }

  setRoot(record: BeanRecord): void {
    this.beans.set(ROOT, record);
  }

  /** Stores a singleton child; returns its key. */
  putSingleton(parentKey: string, prop: string, record: BeanRecord): string {
    const key = childKey(parentKey, prop);
    this.beans.set(key, record);
    return key;
  }

  /** Stores (or replaces) an item of a child collection; returns its key. */
  putItem(parentKey: string, collection: string, name: string, record: BeanRecord): string {
    const cKey = childKey(parentKey, collection);
    const key = itemKey(cKey, name);
    if (!this.beans.has(key)) {
      const names = this.collections.get(cKey);
      if (names) names.push(name);
      else this.collections.set(cKey, [name]);
    }
    this.beans.set(key, record);
    return key;
  }

  /** Stores a bean by key, registering it in its collection when it is an item (loading from storage). */
  putRaw(key: string, record: BeanRecord, collectionKey: string | null, name: string | null): void {
    if (collectionKey !== null && name !== null && !this.beans.has(key)) {
      const names = this.collections.get(collectionKey);
      if (names) names.push(name);
      else this.collections.set(collectionKey, [name]);
    }
    this.beans.set(key, record);
  }

  /** Removes a bean and everything below it. */
  remove(key: string, collectionKey?: string, name?: string): void {
    const prefix = `${key}/`;
    for (const k of [...this.beans.keys()]) if (k === key || k.startsWith(prefix)) this.beans.delete(k);
    for (const k of [...this.collections.keys()]) if (k.startsWith(prefix)) this.collections.delete(k);
    if (collectionKey !== undefined && name !== undefined) {
      const names = this.collections.get(collectionKey);
      if (names) {
        const i = names.indexOf(name);
        if (i >= 0) names.splice(i, 1);
      }
    }
  }

  /** Every stored bean, for persistence and copying. */
  *entries(): IterableIterator<[string, BeanRecord]> {
    yield* this.beans.entries();
  }

  *collectionEntries(): IterableIterator<[string, readonly string[]]> {
    yield* this.collections.entries();
  }

  get size(): number {
    return this.beans.size;
  }
}
