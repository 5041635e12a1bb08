// One resolver for every bean tree: walks URL path segments over the type catalog and a tree's
// records, one map lookup per segment, and says what the path names.
import { forbidden, notFound } from '../core/problems.js';
import type { Catalog } from '../catalog/load.js';
import { visibleIn } from '../catalog/load.js';
import type { ApiVersion, OperationDef, PropDef, TypeDef } from '../catalog/model.js';
import { type BeanRecord, type TreeSource } from './records.js';
import { childKey, identityOfKey, itemKey, keyOfIdentity } from '../core/identity.js';
import type { BeanScope } from '../behaviour/bean.js';
import { itemScope, itemScopes } from '../behaviour/partition-scope.js';
import type { BehaviourRegistry } from '../behaviour/registry.js';

export type { BeanScope } from '../behaviour/bean.js';

/**
 * The five management trees of a version; `version`, the version resource with `currentUser`;
 * `versions`, a version list; `lifecycle`, the Lifecycle Manager's resources.
 */
export type TreeName = 'edit' | 'serverConfig' | 'domainConfig' | 'domainRuntime' | 'serverRuntime' | 'version' | 'versions' | 'lifecycle';

/**
 * Computes values that live outside the records (figures of this process, clocks). `wanted`: the
 * only properties the caller will read (absent: all); values of others may be left out.
 */
export type LiveValues = (node: BeanNode, wanted?: readonly PropDef[]) => Record<string, unknown> | undefined;

/** A collection whose items are whole trees of their own (the running servers' runtime trees). */
export interface Mount {
  names(): readonly string[];
  root(name: string): TreeRoot | undefined;
}

export interface TreeRoot {
  name: TreeName;
  source: TreeSource;
  type: TypeDef;
  /** URL segments from the version root to this tree's root. */
  base: readonly string[];
  /** The server whose runtime tree this is (absent for the domain's trees). */
  server?: string;
  mounts?: ReadonlyMap<string, Mount>;
  /** Hides collection items outside the request's partition scope. */
  filter?: (prop: PropDef, name: string) => boolean;
  live?: LiveValues;
  /** A tree that takes changes (the edit tree, the Lifecycle Manager): create forms are offered. */
  editable: boolean;
  /** Offers `search` at its root: true unless set to false (versions, the Lifecycle Manager). */
  search?: boolean;
  /** The requester is not an administrator: children only administrators may read are hidden. */
  restricted?: boolean;
}

export interface BeanNode {
  root: TreeRoot;
  type: TypeDef;
  key: string;
  identity: readonly string[];
  /** Absent for an always-present singleton nobody configured: every value is its default. */
  record?: BeanRecord;
  /** Name of the owning bean: the default name of singleton children. */
  parentName?: string;
  /** URL segments from the version root. */
  path: readonly string[];
  /** URL segments of the parent resource (the collection for items). */
  parentPath: readonly string[];
  /** The child property of the owning bean this bean was reached through (absent for roots). */
  via?: PropDef;
  /** The server and partition the bean belongs to, as the path to it says. */
  scope: BeanScope;
}

/** The scope of the domain's own beans. */
const DOMAIN_SCOPE: BeanScope = Object.freeze({});

export type Target =
  | { kind: 'bean'; node: BeanNode }
  | { kind: 'collection'; owner: BeanNode; prop: PropDef; path: readonly string[]; mount?: Mount }
  | { kind: 'createForm'; owner: BeanNode; prop: PropDef; path: readonly string[] }
  /** An optional singleton that does not exist (yet): POST creates it. */
  | { kind: 'absent'; owner: BeanNode; prop: PropDef; path: readonly string[] }
  | { kind: 'action'; node: BeanNode; op: OperationDef; path: readonly string[] }
  | { kind: 'search'; node: BeanNode; path: readonly string[] };

/** A collection's items, made one by one when asked for (see `Resolver.itemList`). */
export interface ItemList {
  /** How many items the collection had when the list was taken. */
  readonly length: number;
  /** Item `i`; undefined when it was deleted since the list was taken. */
  at(i: number): BeanNode | undefined;
}

const NO_ITEMS: ItemList = { length: 0, at: () => undefined };

/** The items of a list that still exist. */
function present(list: ItemList): BeanNode[] {
  const out: BeanNode[] = [];
  for (let i = 0; i < list.length; i++) {
    const item = list.at(i);
    if (item) out.push(item);
  }
  return out;
}

export class Resolver {
  constructor(
    private readonly catalog: Catalog,
    private readonly behaviours: BehaviourRegistry,
  ) {}

  rootNode(root: TreeRoot): BeanNode {
    const record = root.source.bean('');
    return {
      root,
      type: record ? this.catalog.type(record.type) : root.type,
      key: '',
      identity: [],
      ...(record ? { record } : {}),
      path: root.base,
      parentPath: root.base.slice(0, -1),
      scope: root.server !== undefined ? { server: root.server } : DOMAIN_SCOPE,
    };
  }

  /** Child property of `node` named `seg`, when it is visible here. */
  child(node: BeanNode, seg: string, version: ApiVersion): PropDef | undefined {
    const prop = node.type.prop.get(seg);
    if (!prop || (prop.shape !== 'singleton' && prop.shape !== 'collection')) return undefined;
    // A collection shown in place has no address of its own.
    if (prop.inline || !visibleIn(prop, version)) return undefined;
    if (prop.onlyIn && prop.onlyIn !== node.root.name) return undefined;
    if (prop.adminOnly && node.root.restricted) return undefined;
    return prop;
  }

  /** The singleton child bean, synthesised with defaults when it is always present. */
  singleton(node: BeanNode, prop: PropDef): BeanNode | undefined {
    const key = childKey(node.key, prop.name);
    const record = node.root.source.bean(key);
    if (!record && prop.optional) return undefined;
    return this.childNode(node, prop, key, [...node.identity, prop.name], [...node.path, prop.name], node.path, record, node.scope);
  }

  /** The item `name` of a child collection. */
  item(node: BeanNode, prop: PropDef, name: string): BeanNode | undefined {
    if (node.root.filter && !node.root.filter(prop, name)) return undefined;
    if (prop.address) return this.addressedItem(node, prop, name);
    const cKey = childKey(node.key, prop.name);
    const key = itemKey(cKey, name);
    const record = node.root.source.bean(key);
    if (!record) return undefined;
    const colPath = [...node.path, prop.name];
    const scope = itemScope(this.behaviours, node.scope, prop, name);
    return this.childNode(node, prop, key, [...node.identity, prop.name, name], [...colPath, name], colPath, record, scope);
  }

  /**
   * An item of a collection whose items live elsewhere below the owner (`PropDef.address`): its
   * name is the parts the address leaves open, joined as a key (`demo_domain/partition1`).
   */
  private addressedItem(node: BeanNode, prop: PropDef, name: string): BeanNode | undefined {
    const parts = identityOfKey(name);
    let next = 0;
    const suffix = prop.address!.map((seg) => (seg === '*' ? (parts[next++] ?? '') : seg));
    if (next !== parts.length) return undefined;
    const key = childKey(node.key, keyOfIdentity(suffix));
    const record = node.root.source.bean(key);
    if (!record) return undefined;
    return this.childNode(node, prop, key, [...node.identity, ...suffix], [...node.path, ...suffix], [...node.path, prop.name], record, node.scope);
  }

  /**
   * The item named by `segments[at..]` when they spell the address of an item of one of the
   * node's collections; its last segment, when they do, for the caller to go on after it.
   */
  private atAddress(node: BeanNode, segments: readonly string[], at: number): { item: BeanNode; last: number } | undefined {
    for (const prop of node.type.children) {
      const address = prop.address;
      if (!address || prop.inline || at + address.length > segments.length) continue;
      if (!address.every((seg, j) => seg === '*' || seg === segments[at + j])) continue;
      const parts = address.flatMap((seg, j) => (seg === '*' ? [segments[at + j]!] : []));
      const last = at + address.length - 1;
      const item = this.item(node, prop, keyOfIdentity(parts));
      if (!item) throw notFound(segments[last]!);
      return { item, last };
    }
    return undefined;
  }

  /** Items of a child collection, in order, honouring the partition scope. */
  items(node: BeanNode, prop: PropDef): BeanNode[] {
    return present(this.itemList(node, prop));
  }

  /**
   * The items of a child collection as `items` lists them, each made only when it is asked for: a
   * read that prints a few items of a large collection (a page refused for its size) pays for those.
   * The names are taken now; an item deleted before it is asked for is undefined.
   */
  itemList(node: BeanNode, prop: PropDef): ItemList {
    const cKey = childKey(node.key, prop.name);
    const { source, filter } = node.root;
    const all = source.itemNames(cKey);
    if (all.length === 0) return NO_ITEMS;
    const names = filter ? all.filter((name) => filter(prop, name)) : all.slice();
    if (prop.address) return { length: names.length, at: (i) => (i < names.length ? this.item(node, prop, names[i]!) : undefined) };
    // What every item shares is made once: the collection's key and path, its owner's name.
    const colPath = [...node.path, prop.name];
    const parentName = node.record?.values.name ?? node.parentName;
    const owner = typeof parentName === 'string' ? parentName : undefined;
    const scopeOf = itemScopes(this.behaviours, node.scope, prop);
    return {
      length: names.length,
      at: (i) => {
        const name = names[i];
        if (name === undefined) return undefined;
        const key = itemKey(cKey, name);
        const record = source.bean(key);
        if (!record) return undefined;
        return {
          root: node.root,
          type: this.catalog.type(record.type),
          key,
          identity: [...node.identity, prop.name, name],
          record,
          ...(owner !== undefined ? { parentName: owner } : {}),
          path: [...colPath, name],
          parentPath: colPath,
          via: prop,
          scope: scopeOf(name),
        };
      },
    };
  }

  /** Roots of the trees mounted under a collection. */
  mountedItems(mount: Mount): BeanNode[] {
    return present(this.mountedList(mount));
  }

  /** Roots of the trees mounted under a collection, each made when it is asked for (see `itemList`). */
  mountedList(mount: Mount): ItemList {
    const names = mount.names().slice();
    return {
      length: names.length,
      at: (i) => {
        const root = i < names.length ? mount.root(names[i]!) : undefined;
        return root ? this.rootNode(root) : undefined;
      },
    };
  }

  resolve(root: TreeRoot, segments: readonly string[], version: ApiVersion): Target {
    let node = this.rootNode(root);
    for (let i = 0; i < segments.length; i++) {
      const seg = segments[i]!;
      const last = i === segments.length - 1;
      const mount = node.key === '' ? node.root.mounts?.get(seg) : undefined;
      if (node.root.restricted && node.type.prop.get(seg)?.adminOnly) {
        throw forbidden(`'${seg}' may be read by administrators only.`);
      }
      const prop = this.child(node, seg, version);
      if (mount && prop) {
        if (last) return { kind: 'collection', owner: node, prop, path: [...node.path, seg], mount };
        const name = segments[++i]!;
        const sub = mount.root(name);
        if (!sub) throw notFound(name);
        node = this.rootNode(sub);
        continue;
      }
      if (prop?.shape === 'singleton') {
        const next = this.singleton(node, prop);
        if (!next && last) return { kind: 'absent', owner: node, prop, path: [...node.path, seg] };
        if (!next) throw notFound(seg);
        node = next;
        continue;
      }
      if (prop?.shape === 'collection') {
        if (last) return { kind: 'collection', owner: node, prop, path: [...node.path, seg] };
        const name = segments[++i]!;
        const next = this.item(node, prop, name);
        if (!next) throw notFound(name);
        node = next;
        continue;
      }
      const addressed = this.atAddress(node, segments, i);
      if (addressed) {
        node = addressed.item;
        i = addressed.last;
        continue;
      }
      if (last) {
        const path = [...node.path, seg];
        const op = node.type.operations.get(seg);
        if (op && (!op.deprecatedIn || version === 'legacy')) return { kind: 'action', node, op, path };
        const formProp = node.root.editable ? node.type.createForms.get(seg) : undefined;
        if (formProp && visibleIn(formProp, version)) return { kind: 'createForm', owner: node, prop: formProp, path };
        if (seg === 'search' && node.key === '' && node.root.search !== false) return { kind: 'search', node, path };
      }
      throw notFound(seg);
    }
    return { kind: 'bean', node };
  }

  private childNode(
    parent: BeanNode,
    prop: PropDef,
    key: string,
    identity: string[],
    path: string[],
    parentPath: readonly string[],
    record: BeanRecord | undefined,
    scope: BeanScope,
  ): BeanNode {
    const type = this.catalog.type(record?.type ?? prop.javaType);
    const parentName = parent.record?.values.name ?? parent.parentName;
    return {
      root: parent.root,
      type,
      key,
      identity,
      ...(record ? { record } : {}),
      ...(typeof parentName === 'string' ? { parentName } : {}),
      path,
      parentPath,
      via: prop,
      scope,
    };
  }
}
