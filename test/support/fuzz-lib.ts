// Shared helpers of the hardening tests: a raw HTTP client (node:http, so that paths go out exactly
// as written, bodies can be sent on any method and with any or no content type), the checks every
// answer must pass (never 5xx, JSON, the error envelope), and catalog-driven walks of the trees.
import http from 'node:http';
import { existsSync, readdirSync } from 'node:fs';
import net from 'node:net';
import { sep } from 'node:path';
import type { Catalog } from '../../src/catalog/load.js';
import { catalogWithOperations } from '../../src/operations/catalog.js';
import type { PropDef, TypeDef } from '../../src/catalog/model.js';

export const ERROR_TYPE = 'http://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html#sec10.4.1';
export const CFG = 'appserver.management.configuration.';
export const RT = 'appserver.management.runtime.';
export const MGMT = '/management/appserver/latest';

export type TreeName = 'edit' | 'serverConfig' | 'domainConfig' | 'domainRuntime' | 'serverRuntime';
export const TREES: TreeName[] = ['edit', 'serverConfig', 'domainConfig', 'domainRuntime', 'serverRuntime'];

export function catalog(): Catalog {
  return catalogWithOperations();
}

export function rootType(tree: TreeName): TypeDef {
  const c = catalog();
  if (tree === 'domainRuntime') return c.type(`${RT}DomainRuntimeMBean`);
  if (tree === 'serverRuntime') return c.type(`${RT}ServerRuntimeMBean`);
  return c.type(`${CFG}DomainMBean`);
}

/** The child properties (singletons and collections) a tree shows under `latest`. */
export function childProps(t: TypeDef, tree: TreeName): PropDef[] {
  return t.children.filter((p) => !p.deprecatedIn && (p.onlyIn === undefined || p.onlyIn === tree));
}

/** The type of the beans a child property holds (the first creator for a polymorphic collection). */
export function childType(p: PropDef): TypeDef | undefined {
  const c = catalog();
  return c.types.get(p.javaType) ?? (p.creators[0] ? c.types.get(p.creators[0]) : undefined);
}

/** Refines a base type with the `type` discriminator a bean shows. */
export function refine(base: TypeDef, discriminator: unknown): TypeDef {
  if (typeof discriminator !== 'string') return base;
  return catalog().subtypeByDiscriminator(base, discriminator) ?? base;
}

// ---- the raw client ------------------------------------------------------------------------------

export interface RawRequest {
  method: string;
  /** Request target exactly as sent (path and query). */
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

export interface RawReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: any;
  /** True when the text parsed as JSON. */
  isJson: boolean;
  ms: number;
  /** Set when no answer came (connection error or timeout). */
  error?: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

/** Sends one request as is; never throws (a transport failure comes back as `error`, status 0). */
export function send(port: number, req: RawRequest, timeoutMs = 15_000, fresh = false): Promise<RawReply> {
  const started = Date.now();
  return new Promise((resolve) => {
    let settled = false;
    const finish = (r: Omit<RawReply, 'ms'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...r, ms: Date.now() - started });
    };
    const fail = (error: string) => finish({ status: 0, headers: {}, text: '', json: undefined, isJson: false, error });
    let r: http.ClientRequest;
    try {
      const headers: Record<string, string | number> = { ...req.headers };
      if (req.body !== undefined && headers['transfer-encoding'] === undefined) headers['content-length'] = Buffer.byteLength(req.body);
      r = http.request({ host: '127.0.0.1', port, method: req.method, path: req.path, headers, agent: fresh ? false : agent });
    } catch (err) {
      fail(`client refused to send: ${(err as Error).message}`);
      return;
    }
    const timer = setTimeout(() => {
      r.destroy(new Error(`no answer in ${timeoutMs} ms`));
    }, timeoutMs);
    r.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        let json: any;
        let isJson = false;
        try {
          json = JSON.parse(text);
          isJson = true;
        } catch {
          json = undefined;
        }
        finish({ status: res.statusCode ?? 0, headers: res.headers, text, json, isJson });
      });
      res.on('error', (err) => {
        clearTimeout(timer);
        fail(err.message);
      });
    });
    r.on('error', (err) => {
      clearTimeout(timer);
      fail(err.message);
    });
    if (req.body !== undefined) r.end(req.body);
    else r.end();
  });
}

export function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

/** A small JSON client for paths below `/management/appserver/latest` (or absolute paths). */
export class Api {
  constructor(
    public port: number,
    readonly auth: string | null,
    readonly extra: Record<string, string> = {},
  ) {}

  private path(p: string): string {
    return p.startsWith('/') ? p : `${MGMT}/${p}`;
  }

  private headers(more: Record<string, string> = {}): Record<string, string> {
    return {
      accept: 'application/json',
      'x-requested-by': 'hardening',
      ...(this.auth !== null ? { authorization: this.auth } : {}),
      ...this.extra,
      ...more,
    };
  }

  get(p: string, more?: Record<string, string>): Promise<RawReply> {
    return send(this.port, { method: 'GET', path: this.path(p), headers: this.headers(more) });
  }

  post(p: string, body: unknown = {}, more?: Record<string, string>): Promise<RawReply> {
    return send(this.port, {
      method: 'POST',
      path: this.path(p),
      headers: this.headers({ 'content-type': 'application/json', ...more }),
      body: JSON.stringify(body),
    });
  }

  del(p: string, more?: Record<string, string>): Promise<RawReply> {
    return send(this.port, { method: 'DELETE', path: this.path(p), headers: this.headers(more) });
  }

  as(auth: string | null): Api {
    return new Api(this.port, auth, this.extra);
  }
}

// ---- the checks every answer must pass -------------------------------------------------------------

/**
 * What is wrong with an answer, or undefined: a 5xx, no answer, a body that is not JSON (HEAD
 * excepted), or, for an error status, a body that is not the error envelope naming that status.
 */
export function envelopeProblem(method: string, r: RawReply, accept?: string): string | undefined {
  if (r.error) return `no answer: ${r.error}`;
  // The console's address sends a browser on to the console's page (scripts probe /console).
  if (r.status === 302 && r.headers.location === '/console/') return undefined;
  // A browser's GET gets the answer as a page (src/browse): the same status, said in the page.
  if (/^text\/html\b/.test(String(r.headers['content-type'] ?? ''))) {
    if ((method !== 'GET' && method !== 'HEAD') || !/text\/html/i.test(accept ?? '')) return `an HTML answer to ${method} with Accept ${JSON.stringify(accept ?? null)}`;
    return method === 'HEAD' || r.text.includes(`data-status="${r.status}"`) ? undefined : 'an HTML page that does not carry its status';
  }
  // An overloaded server saying so (503 with Retry-After) protects itself: it is no fault. The
  // fuzzer's own work runs in the server's process, and on a loaded machine may make it late.
  if (r.status === 503 && r.headers['retry-after'] !== undefined && /overloaded/.test(r.text)) return undefined;
  if (r.status >= 500) return `server error ${r.status}`;
  if (r.status < 100) return `bad status ${r.status}`;
  if (method === 'HEAD') return undefined;
  if (!r.isJson) return `the body is not JSON (content-type ${String(r.headers['content-type'])}): ${JSON.stringify(r.text.slice(0, 200))}`;
  if (r.status < 400) return undefined;
  if (!/^application\/json\b/.test(String(r.headers['content-type'] ?? ''))) return `error with content-type ${String(r.headers['content-type'])}`;
  const b = r.json;
  if (b === null || typeof b !== 'object' || Array.isArray(b)) return 'the error body is not a JSON object';
  if (b.status !== r.status) return `the envelope says status ${JSON.stringify(b.status)}, HTTP says ${r.status}`;
  if (b.type !== ERROR_TYPE) return `the envelope type is ${JSON.stringify(b.type)}`;
  if (b.title === 'FAILURE') {
    if (typeof b.detail !== 'string' || b.detail.length === 0) return 'a FAILURE envelope without a detail';
    return undefined;
  }
  if (b.title === 'ERRORS') {
    const list = b['appserver:errorsDetails'];
    if (!Array.isArray(list) || list.length === 0) return "an ERRORS envelope without 'appserver:errorsDetails'";
    for (const d of list) {
      if (d === null || typeof d !== 'object' || typeof d.detail !== 'string' || d.title !== 'FAILURE' || d.type !== ERROR_TYPE) {
        return `a malformed item in appserver:errorsDetails: ${JSON.stringify(d).slice(0, 200)}`;
      }
    }
    return undefined;
  }
  return `the envelope title is ${JSON.stringify(b.title)}`;
}

// ---- walks -------------------------------------------------------------------------------------------

export interface KnownBean {
  tree: TreeName;
  segs: string[];
  type: TypeDef;
}

export const urlOf = (tree: TreeName, segs: readonly string[]) => [tree, ...segs.map((s) => encodeURIComponent(s))].join('/');

/** Runs `fn` over `items` with at most `n` at a time. */
export async function pool<T>(items: T[], n: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= items.length) return;
      await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
}

/**
 * Breadth-first walk of one tree over HTTP, following the child properties the catalog declares:
 * the beans found (with their concrete types), at most `limit` of them, at most `perCollection`
 * items of each collection.
 */
export async function crawl(api: Api, tree: TreeName, limit: number, perCollection = 6): Promise<KnownBean[]> {
  const found: KnownBean[] = [];
  let frontier: KnownBean[] = [{ tree, segs: [], type: rootType(tree) }];
  while (frontier.length > 0 && found.length < limit) {
    const next: KnownBean[] = [];
    const batch = frontier.slice(0, limit - found.length);
    await pool(batch, 8, async (bean) => {
      const r = await api.get(`${urlOf(tree, bean.segs)}?fields=name,type`);
      if (r.status !== 200 || !r.isJson) return;
      const type = refine(bean.type, r.json.type);
      found.push({ ...bean, type });
      const rels = new Set<string>((r.json.links ?? []).map((l: { rel: string }) => l.rel));
      for (const p of childProps(type, tree)) {
        if (!rels.has(p.name)) continue;
        const ct = childType(p);
        if (!ct) continue;
        if (p.shape === 'singleton') {
          next.push({ tree, segs: [...bean.segs, p.name], type: ct });
          continue;
        }
        const items = await api.get(`${urlOf(tree, [...bean.segs, p.name])}?links=none&fields=${encodeURIComponent(`${ct.keyProp},type`)}`);
        if (items.status !== 200 || !Array.isArray(items.json?.items)) continue;
        for (const item of items.json.items.slice(0, perCollection)) {
          const key = item[ct.keyProp];
          if (typeof key !== 'string') continue;
          next.push({ tree, segs: [...bean.segs, p.name, key], type: refine(ct, item.type) });
        }
      }
    });
    frontier = next;
  }
  return found;
}

/** Reference values as a bean shows them: an identity array, or a list of `{identity}`. */
export function referencesIn(value: unknown): string[][] {
  if (Array.isArray(value) && value.every((s) => typeof s === 'string')) return value.length > 0 ? [value as string[]] : [];
  if (Array.isArray(value)) {
    return value.flatMap((v) => (v && typeof v === 'object' && Array.isArray((v as { identity?: unknown }).identity) ? [(v as { identity: string[] }).identity] : []));
  }
  return [];
}

export interface ConfigWalk {
  /** Path below serverConfig -> the bean as shown with links=none. */
  beans: Map<string, unknown>;
  /** Beans that did not read back with 200. */
  unreadable: string[];
  /** [bean path, property, referenced identity] of references to beans that do not exist. */
  dangling: [string, string, string[]][];
  references: number;
}

/**
 * Walks the subtrees of the given top-level collections of `serverConfig` (every bean below them,
 * through the catalog's children), reading each bean; then checks every reference a walked bean
 * holds points at a bean that exists.
 */
export async function walkConfig(api: Api, collections: string[], limit = 3000): Promise<ConfigWalk> {
  const tree: TreeName = 'serverConfig';
  const beans = new Map<string, unknown>();
  const unreadable: string[] = [];
  const refs: [string, string, string[]][] = [];
  const domain = rootType(tree);
  let frontier: { segs: string[]; type: TypeDef; mustExist: boolean }[] = [];
  for (const name of collections) {
    const p = domain.prop.get(name);
    const ct = p && childType(p);
    if (!p || !ct) throw new Error(`DomainMBean has no collection ${name}`);
    const r = await api.get(`${urlOf(tree, [name])}?links=none&fields=${encodeURIComponent(`${ct.keyProp},type`)}`);
    if (r.status !== 200) {
      unreadable.push(`${name} (collection: ${r.status})`);
      continue;
    }
    for (const item of r.json.items) frontier.push({ segs: [name, String(item[ct.keyProp])], type: refine(ct, item.type), mustExist: true });
  }
  while (frontier.length > 0 && beans.size < limit) {
    const next: typeof frontier = [];
    await pool(frontier, 8, async ({ segs, type: base, mustExist }) => {
      const path = urlOf(tree, segs);
      const r = await api.get(`${path}?links=none`);
      if (r.status === 404 && !mustExist) return;
      if (r.status !== 200 || !r.isJson) {
        unreadable.push(`${path} (${r.status})`);
        return;
      }
      beans.set(path, r.json);
      const type = refine(base, r.json.type);
      for (const p of type.props) {
        if (p.shape === 'reference') for (const id of referencesIn(r.json[p.name])) refs.push([path, p.name, id]);
      }
      for (const p of childProps(type, tree)) {
        const ct = childType(p);
        if (!ct) continue;
        if (p.shape === 'singleton') {
          next.push({ segs: [...segs, p.name], type: ct, mustExist: !p.optional });
          continue;
        }
        const items = await api.get(`${urlOf(tree, [...segs, p.name])}?links=none&fields=${encodeURIComponent(`${ct.keyProp},type`)}`);
        if (items.status !== 200 || !Array.isArray(items.json?.items)) {
          unreadable.push(`${urlOf(tree, [...segs, p.name])} (collection: ${items.status})`);
          continue;
        }
        for (const item of items.json.items) next.push({ segs: [...segs, p.name, String(item[ct.keyProp])], type: refine(ct, item.type), mustExist: true });
      }
    });
    frontier = next;
  }
  // Each distinct target once.
  const targets = new Map<string, string[]>();
  for (const [, , id] of refs) targets.set(JSON.stringify(id), id);
  const missing = new Set<string>();
  await pool([...targets.values()], 8, async (id) => {
    const r = await api.get(`${urlOf(tree, id)}?links=none&fields=name`);
    if (r.status !== 200) missing.add(JSON.stringify(id));
  });
  const dangling = refs.filter(([, , id]) => missing.has(JSON.stringify(id)));
  return { beans, unreadable, dangling, references: refs.length };
}

/**
 * Ends the test process a little after its last test if something still holds it open: a server
 * whose start failed half-way (a fault these tests look for) leaves its store and timers behind, and
 * the runner would otherwise wait for that process forever instead of reporting the failure.
 */
export function exitWhenStuck(graceMs = 3000): void {
  setTimeout(() => {
    console.log(`the test process was still held open ${graceMs} ms after its last test (a server left half-started?): exiting`);
    process.exit(process.exitCode ?? 0);
  }, graceMs).unref();
}

/** A frequency table as `k: n` pairs, most frequent first. */
export function histogram(counts: Map<string | number, number>): string {
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k}: ${n}`)
    .join(', ');
}

// ---- hostile uploads --------------------------------------------------------------------------------

export interface UploadPart {
  name: string;
  filename?: string;
  contentType?: string;
  data: Buffer;
}

/** A multipart body of these parts as written (names and file names go out unescaped). */
export function hostileMultipart(parts: UploadPart[], boundary: string): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const file = p.filename !== undefined ? `; filename="${p.filename}"` : '';
    const type = p.contentType !== undefined ? `Content-Type: ${p.contentType}\r\n` : '';
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"${file}\r\n${type}\r\n`), p.data, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

/**
 * Sends a request head and `body` on a fresh connection and reads the answer as a RawReply. With
 * `declared` the head announces that many bytes whatever is sent; `halfClose` ends the sending side
 * after the body (a client that stops short). No answer before the connection closes is `error`.
 */
export function sendRaw(port: number, head: string, body: Buffer, opts: { halfClose?: boolean; timeoutMs?: number } = {}): Promise<RawReply> {
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let raw = Buffer.alloc(0);
    let done = false;
    const finish = (r: Omit<RawReply, 'ms'>) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...r, ms: Date.now() - started });
    };
    const parsed = (): Omit<RawReply, 'ms'> | undefined => {
      let text = raw.toString('latin1');
      for (;;) {
        const end = text.indexOf('\r\n\r\n');
        if (end < 0) return undefined;
        const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0);
        if (status >= 100 && status < 200) {
          text = text.slice(end + 4);
          continue;
        }
        const headers: http.IncomingHttpHeaders = {};
        for (const l of lines) {
          const i = l.indexOf(':');
          if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
        }
        const length = Number(headers['content-length'] ?? NaN);
        const bytes = Buffer.from(text.slice(end + 4), 'latin1');
        if (!Number.isFinite(length) || bytes.length < length) return undefined;
        const body = bytes.subarray(0, length).toString('utf8');
        let json: any;
        let isJson = false;
        try {
          json = JSON.parse(body);
          isJson = true;
        } catch {
          json = undefined;
        }
        return { status, headers, text: body, json, isJson };
      }
    };
    const timer = setTimeout(() => finish({ status: 0, headers: {}, text: '', json: undefined, isJson: false, error: `no answer in ${opts.timeoutMs ?? 15_000} ms` }), opts.timeoutMs ?? 15_000);
    socket.on('data', (d: Buffer) => {
      raw = Buffer.concat([raw, d]);
      const r = parsed();
      if (r) finish(r);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => finish(parsed() ?? { status: 0, headers: {}, text: '', json: undefined, isJson: false, error: 'closed without an answer' }));
    socket.write(head);
    socket.write(body, () => {
      if (opts.halfClose) socket.end();
    });
  });
}

/** Every file and folder below `dir` (relative paths), sorted. */
export function treeOf(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true }) as string[]).map((p) => p.replaceAll(sep, '/')).sort();
}
