// Requests under /management/appserver: the version list, a version, currentUser, and the five
// bean trees, dispatched by what the resolver finds and the HTTP method.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Catalog } from '../catalog/load.js';
import type { ApiVersion } from '../catalog/model.js';
import type { Domain } from '../domain/domain.js';
import type { RenderContext, Renderer } from '../render/entity.js';
import { type Link, Urls } from '../render/links.js';
import { parseShape, wantsField, wantsLinks, wantsRel } from '../render/query.js';
import type { Resolver, Target, TreeName } from '../tree/resolve.js';
import { TREE_NAMES, type Trees } from '../tree/trees.js';
import { methodNotAllowed, notFound } from './errors.js';
import type { RequestPath } from './request-path.js';
import { sendJson } from './send.js';
import { CURRENT_VERSION, LEGACY_VERSION, managementVersion } from './versions.js';

export interface ManagementDependencies {
  catalog: Catalog;
  domain: Domain;
  resolver: Resolver;
  renderer: Renderer;
  trees: Trees;
}

type Json = Record<string, unknown>;

/** The origin a client used, honouring a proxy's forwarded headers. */
export function originOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

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
    const root = this.deps.trees.root(tree as TreeName, path.partition !== undefined ? { partition: path.partition } : {});
    const target = this.deps.resolver.resolve(root, segments, version);
    return this.dispatch(request, reply, target, ctx);
  }

  private dispatch(request: FastifyRequest, reply: FastifyReply, target: Target, ctx: RenderContext): FastifyReply {
    const { renderer } = this.deps;
    switch (target.kind) {
      case 'bean':
        onlyGet(request);
        return sendJson(reply, 200, renderer.bean(target.node, ctx));
      case 'collection':
        onlyGet(request);
        return sendJson(reply, 200, renderer.collection(target.owner, target.prop, target.path, ctx, target.mount));
      case 'createForm': {
        onlyGet(request);
        const type = this.deps.catalog.type(target.prop.creators[0] ?? target.prop.javaType);
        return sendJson(reply, 200, renderer.createForm(target.owner, target.prop, target.path, type, ctx));
      }
      case 'action':
      case 'search':
        // Actions and searches are invoked with POST; this server version serves the trees read-only.
        throw methodNotAllowed(request.method, request.method === 'GET' ? ['POST'] : ['GET']);
    }
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
