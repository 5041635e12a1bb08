// Builds bean trees in code (domain templates, runtime trees), checked against the catalog so a
// misspelt property or child fails at once instead of producing a bean nobody can read.
import type { Catalog } from '../catalog/load.js';
import type { TypeDef } from '../catalog/model.js';
import { type BeanRecord, type BeanTree } from './records.js';
import { childKey, itemKey } from '../core/identity.js';

export interface BeanRef {
  key: string;
  type: TypeDef;
  identity: string[];
  /**
   * Not in the tree: the child this bean would be does not exist in the catalog's product version
   * (the builders are written for every version; see Catalog.tolerant). Nothing below it is added.
   */
  absent?: true;
}

export class TreeBuilder {
  constructor(
    private readonly catalog: Catalog,
    readonly tree: BeanTree,
  ) {}

  root(typeName: string, values: Record<string, unknown>): BeanRef {
    const type = this.catalog.type(typeName);
    values = this.check(type, values);
    this.tree.setRoot({ type: type.name, values });
    return { key: '', type, identity: [] };
  }

  /** Adds (or replaces) the item `name` of the child collection `collection` of `parent`. */
  item(parent: BeanRef, collection: string, name: string, values: Record<string, unknown> = {}, typeName?: string): BeanRef {
    const type = this.childType(parent, collection, 'collection', typeName);
    if (!type || parent.absent) return this.absent(parent, collection, name);
    const key = this.tree.putItem(parent.key, collection, name, this.itemOf(type, name, values));
    return { key, type, identity: [...parent.identity, collection, name] };
  }

  /** The record `item` would put, without putting it (undefined where `item` puts nothing). */
  itemRecord(parent: BeanRef, collection: string, name: string, values: Record<string, unknown> = {}, typeName?: string): BeanRecord | undefined {
    const type = this.childType(parent, collection, 'collection', typeName);
    return !type || parent.absent ? undefined : this.itemOf(type, name, values);
  }

  private itemOf(type: TypeDef, name: string, values: Record<string, unknown>): BeanRecord {
    // Values that name the item already are kept as given: a copy with the key added first costs a
    // third more memory per bean, which counts in trees of a quarter of a million beans.
    return { type: type.name, values: this.check(type, values[type.keyProp] === name ? values : { [type.keyProp]: name, ...values }) };
  }

  /** Sets the singleton child `prop` of `parent`. */
  singleton(parent: BeanRef, prop: string, values: Record<string, unknown> = {}, typeName?: string): BeanRef {
    const type = this.childType(parent, prop, 'singleton', typeName);
    if (!type || parent.absent) return this.absent(parent, prop);
    values = this.check(type, values);
    const key = this.tree.putSingleton(parent.key, prop, { type: type.name, values });
    return { key, type, identity: [...parent.identity, prop] };
  }

  /** The existing item, for code that adds children to a bean made elsewhere. */
  refOf(parent: BeanRef, collection: string, name: string): BeanRef | undefined {
    const key = itemKey(childKey(parent.key, collection), name);
    const record = this.tree.bean(key);
    if (!record) return undefined;
    return { key, type: this.catalog.type(record.type), identity: [...parent.identity, collection, name] };
  }

  /** A bean left out: its parent has no such child in this product version. */
  private absent(parent: BeanRef, ...segments: string[]): BeanRef {
    return { key: '', type: parent.type, identity: [...parent.identity, ...segments], absent: true };
  }

  /** The type of the child; undefined when a product version other than the default lacks it. */
  private childType(parent: BeanRef, prop: string, shape: 'collection' | 'singleton', typeName?: string): TypeDef | undefined {
    if (parent.absent) return undefined;
    const p = parent.type.prop.get(prop);
    if (!p && this.catalog.tolerant) return undefined;
    if (!p || p.shape !== shape) throw new Error(`${parent.type.short} has no ${shape} child '${prop}'`);
    const name = typeName ? this.fullName(typeName, p.javaType) : (p.creators[0] ?? p.javaType);
    if (this.catalog.tolerant && !this.catalog.types.has(name)) return undefined;
    const type = this.catalog.type(name);
    if (!this.catalog.isA(type, p.javaType)) throw new Error(`${type.short} cannot be a child '${prop}' of ${parent.type.short}`);
    return type;
  }

  /** Accepts a short type name ('UnixMachine') in the declared type's package. */
  private fullName(typeName: string, declared: string): string {
    if (typeName.includes('.')) return typeName;
    const pkg = declared.slice(0, declared.lastIndexOf('.') + 1);
    const suffix = declared.endsWith('MBean') ? 'MBean' : declared.endsWith('Bean') ? 'Bean' : '';
    return `${pkg}${typeName}${suffix}`;
  }

  /** The values, checked: another product version than the default leaves out what its type lacks. */
  private check(type: TypeDef, values: Record<string, unknown>): Record<string, unknown> {
    let kept = values;
    for (const name of Object.keys(values)) {
      const p = type.prop.get(name);
      if (p && p.shape !== 'singleton' && p.shape !== 'collection') continue;
      if (!p && this.catalog.tolerant) {
        if (kept === values) kept = { ...values };
        delete kept[name];
        continue;
      }
      throw new Error(`${type.short} has no property '${name}'`);
    }
    return kept;
  }
}
