// Runtime collections whose items clients create and delete although they are not configuration
// beans (named edit sessions). Declared once as static data, like operations; the services reach
// them at call time.
import type { TypeDef } from '../catalog/model.js';
import type { Principal } from '../security/service.js';
import type { BeanNode } from '../tree/resolve.js';
import type { OperationServices } from './define.js';

export interface CollectionDefinition {
  /** The owning bean type and its child collection. */
  owner: string;
  prop: string;
  /** Throws 403 unless the principal may create or remove items; checked before a body is read. */
  mayChange(principal: Principal): void;
  /** Creates an item; returns its identity. */
  create(owner: BeanNode, body: Record<string, unknown>, principal: Principal, use: OperationServices): Promise<string[]>;
  remove(node: BeanNode, principal: Principal, use: OperationServices): Promise<void>;
}

/** Create and delete of the items of one runtime collection, for a request. */
export interface CollectionHandler {
  mayChange(principal: Principal): void;
  create(owner: BeanNode, body: Record<string, unknown>, principal: Principal): Promise<string[]>;
  remove(node: BeanNode, principal: Principal): Promise<void>;
}

export class RuntimeCollections {
  private readonly byKey = new Map<string, CollectionHandler>();

  constructor(definitions: readonly CollectionDefinition[], use: OperationServices) {
    for (const d of definitions) {
      use.catalog.type(d.owner);
      this.byKey.set(`${d.owner}#${d.prop}`, {
        mayChange: (principal) => d.mayChange(principal),
        create: (owner, body, principal) => d.create(owner, body, principal, use),
        remove: (node, principal) => d.remove(node, principal, use),
      });
    }
  }

  /** The handler of the collection `prop` of `owner` (declared on it or on one of its ancestors). */
  handler(owner: TypeDef, prop: string): CollectionHandler | undefined {
    for (const name of [owner.name, ...owner.ancestors]) {
      const h = this.byKey.get(`${name}#${prop}`);
      if (h) return h;
    }
    return undefined;
  }
}
