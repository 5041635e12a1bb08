// Shape of the hand-written overlay: what the generated catalog does not know.
// The overlay is keyed by full (mapped) type name, e.g. 'appserver.management.runtime.ServerRuntimeMBean';
// anything declared on a base type is inherited by every subtype.
import type { CatalogProperty, CatalogType } from './format.js';

export type Role = 'Admin' | 'Deployer' | 'Operator' | 'Monitor';

export interface OverlayParam {
  /** JSON key of the argument in the request body. */
  name: string;
  /** Java type in the catalog's notation ('int', 'java.lang.String', a bean type for a reference...). */
  type: string;
  array?: boolean;
}

export interface OverlayOverload {
  params: OverlayParam[];
  /** 'void', a scalar Java type, or a bean type name (a task type for lifecycle operations). */
  returns: string;
  returnsArray?: boolean;
}

export interface OverlayOperation {
  /** REST action name: the last path segment of the action URL. */
  name: string;
  /** Every accepted argument set; the one whose parameter names match the body's keys is chosen. */
  overloads: OverlayOverload[];
  /** Non-Admin roles allowed to invoke. Absent: the type's roles apply if `impact` is 'info', else Admin only. */
  roles?: Role[];
  /** 'info': a pure read (Monitor may call it if the type allows Monitor); 'action': changes state. */
  impact?: 'info' | 'action';
  /** Returns a task and honours the `Prefer` header. */
  async?: boolean;
  /** Deprecated after 12.2.1.0: hidden under newer version URLs. */
  deprecatedIn?: string;
}

/** Operations by the (mapped) type each is declared on; they reach every subtype. */
export type OperationTable = Readonly<Record<string, readonly OverlayOperation[]>>;

export interface TypeOverlay {
  /**
   * Actions performed by a tree's writer (the Lifecycle Manager's). Every other operation is
   * defined with its handler in src/operations/ and reaches the catalog from there.
   */
  operations?: OverlayOperation[];
  /** REST-only properties and children the bean type data lacks. */
  properties?: CatalogProperty[];
  /** Properties to hide although the data exposes them. */
  hide?: string[];
  /** Legal ranges of integer properties, [min, max] both included, by property name. */
  ranges?: Record<string, readonly [number, number]>;
}

export interface Overlay {
  /** Types that exist only in the REST layer (the change manager, for instance). */
  types: Record<string, CatalogType>;
  patches: Record<string, TypeOverlay>;
}
