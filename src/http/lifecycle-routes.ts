// Requests under /management/lifecycle: the version list and the version entity with its links.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Link } from '../render/links.js';
import { parseShape, wantsField, wantsLinks, wantsRel } from '../render/query.js';
import { methodNotAllowed, notFound } from './errors.js';
import { originOf } from './management.js';
import type { RequestPath } from './request-path.js';
import { sendJson } from './send.js';
import { LIFECYCLE_VERSION, isLifecycleVersion } from './versions.js';

const VERSION_LINKS = ['environmentCreateForm', 'environments', 'runtimeCreateForm', 'runtimes', 'tenantCreateForm', 'tenants', 'plugins'];

export async function lifecycleRoutes(request: FastifyRequest, reply: FastifyReply, path: RequestPath): Promise<FastifyReply> {
  if (path.prefix.length > 0) throw notFound(path.prefix[0]!);
  const shape = parseShape(request.query as Record<string, unknown>);
  const base = `${originOf(request)}/management/lifecycle`;
  const linksOf = (rels: [string, string][]): Record<string, unknown> =>
    wantsLinks(shape) ? { links: rels.filter(([rel]) => wantsRel(shape, rel)).map(([rel, href]): Link => ({ rel, href })) } : {};
  const fields = (body: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(body).filter(([k]) => wantsField(shape, k)));
  if (path.version === undefined) {
    if (request.method !== 'GET') throw methodNotAllowed(request.method, ['GET']);
    const href = `${base}/${LIFECYCLE_VERSION}`;
    return sendJson(reply, 200, {
      ...linksOf([['self', base], ['canonical', base], ['current', href]]),
      items: [{ ...linksOf([['self', href], ['canonical', href]]), ...fields({ version: LIFECYCLE_VERSION, isLatest: true, lifecycle: 'active' }) }],
    });
  }
  if (!isLifecycleVersion(path.version)) throw notFound(path.version);
  if (path.rest.length > 0) throw notFound(path.rest[0]!);
  if (request.method !== 'GET') throw methodNotAllowed(request.method, ['GET']);
  const self = `${base}/${encodeURIComponent(path.version)}`;
  return sendJson(reply, 200, {
    ...linksOf([['parent', base], ['self', self], ['canonical', self], ...VERSION_LINKS.map((rel): [string, string] => [rel, `${self}/${rel}`])]),
    ...fields({ version: LIFECYCLE_VERSION, isLatest: true, lifecycle: 'active' }),
  });
}
