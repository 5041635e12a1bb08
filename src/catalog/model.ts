// The in-memory type model the rest of the server works with: each type built once, when first
// asked for, from the generated catalog plus the overlay, so that no request ever walks the type
// hierarchy.
import type { LinkStyle } from './format.js';
import type { OverlayOperation, Role } from './overlay-format.js';

/** The two URL generations of the management trees. `current` is 12.2.1.3.0 (alias `latest`);
 *  `legacy` is the deprecated 12.2.1.0, which still shows what later versions deprecated. */
export type ApiVersion = 'current' | 'legacy';

export type ValueKind =
  | 'string' | 'int' | 'long' | 'double' | 'boolean'
  | 'properties' | 'date' | 'health' | 'throwable' | 'object' | 'bean';

export type PropShape = 'scalar' | 'reference' | 'singleton' | 'collection';

export interface PropDef {
  name: string;
  javaType: string;
  valueKind: ValueKind;
  array: boolean;
  shape: PropShape;
  /** Singleton child that exists only once created (it has creators). */
  optional: boolean;
  /** Concrete types that may be created in this child collection / optional singleton. */
  creators: string[];
  /** Name of the create form next to a creatable child: `serverCreateForm` for `servers`. */
  createForm?: string;
  writable: boolean;
  key: boolean;
  hasDefault: boolean;
  defaultValue: unknown;
  productionDefault?: unknown;
  derivedDefault: boolean;
  legalValues?: unknown[];
  /** Legal range of an integer property, both ends included (from the overlay: the data has none). */
  min?: number;
  max?: number;
  encrypted: boolean;
  restartNeeded: boolean;
  internal: boolean;
  /** Hidden under `current` URLs (deprecated after 12.2.1.0). */
  deprecatedIn?: string;
  readRoles?: Role[];
  writeRoles?: Role[];
  /** The child exists only in this tree. */
  onlyIn?: 'edit';
  /** A child only administrators may read. */
  adminOnly?: boolean;
  /** A reference shown as a link only (it is listed in `TypeDef.linkRefs`, not in `fields`). */
  linkOnly?: boolean;
  /** Shown when the bean is read on its own, not among a collection's items. */
  detail?: boolean;
  /** Where a collection's items live below their owner, when not at `<collection>/<name>` (`*`: a part of the name). */
  address?: readonly string[];
  /** A collection shown in place, as the `items` of its owner's body. */
  inline?: boolean;
}

export interface OperationDef extends OverlayOperation {
  /** The type that declares it (for inherited operations). */
  declaredBy: string;
}

export interface TypeDef {
  name: string;
  short: string;
  /** Value written in the `type` field of this type's beans. */
  discriminator: string;
  kind: 'config' | 'runtime' | 'security' | 'descriptor' | 'rest';
  /** All ancestor type names (not including itself). */
  ancestors: Set<string>;
  roles: Role[];
  props: PropDef[];
  prop: Map<string, PropDef>;
  /** Containment children, in catalog order. */
  children: PropDef[];
  /** Non-child properties (scalars and references) visible in each URL generation. */
  fields: Record<ApiVersion, PropDef[]>;
  /** References shown as links only. */
  linkRefs: PropDef[];
  /** The collection shown in place, as the `items` of the bean's body. */
  inline?: PropDef;
  links: LinkStyle;
  operations: Map<string, OperationDef>;
  /** Create-form name -> the child property it creates. */
  createForms: Map<string, PropDef>;
  keyProp: string;
  /** Concrete subtypes (transitively), this type included when it is itself instantiable. */
  subtypes: TypeDef[];
}

/**
 * Whether beans of `t` cannot be made as such: a family base whose members are told apart by their
 * implementation's class name (security providers), so that a new member must name its `type`.
 */
export function needsChosenType(t: TypeDef): boolean {
  return t.discriminator === t.short && t.subtypes.some((s) => s.discriminator !== s.short);
}
