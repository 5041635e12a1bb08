// The configuration as behaviours read it: beans by key and the items of collections, as the tree
// of a request shows them (the edit session's view in `edit`, the activated configuration with its
// dynamic servers elsewhere). Lookups spanning the domain (the servers of each cluster...) are
// built once per view and kept with it, so a request pays for them once, whatever it renders.
import { childKey, itemKey, keyOfIdentity } from '../core/identity.js';

/** Beans by key, their values only. */
export interface BeanLookup {
  bean(key: string): { values: Record<string, unknown> } | undefined;
}

export interface ConfigSource extends BeanLookup {
  bean(key: string): { type: string; values: Record<string, unknown> } | undefined;
  itemNames(collectionKey: string): readonly string[];
}

/** An item of a collection of the configuration. */
export interface ConfigItem {
  name: string;
  identity: string[];
  key: string;
  type: string;
  values: Record<string, unknown>;
}

export class ConfigIndex {
  private readonly memo = new Map<string, unknown>();

  constructor(readonly source: ConfigSource) {}

  bean(identity: readonly string[]): { type: string; values: Record<string, unknown> } | undefined {
    return this.source.bean(keyOfIdentity(identity));
  }

  /** The items of the collection `collection` of the bean with identity `owner`. */
  items(owner: readonly string[], collection: string): ConfigItem[] {
    const cKey = childKey(keyOfIdentity(owner), collection);
    const out: ConfigItem[] = [];
    for (const name of this.source.itemNames(cKey)) {
      const key = itemKey(cKey, name);
      const record = this.source.bean(key);
      if (record) out.push({ name, identity: [...owner, collection, name], key, type: record.type, values: record.values });
    }
    return out;
  }

  /** A value computed from the whole view, once: `make` runs on the first call for `name`. */
  once<T>(name: string, make: () => T): T {
    if (this.memo.has(name)) return this.memo.get(name) as T;
    const value = make();
    this.memo.set(name, value);
    return value;
  }
}

/** A reference value as stored: an identity, or undefined when it is not one. */
export function refOf(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.length > 0 && value.every((s) => typeof s === 'string') ? (value as string[]) : undefined;
}

/** The reference list as stored: identities only. */
export function refsOf(value: unknown): string[][] {
  return Array.isArray(value) ? value.map(refOf).filter((r): r is string[] => r !== undefined) : [];
}
