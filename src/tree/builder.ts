// Builds bean trees in code (domain templates, runtime trees), checked against the catalog so a
// misspelt property or child fails at once instead of producing a bean nobody can read.
import type { Catalog } from '../catalog/load.js';
import type { TypeDef } from '../catalog/model.js';
import { type BeanTree } from './records.js';
import { childKey, itemKey } from '../core/identity.js';

export interface BeanRef {
  key: string;
  type: TypeDef;
  identity: string[];
}

export class TreeBuilder {
  constructor(
    private readonly catalog: Catalog,
    readonly tree: BeanTree,
  ) {}

  root(typeName: string, values: Record<string, unknown>): BeanRef {
    const type = this.catalog.type(typeName);
    this.check(type, values);
    this.tree.setRoot({ type: type.name, values });
    return { key: '', type, identity: [] };
  }

  /** Adds (or replaces) the item `name` of the child collection `collection` of `parent`. */
  item(parent: BeanRef, collection: string, name: string, values: Record<string, unknown> = {}, typeName?: string): BeanRef {
    const type = this.childType(parent, collection, 'collection', typeName);
    // Values that name the item already are kept as given: a copy with the key added first costs a
    // third more memory per bean, which counts in trees of a quarter of a million beans.
    const all = values[type.keyProp] === name ? values : { [type.keyProp]: name, ...values };
    this.check(type, all);
    const key = this.tree.putItem(parent.key, collection, name, { type: type.name, values: all });
    return { key, type, identity: [...parent.identity, collection, name] };
  }

  /** Sets the singleton child `prop` of `parent`. */
  singleton(parent: BeanRef, prop: string, values: Record<string, unknown> = {}, typeName?: string): BeanRef {
    const type = this.childType(parent, prop, 'singleton', typeName);
    this.check(type, values);
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

  private childType(parent: BeanRef, prop: string, shape: 'collection' | 'singleton', typeName?: string): TypeDef {
    const p = parent.type.prop.get(prop);
    if (!p || p.shape !== shape) throw new Error(`${parent.type.short} has no ${shape} child '${prop}'`);
    const name = typeName ? this.fullName(typeName, p.javaType) : (p.creators[0] ?? p.javaType);
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

  private check(type: TypeDef, values: Record<string, unknown>): void {
    for (const name of Object.keys(values)) {
      const p = type.prop.get(name);
      if (!p || p.shape === 'singleton' || p.shape === 'collection') throw new Error(`${type.short} has no property '${name}'`);
    }
  }
}
