// `GET <any management URL>?describe`: the description of what the URL names, in the tree it is in,
// with the rights judged by that tree's writer (or the action registry, or a runtime collection's
// handler), exactly as a change would be judged.
import type { Catalog } from '../catalog/load.js';
import type { ApiVersion, OperationDef, PropDef, TypeDef } from '../catalog/model.js';
import { type AccessChecks, type Check, describeAction, describeBean } from '../describe/bean-description.js';
import { childTypes } from '../describe/values.js';
import type { RuntimeCollections } from '../operations/collections.js';
import { authorize } from '../security/authorize.js';
import type { BeanNode, Target } from '../tree/resolve.js';
import type { TreeWriter } from './writers.js';

type Json = Record<string, unknown>;

export interface DescribeParts {
  catalog: Catalog;
  collections: RuntimeCollections;
  writerOf(node: BeanNode): TreeWriter | undefined;
  /** Whether the deployment service makes the items of this edit tree collection. */
  deploys(owner: BeanNode, prop: PropDef): boolean;
}

const readCheck: Check = (p) => authorize(p, { kind: 'read' });
const adminCheck: Check = (p) => authorize(p, { kind: 'role', roles: [], what: 'read this resource' });

/** The description of a target, as `?describe` answers it. */
export function describeTarget(parts: DescribeParts, target: Target, version: ApiVersion): Json {
  switch (target.kind) {
    case 'bean':
    case 'search':
      return describeNode(parts, target.node, version);
    case 'action': {
      const { node, op } = target;
      return { ...describeAction(options(parts, node, version), op), on: node.type.short };
    }
    case 'collection':
    case 'absent':
    case 'createForm': {
      // What the collection (or the optional singleton, or its form) holds: each type that may be
      // there, judged as an item of it would be.
      const { owner, prop } = target;
      const types = childTypes(parts.catalog, prop);
      const holds = target.kind === 'createForm' ? types.slice(0, 1) : types;
      return {
        child: prop.name,
        kind: prop.shape,
        of: owner.type.short,
        types: holds.map((t) => describeNode(parts, itemOf(owner, prop, t), version)),
      };
    }
  }
}

function describeNode(parts: DescribeParts, node: BeanNode, version: ApiVersion): Json {
  return describeBean(node.type, options(parts, node, version));
}

/** An item of `owner`'s child `prop` of type `type`, as the writers judge one (they look at its type and place). */
function itemOf(owner: BeanNode, prop: PropDef, type: TypeDef): BeanNode {
  const path = prop.shape === 'collection' ? [...owner.path, prop.name, '{name}'] : [...owner.path, prop.name];
  return { root: owner.root, type, key: '', identity: [...owner.identity, ...path.slice(owner.path.length)], path, parentPath: path.slice(0, -1), via: prop, scope: owner.scope, parentName: owner.identity.at(-1) ?? '' };
}

function options(parts: DescribeParts, node: BeanNode, version: ApiVersion) {
  return {
    catalog: parts.catalog,
    version,
    tree: node.root.name,
    editable: node.root.editable,
    access: checks(parts, node),
    childVisible: (p: PropDef) => !p.onlyIn || p.onlyIn === node.root.name,
  };
}

function checks(parts: DescribeParts, node: BeanNode): AccessChecks {
  const writer = parts.writerOf(node);
  const via = node.via;
  const read = via?.adminOnly ? adminCheck : readCheck;
  // Items of creatable collections (and created singletons) are the ones that can be deleted.
  const deletable = via !== undefined && via.creators.length > 0;
  const runtimeCollection = (owner: TypeDef, prop: string) => parts.collections.handler(owner, prop);
  const out: AccessChecks = {
    read,
    readChild: (c) => (c.adminOnly ? adminCheck : read),
    create: (c) => {
      if (writer) {
        if (!writer.creates(node, c) && !parts.deploys(node, c)) return undefined;
        return (p) => writer.authorize(p, { kind: 'create', owner: node, prop: c });
      }
      const handler = runtimeCollection(node.type, c.name);
      return handler ? (p) => handler.mayChange(p) : undefined;
    },
    invoke: (op: OperationDef) =>
      writer?.performs?.(node, op) ? (p) => writer.authorize(p, { kind: 'invoke', node, op }) : (p) => authorize(p, { kind: 'invoke', type: node.type, op }),
  };
  if (writer) {
    if (writer.updates(node)) {
      out.update = (p) => writer.authorize(p, { kind: 'update', node });
      out.updateProperty = (prop) => (p) => writer.authorize(p, { kind: 'update', node, properties: [prop.name] });
    }
    if (deletable && writer.deletes(node)) out.delete = (p) => writer.authorize(p, { kind: 'delete', node });
  } else if (via) {
    // A runtime collection's items are removed by its handler; the owner's type is the one it is declared on.
    const owner = ownerType(parts.catalog, node, via);
    const handler = owner ? runtimeCollection(owner, via.name) : undefined;
    if (handler) out.delete = (p) => handler.mayChange(p);
  }
  return out;
}

/** The type of the bean that holds `node` through `via`: the one whose child it is. */
function ownerType(catalog: Catalog, node: BeanNode, via: PropDef): TypeDef | undefined {
  for (const t of catalog.types.values()) if (t.prop.get(via.name) === via) return t;
  return undefined;
}
