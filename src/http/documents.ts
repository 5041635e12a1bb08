// The interface describing itself over HTTP: the OpenAPI document of each version as JSON or YAML
// (`/management/appserver/{version}/openapi.json|yaml`), and the API reference page
// (`/management/appserver/docs`), Swagger UI served from its npm package, offline, same origin.
// Behind the same login as everything else: a browser gets the 401's Basic challenge and asks.
// Each document is serialised once per version and format (gzip too, for clients that take it)
// and answered with an ETag, so a page reloaded revalidates instead of fetching megabytes again.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ManagementApi } from '../api/management-api.js';
import { badRequest, notAcceptable, notFound } from '../core/problems.js';
import { versionSegments } from '../catalog/versions.js';
import { jsonText, nextTurn, yamlText } from './document-text.js';
import { SESSION_HEADER } from './management.js';

const gzipped = promisify(gzip);

const BASE = '/management/appserver';
export const DOCS_PATH = `${BASE}/docs`;

/** A body ready to send: its bytes, their gzip (made on first need) and an entity tag. */
class Payload {
  private zipped?: Promise<Buffer>;
  readonly etag: string;

  constructor(
    readonly bytes: Buffer,
    readonly type: string,
  ) {
    this.etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
  }

  gzip(): Promise<Buffer> {
    this.zipped ??= gzipped(this.bytes, { level: 6 });
    return this.zipped;
  }
}

/** The URLs this module answers (they negotiate their own media types). */
export function isDocument(url: string): boolean {
  const path = url.split('?')[0]!;
  return path === DOCS_PATH || path === `${DOCS_PATH}/` || path.startsWith(`${DOCS_PATH}/`) || /^\/management\/appserver\/[^/]+\/openapi\.(json|yaml)$/.test(path);
}

/** Whether a quality list accepts one of `types` (absent: anything). */
function accepts(header: string | undefined, types: readonly string[]): boolean {
  if (!header) return true;
  return header.split(',').some((part) => {
    const [range = '', ...params] = part.trim().toLowerCase().split(';');
    if (params.some((p) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(p))) return false;
    const type = range.trim();
    return type === '*/*' || types.includes(type) || types.some((t) => type === `${t.split('/')[0]}/*`);
  });
}

const JSON_TYPES = ['application/json', 'application/vnd.oai.openapi+json'];
const YAML_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml', 'application/vnd.oai.openapi', 'text/plain'];

/**
 * The files of the reference page: Swagger UI's own, and the page and its start script, ours.
 * Swagger UI's built files are read from the copy @fastify/swagger-ui ships in its static/ folder
 * (only the files; its plugin is not used): the swagger-ui-dist package depends on an install-time
 * analytics script, which this project keeps out of its dependencies.
 */
function pageFiles(versions: readonly string[]): Map<string, Payload> {
  const dist = join(dirname(createRequire(import.meta.url).resolve('@fastify/swagger-ui/package.json')), 'static');
  const files = new Map<string, Payload>();
  const from = (name: string, type: string) => files.set(name, new Payload(readFileSync(join(dist, name)), type));
  from('swagger-ui-bundle.js', 'text/javascript; charset=utf-8');
  from('swagger-ui-standalone-preset.js', 'text/javascript; charset=utf-8');
  from('swagger-ui.css', 'text/css; charset=utf-8');
  from('favicon-32x32.png', 'image/png');
  from('favicon-16x16.png', 'image/png');
  files.set('', new Payload(Buffer.from(PAGE, 'utf8'), 'text/html; charset=utf-8'));
  files.set('reference.js', new Payload(Buffer.from(startScript(versions), 'utf8'), 'text/javascript; charset=utf-8'));
  return files;
}

export function registerDocuments(app: FastifyInstance, api: ManagementApi): void {
  // Serialised once per document (one per version generation) and format, a slice at a time.
  const documents = new WeakMap<object, { json?: Promise<Payload>; yaml?: Promise<Payload> }>();
  let files: Map<string, Payload> | undefined;

  const document = async (request: FastifyRequest, format: 'json' | 'yaml'): Promise<Payload> => {
    const { version } = request.params as { version: string };
    const tree = (request.query as Record<string, unknown>).tree;
    if (tree !== undefined && typeof tree !== 'string') throw badRequest("The query parameter 'tree' names one tree (edit, serverConfig, domainConfig, domainRuntime, serverRuntime, versions or lifecycle).", 'tree');
    const doc = await api.openapi(version, SESSION_HEADER, { ...(tree !== undefined ? { tree } : {}), pause: nextTurn });
    let held = documents.get(doc);
    if (!held) documents.set(doc, (held = {}));
    if (format === 'json') return (held.json ??= jsonText(doc).then((text) => new Payload(Buffer.from(text, 'utf8'), 'application/json')));
    return (held.yaml ??= yamlText(doc).then((text) => new Payload(Buffer.from(text, 'utf8'), 'application/yaml; charset=utf-8')));
  };

  app.get(`${BASE}/:version/openapi.json`, async (request, reply) => {
    if (!accepts(request.headers.accept, JSON_TYPES)) throw notAcceptable(`The OpenAPI document is served as application/json here; the request's Accept header is '${request.headers.accept}'. Ask for openapi.yaml for YAML.`);
    return send(request, reply, await document(request, 'json'));
  });
  app.get(`${BASE}/:version/openapi.yaml`, async (request, reply) => {
    if (!accepts(request.headers.accept, YAML_TYPES)) throw notAcceptable(`The OpenAPI document is served as application/yaml here; the request's Accept header is '${request.headers.accept}'. Ask for openapi.json for JSON.`);
    return send(request, reply, await document(request, 'yaml'));
  });
  const page = async (request: FastifyRequest, reply: FastifyReply) => {
    files ??= pageFiles(versionSegments(api.productVersion));
    const name = (request.params as { file?: string }).file ?? '';
    const payload = files.get(name);
    if (!payload) throw notFound(name);
    // The page runs only what it is served from here, and is never framed by another site.
    if (name === '') reply.header('content-security-policy', "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'");
    return send(request, reply, payload);
  };
  app.get(DOCS_PATH, page);
  app.get(`${DOCS_PATH}/:file`, page);
}

/** Sends a payload: 304 when the client holds it, gzip when the client takes it. */
async function send(request: FastifyRequest, reply: FastifyReply, payload: Payload): Promise<FastifyReply> {
  // Revalidated on every use, never stored by intermediaries (the login stands in front of it).
  reply.header('cache-control', 'private, no-cache');
  reply.header('etag', payload.etag);
  reply.header('vary', 'Accept-Encoding');
  const held = request.headers['if-none-match'];
  if (typeof held === 'string' && held.split(',').some((tag) => tag.trim() === payload.etag)) return reply.code(304).send();
  reply.header('content-type', payload.type);
  if (accepts(request.headers['accept-encoding'], ['gzip']) && request.headers['accept-encoding'] !== undefined) {
    reply.header('content-encoding', 'gzip');
    return reply.send(await payload.gzip());
  }
  return reply.send(payload.bytes);
}

const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>appserver administration: API reference</title>
<link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
<link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png" sizes="32x32">
<link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-16x16.png" sizes="16x16">
</head>
<body>
<div id="reference"></div>
<script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/swagger-ui-standalone-preset.js"></script>
<script src="${DOCS_PATH}/reference.js"></script>
</body>
</html>
`;

// The page's start: one document per tree (the whole one is too large for a page to lay out), the
// version and the tree from the page's query (`?version=12.2.1.0&tree=domainRuntime`, from fixed
// lists: the versions are the domain's, from the catalog's list), every operation folded, "try it"
// sending the X-Requested-By header a write needs. Requests go to this origin with the browser's
// login (or the one given with the Authorize button, kept only while the page is open).
const startScript = (versions: readonly string[]) => `'use strict';
(function () {
  var versions = ${JSON.stringify(versions).replace(/"/g, "'")};
  var trees = ['edit', 'serverConfig', 'domainConfig', 'domainRuntime', 'serverRuntime', 'lifecycle', 'versions'];
  var query = new URLSearchParams(window.location.search);
  var version = versions.indexOf(query.get('version')) >= 0 ? query.get('version') : 'latest';
  var tree = trees.indexOf(query.get('tree')) >= 0 ? query.get('tree') : 'edit';
  // From the origin, never relative to the page: a page opened with a login in its URL would
  // make every relative fetch carry it, which browsers refuse.
  var base = window.location.origin + '${BASE}/' + version + '/openapi.json?tree=';
  window.ui = SwaggerUIBundle({
    urls: trees.map(function (name) { return { url: base + name, name: name }; }),
    'urls.primaryName': tree,
    dom_id: '#reference',
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
    deepLinking: true,
    docExpansion: 'none',
    defaultModelsExpandDepth: -1,
    filter: true,
    // What is typed into Authorize stays in this page's memory: never written to the browser's
    // storage, where any later script of this origin, or anyone at this browser, could read it.
    persistAuthorization: false,
    displayRequestDuration: true,
    requestInterceptor: function (request) {
      var headers = request.headers || (request.headers = {});
      var named = Object.keys(headers).some(function (h) { return h.toLowerCase() === 'x-requested-by'; });
      if (!named) headers['X-Requested-By'] = 'api-reference';
      return request;
    }
  });
})();
`;
