// Requests under /management/appserver and /management/lifecycle: the version lists, a version
// with currentUser, the five bean trees and the Lifecycle Manager's resources. Each request is
// resolved in its tree and dispatched by what the resolver finds and the HTTP method; changes go
// to the tree's writer (the configuration service for `edit`, the Lifecycle Manager for its tree).
import { badRequest, methodNotAllowed, notFound } from '../core/problems.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Catalog } from '../catalog/load.js';
import type { ApiVersion, OperationDef, PropDef } from '../catalog/model.js';
import type { Domain } from '../domain/domain.js';
import type { RenderContext, Renderer } from '../render/entity.js';
import { Urls } from '../render/links.js';
import { type Shape, parseShape } from '../render/query.js';
import type { Resolver, Target, TreeName, TreeRoot } from '../tree/resolve.js';
import { type ManagementTreeName, TREE_NAMES, type Trees } from '../api/trees.js';
import type { Change, TreeWriter, WriteContext } from '../api/writers.js';
import type { RuntimeCollections } from '../operations/collections.js';
import type { OperationExecutor } from '../operations/executor.js';
import type { Searcher } from '../render/search.js';
import type { DeployRequests } from './deploy-requests.js';
import { DEFAULT_SESSION } from '../config/session.js';
import { authorize } from '../security/authorize.js';
import type { BeanNode } from '../tree/resolve.js';
import type { AuditNote } from '../security/audit.js';
import { auditRefusal, audited, clientGone } from './audit-request.js';
import { MAX_ARGUMENTS_BYTES, MAX_QUERY_BYTES, bodyObject } from './body.js';
import { originOf } from './origin.js';
import type { RequestPath } from './request-path.js';
import { sendJson } from './send.js';
import { isLifecycleVersion, managementVersion } from '../catalog/versions.js';
import { deploysThrough } from '../behaviour/deployables.js';

export interface ManagementDependencies {
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
  deploys: DeployRequests;
}

/** Request header naming the edit session a request works in. */
export const SESSION_HEADER = 'appserver.edit.session';

/** A tree as a request sees it: its root, the segments to resolve in it, and how its URLs are made. */
interface View {
  root: TreeRoot;
  segments: readonly string[];
  version: ApiVersion;
  urls: Urls;
  /** The query's fields and links parameters (read only when answering). */
  shape: Shape;
}

export class ManagementHandler {
  constructor(private readonly deps: ManagementDependencies) {}

  async handle(request: FastifyRequest, reply: FastifyReply, path: RequestPath): Promise<FastifyReply> {
    const view = await this.view(request, path, true);
    const ctx: RenderContext = { urls: view.urls, version: view.version, shape: view.shape, productionMode: this.deps.domain.topology().productionMode };
    const target = this.deps.resolver.resolve(view.root, view.segments, view.version);
    return this.dispatch(request, reply, target, ctx, sessionOf(request));
  }

  /**
   * Judges a request before its body is read: resolves the target as `handle` will, and checks that
   * the caller may write to it or invoke it (or may search), so that nobody gets a body parsed for
   * a request that is refused anyway. Says whether the body may be an application upload, and the
   * largest body the target takes when it is smaller than the general limit.
   */
  async preflight(request: FastifyRequest, path: RequestPath): Promise<{ upload: boolean; limit?: number }> {
    const method = request.method;
    const view = await this.view(request, path, false);
    const target = this.deps.resolver.resolve(view.root, view.segments, view.version);
    const principal = request.principal;
    const none = { upload: false };
    /** Runs the writer's check; a refusal is audited as the change would have been. */
    const check = (writer: TreeWriter, change: Change) => {
      const { action, bean } = writer.auditName(change);
      auditRefusal(request, action, bean, () => writer.authorize(principal, change));
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
        const kind = this.beanChange(method, node, writer);
        check(writer, { kind, node });
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
          const handler = this.deps.collections.handler(owner.type, prop.name);
          if (!handler || method !== 'POST') throw methodNotAllowed(method, handler ? ['GET', 'POST'] : ['GET']);
          handler.mayChange?.(principal);
          return none;
        }
        const deployments = this.deploys(owner, prop);
        if (target.kind === 'collection' && !writer.creates(owner, prop) && !deployments) throw methodNotAllowed(method, ['GET']);
        if (method !== 'POST') throw methodNotAllowed(method, ['GET', 'POST']);
        check(writer, { kind: 'create', owner, prop });
        return { upload: deployments };
      }
      case 'createForm':
        throw methodNotAllowed(method, ['GET']);
      case 'action': {
        if (method !== 'POST') throw methodNotAllowed(method, ['POST']);
        const { node, op } = target;
        const writer = this.writerOf(node.root);
        if (writer?.performs?.(node, op)) check(writer, { kind: 'invoke', node, op });
        else {
          const authorized = () => authorize(principal, { kind: 'invoke', type: node.type, op });
          // Pure queries are not audited; refused changes are.
          if (op.impact === 'info') authorized();
          else auditRefusal(request, op.name, node.path.join('/'), authorized);
        }
        return { upload: false, limit: MAX_ARGUMENTS_BYTES };
      }
      case 'search':
        // Readers may search: the read right was checked on arrival.
        if (method !== 'POST') throw methodNotAllowed(method, ['POST']);
        return { upload: false, limit: MAX_QUERY_BYTES };
    }
  }

  /**
   * The tree a request addresses. `full` (answering, not judging before the body is read): edit
   * locks that timed out are released first, and an administrator's reads of the domain runtime
   * get the audit records.
   */
  private async view(request: FastifyRequest, path: RequestPath, full: boolean): Promise<View> {
    const { trees, domain } = this.deps;
    const origin = originOf(request);
    const shapeOf = () => (full ? parseShape(request.query as Record<string, unknown>) : {});
    if (path.api === 'lifecycle') {
      if (path.prefix.length > 0) throw notFound(path.prefix[0]!);
      const shape = shapeOf();
      const base = '/management/lifecycle';
      if (path.version === undefined) return { root: trees.versions('lifecycle'), segments: [], version: 'current', urls: new Urls(origin, base, true), shape };
      if (!isLifecycleVersion(path.version)) throw notFound(path.version);
      const root = await trees.lifecycle(path.rest, request.method === 'GET' || request.method === 'HEAD');
      const urls = new Urls(origin, `${base}/${encodeURIComponent(path.version)}`);
      return { root, segments: path.rest, version: 'current', urls, shape };
    }
    if (path.partition !== undefined && !this.partitionExists(path.partition)) throw notFound(path.partition);
    const shape = shapeOf();
    const base = `${path.prefix.map((s) => `/${s}`).join('')}/management/appserver`;
    if (path.version === undefined) return { root: trees.versions('appserver'), segments: [], version: 'current', urls: new Urls(origin, base, true), shape };
    const version = managementVersion(path.version);
    if (!version) throw notFound(path.version);
    const urls = new Urls(origin, `${base}/${encodeURIComponent(path.version)}`);
    const [tree, ...segments] = path.rest;
    if (tree === undefined || !isManagementTree(tree)) {
      // The version itself and currentUser.
      return { root: trees.version(version, request.principal.user, path.partition), segments: path.rest, version, urls, shape };
    }
    const session = sessionOf(request);
    const scope = { ...(path.partition !== undefined ? { partition: path.partition } : {}), session };
    if (!full) return { root: trees.root(tree, scope), segments, version, urls, shape };
    const admin = request.principal.roles.has('Admin');
    // Edit locks whose time ran out are released before anyone sees them.
    await domain.configService.expireLapsed();
    const audit =
      tree === 'domainRuntime' && admin && readsAudit(segments, request.body)
        ? await domain.security.audit.view({ before: beforeParam(request.query), id: segments[1] !== undefined ? Number(segments[1]) : undefined })
        : undefined;
    return { root: trees.root(tree, { ...scope, restricted: !admin, ...(audit ? { audit } : {}) }), segments, version, urls, shape };
  }

  private writerOf(root: TreeRoot): TreeWriter | undefined {
    return root.editable ? this.deps.writers[root.name] : undefined;
  }

  /** What a POST or DELETE of a bean does in a tree that takes changes (405 if it does nothing). */
  private beanChange(method: string, node: BeanNode, writer: TreeWriter): 'update' | 'delete' {
    if (method === 'POST' && writer.updates(node)) return 'update';
    if (method === 'DELETE' && writer.deletes(node)) return 'delete';
    throw methodNotAllowed(method, ['GET', ...(writer.updates(node) ? ['POST'] : []), ...(writer.deletes(node) ? ['DELETE'] : [])]);
  }

  private async dispatch(request: FastifyRequest, reply: FastifyReply, target: Target, ctx: RenderContext, session: string): Promise<FastifyReply> {
    const { renderer } = this.deps;
    const method = request.method;
    const reads = method === 'GET' || method === 'HEAD';
    const write: WriteContext = { principal: request.principal, session };
    switch (target.kind) {
      case 'bean': {
        const node = target.node;
        if (reads) return sendJson(reply, 200, renderer.bean(node, ctx));
        const writer = this.writerOf(node.root);
        if (!writer) {
          const handler = method === 'DELETE' ? this.runtimeCollection(node) : undefined;
          if (!handler) throw methodNotAllowed(method, ['GET']);
          return this.audited(request, 'delete', node.path, async () => {
            await handler.remove(node, request.principal);
            return sendJson(reply, 200, {});
          });
        }
        const kind = this.beanChange(method, node, writer);
        return this.change(request, writer, { kind, node }, async () => {
          if (kind === 'update') {
            await writer.update(node, bodyObject(request.body), write);
            return sendJson(reply, 200, {});
          }
          if (this.undeploys(node)) return this.deps.deploys.remove(request, reply, node, ctx, session);
          await writer.delete(node, write);
          return sendJson(reply, 200, {});
        });
      }
      case 'collection': {
        const { owner, prop } = target;
        if (reads) return sendJson(reply, 200, renderer.collection(owner, prop, target.path, ctx, target.mount));
        const writer = this.writerOf(owner.root);
        if (!writer) {
          const handler = this.deps.collections.handler(owner.type, prop.name);
          if (!handler || method !== 'POST') throw methodNotAllowed(method, handler ? ['GET', 'POST'] : ['GET']);
          return this.audited(request, 'create', target.path, async () => {
            const identity = await handler.create(owner, bodyObject(request.body), request.principal);
            return sendJson(reply, 201, {}, { location: ctx.urls.href([...owner.root.base, ...identity]) });
          });
        }
        if (!writer.creates(owner, prop) && !this.deploys(owner, prop)) throw methodNotAllowed(method, ['GET']);
        if (method === 'POST') return this.create(request, reply, writer, owner, prop, ctx, write);
        throw methodNotAllowed(method, ['GET', 'POST']);
      }
      case 'absent': {
        const writer = this.writerOf(target.owner.root);
        if (!writer || method !== 'POST') throw method === 'GET' || method === 'DELETE' || !writer ? notFound(target.prop.name) : methodNotAllowed(method, ['POST']);
        return this.create(request, reply, writer, target.owner, target.prop, ctx, write);
      }
      case 'createForm': {
        onlyGet(request);
        const type = this.deps.catalog.type(target.prop.creators[0] ?? target.prop.javaType);
        return sendJson(reply, 200, renderer.createForm(target.owner, target.prop, target.path, type, ctx));
      }
      case 'action': {
        if (method !== 'POST') throw methodNotAllowed(method, ['POST']);
        const { node, op } = target;
        const writer = this.writerOf(node.root);
        if (writer?.invoke && writer.performs?.(node, op)) {
          const perform = writer.invoke.bind(writer);
          return this.change(request, writer, { kind: 'invoke', node, op }, async () => {
            await perform(node, op, bodyObject(request.body), write);
            return sendJson(reply, 200, {});
          });
        }
        return this.invoke(request, reply, node, op, ctx, session);
      }
      case 'search':
        if (method !== 'POST') throw methodNotAllowed(method, ['POST']);
        return sendJson(reply, 200, this.deps.searcher.search(target.node, bodyObject(request.body, 'search query'), ctx));
    }
  }

  /** The handler that deletes a runtime collection item, when its collection has one. */
  private runtimeCollection(node: BeanNode) {
    const owner = this.collectionOwner(node);
    return owner && node.via ? this.deps.collections.handler(owner.type, node.via.name) : undefined;
  }

  /** The bean owning the collection `node` is an item of (undefined when it is no item). */
  private collectionOwner(node: BeanNode): BeanNode | undefined {
    if (!node.via || node.via.shape !== 'collection') return undefined;
    // An item lies two segments below its owner, or as many as its collection's address says.
    const depth = node.via.address?.length ?? 2;
    const owner = this.deps.resolver.resolve(node.root, node.identity.slice(0, -depth), 'legacy');
    return owner.kind === 'bean' ? owner.node : undefined;
  }

  /** Whether the deployment service makes the items of the edit tree's collection (an upload, a progress object). */
  private deploys(owner: BeanNode, prop: PropDef): boolean {
    return owner.root.name === 'edit' && deploysThrough(this.deps.domain.behaviours, owner.type, prop.name);
  }

  /** Whether deleting the edit tree's bean undeploys it through the deployment service. */
  private undeploys(node: BeanNode): boolean {
    if (node.root.name !== 'edit') return false;
    const owner = this.collectionOwner(node);
    return owner !== undefined && node.via !== undefined && this.deploys(owner, node.via);
  }

  /** Runs a write and records it in the audit trail (`path`: the bean or collection it acts on). */
  private audited(request: FastifyRequest, action: string, path: readonly string[], run: (note: AuditNote) => Promise<FastifyReply>): Promise<FastifyReply> {
    return audited(request, action, path.join('/'), run);
  }

  /** Runs a change of a tree through its writer: recorded in the audit trail, authorized first. */
  private change(request: FastifyRequest, writer: TreeWriter, change: Change, run: (note: AuditNote) => Promise<FastifyReply>): Promise<FastifyReply> {
    const { action, bean } = writer.auditName(change);
    return audited(request, action, bean, async (note) => {
      writer.authorize(request.principal, change);
      return run(note);
    });
  }

  private create(request: FastifyRequest, reply: FastifyReply, writer: TreeWriter, owner: BeanNode, prop: PropDef, ctx: RenderContext, write: WriteContext): Promise<FastifyReply> {
    return this.change(request, writer, { kind: 'create', owner, prop }, async () => {
      if (this.deploys(owner, prop)) return this.deps.deploys.create(request, reply, owner, ctx, write.session);
      const identity = await writer.create(owner, prop, bodyObject(request.body), write);
      return sendJson(reply, 201, {}, { location: ctx.urls.href([...owner.root.base, ...identity]) });
    });
  }

  private async invoke(request: FastifyRequest, reply: FastifyReply, node: BeanNode, op: OperationDef, ctx: RenderContext, session: string): Promise<FastifyReply> {
    const run = async (audit: AuditNote) => {
      const prefer = typeof request.headers.prefer === 'string' ? request.headers.prefer : undefined;
      const call = { node, op, principal: request.principal, session, ctx, prefer, audit, signal: clientGone(reply) };
      const answer = await this.deps.operations.invoke(call, bodyObject(request.body, 'action arguments'));
      // What the action changed (states, tasks) is stored before it is acknowledged.
      await this.deps.domain.flush();
      return sendJson(reply, answer.status, answer.body, answer.headers ?? {});
    };
    // Queries change nothing: only actions are recorded.
    return op.impact === 'info' ? run({}) : this.audited(request, op.name, node.path, run);
  }

  private partitionExists(name: string): boolean {
    return this.deps.domain.topology().partitions().some((p) => p.name === name);
  }
}

function isManagementTree(segment: string): segment is ManagementTreeName {
  return (TREE_NAMES as readonly string[]).includes(segment);
}

/** Whether a domain runtime request shows audit records (their newest page is read first). */
function readsAudit(segments: readonly string[], body: unknown): boolean {
  if (segments[0] === 'auditRecords') return true;
  if (segments[0] !== 'search' || segments.length !== 1 || body === null || typeof body !== 'object') return false;
  const children = (body as { children?: unknown }).children;
  return children !== null && typeof children === 'object' && Object.hasOwn(children, 'auditRecords');
}

/** `?before=<id>`: the audit records older than that one. */
function beforeParam(query: unknown): number | undefined {
  const raw = (query as Record<string, unknown> | undefined)?.before;
  if (raw === undefined) return undefined;
  const n = typeof raw === 'string' && /^[1-9][0-9]{0,15}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n)) throw badRequest(`The query parameter 'before' must be the id of an audit record (a positive integer), not ${JSON.stringify(raw).slice(0, 60)}.`, 'before');
  return n;
}

function sessionOf(request: FastifyRequest): string {
  const header = request.headers[SESSION_HEADER];
  const value = Array.isArray(header) ? header[0] : header;
  return value && value.trim() !== '' ? value.trim() : DEFAULT_SESSION;
}

function onlyGet(request: FastifyRequest): void {
  if (request.method !== 'GET' && request.method !== 'HEAD') throw methodNotAllowed(request.method, ['GET']);
}
