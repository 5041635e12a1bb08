// Requests under /management/appserver: the version list, a version, currentUser, and the five
// bean trees, dispatched by what the resolver finds and the HTTP method.
import { badRequest, methodNotAllowed, notFound } from '../core/problems.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Catalog } from '../catalog/load.js';
import type { ApiVersion } from '../catalog/model.js';
import type { Domain } from '../domain/domain.js';
import type { RenderContext, Renderer } from '../render/entity.js';
import { type Link, Urls } from '../render/links.js';
import { parseShape, wantsField, wantsLinks, wantsRel } from '../render/query.js';
import type { Resolver, Target, TreeName } from '../tree/resolve.js';
import { TREE_NAMES, type Trees } from '../api/trees.js';
import type { ActionRegistry } from '../actions/invoke.js';
import type { Searcher } from '../render/search.js';
import type { DeployRequests } from './deploy-requests.js';
import type { OperationDef, PropDef } from '../catalog/model.js';
import { DEFAULT_SESSION } from '../config/session.js';
import { authorize } from '../security/authorize.js';
import type { BeanNode } from '../tree/resolve.js';
import type { AuditNote } from '../security/audit.js';
import { auditRefusal, audited, clientGone } from './audit-request.js';
import { MAX_ARGUMENTS_BYTES, MAX_QUERY_BYTES, bodyObject } from './body.js';
import { originOf } from './origin.js';
import type { RequestPath } from './request-path.js';
import { sendJson } from './send.js';
import { CURRENT_VERSION, LEGACY_VERSION, managementVersion } from '../catalog/versions.js';
import { deploysThrough } from '../behaviour/deployables.js';

export interface ManagementDependencies {
  catalog: Catalog;
  domain: Domain;
  resolver: Resolver;
  renderer: Renderer;
  trees: Trees;
  actions: ActionRegistry;
  searcher: Searcher;
  deploys: DeployRequests;
}

/** Request header naming the edit session a request works in. */
export const SESSION_HEADER = 'appserver.edit.session';

type Json = Record<string, unknown>;

export class ManagementHandler {
  constructor(private readonly deps: ManagementDependencies) {}

  async handle(request: FastifyRequest, reply: FastifyReply, path: RequestPath): Promise<FastifyReply> {
    if (path.partition !== undefined && !this.partitionExists(path.partition)) throw notFound(path.partition);
    const origin = originOf(request);
    const base = `${path.prefix.map((s) => `/${s}`).join('')}/management/appserver`;
    const shape = parseShape(request.query as Record<string, unknown>);
    if (path.version === undefined) {
      onlyGet(request);
      return sendJson(reply, 200, this.versionList(origin + base, shape));
    }
    const version = managementVersion(path.version);
    if (!version) throw notFound(path.version);
    const urls = new Urls(origin, `${base}/${encodeURIComponent(path.version)}`);
    const ctx: RenderContext = { urls, version, shape, productionMode: this.deps.domain.topology().productionMode };
    const [tree, ...segments] = path.rest;
    if (tree === undefined) {
      onlyGet(request);
      return sendJson(reply, 200, this.versionEntity(path.version, version, ctx));
    }
    if (tree === 'currentUser' && segments.length === 0) {
      onlyGet(request);
      return sendJson(reply, 200, this.currentUser(request, path.partition, ctx));
    }
    if (!TREE_NAMES.includes(tree as TreeName)) throw notFound(tree);
    const session = sessionOf(request);
    const admin = request.principal.roles.has('Admin');
    // Edit locks whose time ran out are released before anyone sees them.
    await this.deps.domain.configService.expireLapsed();
    const audit =
      tree === 'domainRuntime' && admin && readsAudit(segments, request.body)
        ? await this.deps.domain.security.audit.view({ before: beforeParam(request.query), id: segments[1] !== undefined ? Number(segments[1]) : undefined })
        : undefined;
    const scope = { ...(path.partition !== undefined ? { partition: path.partition } : {}), session, restricted: !admin, ...(audit ? { audit } : {}) };
    const root = this.deps.trees.root(tree as TreeName, scope);
    const target = this.deps.resolver.resolve(root, segments, version);
    return this.dispatch(request, reply, target, ctx, session);
  }

  /**
   * Judges a request before its body is read: resolves the target as `handle` will, and checks that
   * the caller may write to it or invoke it (or may search), so that nobody gets a body parsed for
   * a request that is refused anyway. Says whether the body may be an application upload, and the
   * largest body the target takes when it is smaller than the general limit.
   */
  preflight(request: FastifyRequest, path: RequestPath): { upload: boolean; limit?: number } {
    const method = request.method;
    if (path.partition !== undefined && !this.partitionExists(path.partition)) throw notFound(path.partition);
    if (path.version === undefined) throw methodNotAllowed(method, ['GET']);
    const version = managementVersion(path.version);
    if (!version) throw notFound(path.version);
    const [tree, ...segments] = path.rest;
    if (tree === undefined || (tree === 'currentUser' && segments.length === 0)) throw methodNotAllowed(method, ['GET']);
    if (!TREE_NAMES.includes(tree as TreeName)) throw notFound(tree);
    const scope = { ...(path.partition !== undefined ? { partition: path.partition } : {}), session: sessionOf(request) };
    const target = this.deps.resolver.resolve(this.deps.trees.root(tree as TreeName, scope), segments, version);
    const principal = request.principal;
    const none = { upload: false };
    switch (target.kind) {
      case 'bean': {
        if (!target.node.root.editable) {
          const handler = method === 'DELETE' ? this.runtimeCollection(target.node) : undefined;
          if (!handler) throw methodNotAllowed(method, ['GET']);
          handler.mayChange?.(principal);
          return none;
        }
        if (method !== 'POST' && method !== 'DELETE') throw methodNotAllowed(method, ['GET', 'POST', 'DELETE']);
        auditRefusal(request, method === 'POST' ? 'update' : 'delete', target.node.path.join('/'), () => authorize(principal, { kind: 'write', type: target.node.type }));
        return none;
      }
      case 'collection':
      case 'absent': {
        const { owner, prop } = target;
        if (target.kind === 'absent' && (!owner.root.editable || method !== 'POST')) {
          throw method === 'DELETE' || !owner.root.editable ? notFound(prop.name) : methodNotAllowed(method, ['POST']);
        }
        if (!owner.root.editable) {
          const handler = this.deps.actions.collectionHandler(owner.type, prop.name);
          if (!handler || method !== 'POST') throw methodNotAllowed(method, handler ? ['GET', 'POST'] : ['GET']);
          handler.mayChange?.(principal);
          return none;
        }
        if (target.kind === 'collection' && prop.creators.length === 0 && !this.deploys(owner, prop)) throw methodNotAllowed(method, ['GET']);
        if (method !== 'POST') throw methodNotAllowed(method, ['GET', 'POST']);
        auditRefusal(request, 'create', [...owner.path, prop.name].join('/'), () => authorize(principal, { kind: 'write', type: this.deps.catalog.type(prop.creators[0] ?? prop.javaType) }));
        return { upload: this.deploys(owner, prop) };
      }
      case 'createForm':
        throw methodNotAllowed(method, ['GET']);
      case 'action':
        if (method !== 'POST') throw methodNotAllowed(method, ['POST']);
        {
          const check = () => authorize(principal, { kind: 'invoke', type: target.node.type, op: target.op });
          // Pure queries are not audited; refused changes are.
          if (target.op.impact === 'info') check();
          else auditRefusal(request, target.op.name, target.node.path.join('/'), check);
        }
        return { upload: false, limit: MAX_ARGUMENTS_BYTES };
      case 'search':
        // Readers may search: the read right was checked on arrival.
        if (method !== 'POST') throw methodNotAllowed(method, ['POST']);
        return { upload: false, limit: MAX_QUERY_BYTES };
    }
  }

  private async dispatch(request: FastifyRequest, reply: FastifyReply, target: Target, ctx: RenderContext, session: string): Promise<FastifyReply> {
    const { renderer } = this.deps;
    const method = request.method;
    const editable = target.kind === 'action' || target.kind === 'search' ? false : (target.kind === 'bean' ? target.node : target.owner).root.editable;
    switch (target.kind) {
      case 'bean':
        if (method === 'GET' || method === 'HEAD') return sendJson(reply, 200, renderer.bean(target.node, ctx));
        if (!editable) {
          const handler = method === 'DELETE' ? this.runtimeCollection(target.node) : undefined;
          if (!handler) throw methodNotAllowed(method, ['GET']);
          return this.audited(request, 'delete', target.node.path, async () => {
            await handler.remove(target.node, request.principal);
            return sendJson(reply, 200, {});
          });
        }
        if (method === 'POST') return this.update(request, reply, target.node, session);
        if (method === 'DELETE') return this.remove(request, reply, target.node, ctx, session);
        throw methodNotAllowed(method, ['GET', 'POST', 'DELETE']);
      case 'collection':
        if (method === 'GET' || method === 'HEAD') {
          return sendJson(reply, 200, renderer.collection(target.owner, target.prop, target.path, ctx, target.mount));
        }
        if (!editable) {
          const handler = this.deps.actions.collectionHandler(target.owner.type, target.prop.name);
          if (!handler || method !== 'POST') throw methodNotAllowed(method, handler ? ['GET', 'POST'] : ['GET']);
          return this.audited(request, 'create', target.path, async () => {
            const identity = await handler.create(target.owner, bodyObject(request.body), request.principal);
            return sendJson(reply, 201, {}, { location: ctx.urls.href([...target.owner.root.base, ...identity]) });
          });
        }
        if (target.prop.creators.length === 0 && !this.deploys(target.owner, target.prop)) throw methodNotAllowed(method, ['GET']);
        if (method === 'POST') return this.create(request, reply, target.owner, target.prop, ctx, session);
        throw methodNotAllowed(method, ['GET', 'POST']);
      case 'absent':
        if (!editable || method !== 'POST') throw method === 'GET' || method === 'DELETE' || !editable ? notFound(target.prop.name) : methodNotAllowed(method, ['POST']);
        return this.create(request, reply, target.owner, target.prop, ctx, session);
      case 'createForm': {
        onlyGet(request);
        const type = this.deps.catalog.type(target.prop.creators[0] ?? target.prop.javaType);
        return sendJson(reply, 200, renderer.createForm(target.owner, target.prop, target.path, type, ctx));
      }
      case 'action':
        if (method !== 'POST') throw methodNotAllowed(method, ['POST']);
        return this.invoke(request, reply, target.node, target.op, ctx, session);
      case 'search':
        if (method !== 'POST') throw methodNotAllowed(method, ['POST']);
        return sendJson(reply, 200, this.deps.searcher.search(target.node, bodyObject(request.body, 'search query'), ctx));
    }
  }

  /** The handler that deletes a runtime collection item, when its collection has one. */
  private runtimeCollection(node: BeanNode) {
    const owner = this.collectionOwner(node);
    return owner && node.via ? this.deps.actions.collectionHandler(owner.type, node.via.name) : undefined;
  }

  /** The bean owning the collection `node` is an item of (undefined when it is no item). */
  private collectionOwner(node: BeanNode): BeanNode | undefined {
    if (!node.via || node.via.shape !== 'collection') return undefined;
    const owner = this.deps.resolver.resolve(node.root, node.identity.slice(0, -2), 'legacy');
    return owner.kind === 'bean' ? owner.node : undefined;
  }

  /** Whether the deployment service makes and removes the items of the collection (an upload, a progress object). */
  private deploys(owner: BeanNode, prop: PropDef): boolean {
    return deploysThrough(this.deps.domain.behaviours, owner.type, prop.name);
  }

  /** Runs a write and records it in the audit trail (`path`: the bean or collection it acts on). */
  private audited(request: FastifyRequest, action: string, path: readonly string[], run: (note: AuditNote) => Promise<FastifyReply>): Promise<FastifyReply> {
    return audited(request, action, path.join('/'), run);
  }

  private async create(request: FastifyRequest, reply: FastifyReply, owner: BeanNode, prop: PropDef, ctx: RenderContext, session: string): Promise<FastifyReply> {
    return this.audited(request, 'create', [...owner.path, prop.name], async () => {
      const type = this.deps.catalog.type(prop.creators[0] ?? prop.javaType);
      authorize(request.principal, { kind: 'write', type });
      if (this.deploys(owner, prop)) return this.deps.deploys.create(request, reply, owner, ctx, session);
      const identity = await this.deps.domain.configService.create(request.principal.user, session, owner, prop, bodyObject(request.body));
      return sendJson(reply, 201, {}, { location: ctx.urls.href([...owner.root.base, ...identity]) });
    });
  }

  private async update(request: FastifyRequest, reply: FastifyReply, node: BeanNode, session: string): Promise<FastifyReply> {
    return this.audited(request, 'update', node.path, async () => {
      authorize(request.principal, { kind: 'write', type: node.type });
      await this.deps.domain.configService.update(request.principal.user, session, node, bodyObject(request.body));
      return sendJson(reply, 200, {});
    });
  }

  private async remove(request: FastifyRequest, reply: FastifyReply, node: BeanNode, ctx: RenderContext, session: string): Promise<FastifyReply> {
    return this.audited(request, 'delete', node.path, async () => {
      authorize(request.principal, { kind: 'write', type: node.type });
      if (!node.via) throw badRequest('The root of the edit tree cannot be deleted.');
      const owner = this.collectionOwner(node);
      if (owner && this.deploys(owner, node.via)) return this.deps.deploys.remove(request, reply, node, ctx, session);
      await this.deps.domain.configService.delete(request.principal.user, session, node, node.via);
      return sendJson(reply, 200, {});
    });
  }

  private async invoke(request: FastifyRequest, reply: FastifyReply, node: BeanNode, op: OperationDef, ctx: RenderContext, session: string): Promise<FastifyReply> {
    const run = async (audit: AuditNote) => {
      authorize(request.principal, { kind: 'invoke', type: node.type, op });
      const prefer = typeof request.headers.prefer === 'string' ? request.headers.prefer : undefined;
      const call = { node, op, principal: request.principal, session, ctx, prefer, audit, signal: clientGone(reply) };
      const result = await this.deps.actions.invoke(call, bodyObject(request.body, 'action arguments'));
      // What the action changed (states, tasks) is stored before it is acknowledged.
      await this.deps.domain.flush();
      if ('reply' in result) return sendJson(reply, result.reply.status, result.reply.body, result.reply.headers ?? {});
      return sendJson(reply, 200, this.deps.actions.render(result.overload, result.value));
    };
    // Queries change nothing: only actions are recorded.
    return op.impact === 'info' ? run({}) : this.audited(request, op.name, node.path, run);
  }

  private partitionExists(name: string): boolean {
    return this.deps.domain.topology().partitions().some((p) => p.name === name);
  }

  private versionList(href: string, shape: ReturnType<typeof parseShape>): Json {
    const item = (version: string, isLatest: boolean, lifecycle: string): Json => {
      const out: Json = {};
      if (wantsLinks(shape)) out.links = links(shape, [['self', `${href}/${version}`], ['canonical', `${href}/${version}`]]);
      return pick(shape, { ...out, version, isLatest, lifecycle });
    };
    const out: Json = {};
    if (wantsLinks(shape)) out.links = links(shape, [['self', href], ['canonical', href], ['current', `${href}/${CURRENT_VERSION}`]]);
    out.items = [item(CURRENT_VERSION, true, 'active'), item(LEGACY_VERSION, false, 'deprecated')];
    return out;
  }

  private versionEntity(segment: string, version: ApiVersion, ctx: RenderContext): Json {
    const out: Json = {};
    if (wantsLinks(ctx.shape)) {
      const rels: [string, string][] = [
        ['parent', ctx.urls.versionsHref()],
        ['self', ctx.urls.href([])],
        ['canonical', ctx.urls.href([])],
        ...['edit', 'domainConfig', 'domainRuntime', 'serverRuntime', 'serverConfig', 'currentUser'].map(
          (t) => [t, ctx.urls.href([t])] as [string, string],
        ),
      ];
      out.links = links(ctx.shape, rels);
    }
    const current = version === 'current';
    return pick(ctx.shape, {
      ...out,
      version: current ? CURRENT_VERSION : segment === LEGACY_VERSION ? segment : LEGACY_VERSION,
      isLatest: current,
      lifecycle: current ? 'active' : 'deprecated',
    });
  }

  private currentUser(request: FastifyRequest, partition: string | undefined, ctx: RenderContext): Json {
    const out: Json = {};
    if (wantsLinks(ctx.shape)) {
      out.links = links(ctx.shape, [
        ['parent', ctx.urls.href([])],
        ['self', ctx.urls.href(['currentUser'])],
        ['canonical', ctx.urls.href(['currentUser'])],
      ]);
    }
    const p = partition === undefined ? undefined : this.deps.domain.topology().partitions().find((x) => x.name === partition);
    return pick(ctx.shape, {
      ...out,
      partitionId: p ? String(p.values.partitionID ?? p.name) : '0',
      partitionName: p ? p.name : 'DOMAIN',
      user: request.principal.user,
    });
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

function links(shape: ReturnType<typeof parseShape>, rels: [string, string][]): Link[] {
  return rels.filter(([rel]) => wantsRel(shape, rel)).map(([rel, href]) => ({ rel, href }));
}

/** Applies fields/excludeFields to a plain body (links are kept: they are filtered separately). */
function pick(shape: ReturnType<typeof parseShape>, body: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(body)) if (k === 'links' || wantsField(shape, k)) out[k] = v;
  return out;
}
