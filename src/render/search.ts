// `POST <tree root>/search`: one request that selects properties, links and children at every
// level, the way monitoring tools read a server in a single round trip.
import { badRequest } from '../core/problems.js';
import type { ApiVersion } from '../catalog/model.js';
import type { BeanNode, Resolver } from '../tree/resolve.js';
import type { RenderContext, Renderer } from './entity.js';
import type { Shape } from './query.js';

type Json = Record<string, unknown>;

function stringList(query: Json, key: string, where: string): Set<string> | undefined {
  const v = query[key];
  if (v === undefined) return undefined;
  if (!Array.isArray(v)) throw badRequest(`The property '${key}' must be an array${where}.`);
  return new Set(v.filter((x): x is string => typeof x === 'string'));
}

/** The shape one query node asks for: `[]` selects nothing, an absent key everything. */
function shapeOf(query: Json, where: string): Shape {
  const shape: { -readonly [K in keyof Shape]: Shape[K] } = {};
  const fields = stringList(query, 'fields', where);
  const excludeFields = stringList(query, 'excludeFields', where);
  const links = stringList(query, 'links', where);
  const excludeLinks = stringList(query, 'excludeLinks', where);
  if (fields) shape.fields = fields;
  if (excludeFields) shape.excludeFields = excludeFields;
  if (links) shape.links = links.size === 0 ? 'none' : links;
  if (excludeLinks) shape.excludeLinks = excludeLinks;
  return shape;
}

export class Searcher {
  constructor(
    private readonly resolver: Resolver,
    private readonly renderer: Renderer,
  ) {}

  search(node: BeanNode, query: Json, ctx: RenderContext): Json {
    return this.node(node, query, ctx, '');
  }

  private node(node: BeanNode, query: Json, ctx: RenderContext, where: string): Json {
    const out = this.renderer.bean(node, { ...ctx, shape: shapeOf(query, where) });
    const children = query.children;
    if (children === undefined) return out;
    if (children === null || typeof children !== 'object' || Array.isArray(children)) {
      throw badRequest(`The property 'children' must be an object${where}.`);
    }
    for (const [name, sub] of Object.entries(children as Json)) {
      const subQuery = sub !== null && typeof sub === 'object' && !Array.isArray(sub) ? (sub as Json) : {};
      const at = `${where} in children.${name}`;
      const result = this.child(node, name, subQuery, ctx, ctx.version, at);
      if (result !== undefined) out[name] = result;
    }
    return out;
  }

  private child(node: BeanNode, name: string, query: Json, ctx: RenderContext, version: ApiVersion, where: string): unknown {
    const prop = this.resolver.child(node, name, version);
    if (!prop) return undefined;
    if (prop.shape === 'singleton') {
      const child = this.resolver.singleton(node, prop);
      return child ? this.node(child, query, ctx, where) : null;
    }
    const mount = node.key === '' ? node.root.mounts?.get(name) : undefined;
    const items = mount ? this.resolver.mountedItems(mount) : this.resolver.items(node, prop);
    const keyProp = items[0]?.type.keyProp ?? 'name';
    const keys = stringList(query, keyProp, where);
    const selected = keys ? items.filter((item) => keys.has(String(item.record?.values[keyProp] ?? item.path[item.path.length - 1]))) : items;
    return { items: selected.map((item) => this.node(item, query, ctx, where)) };
  }
}
