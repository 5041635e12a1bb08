// `POST <tree root>/search`: one request that selects properties, links and children at every
// level, the way monitoring tools read a server in a single round trip. The query is read once per
// request into a tree of compiled nodes (each with its shape and render context), and the walk
// allocates per bean only what it returns. It gives the result as an object, or as text printed
// item by item for an answer streamed to the client.
import { badRequest } from '../core/problems.js';
import type { BeanNode, Resolver } from '../tree/resolve.js';
import type { RenderContext, Renderer } from './entity.js';
import { ObjectArrayText, ObjectText } from './json-text.js';
import type { Shape } from './query.js';
import { StreamedJson } from './streamed.js';

type Json = Record<string, unknown>;

/** Keys of a query node that shape it; any other key may filter a collection by its key property. */
const SHAPING = new Set(['fields', 'excludeFields', 'links', 'excludeLinks', 'children']);

/** One node of a query, read once for the whole request. */
interface QueryNode {
  /** The request's render context with this node's shape. */
  ctx: RenderContext;
  /** The children asked for, in the query's order. */
  children: readonly ChildQuery[];
  /** The query node as sent: a collection's key filter is read from it by the items' key property. */
  raw: Json;
  /** ` in children.a in children.b`: where the node is, as messages say it. */
  where: string;
  /** Key filters already read, by key property (undefined: no filter). */
  keys: Map<string, ReadonlySet<string> | undefined>;
}

interface ChildQuery {
  name: string;
  query: QueryNode;
  /** The child's query as sent, as text: part of the key of its kept parts. */
  text: string;
}

/**
 * Where the text of a server's runtime root's children is kept between searches (the read
 * cache's parts): what one child prints for one query node depends only on the domain's state,
 * the root, the request's URLs, version and reader, and the depth it is printed at.
 */
export interface SearchParts {
  /** Set by the render when it shows figures that move (the request's read watch). */
  readonly watch: { figures: boolean; volatile: boolean };
  get(key: string): string | undefined;
  /** Taken when a part's rendering begins. */
  ticket(): unknown;
  /** Keeps a part rendered since `ticket`, unless the domain changed since or it showed figures. */
  put(key: string, text: string, ticket: unknown): void;
}

/**
 * The longest part kept, in characters: a server's part of an exporter's answer is a few KiB; a
 * larger one (a domain with thousands of applications) is printed every time rather than held
 * twice in memory while it streams.
 */
const PART_CHARS = 64 * 1024;

/** A part being printed, to be kept once its frame is done (`text` undefined: too long to keep). */
interface Capture {
  key: string;
  frame: Frame;
  text: string | undefined;
  ticket: unknown;
  /** The watch's flags before the part began (the part is judged on its own). */
  figures: boolean;
  volatile: boolean;
}

/** Text printed before the walk hands a piece over (and may be paused). */
const PIECE_CHARS = 16 * 1024;

/** A bean being printed: `next` is its next child query (-1: its own members not printed yet). */
interface BeanFrame {
  kind: 'bean';
  node: BeanNode;
  query: QueryNode;
  depth: number;
  out: ObjectText;
  next: number;
}

/** The items of a collection being printed: `next` is the next item. */
interface ItemsFrame {
  kind: 'items';
  items: readonly BeanNode[];
  next: number;
  query: QueryNode;
  wrapper: ObjectText;
  list: ObjectArrayText;
}

type Frame = BeanFrame | ItemsFrame;

function keep(capture: Capture, piece: string): void {
  if (capture.text === undefined) return;
  capture.text = capture.text.length + piece.length > PART_CHARS ? undefined : capture.text + piece;
}

function beanFrame(node: BeanNode, query: QueryNode, depth: number): BeanFrame {
  return { kind: 'bean', node, query, depth, out: new ObjectText(depth), next: -1 };
}

/** What a child of a bean is for the search: absent (not shown), a singleton (null when missing) or items. */
type ChildTarget = { single: BeanNode | undefined } | { items: BeanNode[] } | undefined;

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

/**
 * Reads a query node and everything below it. `late` is set when some key of a node is neither a
 * shaping key nor a list: it is refused only if it turns out to be the key property of a collection
 * the node meets, which the walk learns late (such an answer is sent only whole).
 */
function compile(query: Json, ctx: RenderContext, where: string, late: { value: boolean }): QueryNode {
  const node: QueryNode = { ctx: { ...ctx, shape: shapeOf(query, where), selected: new Map() }, children: [], raw: query, where, keys: new Map() };
  for (const key in query) {
    if (Object.hasOwn(query, key) && !SHAPING.has(key) && query[key] !== undefined && !Array.isArray(query[key])) late.value = true;
  }
  const children = query.children;
  if (children === undefined) return node;
  if (children === null || typeof children !== 'object' || Array.isArray(children)) {
    throw badRequest(`The property 'children' must be an object${where}.`);
  }
  const list: ChildQuery[] = [];
  for (const [name, sub] of Object.entries(children as Json)) {
    const subQuery = sub !== null && typeof sub === 'object' && !Array.isArray(sub) ? (sub as Json) : {};
    list.push({ name, query: compile(subQuery, ctx, `${where} in children.${name}`, late), text: JSON.stringify(subQuery) });
  }
  node.children = list;
  return node;
}

export class Searcher {
  constructor(
    private readonly resolver: Resolver,
    private readonly renderer: Renderer,
  ) {}

  /** The search's result as an object. */
  search(node: BeanNode, query: Json, ctx: RenderContext): Json {
    return this.object(node, compile(query, ctx, '', { value: false }));
  }

  /**
   * The search's result printed bean by bean, the same text `printJson(search(...))` gives. The
   * query is read (and refused, when wrong) before this returns.
   */
  stream(node: BeanNode, query: Json, ctx: RenderContext, parts?: SearchParts): StreamedJson {
    const late = { value: false };
    const compiled = compile(query, ctx, '', late);
    return new StreamedJson(this.text(node, compiled, parts), { whole: late.value });
  }

  /** The key of a part: the child of a server's runtime root, for its query, as this request prints it. */
  private partKey(node: BeanNode, child: ChildQuery, depth: number): string | undefined {
    const root = node.root;
    if (node.key !== '' || root.server === undefined || root.filter) return undefined;
    const { ctx } = child.query;
    return `${root.name}\n${root.server}\n${root.restricted === true}\n${ctx.version}\n${ctx.productionMode}\n${ctx.urls.href(node.path)}\n${depth}\n${child.name}\n${child.text}`;
  }

  private object(node: BeanNode, query: QueryNode): Json {
    const out = this.renderer.bean(node, query.ctx);
    for (const child of query.children) {
      const target = this.target(node, child);
      if (target === undefined) continue;
      if ('single' in target) out[child.name] = target.single ? this.object(target.single, child.query) : null;
      else out[child.name] = { items: target.items.map((item) => this.object(item, child.query)) };
    }
    return out;
  }

  /**
   * The result as text, in pieces of about `PIECE_CHARS`: a walk with a stack of its own (no
   * generator per bean), so it can stop after any bean and go on from there.
   */
  private *text(root: BeanNode, query: QueryNode, parts?: SearchParts): Generator<string, void, undefined> {
    const stack: Frame[] = [beanFrame(root, query, 0)];
    // The part being printed (one at a time: parts are children of a server's root, never nested).
    let capture: Capture | undefined;
    const done = (frame: Frame) => {
      if (capture?.frame !== frame) return;
      const { watch } = parts!;
      if (!watch.figures && !watch.volatile && capture.text !== undefined) parts!.put(capture.key, capture.text, capture.ticket);
      watch.figures ||= capture.figures;
      watch.volatile ||= capture.volatile;
      capture = undefined;
    };
    while (stack.length > 0) {
      let text = '';
      while (stack.length > 0 && text.length < PIECE_CHARS) {
        const frame = stack[stack.length - 1]!;
        let piece: string;
        if (frame.kind === 'items') {
          if (frame.next < frame.items.length) {
            piece = frame.list.before(frame.next);
            stack.push(beanFrame(frame.items[frame.next++]!, frame.query, frame.list.elementDepth));
            text += piece;
            if (capture) keep(capture, piece);
          } else {
            piece = frame.list.close() + frame.wrapper.close();
            stack.pop();
            text += piece;
            if (capture) keep(capture, piece);
            done(frame);
          }
          continue;
        }
        piece = '';
        if (frame.next === -1) {
          piece = frame.out.members(this.renderer.bean(frame.node, frame.query.ctx));
          frame.next = 0;
        }
        const child = frame.query.children[frame.next++];
        if (child === undefined) {
          piece += frame.out.close();
          stack.pop();
          text += piece;
          if (capture) keep(capture, piece);
          done(frame);
          continue;
        }
        const key = parts && !capture ? this.partKey(frame.node, child, frame.depth) : undefined;
        const kept = key === undefined ? undefined : parts!.get(key);
        if (kept !== undefined) {
          piece += frame.out.open(child.name) + kept;
          text += piece;
          continue;
        }
        const target = this.target(frame.node, child);
        if (target === undefined) {
          text += piece;
          if (capture) keep(capture, piece);
          continue;
        }
        piece += frame.out.open(child.name);
        text += piece;
        if (capture) keep(capture, piece);
        piece = '';
        let next: Frame | undefined;
        if ('single' in target) {
          if (target.single) next = beanFrame(target.single, child.query, frame.depth + 1);
          else piece = 'null';
        } else {
          // A collection is `{"items": [...]}`.
          const wrapper = new ObjectText(frame.depth + 1);
          const list = new ObjectArrayText(target.items.length, frame.depth + 2);
          piece = wrapper.open('items') + list.open();
          next = { kind: 'items', items: target.items, next: 0, query: child.query, wrapper, list };
        }
        if (key !== undefined && next !== undefined) {
          const { watch } = parts!;
          capture = { key, frame: next, text: '', ticket: parts!.ticket(), figures: watch.figures, volatile: watch.volatile };
          watch.figures = false;
          watch.volatile = false;
        }
        text += piece;
        if (capture) keep(capture, piece);
        if (next) stack.push(next);
      }
      yield text;
    }
  }

  /** The child a query asks for, as the bean has it. */
  private target(node: BeanNode, child: ChildQuery): ChildTarget {
    const { name, query } = child;
    const prop = this.resolver.child(node, name, query.ctx.version);
    if (!prop) return undefined;
    if (prop.shape === 'singleton') return { single: this.resolver.singleton(node, prop) };
    const mount = node.key === '' ? node.root.mounts?.get(name) : undefined;
    const items = mount ? this.resolver.mountedItems(mount) : this.resolver.items(node, prop);
    const keyProp = items[0]?.type.keyProp ?? 'name';
    let keys = query.keys.get(keyProp);
    if (keys === undefined && !query.keys.has(keyProp)) {
      keys = stringList(query.raw, keyProp, query.where);
      query.keys.set(keyProp, keys);
    }
    if (!keys) return { items };
    const wanted = keys;
    return { items: items.filter((item) => wanted.has(String(item.record?.values[keyProp] ?? item.path[item.path.length - 1]))) };
  }
}
