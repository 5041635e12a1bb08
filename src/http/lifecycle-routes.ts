// The Lifecycle Manager's REST resources under /management/lifecycle/{version}: a route table
// mapping each path pattern and method to the service, with the same hypermedia conventions,
// query parameters and errors as the management trees.
import { methodNotAllowed, notFound } from '../core/problems.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Link } from '../render/links.js';
import { type Shape, parseShape, wantsField, wantsLinks, wantsRel } from '../render/query.js';
import { authorize } from '../security/authorize.js';
import { auditRefusal, audited } from './audit-request.js';
import { bodyObject } from './body.js';
import { originOf } from './origin.js';
import type { RequestPath } from './request-path.js';
import { sendJson } from './send.js';
import { LIFECYCLE_VERSION, isLifecycleVersion } from '../catalog/versions.js';
import type { Environment, Property, Runtime, RuntimePartition, Service, Tenant } from '../lifecycle/model.js';
import type { LifecycleService } from '../lifecycle/service.js';

type Json = Record<string, unknown>;
type Params = Record<string, string>;

interface Ctx {
  request: FastifyRequest;
  params: Params;
  shape: Shape;
  /** Absolute href of a path below the version resource. */
  href: (...segments: string[]) => string;
  self: string;
  body: () => Json;
  user: string;
}

type Handler = (ctx: Ctx) => Promise<{ status: number; body: Json; location?: string }>;

interface Route {
  pattern: string[];
  methods: Partial<Record<'GET' | 'POST' | 'DELETE', Handler>>;
}

/** An entity: its links (filtered), then its fields (filtered). */
function entity(ctx: Ctx, fields: Json, rels: [string, string][]): Json {
  const out: Json = {};
  if (wantsLinks(ctx.shape)) out.links = rels.filter(([rel]) => wantsRel(ctx.shape, rel)).map(([rel, href]): Link => ({ rel, href }));
  for (const [k, v] of Object.entries(fields)) if (wantsField(ctx.shape, k)) out[k] = v;
  return out;
}

function collection(ctx: Ctx, items: Json[], rels: [string, string][]): Json {
  const out: Json = {};
  if (wantsLinks(ctx.shape)) out.links = rels.filter(([rel]) => wantsRel(ctx.shape, rel)).map(([rel, href]): Link => ({ rel, href }));
  out.items = items;
  return out;
}

const ok = (body: Json = {}) => ({ status: 200, body });
const created = (location: string) => ({ status: 201, body: {}, location });

/** Properties as shown: secrets are never echoed. */
function shownProperties(props: Property[]): Property[] {
  return props.map((p) => {
    const { confidentialValue, properties, ...rest } = p;
    return { ...rest, ...(confidentialValue !== undefined ? { confidentialValue: null } : {}), ...(properties ? { properties: shownProperties(properties) } : {}) } as Property;
  });
}

export class LifecycleRoutes {
  private readonly routes: Route[];

  constructor(private readonly lcm: LifecycleService) {
    this.routes = this.table();
  }

  async handle(request: FastifyRequest, reply: FastifyReply, path: RequestPath): Promise<FastifyReply> {
    if (path.prefix.length > 0) throw notFound(path.prefix[0]!);
    const shape = parseShape(request.query as Record<string, unknown>);
    const base = `${originOf(request)}/management/lifecycle`;
    if (path.version === undefined) {
      if (request.method !== 'GET') throw methodNotAllowed(request.method, ['GET']);
      const href = `${base}/${LIFECYCLE_VERSION}`;
      const ctx = { shape } as Ctx;
      return sendJson(reply, 200, collection(ctx, [entity(ctx, { version: LIFECYCLE_VERSION, isLatest: true, lifecycle: 'active' }, [['self', href], ['canonical', href]])], [['self', base], ['canonical', base], ['current', href]]));
    }
    if (!isLifecycleVersion(path.version)) throw notFound(path.version);
    const root = `${base}/${encodeURIComponent(path.version)}`;
    const { route, params } = this.match(path.rest);
    const method = request.method as 'GET' | 'POST' | 'DELETE';
    const handler = route.methods[method];
    if (!handler) throw methodNotAllowed(request.method, Object.keys(route.methods));
    const href = (...segments: string[]) => [root, ...segments.map(encodeURIComponent)].join('/');
    const ctx: Ctx = {
      request,
      params,
      shape,
      href,
      self: href(...path.rest),
      body: () => bodyObject(request.body),
      user: request.principal.user,
    };
    const send = async () => {
      if (method !== 'GET') authorize(request.principal, { kind: 'role', roles: [], what: 'change the Lifecycle Manager configuration' });
      const result = await handler(ctx);
      return sendJson(reply, result.status, result.body, result.location ? { location: result.location } : {});
    };
    // Every write of the Lifecycle Manager is audited.
    return method === 'GET' ? send() : audited(request, method, `lifecycle/${path.rest.join('/')}`, send);
  }

  /** Judges a request before its body is read: the route and method must exist, and changes need the Admin role. */
  preflight(request: FastifyRequest, path: RequestPath): { upload: boolean; limit?: number } {
    if (path.prefix.length > 0) throw notFound(path.prefix[0]!);
    if (path.version === undefined) throw methodNotAllowed(request.method, ['GET']);
    if (!isLifecycleVersion(path.version)) throw notFound(path.version);
    const { route } = this.match(path.rest);
    if (!route.methods[request.method as 'GET' | 'POST' | 'DELETE']) throw methodNotAllowed(request.method, Object.keys(route.methods));
    auditRefusal(request, request.method, `lifecycle/${path.rest.join('/')}`, () =>
      authorize(request.principal, { kind: 'role', roles: [], what: 'change the Lifecycle Manager configuration' }),
    );
    return { upload: false };
  }

  private match(rest: string[]): { route: Route; params: Params } {
    for (const route of this.routes) {
      if (route.pattern.length !== rest.length) continue;
      const params: Params = {};
      if (route.pattern.every((p, i) => (p.startsWith(':') ? ((params[p.slice(1)] = rest[i]!), true) : p === rest[i]))) return { route, params };
    }
    throw notFound(rest[rest.length - 1] ?? '');
  }

  private table(): Route[] {
    const lcm = this.lcm;
    const versionLinks = ['environmentCreateForm', 'environments', 'runtimeCreateForm', 'runtimes', 'tenantCreateForm', 'tenants', 'plugins'];
    const envEntity = (ctx: Ctx, env: Environment, asItem: boolean): Json => {
      const self = ctx.href('environments', env.name);
      const links: [string, string][] = asItem
        ? [['self', self], ['canonical', self]]
        : [
            ['parent', ctx.href('environments')],
            ['self', self],
            ['canonical', self],
            ['partitionCreateForm', `${self}/partitionCreateForm`],
            ['partitions', `${self}/partitions`],
            ['associatePartitions', `${self}/associatePartitions`],
            ['dissociatePartitions', `${self}/dissociatePartitions`],
            ['deprovision', `${self}/deprovision`],
          ];
      return entity(ctx, asItem ? { name: env.name } : { name: env.name, associations: env.associations.map((a) => ({ ...a, properties: shownProperties(a.properties) })) }, links);
    };
    const envPartitionHref = (ctx: Ctx, env: string, rt: string, p: string) => ctx.href('environments', env, 'runtimes', rt, 'partitions', p);
    const runtimeEntity = (ctx: Ctx, rt: Runtime, asItem: boolean): Json => {
      const self = ctx.href('runtimes', rt.name);
      const links: [string, string][] = asItem
        ? [['self', self], ['canonical', self]]
        : [['parent', ctx.href('runtimes')], ['self', self], ['canonical', self], ['partitionCreateForm', `${self}/partitionCreateForm`], ['partitions', `${self}/partitions`]];
      return entity(ctx, { name: rt.name, type: rt.type, hostName: rt.hostName, port: rt.port, protocol: rt.protocol, properties: shownProperties(rt.properties) }, links);
    };
    const runtimePartitionEntity = (ctx: Ctx, rt: string, p: RuntimePartition, asItem: boolean): Json => {
      const self = ctx.href('runtimes', rt, 'partitions', p.name);
      const env = lcm.environments().find((e) => e.partitions.some((x) => x.name === p.name && x.runtimeName === rt));
      const links: [string, string][] = asItem ? [['self', self], ['canonical', self]] : [['parent', ctx.href('runtimes', rt, 'partitions')], ['self', self], ['canonical', self]];
      if (!asItem && env) links.push(['environment', ctx.href('environments', env.name)]);
      return entity(ctx, { name: p.name, id: p.id, runtimeName: rt, properties: shownProperties(p.properties) }, links);
    };
    const tenantEntity = (ctx: Ctx, t: Tenant, asItem: boolean): Json => {
      const self = ctx.href('tenants', t.name);
      const links: [string, string][] = asItem
        ? [['self', self], ['canonical', self]]
        : [['parent', ctx.href('tenants')], ['self', self], ['canonical', self], ['serviceCreateForm', `${self}/serviceCreateForm`], ['services', `${self}/services`]];
      return entity(ctx, { name: t.name, id: t.id, topLevelDir: t.topLevelDir }, links);
    };
    const serviceEntity = (ctx: Ctx, tenant: string, s: Service, asItem: boolean): Json => {
      const self = ctx.href('tenants', tenant, 'services', s.name);
      const links: [string, string][] = asItem
        ? [['self', self], ['canonical', self]]
        : [['parent', ctx.href('tenants', tenant, 'services')], ['self', self], ['canonical', self], ['PDBCreateForm', `${self}/PDBCreateForm`], ['PDB', `${self}/PDB`]];
      if (!asItem && s.environmentRef) links.push(['environment', ctx.href('environments', s.environmentRef)]);
      const { pdb: _pdb, created: _c, updated: _u, ...fields } = s;
      return entity(ctx, fields as unknown as Json, links);
    };
    const form = (ctx: Ctx, fields: Json, parent: string[], rel: string, target: string[]): Json =>
      entity(ctx, fields, [['parent', ctx.href(...parent)], ['self', ctx.self], ['canonical', ctx.self], [rel, ctx.href(...target)]]);

    return [
      {
        pattern: [],
        methods: {
          GET: async (ctx) =>
            ok(entity(ctx, { version: LIFECYCLE_VERSION, isLatest: true, lifecycle: 'active' }, [
              ['parent', ctx.href().replace(/\/[^/]+$/, '')],
              ['self', ctx.self],
              ['canonical', ctx.self],
              ...versionLinks.map((rel): [string, string] => [rel, ctx.href(rel)]),
            ])),
        },
      },
      // ---- environments ----
      { pattern: ['environmentCreateForm'], methods: { GET: async (ctx) => ok(form(ctx, { name: null }, [], 'environments', ['environments'])) } },
      {
        pattern: ['environments'],
        methods: {
          GET: async (ctx) => ok(collection(ctx, lcm.environments().map((e) => envEntity(ctx, e, true)), [['parent', ctx.href()], ['self', ctx.self], ['canonical', ctx.self], ['create-form', ctx.href('environmentCreateForm')]])),
          POST: async (ctx) => created(ctx.href('environments', (await lcm.createEnvironment(ctx.body(), ctx.user)).name)),
        },
      },
      {
        pattern: ['environments', ':env'],
        methods: {
          GET: async (ctx) => ok(envEntity(ctx, lcm.environment(ctx.params.env!), false)),
          DELETE: async (ctx) => (await lcm.deleteEnvironment(ctx.params.env!), ok()),
        },
      },
      {
        pattern: ['environments', ':env', 'partitionCreateForm'],
        methods: { GET: async (ctx) => (lcm.environment(ctx.params.env!), ok(form(ctx, { runtimeName: null, name: null }, ['environments', ctx.params.env!], 'partitions', ['environments', ctx.params.env!, 'partitions']))) },
      },
      {
        pattern: ['environments', ':env', 'partitions'],
        methods: {
          GET: async (ctx) => {
            const env = lcm.environment(ctx.params.env!);
            const items = env.partitions.map((p) => {
              const href = envPartitionHref(ctx, env.name, p.runtimeName, p.name);
              return entity(ctx, { runtimeName: p.runtimeName, name: p.name }, [['self', href], ['canonical', href]]);
            });
            return ok(collection(ctx, items, [['parent', ctx.href('environments', env.name)], ['self', ctx.self], ['canonical', ctx.self], ['create-form', ctx.href('environments', env.name, 'partitionCreateForm')]]));
          },
          POST: async (ctx) => {
            const ref = await lcm.addPartition(ctx.params.env!, ctx.body());
            return created(envPartitionHref(ctx, ctx.params.env!, ref.runtimeName, ref.name));
          },
        },
      },
      {
        pattern: ['environments', ':env', 'runtimes', ':rt', 'partitions', ':p'],
        methods: {
          GET: async (ctx) => {
            const { env, rt, p } = ctx.params as { env: string; rt: string; p: string };
            const ref = lcm.partitionOf(env, rt, p);
            return ok(entity(ctx, { runtimeName: ref.runtimeName, name: ref.name }, [['parent', ctx.href('environments', env, 'partitions')], ['self', ctx.self], ['canonical', ctx.self], ['runtimePartition', ctx.href('runtimes', rt, 'partitions', p)]]));
          },
          DELETE: async (ctx) => (await lcm.removePartition(ctx.params.env!, ctx.params.rt!, ctx.params.p!), ok()),
        },
      },
      { pattern: ['environments', ':env', 'associatePartitions'], methods: { POST: async (ctx) => (await lcm.associate(ctx.params.env!, ctx.body(), ctx.user), ok()) } },
      { pattern: ['environments', ':env', 'dissociatePartitions'], methods: { POST: async (ctx) => (await lcm.dissociate(ctx.params.env!, ctx.body()), ok()) } },
      { pattern: ['environments', ':env', 'deprovision'], methods: { POST: async (ctx) => (await lcm.deprovision(ctx.params.env!, ctx.body(), ctx.user), ok()) } },
      // ---- runtimes ----
      { pattern: ['runtimeCreateForm'], methods: { GET: async (ctx) => ok(form(ctx, { name: null, type: 'wls', hostName: null, port: 7001, protocol: 'http', properties: [] }, [], 'runtimes', ['runtimes'])) } },
      {
        pattern: ['runtimes'],
        methods: {
          GET: async (ctx) => ok(collection(ctx, lcm.runtimes().map((r) => runtimeEntity(ctx, r, true)), [['parent', ctx.href()], ['self', ctx.self], ['canonical', ctx.self], ['create-form', ctx.href('runtimeCreateForm')]])),
          POST: async (ctx) => created(ctx.href('runtimes', (await lcm.createRuntime(ctx.body())).name)),
        },
      },
      {
        pattern: ['runtimes', ':rt'],
        methods: {
          GET: async (ctx) => ok(runtimeEntity(ctx, lcm.runtime(ctx.params.rt!), false)),
          POST: async (ctx) => (await lcm.updateRuntime(ctx.params.rt!, ctx.body()), ok()),
          DELETE: async (ctx) => (await lcm.deleteRuntime(ctx.params.rt!), ok()),
        },
      },
      {
        pattern: ['runtimes', ':rt', 'partitionCreateForm'],
        methods: { GET: async (ctx) => (lcm.runtime(ctx.params.rt!), ok(form(ctx, { name: null, id: null, properties: [] }, ['runtimes', ctx.params.rt!], 'partitions', ['runtimes', ctx.params.rt!, 'partitions']))) },
      },
      {
        pattern: ['runtimes', ':rt', 'partitions'],
        methods: {
          GET: async (ctx) => {
            const rt = ctx.params.rt!;
            const items = (await lcm.runtimePartitions(rt)).map((p) => runtimePartitionEntity(ctx, rt, p, true));
            return ok(collection(ctx, items, [['parent', ctx.href('runtimes', rt)], ['self', ctx.self], ['canonical', ctx.self], ['create-form', ctx.href('runtimes', rt, 'partitionCreateForm')]]));
          },
          POST: async (ctx) => created(ctx.href('runtimes', ctx.params.rt!, 'partitions', (await lcm.createRuntimePartition(ctx.params.rt!, ctx.body(), ctx.user)).name)),
        },
      },
      {
        pattern: ['runtimes', ':rt', 'partitions', ':p'],
        methods: {
          GET: async (ctx) => ok(runtimePartitionEntity(ctx, ctx.params.rt!, await lcm.runtimePartition(ctx.params.rt!, ctx.params.p!), false)),
          DELETE: async (ctx) => (await lcm.deleteRuntimePartition(ctx.params.rt!, ctx.params.p!, ctx.user), ok()),
        },
      },
      // ---- tenants, services, PDBs ----
      { pattern: ['tenantCreateForm'], methods: { GET: async (ctx) => ok(form(ctx, { name: null, id: null, topLevelDir: null }, [], 'tenants', ['tenants'])) } },
      {
        pattern: ['tenants'],
        methods: {
          GET: async (ctx) => ok(collection(ctx, lcm.tenants().map((t) => tenantEntity(ctx, t, true)), [['parent', ctx.href()], ['self', ctx.self], ['canonical', ctx.self], ['create-form', ctx.href('tenantCreateForm')]])),
          POST: async (ctx) => created(ctx.href('tenants', (await lcm.createTenant(ctx.body())).name)),
        },
      },
      {
        pattern: ['tenants', ':t'],
        methods: {
          GET: async (ctx) => ok(tenantEntity(ctx, lcm.tenant(ctx.params.t!), false)),
          POST: async (ctx) => (await lcm.updateTenant(ctx.params.t!, ctx.body()), ok()),
          DELETE: async (ctx) => (await lcm.deleteTenant(ctx.params.t!), ok()),
        },
      },
      {
        pattern: ['tenants', ':t', 'serviceCreateForm'],
        methods: {
          GET: async (ctx) =>
            (lcm.tenant(ctx.params.t!),
            ok(form(ctx, { name: null, id: null, serviceType: null, environmentRef: null, identityDomain: null, topLevelDir: null, twoTask: null }, ['tenants', ctx.params.t!], 'services', ['tenants', ctx.params.t!, 'services']))),
        },
      },
      {
        pattern: ['tenants', ':t', 'services'],
        methods: {
          GET: async (ctx) => {
            const t = lcm.tenant(ctx.params.t!);
            return ok(collection(ctx, t.services.map((s) => serviceEntity(ctx, t.name, s, true)), [['parent', ctx.href('tenants', t.name)], ['self', ctx.self], ['canonical', ctx.self], ['create-form', ctx.href('tenants', t.name, 'serviceCreateForm')]]));
          },
          POST: async (ctx) => created(ctx.href('tenants', ctx.params.t!, 'services', (await lcm.createService(ctx.params.t!, ctx.body())).name)),
        },
      },
      {
        pattern: ['tenants', ':t', 'services', ':s'],
        methods: {
          GET: async (ctx) => ok(serviceEntity(ctx, ctx.params.t!, lcm.service(ctx.params.t!, ctx.params.s!), false)),
          POST: async (ctx) => (await lcm.updateService(ctx.params.t!, ctx.params.s!, ctx.body()), ok()),
          DELETE: async (ctx) => (await lcm.deleteService(ctx.params.t!, ctx.params.s!, ctx.user), ok()),
        },
      },
      {
        pattern: ['tenants', ':t', 'services', ':s', 'PDBCreateForm'],
        methods: {
          GET: async (ctx) => {
            const { t, s } = ctx.params as { t: string; s: string };
            lcm.service(t, s);
            return ok(form(ctx, { status: 'ACTIVE', name: null, id: null }, ['tenants', t, 'services', s], 'PDB', ['tenants', t, 'services', s, 'PDB']));
          },
        },
      },
      {
        pattern: ['tenants', ':t', 'services', ':s', 'PDB'],
        methods: {
          GET: async (ctx) => {
            const { t, s } = ctx.params as { t: string; s: string };
            const pdb = lcm.service(t, s).pdb;
            if (!pdb) throw notFound('PDB');
            return ok(entity(ctx, { status: pdb.status, name: pdb.name, id: pdb.id }, [['parent', ctx.href('tenants', t, 'services', s)], ['self', ctx.self], ['canonical', ctx.self], ['create-form', ctx.href('tenants', t, 'services', s, 'PDBCreateForm')]]));
          },
          POST: async (ctx) => (await lcm.createPdb(ctx.params.t!, ctx.params.s!, ctx.body(), ctx.user), created(ctx.self)),
          DELETE: async (ctx) => (await lcm.deletePdb(ctx.params.t!, ctx.params.s!, ctx.user), ok()),
        },
      },
      // ---- plugins ----
      {
        pattern: ['plugins'],
        methods: {
          GET: async (ctx) =>
            ok(collection(ctx, lcm.plugins().map((p) => entity(ctx, { ...p }, [['self', ctx.href('plugins', p.name)], ['canonical', ctx.href('plugins', p.name)]])), [['parent', ctx.href()], ['self', ctx.self], ['canonical', ctx.self]])),
        },
      },
      {
        pattern: ['plugins', ':name'],
        methods: {
          GET: async (ctx) => {
            const p = lcm.plugins().find((x) => x.name === ctx.params.name);
            if (!p) throw notFound(ctx.params.name!);
            return ok(entity(ctx, { ...p }, [['parent', ctx.href('plugins')], ['self', ctx.self], ['canonical', ctx.self]]));
          },
        },
      },
    ];
  }
}
