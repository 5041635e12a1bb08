// Per-type behaviour, in the spirit of Kubernetes' per-type strategies: what a bean type does beyond
// what the catalog says (create-only properties, deployables, partition scoping, derived values,
// state machines...) is registered here by type name, and found through the type hierarchy: a
// behaviour registered on a base type reaches every subtype. Each type's lookups are resolved once
// and cached, so no request walks the hierarchy.
import type { TypeDef } from '../catalog/model.js';

/** The types a registry may name (the catalog). */
export interface TypeLookup {
  /** The type named; throws when there is none. */
  type(name: string): TypeDef;
  /** Every type, by name. */
  readonly types?: ReadonlyMap<string, TypeDef>;
  /** Registrations for types this catalog lacks are left out (a product version other than the default). */
  readonly tolerant?: boolean;
}

/** One kind of behaviour; `T` is what a registration of it holds. */
export class BehaviourKind<T> {
  /** Only here to tie `T` to the kind: never read. */
  private declare readonly held: T;

  constructor(readonly name: string) {}
}

interface Registration {
  type: TypeDef;
  value: unknown;
}

export class BehaviourRegistry {
  /** kind -> registrations by type name. */
  private readonly registered = new Map<BehaviourKind<unknown>, Map<string, Registration>>();
  /** kind -> type -> its registrations along its lineage, most specific first. */
  private readonly resolved = new Map<BehaviourKind<unknown>, WeakMap<TypeDef, readonly unknown[]>>();

  constructor(readonly types: TypeLookup) {}

  /**
   * Registers `value` as the behaviour of kind `kind` of the type `typeName` and its subtypes.
   * A type names each kind once: a second registration is a programming error.
   */
  register<T>(kind: BehaviourKind<T>, typeName: string, value: T): void {
    if (this.types.tolerant && this.types.types && !this.types.types.has(typeName)) return;
    const type = this.types.type(typeName);
    const byType = this.registered.get(kind) ?? new Map<string, Registration>();
    if (byType.has(type.name)) throw new Error(`${type.short} already has a behaviour '${kind.name}'`);
    byType.set(type.name, { type, value });
    this.registered.set(kind, byType);
    // Lookups made before this registration may now be wrong.
    this.resolved.delete(kind);
  }

  /** The registration nearest the type: its own, else that of its closest ancestor. */
  find<T>(kind: BehaviourKind<T>, type: TypeDef): T | undefined {
    return this.all(kind, type)[0];
  }

  /** Every registration along the type's lineage: its own first, then its ancestors', closest first. */
  all<T>(kind: BehaviourKind<T>, type: TypeDef): readonly T[] {
    let cache = this.resolved.get(kind);
    if (!cache) {
      cache = new WeakMap();
      this.resolved.set(kind, cache);
    }
    let found = cache.get(type);
    if (!found) {
      found = this.lineage(kind, type);
      cache.set(type, found);
    }
    return found as readonly T[];
  }

  private lineage(kind: BehaviourKind<unknown>, type: TypeDef): readonly unknown[] {
    const byType = this.registered.get(kind);
    if (!byType) return [];
    const hits: Registration[] = [];
    for (const name of [type.name, ...type.ancestors]) {
      const r = byType.get(name);
      if (r) hits.push(r);
    }
    // A type has more ancestors than any of its own ancestors, so this puts subtypes first;
    // unrelated bases (several inheritance lines) are ordered by name, to be the same every time.
    hits.sort((a, b) => b.type.ancestors.size - a.type.ancestors.size || a.type.name.localeCompare(b.type.name));
    return Object.freeze(hits.map((r) => r.value));
  }
}
