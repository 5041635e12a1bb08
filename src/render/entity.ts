// The one renderer: beans, collections and create forms become hypermedia JSON here.
import { visibleIn } from '../catalog/load.js';
import { type ApiVersion, type PropDef, type TypeDef, needsChosenType } from '../catalog/model.js';
import { childKey } from '../core/identity.js';
import type { BeanNode, Mount, Resolver } from '../tree/resolve.js';
import type { Link, Urls } from './links.js';
import { type Shape, wantsField, wantsLinks, wantsRel } from './query.js';
import { defaultOf, fieldValue, toWire } from './values.js';
import { ListDigest, digestTag } from '../core/preconditions.js';
import { ObjectArrayText, ObjectText, valueText, printable } from './json-text.js';
import { StreamedJson } from './streamed.js';

export interface RenderContext {
  urls: Urls;
  version: ApiVersion;
  shape: Shape;
  productionMode: boolean;
  /** The fields a field list selects, by bean type, once per context (a search's query node sees many beans of a type). */
  selected?: Map<TypeDef, readonly PropDef[]>;
}

type Json = Record<string, unknown>;

/** Stands in a bean's state for a property absent in its current state. */
const ABSENT = '\u0000absent';

export class Renderer {
  constructor(private readonly resolver: Resolver) {}

  /** A bean: links, identity, then every visible property (and its collection shown in place). */
  bean(node: BeanNode, ctx: RenderContext, asItem = false): Json {
    return this.render(node, ctx, asItem, undefined);
  }

  /** A bean as `bean` renders it, with its entity tag (see `etag`). */
  beanWithTag(node: BeanNode, ctx: RenderContext): { body: Json; etag: string } {
    const state: unknown[] = [];
    const body = this.render(node, ctx, false, state);
    return { body, etag: digestTag(state.length > 0 ? this.stateText(node, ctx, state) : this.stateOf(node, ctx)) };
  }

  /**
   * The entity tag of a bean: a digest of its state as a plain GET shows it (its type, every
   * property at the request's version, which optional children exist, the sealed form of its
   * secrets), whatever fields, links and host a request asks for. It moves exactly when what a
   * client can read of the bean moves.
   */
  etag(node: BeanNode, ctx: RenderContext): string {
    return digestTag(this.stateOf(node, ctx));
  }

  /** The entity tag of a collection: a digest of its items' names and what a plain read lists of each, in order. */
  collectionEtag(owner: BeanNode, prop: PropDef, ctx: RenderContext, mount?: Mount): string {
    return this.collectionWithTag(owner, prop, [], ctx, mount, false).etag;
  }

  /** A collection as `collection` renders it, with its entity tag. */
  collectionWithTag(owner: BeanNode, prop: PropDef, path: readonly string[], ctx: RenderContext, mount?: Mount, render = true): { body: Json; etag: string } {
    const items = mount ? this.resolver.mountedItems(mount) : this.resolver.items(owner, prop);
    const states: string[] = [];
    const bodies: Json[] = [];
    for (const item of items) {
      const state: unknown[] = [];
      if (render) bodies.push(this.render(item, ctx, true, state));
      states.push(item.identity[item.identity.length - 1]!, state.length > 0 ? this.stateText(item, ctx, state) : this.stateOf(item, ctx, true));
    }
    const etag = digestTag(JSON.stringify([prop.name, states]));
    if (!render) return { body: {}, etag };
    return { body: this.collectionBody(owner, prop, path, ctx, bodies), etag };
  }

  /**
   * A collection as `collectionWithTag` renders it, printed item by item (the same text), with the
   * same entity tag taken item by item too: what the pieces print is digested as they go, and the
   * tag's `rest` takes the items not printed yet (an answer sent only after its tag is known).
   */
  collectionStream(owner: BeanNode, prop: PropDef, path: readonly string[], ctx: RenderContext, mount?: Mount): StreamedJson {
    // Each item is made when it is printed or digested: a reader that stops early pays for what it read.
    const items = mount ? this.resolver.mountedList(mount) : this.resolver.itemList(owner, prop);
    const digest = new ListDigest(prop.name);
    let digested = 0;
    const take = (item: BeanNode | undefined, render: boolean): Json | undefined => {
      digested++;
      if (!item) return undefined;
      const state: unknown[] = [];
      const body = render ? this.render(item, ctx, true, state) : undefined;
      digest.add(item.identity[item.identity.length - 1]);
      digest.add(state.length > 0 ? this.stateText(item, ctx, state) : this.stateOf(item, ctx, true));
      return body;
    };
    const renderer = this;
    function* pieces(): Generator<string, void, undefined> {
      const out = new ObjectText(0);
      const head = renderer.collectionBody(owner, prop, path, ctx, []);
      let text = printable(head.links) ? out.member('links', head.links) : '';
      const list = new ObjectArrayText(items.length, 1);
      text += out.open('items') + list.open();
      // An item deleted since the names were taken is left out (the others keep their places).
      let printed = 0;
      for (let i = 0; i < items.length; i++) {
        const item = items.at(i);
        // Items the tag has taken already are only rendered.
        const body = i < digested ? (item ? renderer.bean(item, ctx, true) : undefined) : take(item, true);
        if (!body) continue;
        yield text + list.before(printed++) + valueText(body, list.elementDepth);
        text = '';
      }
      yield text + list.close() + out.close();
    }
    function* rest(): Generator<void, void, undefined> {
      while (digested < items.length) {
        take(items.at(digested), false);
        yield;
      }
    }
    let tag: string | undefined;
    return new StreamedJson(pieces(), { items: items.length, tag: { rest, value: () => (tag ??= digest.tag()) } });
  }

  /**
   * Renders a bean; with `state`, also collects the value of every field (shown or not) for its tag,
   * when the request shows the full field set (otherwise `state` stays empty: the caller reads it apart).
   */
  private render(node: BeanNode, ctx: RenderContext, asItem: boolean, state: unknown[] | undefined): Json {
    const out: Json = {};
    // With a field list and no links, only the fields listed are read of the live values (links
    // read reference values of every field).
    const links = wantsLinks(ctx.shape);
    const live = node.root.live?.(node, ctx.shape.fields && !links ? selected(node, ctx) : undefined);
    if (links) out.links = asItem ? this.itemLinks(node, ctx) : this.beanLinks(node, ctx, live);
    if (node.type.kind !== 'rest' && wantsField(ctx.shape, 'identity')) out.identity = node.identity;
    const whole = !ctx.shape.fields && !ctx.shape.excludeFields;
    this.fields(node, ctx, out, live, asItem, whole ? state : undefined);
    const inPlace = node.type.inline;
    if (inPlace && !asItem) out.items = this.resolver.items(node, inPlace).map((item) => this.bean(item, ctx, true));
    return out;
  }

  /** The state of a bean (as an item lists it, with `asItem`) as the text its tag digests, read in full. */
  private stateOf(node: BeanNode, ctx: RenderContext, asItem = false): string {
    const state: unknown[] = [];
    const full = { ...ctx, shape: {} };
    this.fields(node, full, undefined, node.root.live?.(node), asItem, state);
    return this.stateText(node, full, state);
  }

  /** Every field's value in the type's order (the order names them), what else a GET shows, as text. */
  private stateText(node: BeanNode, ctx: RenderContext, state: unknown[]): string {
    const present: string[] = [];
    for (const p of node.type.children) {
      if (p.optional && p.shape === 'singleton' && node.root.source.bean(childKey(node.key, p.name)) !== undefined) present.push(p.name);
    }
    // Secrets show as null: their sealed form tells a change of them.
    const sealed: unknown[] = [];
    const values = node.record?.values;
    if (values) for (const p of node.type.fields[ctx.version]) if (p.encrypted && Object.hasOwn(values, p.name)) sealed.push(p.name, values[p.name]);
    const inPlace = node.type.inline;
    const items = inPlace ? this.resolver.items(node, inPlace).map((item) => this.stateOf(item, ctx)) : [];
    return JSON.stringify([node.type.name, state, present, sealed, items]);
  }

  /**
   * The properties of a bean (no links, no identity) into `out`. `state` (given only with the full
   * field set) receives the value of every field a plain read shows (of a bean, or of an item).
   */
  private fields(node: BeanNode, ctx: RenderContext, out: Json | undefined, live: Record<string, unknown> | undefined, asItem: boolean, state?: unknown[]): void {
    // With a field list, only the fields asked for are looked at (searches ask for a few of many).
    const chosen = ctx.shape.fields ? selected(node, ctx) : node.type.fields[ctx.version];
    for (const p of chosen) {
      if (asItem && p.detail) continue;
      const shown = out !== undefined && (ctx.shape.fields !== undefined || wantsField(ctx.shape, p.name));
      if (!shown && state === undefined) continue;
      let value: unknown;
      if (live !== undefined && p.name in live) {
        // A live value explicitly undefined means the property is absent in this state.
        const v = live[p.name];
        if (v === undefined) {
          state?.push(ABSENT);
          continue;
        }
        value = p.encrypted ? null : toWire(p, v);
      } else {
        value = fieldValue(p, node, undefined, ctx.productionMode);
      }
      state?.push(value);
      if (shown) out[p.name] = value;
    }
  }

  collection(owner: BeanNode, prop: PropDef, path: readonly string[], ctx: RenderContext, mount?: Mount): Json {
    const items = mount ? this.resolver.mountedItems(mount) : this.resolver.items(owner, prop);
    return this.collectionBody(owner, prop, path, ctx, items.map((item) => this.bean(item, ctx, true)));
  }

  private collectionBody(owner: BeanNode, prop: PropDef, path: readonly string[], ctx: RenderContext, items: Json[]): Json {
    const out: Json = {};
    if (wantsLinks(ctx.shape)) {
      const links = headLinks(ctx, owner.path, path);
      if (owner.root.editable && prop.createForm) push(links, ctx, 'create-form', ctx.urls.href([...owner.path, prop.createForm]));
      out.links = links;
    }
    out.items = items;
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
      // A family base is no type of its own: the client chooses among its members.
      if (discriminator) out.type = needsChosenType(type) ? null : type.discriminator;
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
function selected(node: BeanNode, ctx: RenderContext): readonly PropDef[] {
  const known = ctx.selected?.get(node.type);
  if (known) return known;
  const out: PropDef[] = [];
  for (const name of ctx.shape.fields!) {
    const p = node.type.prop.get(name);
    if (p && (p.shape === 'scalar' || p.shape === 'reference') && !p.internal && !p.linkOnly && visibleIn(p, ctx.version)) out.push(p);
  }
  ctx.selected?.set(node.type, out);
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
