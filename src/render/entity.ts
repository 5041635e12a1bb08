// The one renderer: beans, collections and create forms become hypermedia JSON here.
import { visibleIn } from '../catalog/load.js';
import type { ApiVersion, PropDef, TypeDef } from '../catalog/model.js';
import { childKey } from '../core/identity.js';
import type { BeanNode, Mount, Resolver } from '../tree/resolve.js';
import type { Link, Urls } from './links.js';
import { type Shape, wantsField, wantsLinks, wantsRel } from './query.js';
import { defaultOf, fieldValue, toWire } from './values.js';
import { digestTag } from '../core/preconditions.js';

export interface RenderContext {
  urls: Urls;
  version: ApiVersion;
  shape: Shape;
  productionMode: boolean;
}

type Json = Record<string, unknown>;

export class Renderer {
  constructor(private readonly resolver: Resolver) {}

  /** A bean: links, identity, then every visible property (and its collection shown in place). */
  bean(node: BeanNode, ctx: RenderContext, asItem = false): Json {
    return this.taggedBean(node, ctx, asItem, false).body;
  }

  /** A bean as `bean` renders it, with its entity tag (see `etag`). */
  beanWithTag(node: BeanNode, ctx: RenderContext): { body: Json; etag: string } {
    const { body, etag } = this.taggedBean(node, ctx, false, true);
    return { body, etag: etag! };
  }

  /**
   * The entity tag of a bean: a digest of its state as a plain GET shows it (its type, every
   * property at the request's version, which optional children exist, the sealed form of its
   * secrets), whatever fields, links and host a request asks for. It moves exactly when what a
   * client can read of the bean moves.
   */
  etag(node: BeanNode, ctx: RenderContext): string {
    const live = node.root.live?.(node);
    return this.tagOf(node, ctx, this.fields(node, { ...ctx, shape: {} }, {}, live, false));
  }

  /** The entity tag of a collection: a digest of its items' names and tags, in order. */
  collectionEtag(owner: BeanNode, prop: PropDef, ctx: RenderContext, mount?: Mount): string {
    const items = mount ? this.resolver.mountedItems(mount) : this.resolver.items(owner, prop);
    return digestTag(JSON.stringify([prop.name, items.map((item) => [item.identity[item.identity.length - 1], this.etag(item, ctx)])]));
  }

  private taggedBean(node: BeanNode, ctx: RenderContext, asItem: boolean, tag: boolean): { body: Json; etag?: string } {
    const out: Json = {};
    const live = node.root.live?.(node);
    if (wantsLinks(ctx.shape)) out.links = asItem ? this.itemLinks(node, ctx) : this.beanLinks(node, ctx, live);
    if (node.type.kind !== 'rest' && wantsField(ctx.shape, 'identity')) out.identity = node.identity;
    const fields = this.fields(node, ctx, {}, live, asItem);
    Object.assign(out, fields);
    const inPlace = node.type.inline;
    if (inPlace && !asItem) out.items = this.resolver.items(node, inPlace).map((item) => this.bean(item, ctx, true));
    if (!tag) return { body: out };
    // The fields shown are the whole state unless the request chose some: then they are read again in full.
    const whole = !ctx.shape.fields && !ctx.shape.excludeFields ? fields : this.fields(node, { ...ctx, shape: {} }, {}, live, false);
    return { body: out, etag: this.tagOf(node, ctx, whole) };
  }

  private tagOf(node: BeanNode, ctx: RenderContext, fields: Json): string {
    const present: string[] = [];
    for (const p of node.type.children) {
      if (p.optional && p.shape === 'singleton' && node.root.source.bean(childKey(node.key, p.name)) !== undefined) present.push(p.name);
    }
    // Secrets show as null: their sealed form tells a change of them.
    const sealed: unknown[] = [];
    const values = node.record?.values;
    if (values) for (const p of node.type.fields[ctx.version]) if (p.encrypted && Object.hasOwn(values, p.name)) sealed.push(p.name, values[p.name]);
    const inPlace = node.type.inline;
    const items = inPlace ? this.resolver.items(node, inPlace).map((item) => this.etag(item, ctx)) : [];
    return digestTag(JSON.stringify([node.type.name, fields, present, sealed, items]));
  }

  /** The properties of a bean (no links, no identity). */
  private fields(node: BeanNode, ctx: RenderContext, out: Json, live: Record<string, unknown> | undefined, asItem: boolean): Json {
    // With a field list, only the fields asked for are looked at (searches ask for a few of many).
    const chosen = ctx.shape.fields ? selected(node, ctx) : node.type.fields[ctx.version];
    for (const p of chosen) {
      if (!ctx.shape.fields && !wantsField(ctx.shape, p.name)) continue;
      if (asItem && p.detail) continue;
      if (live !== undefined && p.name in live) {
        // A live value explicitly undefined means the property is absent in this state.
        const value = live[p.name];
        if (value !== undefined) out[p.name] = p.encrypted ? null : toWire(p, value);
        continue;
      }
      out[p.name] = fieldValue(p, node, undefined, ctx.productionMode);
    }
    return out;
  }

  collection(owner: BeanNode, prop: PropDef, path: readonly string[], ctx: RenderContext, mount?: Mount): Json {
    const items = mount ? this.resolver.mountedItems(mount) : this.resolver.items(owner, prop);
    const out: Json = {};
    if (wantsLinks(ctx.shape)) {
      const links = headLinks(ctx, owner.path, path);
      if (owner.root.editable && prop.createForm) push(links, ctx, 'create-form', ctx.urls.href([...owner.path, prop.createForm]));
      out.links = links;
    }
    out.items = items.map((item) => this.bean(item, ctx, true));
    return out;
  }

  /** A create form: the new bean's writable properties at their defaults, and a `create` link. */
  createForm(owner: BeanNode, prop: PropDef, path: readonly string[], type: TypeDef, ctx: RenderContext): Json {
    const out: Json = {};
    if (wantsLinks(ctx.shape)) {
      const links = headLinks(ctx, owner.path, path);
      // The Lifecycle Manager's forms link back to their child by its name.
      push(links, ctx, owner.type.links === 'lifecycle' ? prop.name : 'create', ctx.urls.href([...owner.path, prop.name]));
      out.links = links;
    }
    const blank: BeanNode = { root: owner.root, type, key: '', identity: [], path, parentPath: owner.path, scope: owner.scope };
    for (const p of type.fields[ctx.version]) {
      // `type` names the bean type to create, unless it is a writable property of its own.
      const discriminator = p.name === 'type' && !p.writable;
      if (!(p.writable || discriminator) || !wantsField(ctx.shape, p.name)) continue;
      if (discriminator) out.type = type.discriminator;
      else if (p.key) out[p.name] = null;
      else out[p.name] = p.encrypted ? null : toWire(p, defaultOf(p, blank, ctx.productionMode));
    }
    return out;
  }

  private itemLinks(node: BeanNode, ctx: RenderContext): Link[] {
    const links: Link[] = [];
    const href = ctx.urls.href(node.path);
    push(links, ctx, 'self', href);
    push(links, ctx, 'canonical', href);
    return links;
  }

  private beanLinks(node: BeanNode, ctx: RenderContext, live: Record<string, unknown> | undefined): Link[] {
    const links: Link[] = [];
    const { urls } = ctx;
    const self = urls.href(node.path);
    const parent = node.path.length === 0 ? urls.versionsHref() : urls.href(node.parentPath);
    if (parent !== undefined) push(links, ctx, 'parent', parent);
    push(links, ctx, 'self', self);
    push(links, ctx, 'canonical', self);
    const source = node.root.source;
    const lifecycle = node.type.links === 'lifecycle';
    // A Lifecycle Manager bean that is its owner's only one of its kind (a service's PDB) links the
    // form that makes it, as a collection does.
    const form = node.via?.shape === 'singleton' ? node.via.createForm : undefined;
    if (lifecycle && form && node.root.editable) push(links, ctx, 'create-form', urls.href([...node.parentPath, form]));
    for (const p of node.type.children) {
      if (p.inline || !visibleIn(p, ctx.version) || (p.onlyIn && p.onlyIn !== node.root.name) || (p.adminOnly && node.root.restricted)) continue;
      if (lifecycle) {
        // The form first, and both whether or not the child exists yet.
        if (node.root.editable && p.createForm) push(links, ctx, p.createForm, `${self}/${p.createForm}`);
        push(links, ctx, p.name, `${self}/${encodeURIComponent(p.name)}`);
        continue;
      }
      const present = !p.optional || source.bean(childKey(node.key, p.name)) !== undefined;
      if (present) push(links, ctx, p.name, `${self}/${encodeURIComponent(p.name)}`);
      if (node.root.editable && p.createForm && (p.shape === 'collection' || !present)) {
        push(links, ctx, p.createForm, `${self}/${p.createForm}`);
      }
    }
    this.referenceLinks(node, ctx, links, live);
    for (const op of node.type.operations.values()) {
      if (op.deprecatedIn && ctx.version !== 'legacy') continue;
      if (lifecycle) push(links, ctx, op.name, `${self}/${op.name}`);
      else if (wantsRel(ctx.shape, 'action')) links.push({ rel: 'action', href: `${self}/${op.name}`, title: op.name });
    }
    if (node.key === '' && node.root.search !== false) push(links, ctx, 'search', `${self}/search`);
    return links;
  }

  /** A link per set singleton reference, to the referenced bean in the same tree. */
  private referenceLinks(node: BeanNode, ctx: RenderContext, links: Link[], live: Record<string, unknown> | undefined): void {
    const values = node.record?.values;
    if (!values && !live) return;
    for (const list of [node.type.fields[ctx.version], node.type.linkRefs]) {
      for (const p of list) {
        if (p.shape !== 'reference' || p.array) continue;
        const identity = live && p.name in live ? live[p.name] : values?.[p.name];
        if (!Array.isArray(identity)) continue;
        push(links, ctx, p.name, ctx.urls.href([...node.root.base, ...(identity as string[])]));
      }
    }
  }
}

/** The visible fields named by the request's field list. */
function selected(node: BeanNode, ctx: RenderContext): PropDef[] {
  const out: PropDef[] = [];
  for (const name of ctx.shape.fields!) {
    const p = node.type.prop.get(name);
    if (p && (p.shape === 'scalar' || p.shape === 'reference') && !p.internal && !p.linkOnly && visibleIn(p, ctx.version)) out.push(p);
  }
  return out;
}

/** `parent`, `self` and `canonical` of a resource that is not a bean (collections, forms). */
function headLinks(ctx: RenderContext, parentPath: readonly string[], path: readonly string[]): Link[] {
  const links: Link[] = [];
  push(links, ctx, 'parent', ctx.urls.href(parentPath));
  push(links, ctx, 'self', ctx.urls.href(path));
  push(links, ctx, 'canonical', ctx.urls.href(path));
  return links;
}

function push(links: Link[], ctx: RenderContext, rel: string, href: string): void {
  if (wantsRel(ctx.shape, rel)) links.push({ rel, href });
}
