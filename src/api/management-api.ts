// The management interface as a programming interface: read, create, update, delete, invoke and
// search the bean trees of both interfaces (the management trees, the version lists, the Lifecycle
// Manager) for a caller, without HTTP. Each request is resolved in its tree; reads are rendered,
// changes go to the tree's writer (the configuration service for `edit`, the Lifecycle Manager for
// its tree), actions to the operation executor; every change is authorized and recorded in the
// audit trail. The HTTP adapter (src/http/) turns URLs and bodies into these calls.
import { deploysThrough } from '../behaviour/deployables.js';
import type { Catalog } from '../catalog/load.js';
import type { ApiVersion, OperationDef, PropDef } from '../catalog/model.js';
import { isLifecycleVersion, managementVersion } from '../catalog/versions.js';
import { DEFAULT_SESSION } from '../config/session.js';
import { type Identity, itemKey, parseReference } from '../core/identity.js';
import { evaluate, hasConditions } from '../core/preconditions.js';
import { type ProblemDetail, badRequest, invalid, isStoreFailure, methodNotAllowed, notFound, unavailable } from '../core/problems.js';
import type { Domain } from '../domain/domain.js';
import { nameProblem } from '../config/validate.js';
import type { RuntimeCollections } from '../operations/collections.js';
import type { OperationExecutor } from '../operations/executor.js';
import type { RenderContext, Renderer } from '../render/entity.js';
import { Urls } from '../render/links.js';
import { printJson } from '../render/json-text.js';
import { StreamedJson } from '../render/streamed.js';
import { type Shape, parseShape } from '../render/query.js';
import type { SearchParts, Searcher } from '../render/search.js';
import type { Task } from '../runtime/tasks.js';
import { DEPLOYMENT_COLLECTIONS, type DeploymentCollection } from '../runtime/deployments.js';
import { DEPLOYABLE_COLLECTIONS, type KeptArchives } from '../runtime/archives/kept.js';
import type { AuditNote } from '../security/audit.js';
import { authorize } from '../security/authorize.js';
import type { Authentication, Principal } from '../security/service.js';
import type { BeanNode, Resolver, Target, TreeName, TreeRoot } from '../tree/resolve.js';
import type { Address } from './address.js';
import type { Answer, Caller, View } from './caller.js';
import type { InterfaceDocuments } from './openapi.js';
import type { ReadCache, ReadTicket, ReadWatch } from './read-cache.js';
import type { Recorder } from './recorder.js';
import { type ManagementTreeName, TREE_NAMES, type Trees } from './trees.js';
import type { Change, TreeWriter, WriteContext } from './writers.js';

type Json = Record<string, unknown>;

/** Largest body of a search, in bytes: queries are small, and every reader may search. */
export const MAX_QUERY_BYTES = 64 * 1024;

/**
 * Largest body of an action's arguments, in bytes: room for a few strings at the longest a
 * configuration string may be (64 KiB), so an over-long value is named rather than cut off.
 */
export const MAX_ARGUMENTS_BYTES = 256 * 1024;

/** What a request may send, judged before it is read. */
export interface Admission {
  /** The body may be an application upload (a multipart deployment). */
  upload: boolean;
  /** The largest body the target takes, when smaller than the general limit. */
  limit?: number;
  /** What the limit is for, as a message names it. */
  limitFor?: 'search query' | "action's arguments";
}

/** An application upload as the adapter received it: its model, and where its files go. */
export interface ReceivedUpload {
  model: Json;
  /** Moves the uploaded archive and plan (when sent) to the application's own folder; their paths. */
  store(app: string): { archive?: string; plan?: string };
}

/** Reads an upload; `check` judges its model before any file of it is read. */
export type UploadReader = (check: (model: Json) => void) => Promise<ReceivedUpload>;

/** What a change carries: a JSON body, or (creating an application deployment) an upload. */
export type Input = { body?: unknown } | { upload: UploadReader };

export interface ApiParts {
  catalog: Catalog;
  domain: Domain;
  resolver: Resolver;
  renderer: Renderer;
  trees: Trees;
  /** The writers of the trees that take changes. */
  writers: Partial<Record<TreeName, TreeWriter>>;
  operations: OperationExecutor;
  collections: RuntimeCollections;
  searcher: Searcher;
  recorder: Recorder;
  /** Reads answered before, as printed, until the domain changes. */
  cache: ReadCache;
  /** Uploaded archives kept for deployments (removed when no deployment names them). */
  archives?: KeptArchives;
}

/** Where a read's answer is kept in the read cache, what its render looked at, and when it began. */
interface CacheSlot {
  key: string;
  watch: ReadWatch;
  ticket: ReadTicket;
}

/** A tree as a request sees it: its root, the segments to resolve in it, and how its URLs are made. */
interface Place {
  root: TreeRoot;
  /** The tree built again from the current state (for conditions judged inside a writer's transaction). */
  refresh: () => TreeRoot;
  segments: readonly string[];
  version: ApiVersion;
  urls: Urls;
  shape: Shape;
}

/** Trees only the administration server serves (a managed server's own listener answers 404). */
const ADMIN_ONLY_TREES: ReadonlySet<string> = new Set(['edit', 'domainConfig', 'domainRuntime']);

/** Whether a server answers requests: its state, and ready while it is RUNNING (container probes). */
export interface Readiness {
  server: string;
  state: string;
  ready: boolean;
}

/** The documents of each composed API, shared by its views (a managed server's listener). */
const DOCUMENTS = new WeakMap<ApiParts, InterfaceDocuments>();

/** How long reads go on from memory without asking a store that could not be reached again (ms). */
const STORE_RETRY_MS = 1000;

export class ManagementApi {
  /** `answering`: the managed server whose own listener this interface is served on (none: the administration server). */
  constructor(
    private readonly parts: ApiParts,
    private readonly answering?: string,
  ) {}

  /**
   * The interface as a managed server's own listener serves it: `serverRuntime` is that server's,
   * `serverConfig` the configuration it runs; the edit tree, the domain-wide trees and the
   * Lifecycle Manager are the administration server's alone.
   */
  forServer(server: string): ManagementApi {
    return new ManagementApi(this.parts, server);
  }

  /**
   * True when a read of `at` asks the running managed servers (the federated
   * `domainRuntime/serverRuntimes` of the administration server) and one of them runs: the product
   * then requires `X-Requested-By` on the read too, as its fan-out is a request of its own.
   */
  fansOut(at: Address): boolean {
    if (this.answering !== undefined || at.api !== 'appserver' || at.rest.length !== 2 || at.rest[0] !== 'domainRuntime' || at.rest[1] !== 'serverRuntimes') return false;
    const runtime = this.parts.domain.runtime;
    return runtime.runningServers().some((name) => name !== runtime.adminServerName && runtime.serverState(name) === 'RUNNING');
  }

  /** The server answering through this interface. */
  get server(): string {
    return this.answering ?? this.parts.domain.runtime.adminServerName;
  }

  /** Whether the answering server takes work: ready while RUNNING. */
  readiness(): Readiness {
    const state = this.parts.domain.runtime.serverState(this.server);
    return { server: this.server, state, ready: state === 'RUNNING' };
  }

  // ---- who ----

  /**
   * Checks a request's `Authorization` value (servers sharing a store catch up with each other's
   * users first); `address` and `path` are what the audit of a failed login names.
   */
  async authenticate(authorization: string | undefined, address: string, path: string, reading = false): Promise<Authentication> {
    const down = this.storeDown;
    // While the store is out of reach, a read asks it again at most once a second (a store that
    // does not answer at all would otherwise hold every read for the connection timeout).
    if (!(reading && down && Date.now() - down.triedAt < STORE_RETRY_MS)) {
      try {
        await this.parts.domain.sync();
        this.storeDown = undefined;
      } catch (err) {
        // A read is answered from what this server holds; a write cannot be made, and says so.
        if (!isStoreFailure(err) || !reading) throw err;
        this.storeDown = { triedAt: Date.now() };
      }
    }
    return this.parts.domain.security.authenticate(authorization, address, path);
  }

  /** Set while catching up with the store failed (servers sharing a store): reads go on from memory. */
  private storeDown: { triedAt: number } | undefined;

  /**
   * Says that a request which may change the domain is under way or was answered (any method but
   * GET and HEAD, the control interface, applications' work): reads answered before it are forgotten.
   */
  changing(): void {
    this.parts.domain.changes.changed();
  }

  /** The read cache's figures: entries, bytes held, hits and misses since start; parts of searches taken from it. */
  get readCache(): { entries: number; bytes: number; hits: number; misses: number; partHits: number } {
    const c = this.parts.cache;
    return { entries: c.size, bytes: c.heldBytes, hits: c.hits, misses: c.misses, partHits: c.partHits };
  }

  /**
   * The principal of an `Authorization` value verified before, at once; undefined when it must go
   * through `authenticate` (not seen yet, refused, locked out, or a store shared with other
   * servers, which must be caught up with first).
   */
  knownCaller(authorization: string | undefined, address: string): Principal | undefined {
    if (authorization === undefined || this.parts.domain.store.shared) return undefined;
    return this.parts.domain.security.known(authorization, address);
  }

  /** Refuses (403) a principal with no administrative role: it may not even read. */
  mayRead(caller: Pick<Caller, 'principal'>): void {
    authorize(caller.principal, { kind: 'read' });
  }

  // ---- the interface, by what a call does ----

  get(caller: Caller, at: Address, view: View): Promise<Answer> {
    return this.request('GET', caller, at, {}, view);
  }

  create(caller: Caller, at: Address, body: unknown, view: View): Promise<Answer> {
    return this.request('POST', caller, at, { body }, view, 'create');
  }

  update(caller: Caller, at: Address, body: unknown, view: View): Promise<Answer> {
    return this.request('POST', caller, at, { body }, view, 'update');
  }

  delete(caller: Caller, at: Address, view: View): Promise<Answer> {
    return this.request('DELETE', caller, at, {}, view);
  }

  invoke(caller: Caller, at: Address, args: unknown, view: View): Promise<Answer> {
    return this.request('POST', caller, at, { body: args }, view, 'invoke');
  }

  search(caller: Caller, at: Address, query: unknown, view: View): Promise<Answer> {
    return this.request('POST', caller, at, { body: query }, view, 'search');
  }

  /**
   * Judges a request before its body is read: resolves the target as `request` will, and checks
   * that the caller may write to it or invoke it (or may search), so that nobody gets a body parsed
   * for a request that is refused anyway. A refusal is recorded as the change would have been.
   */
  async admit(method: string, caller: Caller, at: Address): Promise<Admission> {
    const place = await this.place(caller, at, false, method);
    const target = this.parts.resolver.resolve(place.root, place.segments, place.version);
    const { principal } = caller;
    const none = { upload: false };
    const check = async (writer: TreeWriter, change: Change) => {
      const { action, bean } = writer.auditName(change);
      await this.parts.recorder.refusal(caller, action, bean, () => writer.authorize(principal, change));
    };
    switch (target.kind) {
      case 'bean': {
        const node = target.node;
        const writer = this.writerOf(node.root);
        if (!writer) {
          const handler = method === 'DELETE' ? this.runtimeCollection(node) : undefined;
          if (!handler) throw methodNotAllowed(method, ['GET']);
          handler.mayChange?.(principal);
          return none;
        }
        await check(writer, { kind: this.beanChange(method, node, writer), node });
        return none;
      }
      case 'collection':
      case 'absent': {
        const { owner, prop } = target;
        const writer = this.writerOf(owner.root);
        if (target.kind === 'absent' && (!writer || method !== 'POST')) {
          throw method === 'DELETE' || !writer ? notFound(prop.name) : methodNotAllowed(method, ['POST']);
        }
        if (!writer) {
          const handler = this.parts.collections.handler(owner.type, prop.name);
          if (!handler || method !== 'POST') throw methodNotAllowed(method, handler ? ['GET', 'POST'] : ['GET']);
          handler.mayChange?.(principal);
          return none;
        }
        const deployments = this.deploys(owner, prop);
        if (target.kind === 'collection' && !writer.creates(owner, prop) && !deployments) throw methodNotAllowed(method, ['GET']);
        if (method !== 'POST') throw methodNotAllowed(method, ['GET', 'POST']);
        await check(writer, { kind: 'create', owner, prop });
        return { upload: deployments };
      }
      case 'createForm':
        throw methodNotAllowed(method, ['GET']);
      case 'action': {
        if (method !== 'POST') throw methodNotAllowed(method, ['POST']);
        const { node, op } = target;
        const writer = this.writerOf(node.root);
        if (writer?.performs?.(node, op)) await check(writer, { kind: 'invoke', node, op });
        else {
          const authorized = () => authorize(principal, { kind: 'invoke', type: node.type, op });
          // Pure queries are not audited; refused changes are.
          if (op.impact === 'info') authorized();
          else await this.parts.recorder.refusal(caller, op.name, node.path.join('/'), authorized);
        }
        return { upload: false, limit: MAX_ARGUMENTS_BYTES, limitFor: "action's arguments" };
      }
      case 'search':
        // Readers may search: the read right was checked on arrival.
        if (method !== 'POST') throw methodNotAllowed(method, ['POST']);
        return { upload: false, limit: MAX_QUERY_BYTES, limitFor: 'search query' };
    }
  }

  /**
   * Any request: resolved in its tree and done as its method and what it names say (a GET reads,
   * a POST creates, updates, invokes or searches, a DELETE deletes). `expect`, when given, is what
   * the caller means to do: another kind of target is refused rather than acted on.
   */
  async request(method: string, caller: Caller, at: Address, input: Input, view: View, expect?: 'create' | 'update' | 'invoke' | 'search'): Promise<Answer> {
    const slot = (method === 'GET' || method === 'HEAD') && expect === undefined ? this.cacheSlot(caller, at, view) : undefined;
    if (slot) {
      // Locks whose time ran out are released (a change) before an earlier answer is looked up.
      const config = this.parts.domain.configService;
      if (config.anyLapsed()) await config.expireLapsed();
      // A page found too large before stays so until the domain changes.
      const refused = view.page ? this.parts.cache.refusedPage(slot.key) : undefined;
      if (refused) return { status: 200, body: undefined, tooLarge: refused };
      const hit = this.parts.cache.get(slot.key);
      if (hit) return this.tagged(caller, { body: undefined, bytes: hit.bytes, etag: hit.etag }, `'${at.rest.join('/')}'`);
    }
    // A streamed search keeps the parts of its answer that show no moving figures (the read cache's parts).
    const searchWatch = method === 'POST' && at.api === 'appserver' && view.stream === true && at.rest[at.rest.length - 1] === 'search' ? { figures: false, volatile: false } : undefined;
    const place = await this.place(caller, at, true, method, view, 'body' in input ? input.body : undefined, slot?.watch ?? searchWatch);
    const ctx: RenderContext = { urls: place.urls, version: place.version, shape: place.shape, productionMode: this.parts.domain.topology().productionMode };
    const target = this.parts.resolver.resolve(place.root, place.segments, place.version);
    if (expect && !fits(expect, target)) throw badRequest(`'${at.rest.join('/')}' is not something to ${expect === 'update' ? 'update' : expect}: it is ${targetWords(target)}.`);
    if ((method === 'GET' || method === 'HEAD') && view.query !== undefined && Object.hasOwn(view.query, 'describe')) return ok(await this.describe(target, place.version));
    const what = `'${at.rest.join('/')}'`;
    // A change's conditions are judged against the target as it is when the change is made.
    const precondition = hasConditions(caller.conditions)
      ? () => {
          evaluate(caller.conditions, this.tagOf(this.parts.resolver.resolve(place.refresh(), place.segments, place.version), ctx), false, what);
        }
      : undefined;
    return this.dispatch(method, caller, target, ctx, input, precondition ? { precondition } : {}, what, view.stream === true, slot, searchWatch);
  }

  /**
   * Where a read's answer goes in the read cache: reads of the management trees for a caller that
   * sends printed bytes. Not the audit records (every audited request adds one), nor descriptions.
   * The key holds all a body depends on besides the domain's state: the answering server, the URL
   * (path and query), the origin its links are written on, the edit session, and whether the
   * reader is an administrator (others do not see admin-only children).
   */
  private cacheSlot(caller: Caller, at: Address, view: View): CacheSlot | undefined {
    if (view.url === undefined || at.api !== 'appserver' || at.version === undefined) return undefined;
    const [tree, first] = at.rest;
    if (tree === undefined || !isManagementTree(tree) || (tree === 'domainRuntime' && first === 'auditRecords')) return undefined;
    if (view.query !== undefined && Object.hasOwn(view.query, 'describe')) return undefined;
    const reader = caller.principal.roles.has('Admin') ? 'admin' : 'reader';
    const key = `${this.answering ?? ''}\n${reader}\n${caller.session ?? DEFAULT_SESSION}\n${view.origin}\n${view.url}`;
    return { key, watch: { figures: false, volatile: false }, ticket: this.parts.cache.ticket() };
  }

  /** A read rendered now: printed and kept in the read cache when it has a place there. */
  private read(caller: Caller, read: { body: unknown; etag: string }, what: string, slot: CacheSlot | undefined): Answer {
    if (!slot) return this.tagged(caller, read, what);
    const bytes = Buffer.from(printJson(read.body), 'utf8');
    this.parts.cache.put(slot.key, { bytes, etag: read.etag }, slot.watch, slot.ticket);
    return this.tagged(caller, { ...read, bytes }, what);
  }

  /**
   * A collection printed item by item, kept in the read cache once its last piece was printed, when
   * it has a place there (a body larger than the cache takes is not gathered).
   */
  private streamedRead(body: StreamedJson, slot: CacheSlot | undefined): StreamedJson {
    if (!slot) return body;
    const { cache } = this.parts;
    const tag = body.options.tag;
    const limit = cache.largestEntry;
    function* gathered(pieces: Generator<string, void, undefined>): Generator<string, void, undefined> {
      let text: string | undefined = '';
      for (const piece of pieces) {
        if (text !== undefined) text = text.length + piece.length > limit ? undefined : text + piece;
        yield piece;
      }
      if (text !== undefined && tag) cache.put(slot!.key, { bytes: Buffer.from(text, 'utf8'), etag: tag.value() }, slot!.watch, slot!.ticket);
    }
    const kept = new StreamedJson(gathered(body.pieces), body.options);
    kept.notModified = body.notModified;
    kept.refused = (why) => cache.putRefusedPage(slot.key, why, slot.watch, slot.ticket);
    return kept;
  }

  /** The entity tag of what a target names now: a bean (an action's bean), a collection; undefined for the rest. */
  private tagOf(target: Target, ctx: RenderContext): string | undefined {
    switch (target.kind) {
      case 'bean':
      case 'action':
        return this.parts.renderer.etag(target.node, ctx);
      case 'collection':
        return this.parts.renderer.collectionEtag(target.owner, target.prop, ctx, target.mount);
      default:
        return undefined;
    }
  }

  /** A read answered with its entity tag, or 304 when the caller's If-None-Match names it. */
  private tagged(caller: Caller, read: { body: unknown; etag: string; bytes?: Buffer }, what: string): Answer {
    const headers = { etag: read.etag };
    if (evaluate(caller.conditions, read.etag, true, what) === 'not-modified') return { status: 304, body: undefined, headers };
    return { status: 200, body: read.body, headers, ...(read.bytes ? { bytes: read.bytes } : {}) };
  }

  /** The product version of the domain served (its catalog's). */
  get productVersion(): string {
    return this.parts.catalog.productVersion;
  }

  /**
   * The OpenAPI document of the management version `segment` names (`latest`, `12.2.1.0`...), or of
   * one of its trees, built on first use and kept; `sessionHeader` is the header that names an edit
   * session, `pause` lets other requests be answered while it is built. A managed server's own
   * listener describes only the trees it serves.
   */
  async openapi(segment: string, sessionHeader: string, options: { tree?: string; pause?: () => Promise<void> } = {}): Promise<Record<string, unknown>> {
    const version = managementVersion(segment, this.parts.catalog.productVersion);
    if (!version) throw notFound(segment);
    // The documents (and what describes the catalog) are loaded by the first request for one.
    const { InterfaceDocuments } = await import('./openapi.js');
    let documents = DOCUMENTS.get(this.parts);
    if (!documents) {
      documents = new InterfaceDocuments({
        catalog: this.parts.catalog,
        collections: this.parts.collections,
        writers: this.parts.writers,
        deploys: (owner, prop) => deploysThrough(this.parts.domain.behaviours, owner, prop.name),
        sessionHeader,
      });
      DOCUMENTS.set(this.parts, documents);
    }
    const omit = this.answering === undefined ? undefined : new Set([...ADMIN_ONLY_TREES, 'lifecycle']);
    const doc = documents.openapi(version, { ...(options.tree !== undefined ? { tree: options.tree } : {}), ...(omit ? { omit } : {}) }, options.pause);
    if (!doc) throw notFound(options.tree ?? segment);
    return doc;
  }

  /** What a URL names, described from the catalog with the rights its tree gives (`?describe`). */
  private async describe(target: Target, version: ApiVersion): Promise<Record<string, unknown>> {
    const { describeTarget } = await import('./describe.js');
    return describeTarget(
      {
        catalog: this.parts.catalog,
        collections: this.parts.collections,
        writerOf: (node) => this.writerOf(node.root),
        deploys: (owner, prop) => this.deploys(owner, prop),
      },
      target,
      version,
    );
  }

  // ---- applications running on the administration server ----

  /** The application whose context root a path's first segment names, when it runs on this server. */
  application(first: string): string | undefined {
    const runtime = this.parts.domain.runtime;
    const tree = runtime.serverTrees.get(this.server);
    return tree?.bean(`applicationRuntimes/${encodeURIComponent(first)}`) ? first : undefined;
  }

  /** What an application at its context root says of itself. */
  applicationInfo(app: string): Json {
    const runtime = this.parts.domain.runtime;
    return { application: app, server: this.server, state: runtime.appIntendedState(app) };
  }

  /** The connection pools of the answering server's applications. */
  get pools() {
    const runtime = this.parts.domain.runtime;
    return { server: this.server, pools: runtime.pools };
  }

  // ---- inside ----

  /**
   * The tree a request addresses. `full` (answering, not judging before the body is read): edit
   * locks that timed out are released first, and an administrator's reads of the domain runtime
   * get the audit records.
   */
  private async place(caller: Caller, at: Address, full: boolean, method: string, view?: View, body?: unknown, watch?: ReadWatch): Promise<Place> {
    const { trees, domain } = this.parts;
    const origin = view?.origin ?? 'http://localhost';
    const shape = full && view?.query ? parseShape(view.query) : {};
    if (at.api === 'lifecycle') {
      if (this.answering !== undefined) throw notFound('lifecycle');
      if (at.prefix.length > 0) throw notFound(at.prefix[0]!);
      const base = '/management/lifecycle';
      if (at.version === undefined) return fixed({ root: trees.versions('lifecycle'), segments: [], version: 'current', urls: new Urls(origin, base, true), shape });
      if (!isLifecycleVersion(at.version)) throw notFound(at.version);
      const root = await trees.lifecycle(at.rest, method === 'GET' || method === 'HEAD');
      return fixed({ root, segments: at.rest, version: 'current', urls: new Urls(origin, `${base}/${encodeURIComponent(at.version)}`), shape });
    }
    if (at.partition !== undefined && !this.partitionExists(at.partition)) throw notFound(at.partition);
    const base = `${at.prefix.map((s) => `/${s}`).join('')}/management/appserver`;
    if (at.version === undefined) return fixed({ root: trees.versions('appserver'), segments: [], version: 'current', urls: new Urls(origin, base, true), shape });
    const version = managementVersion(at.version, this.parts.catalog.productVersion);
    if (!version) throw notFound(at.version);
    const urls = new Urls(origin, `${base}/${encodeURIComponent(at.version)}`);
    const [tree, ...segments] = at.rest;
    if (tree === undefined || !isManagementTree(tree)) {
      // The version itself and currentUser.
      return fixed({ root: trees.version(version, caller.principal.user, at.partition, caller.principal.roles), segments: at.rest, version, urls, shape });
    }
    if (this.answering !== undefined) {
      if (ADMIN_ONLY_TREES.has(tree)) throw notFound(tree);
      // Between a server's stop and its listener's close, its runtime is gone already.
      const state = domain.runtime.serverState(this.answering);
      if (!domain.runtime.serverTrees.has(this.answering)) throw unavailable(`The server '${this.answering}' is ${state}: it does not answer.`, 5);
    }
    const scope = {
      ...(at.partition !== undefined ? { partition: at.partition } : {}),
      ...(this.answering !== undefined ? { server: this.answering } : {}),
      session: caller.session ?? DEFAULT_SESSION,
      ...(watch ? { watch } : {}),
    };
    const admin = caller.principal.roles.has('Admin');
    // Edit locks whose time ran out are released before anyone sees them.
    if (full) await domain.configService.expireLapsed();
    const audit =
      tree === 'domainRuntime' && admin && readsAudit(segments, body)
        ? await domain.security.audit.view({ before: beforeParam(view?.query), id: segments[1] !== undefined ? Number(segments[1]) : undefined })
        : undefined;
    const build = () => trees.root(tree, { ...scope, restricted: !admin, ...(audit ? { audit } : {}) });
    return { root: build(), refresh: build, segments, version, urls, shape };
  }

  private writerOf(root: TreeRoot): TreeWriter | undefined {
    return root.editable ? this.parts.writers[root.name] : undefined;
  }

  /** What a POST or DELETE of a bean does in a tree that takes changes (405 if it does nothing). */
  private beanChange(method: string, node: BeanNode, writer: TreeWriter): 'update' | 'delete' {
    if (method === 'POST' && writer.updates(node)) return 'update';
    if (method === 'DELETE' && writer.deletes(node)) return 'delete';
    throw methodNotAllowed(method, ['GET', ...(writer.updates(node) ? ['POST'] : []), ...(writer.deletes(node) ? ['DELETE'] : [])]);
  }

  private async dispatch(method: string, caller: Caller, target: Target, ctx: RenderContext, input: Input, conditions: { precondition?: () => void }, what: string, stream: boolean, slot?: CacheSlot, searchWatch?: ReadWatch): Promise<Answer> {
    const { renderer, recorder } = this.parts;
    const reads = method === 'GET' || method === 'HEAD';
    const write: WriteContext = { principal: caller.principal, session: caller.session ?? DEFAULT_SESSION, ...conditions };
    const body = 'body' in input ? input.body : undefined;
    // Judged once the caller is known to be allowed the change, right before it is made.
    const check = conditions.precondition ?? (() => {});
    switch (target.kind) {
      case 'bean': {
        const node = target.node;
        if (reads) return this.read(caller, renderer.beanWithTag(node, ctx), what, slot);
        const writer = this.writerOf(node.root);
        if (!writer) {
          const handler = method === 'DELETE' ? this.runtimeCollection(node) : undefined;
          if (!handler) throw methodNotAllowed(method, ['GET']);
          return recorder.change(caller, 'delete', node.path.join('/'), body, async () => {
            check();
            await handler.remove(node, caller.principal);
            return ok({});
          });
        }
        const kind = this.beanChange(method, node, writer);
        return this.change(caller, writer, { kind, node }, body, async () => {
          check();
          if (kind === 'update') {
            await writer.update(node, bodyObject(body), write);
            return ok({});
          }
          if (this.undeploys(node)) return this.undeploy(caller, node, ctx, write);
          await writer.delete(node, write);
          return ok({});
        });
      }
      case 'collection': {
        const { owner, prop } = target;
        if (reads && stream && method === 'GET') {
          // Printed item by item; the tag, taken as the items are, is judged before the body is sent.
          const body = this.streamedRead(renderer.collectionStream(owner, prop, target.path, ctx, target.mount), slot);
          body.notModified = (tag) => evaluate(caller.conditions, tag, true, what) === 'not-modified';
          return ok(body);
        }
        if (reads) {
          return this.read(caller, renderer.collectionWithTag(owner, prop, target.path, ctx, target.mount), what, slot);
        }
        const writer = this.writerOf(owner.root);
        if (!writer) {
          const handler = this.parts.collections.handler(owner.type, prop.name);
          if (!handler || method !== 'POST') throw methodNotAllowed(method, handler ? ['GET', 'POST'] : ['GET']);
          return recorder.change(caller, 'create', target.path.join('/'), body, async () => {
            check();
            const identity = await handler.create(owner, bodyObject(body), caller.principal);
            return { status: 201, body: {}, headers: { location: ctx.urls.href([...owner.root.base, ...identity]) } };
          });
        }
        if (!writer.creates(owner, prop) && !this.deploys(owner, prop)) throw methodNotAllowed(method, ['GET']);
        if (method === 'POST') return this.createIn(caller, writer, owner, prop, ctx, write, input);
        throw methodNotAllowed(method, ['GET', 'POST']);
      }
      case 'absent': {
        const writer = this.writerOf(target.owner.root);
        if (!writer || method !== 'POST') throw method === 'GET' || method === 'DELETE' || !writer ? notFound(target.prop.name) : methodNotAllowed(method, ['POST']);
        return this.createIn(caller, writer, target.owner, target.prop, ctx, write, input);
      }
      case 'createForm': {
        if (!reads) throw methodNotAllowed(method, ['GET']);
        // A form has no state of its own to compare: conditions on it are refused as on anything without a tag.
        evaluate(caller.conditions, undefined, true, what);
        const type = this.parts.catalog.type(target.prop.creators[0] ?? target.prop.javaType);
        return ok(renderer.createForm(target.owner, target.prop, target.path, type, ctx));
      }
      case 'action': {
        if (method !== 'POST') throw methodNotAllowed(method, ['POST']);
        const { node, op } = target;
        const writer = this.writerOf(node.root);
        if (writer?.invoke && writer.performs?.(node, op)) {
          const perform = writer.invoke.bind(writer);
          return this.change(caller, writer, { kind: 'invoke', node, op }, body, async () => {
            check();
            await perform(node, op, bodyObject(body), write);
            return ok({});
          });
        }
        return this.invokeOperation(caller, node, op, ctx, body, conditions.precondition);
      }
      case 'search':
        if (method !== 'POST') throw methodNotAllowed(method, ['POST']);
        // A search's answer is made for its query; it has no entity tag to compare.
        evaluate(caller.conditions, undefined, false, what);
        const query = bodyObject(body, 'search query');
        if (!stream) return ok(this.parts.searcher.search(target.node, query, ctx));
        const { cache } = this.parts;
        const parts: SearchParts | undefined = searchWatch && {
          watch: searchWatch,
          get: (key) => cache.getPart(key),
          ticket: () => cache.ticket(),
          put: (key, text, ticket) => cache.putPart(key, text, ticket as ReadTicket),
        };
        return ok(this.parts.searcher.stream(target.node, query, ctx, parts));
    }
  }

  /** The handler that deletes a runtime collection item, when its collection has one. */
  private runtimeCollection(node: BeanNode) {
    const owner = this.collectionOwner(node);
    return owner && node.via ? this.parts.collections.handler(owner.type, node.via.name) : undefined;
  }

  /** The bean owning the collection `node` is an item of (undefined when it is no item). */
  private collectionOwner(node: BeanNode): BeanNode | undefined {
    if (!node.via || node.via.shape !== 'collection') return undefined;
    // An item lies two segments below its owner, or as many as its collection's address says.
    const depth = node.via.address?.length ?? 2;
    const owner = this.parts.resolver.resolve(node.root, node.identity.slice(0, -depth), 'legacy');
    return owner.kind === 'bean' ? owner.node : undefined;
  }

  /** Whether the deployment service makes the items of the edit tree's collection (an upload, a progress object). */
  private deploys(owner: BeanNode, prop: PropDef): boolean {
    return owner.root.name === 'edit' && deploysThrough(this.parts.domain.behaviours, owner.type, prop.name);
  }

  /** Whether deleting the edit tree's bean undeploys it through the deployment service. */
  private undeploys(node: BeanNode): boolean {
    if (node.root.name !== 'edit') return false;
    const owner = this.collectionOwner(node);
    return owner !== undefined && node.via !== undefined && this.deploys(owner, node.via);
  }

  /** Runs a change of a tree through its writer: recorded in the audit trail, authorized first. */
  private change(caller: Caller, writer: TreeWriter, change: Change, body: unknown, run: (note: AuditNote) => Promise<Answer>): Promise<Answer> {
    const { action, bean } = writer.auditName(change);
    return this.parts.recorder.change(caller, action, bean, body, async (note) => {
      writer.authorize(caller.principal, change);
      return run(note);
    });
  }

  private createIn(caller: Caller, writer: TreeWriter, owner: BeanNode, prop: PropDef, ctx: RenderContext, write: WriteContext, input: Input): Promise<Answer> {
    return this.change(caller, writer, { kind: 'create', owner, prop }, 'body' in input ? input.body : undefined, async () => {
      write.precondition?.();
      if (this.deploys(owner, prop)) return this.deploy(caller, owner, prop, ctx, write, input);
      if ('upload' in input) throw badRequest(`'${prop.name}' takes no upload; send its properties as JSON.`);
      const identity = await writer.create(owner, prop, bodyObject(input.body), write);
      return { status: 201, body: {}, headers: { location: ctx.urls.href([...owner.root.base, ...identity]) } };
    });
  }

  private async invokeOperation(caller: Caller, node: BeanNode, op: OperationDef, ctx: RenderContext, body: unknown, precondition?: () => void): Promise<Answer> {
    const run = async (audit: AuditNote) => {
      const call = {
        node,
        op,
        principal: caller.principal,
        session: caller.session ?? DEFAULT_SESSION,
        ctx,
        prefer: caller.prefer,
        audit,
        ...(caller.signal ? { signal: caller.signal } : {}),
        ...(precondition ? { precondition } : {}),
      };
      const since = this.parts.domain.writesBegun;
      const answer = await this.parts.operations.invoke(call, bodyObject(body, 'action arguments'));
      // What the action changed (states, tasks) is stored before it is acknowledged; an action
      // that stored its change itself (an activation) stands, and what follows from it is retried.
      if (!this.parts.operations.storesItself(op)) await this.parts.domain.flushStored(since);
      return answer;
    };
    // Queries change nothing: only actions are recorded.
    return op.impact === 'info' ? run({}) : this.parts.recorder.change(caller, op.name, node.path.join('/'), body, run);
  }

  // ---- application deployments ----

  /** What is wrong with a deployment's model (its name, targets, a name already deployed). */
  private modelProblems(model: Json, what: string): ProblemDetail[] {
    const { name, targets } = model;
    const problems: ProblemDetail[] = [];
    const nameIssue = nameProblem(name);
    if (nameIssue) problems.push({ path: 'name', detail: `The name of the ${what} ${nameIssue}.` });
    const refs = targets === undefined ? [] : Array.isArray(targets) ? targets.map(parseReference) : [undefined];
    if (refs.some((r) => r === undefined)) problems.push({ path: 'targets', detail: 'The targets must be references such as [{"identity": ["servers", "AdminServer"]}].' });
    const holder = problems.length === 0 ? this.parts.domain.deployments.holder(String(name)) : undefined;
    if (holder) problems.push({ path: 'name', detail: `${holder} named '${String(name)}' is already deployed.` });
    return problems;
  }

  /** Deploys an application or a library from a JSON model naming a path on the server, or from an upload. */
  private async deploy(caller: Caller, owner: BeanNode, prop: PropDef, ctx: RenderContext, write: WriteContext, input: Input): Promise<Answer> {
    const collection = prop.name as DeploymentCollection;
    const what = DEPLOYMENT_COLLECTIONS[collection] ?? 'deployment';
    const upload: ReceivedUpload =
      'upload' in input
        ? await input.upload((model) => {
            const problems = this.modelProblems(model, what);
            if (problems.length > 0) throw invalid(problems);
          })
        : { model: bodyObject(input.body), store: () => ({}) };
    const { name, sourcePath, targets, planPath, ...properties } = upload.model;
    const problems = this.modelProblems(upload.model, what);
    if (problems.length > 0) throw invalid(problems);
    const app = String(name);
    const stored = upload.store(app);
    const kept = [stored.archive, stored.plan].filter((p): p is string => p !== undefined);
    // What was stored stays while the deployment is made, and goes if it is refused.
    const release = this.parts.archives?.hold(kept);
    let made: Awaited<ReturnType<Domain['deployments']['deploy']>>;
    try {
      const source = stored.archive ?? sourcePath;
      if (typeof source !== 'string' || source === '') {
        throw invalid([{ path: 'sourcePath', detail: "A deployment needs a 'sourcePath': a path on the server, or the archive as the multipart part 'sourcePath'." }]);
      }
      const refs = targets === undefined ? [] : (targets as unknown[]).map(parseReference);
      const plan = stored.plan ?? planPath;
      made = await this.parts.domain.deployments.deploy(write.principal.user, write.session, {
        collection,
        name: app,
        sourcePath: source,
        targets: refs as string[][],
        planPath: typeof plan === 'string' ? plan : undefined,
        finalState: 'STATE_ACTIVE',
        properties,
      });
    } catch (err) {
      release?.();
      this.parts.archives?.remove(kept, referencedArchives(this.parts.domain));
      throw err;
    }
    release?.();
    const { identity, task } = made;
    // The deployment is in the configuration (or the caller's session) already: it stands even if
    // the store refuses its progress object for a moment (that write is retried).
    await this.parts.domain.flush();
    const location = ctx.urls.href([...owner.root.base, ...identity]);
    return this.progressAnswer(caller, task, ctx, { status: 201, body: {}, headers: { location } });
  }

  private async undeploy(caller: Caller, node: BeanNode, ctx: RenderContext, write: WriteContext): Promise<Answer> {
    const name = node.identity[node.identity.length - 1]!;
    const task = await this.parts.domain.deployments.undeploy(write.principal.user, write.session, name, node.via?.name as DeploymentCollection);
    await this.parts.domain.flush();
    return this.progressAnswer(caller, task, ctx, ok({}));
  }

  /** `done` when there is no progress object or it completed within the caller's wait; else 202 with it. */
  private async progressAnswer(caller: Caller, task: Task | undefined, ctx: RenderContext, done: Answer): Promise<Answer> {
    const { operations, trees } = this.parts;
    if (!task || (await operations.settled(task, caller.prefer, caller.signal))) return done;
    return { status: 202, body: operations.taskEntity(task, trees.root('domainRuntime', {}), ctx), headers: { location: ctx.urls.href(['domainRuntime', ...task.identity]) } };
  }

  private partitionExists(name: string): boolean {
    return this.parts.domain.topology().partitions().some((p) => p.name === name);
  }
}

const ok = (body: unknown): Answer => ({ status: 200, body });

/** A place whose tree is not built again for a change (it is read afresh for each request anyway). */
function fixed(place: Omit<Place, 'refresh'>): Place {
  return { ...place, refresh: () => place.root };
}

/** The body of a change, which must be a JSON object (absent: an empty one). */
export function bodyObject(body: unknown, what = 'request body'): Json {
  if (body === undefined) return {};
  if (body === null) throw badRequest(`The ${what} is null; send a JSON object (at least {}).`);
  if (typeof body !== 'object' || Array.isArray(body)) throw badRequest(`The ${what} must be a JSON object.`);
  return body as Json;
}

function isManagementTree(segment: string): segment is ManagementTreeName {
  return (TREE_NAMES as readonly string[]).includes(segment);
}

/** Whether what a caller means to do fits what the address names. */
function fits(expect: 'create' | 'update' | 'invoke' | 'search', target: Target): boolean {
  switch (expect) {
    case 'create':
      return target.kind === 'collection' || target.kind === 'absent';
    case 'update':
      return target.kind === 'bean';
    case 'invoke':
      return target.kind === 'action';
    case 'search':
      return target.kind === 'search';
  }
}

function targetWords(target: Target): string {
  switch (target.kind) {
    case 'bean':
      return 'a bean';
    case 'collection':
      return 'a collection';
    case 'absent':
      return 'a child that does not exist yet';
    case 'createForm':
      return 'a create form';
    case 'action':
      return 'an action';
    case 'search':
      return 'a search';
  }
}

/** Whether a domain runtime request shows audit records (their newest page is read first). */
function readsAudit(segments: readonly string[], body: unknown): boolean {
  if (segments[0] === 'auditRecords') return true;
  if (segments[0] !== 'search' || segments.length !== 1 || body === null || typeof body !== 'object') return false;
  const children = (body as { children?: unknown }).children;
  return children !== null && typeof children === 'object' && Object.hasOwn(children, 'auditRecords');
}

/** `?before=<id>`: the audit records older than that one. */
function beforeParam(query: Record<string, unknown> | undefined): number | undefined {
  const raw = query?.before;
  if (raw === undefined) return undefined;
  const n = typeof raw === 'string' && /^[1-9][0-9]{0,15}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n)) throw badRequest(`The query parameter 'before' must be the id of an audit record (a positive integer), not ${JSON.stringify(raw).slice(0, 60)}.`, 'before');
  return n;
}

export type { Identity };

/** Paths of the archives and plans deployments name: the active configuration's and every edit session's. */
export function referencedArchives(domain: Domain): Set<string> {
  const out = new Set<string>();
  const add = (values: Record<string, unknown> | undefined) => {
    if (!values) return;
    for (const v of [values.sourcePath, values.planPath]) if (typeof v === 'string' && v !== '') out.add(v);
  };
  // The configuration's own lists of its deployments' records (no key looked up for each of 50,000
  // applications, and no topology made to list them as beans of their own).
  const config = domain.configService.config;
  for (const collection of DEPLOYABLE_COLLECTIONS) {
    const records = config.itemRecords(collection) ?? config.itemNames(collection).map((name) => config.bean(itemKey(collection, name)));
    for (const record of records) add(record?.values);
    for (const session of domain.configService.allSessions()) {
      if (!session.hasChanges) continue;
      for (const name of session.itemNames(collection)) add(session.bean(itemKey(collection, name))?.values);
    }
  }
  return out;
}
