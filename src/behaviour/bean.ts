// What behaviours see of a bean: its type, where it is, and its stored values. The resolver's bean
// nodes are such views; behaviours never need the rest (trees, links, paths).
import type { TypeDef } from '../catalog/model.js';

/**
 * Where a bean lives, computed by the resolver as it walks: the server whose runtime tree holds
 * it, and the partition whose slice holds it (the item of a partition-scoped collection its path
 * went through). Both are absent for beans of the domain as a whole.
 */
export interface BeanScope {
  readonly server?: string;
  readonly partition?: string;
}

export interface BeanView {
  type: TypeDef;
  key: string;
  identity: readonly string[];
  scope: BeanScope;
  record?: { values: Record<string, unknown> };
}

/** The name of a collection item: the last segment of its identity. */
export function itemName(bean: Pick<BeanView, 'identity'>): string {
  return bean.identity[bean.identity.length - 1] ?? '';
}
