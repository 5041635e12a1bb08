// Shape of the generated catalog file (catalog/catalog.json).
// Written by scripts/generate-catalog.mjs from the bean type data; read once at start-up by ./load.ts.
// Facts only: no description text. Every type name is already mapped to the `appserver.*` namespace.

/** One property of a bean type, inheritance already resolved into the owning type's list. */
export interface CatalogProperty {
  /** REST name (JavaBeans decapitalisation of the bean property name, brand words renamed). */
  n: string;
  /** Java type, mapped: 'int', 'long', 'boolean', 'double', 'float', 'byte', 'java.lang.String',
   *  'java.lang.Integer', 'java.util.Properties', 'java.util.Date', 'appserver.health.HealthState',
   *  or a bean type name such as 'appserver.management.configuration.ServerMBean'. */
  t: string;
  /** Array-valued. */
  a?: 1;
  /** Relationship: 'c' containment (child bean or child collection), 'r' reference. */
  rel?: 'c' | 'r';
  /** Creatable concrete types for a containment (collection or optional singleton). */
  cr?: string[];
  /** Writable. */
  w?: 1;
  /** Key property of its type (identity of items in a collection). */
  k?: 1;
  /** Declared default value (JSON). Absent: no declared default (use the zero value of the type). */
  d?: unknown;
  /** Default in production mode, when it differs. */
  dp?: unknown;
  /** Default in secure mode, when it differs. */
  ds?: unknown;
  /** Default is derived at run time. */
  dd?: 1;
  /** Legal values. */
  lv?: unknown[];
  /** Encrypted (secret): stored protected, never returned in clear. */
  enc?: 1;
  /** Sensitive (not encrypted but not echoed to non-admins). */
  sen?: 1;
  /** Change takes effect only after a restart. */
  rs?: 1;
  /** Change takes effect only after a redeploy. */
  rd?: 1;
  /** Not persisted (computed). */
  tr?: 1;
  /** Version in which the property was deprecated after 12.2.1.0.0 (e.g. '12.2.1.2.0'), when it was. */
  dep?: string;
  /** Non-Admin roles allowed to read / write this property, when it overrides the type's roles. */
  gr?: string[];
  sr?: string[];
  /** Returned only when the request asks for internal properties. */
  ri?: 1;
  /** Name of the bean type that declares the property. */
  by?: string;
  /** Overlay only: the child exists only in this tree (the change manager lives in `edit`). */
  only?: 'edit';
  /** Overlay only: a child only administrators may read (others get 403 and no link). */
  admin?: 1;
  /** Overlay only: a reference shown as a link (its rel is the property name), never as a field. */
  link?: 1;
  /** Overlay only: shown when the bean is read on its own, not among a collection's items. */
  detail?: 1;
  /**
   * Overlay only: where the items of this collection live below their owner when not at
   * `<collection>/<name>`: literal segments, and `*` for each part of the item's name.
   */
  at?: string[];
  /** Overlay only: the collection is shown in place, as the `items` of its owner's body (no link). */
  inline?: 1;
}

export interface CatalogType {
  /** Short type name as the wire `type` field shows it: 'Server', 'DomainRuntime', 'JDBCDataSource'. */
  s: string;
  /** Value of the `type` discriminator when it differs from `s` (security providers: implementation class). */
  disc?: string;
  /** Kind derived from the base-type closure. */
  kind: 'config' | 'runtime' | 'security' | 'descriptor' | 'rest';
  /** Direct base types. */
  b?: string[];
  /** Non-Admin roles allowed on the type. */
  roles?: string[];
  /** Properties (own and inherited), in a stable order. REST-invisible properties are left out. */
  p: CatalogProperty[];
  /** Overlay only: the link conventions of the type's beans (default `management`). */
  links?: LinkStyle;
}

/**
 * How a bean's links are laid out. `management`: every action is an `action` link titled with its
 * name; a create form is linked after its child, while the child can be created. `lifecycle` (the
 * Lifecycle Manager's resources): every action is a link named after it; a create form is linked
 * before its child, always, and links back to the child by the child's name.
 */
export type LinkStyle = 'management' | 'lifecycle';

export interface CatalogFile {
  source: string;
  version: string;
  types: Record<string, CatalogType>;
}

/**
 * Another product version's catalog as its differences from catalog/catalog.json
 * (catalog/versions/<version>.json, written by the same script). Per type: `null` when the version
 * lacks it, a whole `CatalogType` when only the version has it (it has `p`), else a `TypePatch`.
 */
export interface CatalogDifferences {
  source: string;
  version: string;
  /** The version of catalog/catalog.json the differences apply to. */
  base: string;
  types: Record<string, CatalogType | TypePatch | null>;
}

/**
 * How a type differs from the base version's. Type-level fields given replace the base's (`null`
 * removes `disc`, `b` or `roles`); `del` names properties the version lacks; `put` holds properties
 * new or different in it (whole); `o`, when given, is the full property order (otherwise the base
 * order, less `del`, with new names of `put` at the end).
 */
export interface TypePatch {
  s?: string;
  disc?: string | null;
  kind?: CatalogType['kind'];
  b?: string[] | null;
  roles?: string[] | null;
  del?: string[];
  put?: CatalogProperty[];
  o?: string[];
}
