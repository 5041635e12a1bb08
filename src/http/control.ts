// The control interface over HTTP, at /management/appserver-control: faults, the clock, snapshots
// and the request journal, as hypermedia in the style of the management trees (every resource
// links to itself and its parent, operations are `action` links taking POST). Administrators only;
// writes carry X-Requested-By. Served only when the server was started with the control interface.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { badRequest, forbidden, notFound } from '../core/problems.js';
import type { Control } from '../control/control.js';
import type { Fault, RequestFault } from '../control/faults.js';
import type { JournalFilter } from '../control/journal.js';
import { errorBody } from './errors.js';
import { sendJson } from './send.js';

export const CONTROL_ROOT = '/management/appserver-control';

/** True for the control interface's own URLs (they meet no injected fault and are not journaled). */
export function isControlUrl(url: string): boolean {
  return url === CONTROL_ROOT || url.startsWith(`${CONTROL_ROOT}/`) || url.startsWith(`${CONTROL_ROOT}?`);
}

interface Link {
  rel: string;
  href: string;
  title?: string;
}

function origin(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

function links(request: FastifyRequest, self: string, parent: string | undefined, actions: string[] = [], extra: Link[] = []): Link[] {
  const base = origin(request) + CONTROL_ROOT;
  const out: Link[] = [];
  if (parent !== undefined) out.push({ rel: 'parent', href: base + parent });
  out.push({ rel: 'self', href: base + self });
  out.push(...extra.map((l) => ({ ...l, href: base + l.href })));
  for (const a of actions) out.push({ rel: 'action', title: a, href: `${base}${self}/${a}` });
  return out;
}

function faultView(request: FastifyRequest, control: Control, f: Fault): Record<string, unknown> {
  const self = `/faults/${encodeURIComponent(f.name)}`;
  return {
    name: f.name,
    kind: f.kind,
    ...f.scope,
    ...(f.target !== undefined ? { target: f.target } : {}),
    ...(f.method !== undefined ? { method: f.method } : {}),
    message: f.message,
    ...(f.status !== undefined ? { status: f.status } : {}),
    ...(f.latencyMs !== undefined ? { latencyMs: f.latencyMs } : {}),
    remaining: f.remaining ?? null,
    probability: f.probability,
    expires: f.expiresAt ?? null,
    created: f.created,
    hits: f.hits,
    active: control.faults.active(f),
    links: links(request, self, '/faults', ['remove']),
  };
}

/** The body without its links (and its items' links). */
function withoutLinks(body: unknown): unknown {
  if (typeof body !== 'object' || body === null) return body;
  const { links: _links, ...rest } = body as Record<string, unknown>;
  if (Array.isArray(rest.items)) rest.items = rest.items.map(withoutLinks);
  return rest;
}

/** Reads an optional integer query parameter. */
function intParam(query: Record<string, unknown>, key: string, min: number, max: number): number | undefined {
  const v = query[key];
  if (v === undefined) return undefined;
  const n = typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw badRequest(`The query parameter '${key}' must be an integer from ${min} to ${max}; it is ${JSON.stringify(v)}.`, key);
  return n;
}

function textParam(query: Record<string, unknown>, key: string): string | undefined {
  const v = query[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.length > 500) throw badRequest(`The query parameter '${key}' must be given once, as text of at most 500 characters.`, key);
  return v;
}

/** Registers the routes (after the error handler, whose envelope they use). */
export function registerControlRoutes(app: FastifyInstance, control: Control): void {
  // Administrators only, on every control URL; writes need the CSRF header.
  const guard = (request: FastifyRequest) => {
    if (!request.principal?.roles.has('Admin')) throw forbidden(`User '${request.principal?.user ?? ''}' may not use the control interface: it needs the role Admin.`);
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      const csrf = request.headers['x-requested-by'];
      if (typeof csrf !== 'string' || csrf.trim() === '') {
        throw badRequest(`The header 'X-Requested-By' is required on ${request.method} requests (any non-empty value, for example 'X-Requested-By: MyClient').`);
      }
    }
  };
  const r = (path: string) => CONTROL_ROOT + path;
  const send = (reply: FastifyReply, status: number, body: unknown, headers: Record<string, string> = {}) => sendJson(reply, status, body, headers);
  const get = (path: string, fn: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown> | unknown) =>
    app.get(r(path), async (request, reply) => {
      guard(request);
      const body = await fn(request, reply);
      // `links=none`, as on the management trees (generic clients ask for it).
      return send(reply, 200, (request.query as Record<string, unknown>).links === 'none' ? withoutLinks(body) : body);
    });
  const post = (path: string, fn: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown> | unknown) =>
    app.post(r(path), { bodyLimit: 64 * 1024 }, async (request, reply) => {
      guard(request);
      const body = await fn(request, reply);
      return reply.sent ? reply : send(reply, 200, body);
    });

  const root = (request: FastifyRequest) => ({
    name: 'appserver-control',
    links: links(request, '', undefined, ['reset'], [
      { rel: 'faults', href: '/faults' },
      { rel: 'snapshots', href: '/snapshots' },
      { rel: 'journal', href: '/journal' },
      { rel: 'clock', href: '/clock' },
    ]),
  });
  get('', root);
  post('/reset', async (request) => {
    await control.reset();
    return root(request);
  });

  // ---- faults ----
  const faults = (request: FastifyRequest) => ({
    items: control.faults.list().map((f) => faultView(request, control, f)),
    links: links(request, '/faults', '', ['clear']),
  });
  get('/faults', faults);
  post('/faults', (request, reply) => {
    const f = control.faults.add(request.body);
    const view = faultView(request, control, f);
    return send(reply, 201, view, { location: `${origin(request)}${CONTROL_ROOT}/faults/${encodeURIComponent(f.name)}` });
  });
  post('/faults/clear', (request) => {
    control.faults.clear();
    return faults(request);
  });
  get('/faults/:name', (request) => faultView(request, control, control.faults.get((request.params as { name: string }).name)));
  const removeFault = (request: FastifyRequest) => {
    control.faults.remove((request.params as { name: string }).name);
    return faults(request);
  };
  post('/faults/:name/remove', removeFault);
  app.delete(r('/faults/:name'), async (request, reply) => {
    guard(request);
    return send(reply, 200, removeFault(request));
  });

  // ---- the clock ----
  const clock = (request: FastifyRequest, view = control.clockView()) => ({
    ...view,
    links: links(request, '/clock', '', ['freeze', 'resume', 'advance', 'setTimings']),
  });
  get('/clock', (request) => clock(request));
  post('/clock/freeze', (request) => clock(request, control.freeze()));
  post('/clock/resume', (request) => clock(request, control.resume()));
  post('/clock/advance', (request) => clock(request, control.advance(request.body)));
  post('/clock/setTimings', (request) => clock(request, control.setTimings(request.body)));

  // ---- snapshots ----
  const snapshotView = (request: FastifyRequest, s: { name: string; created: number; bytes: number }) => ({
    ...s,
    links: links(request, `/snapshots/${encodeURIComponent(s.name)}`, '/snapshots', ['restore', 'remove']),
  });
  const snapshots = async (request: FastifyRequest) => ({
    items: (await control.snapshots()).map((s) => snapshotView(request, s)),
    links: links(request, '/snapshots', ''),
  });
  get('/snapshots', snapshots);
  post('/snapshots', async (request, reply) => {
    const s = await control.save(request.body);
    return send(reply, 201, snapshotView(request, s), { location: `${origin(request)}${CONTROL_ROOT}/snapshots/${encodeURIComponent(s.name)}` });
  });
  const snapshotName = (request: FastifyRequest) => (request.params as { name: string }).name;
  get('/snapshots/:name', async (request) => snapshotView(request, await control.snapshot(snapshotName(request))));
  post('/snapshots/:name/restore', async (request) => {
    const name = snapshotName(request);
    await control.restore(name);
    return snapshotView(request, await control.snapshot(name));
  });
  const removeSnapshot = async (request: FastifyRequest) => {
    await control.deleteSnapshot(snapshotName(request));
    return snapshots(request);
  };
  post('/snapshots/:name/remove', removeSnapshot);
  app.delete(r('/snapshots/:name'), async (request, reply) => {
    guard(request);
    return send(reply, 200, await removeSnapshot(request));
  });

  // ---- the journal ----
  get('/journal', (request) => {
    const q = request.query as Record<string, unknown>;
    const known = ['method', 'path', 'user', 'status', 'after', 'limit', 'links'];
    for (const k of Object.keys(q)) if (!known.includes(k)) throw badRequest(`The journal is filtered by ${known.slice(0, -1).join(', ')}; '${k}' is none of them.`, k);
    const filter: JournalFilter = {};
    const method = textParam(q, 'method');
    if (method !== undefined) filter.method = method.toUpperCase();
    const path = textParam(q, 'path');
    if (path !== undefined) filter.path = path;
    const user = textParam(q, 'user');
    if (user !== undefined) filter.user = user;
    const status = intParam(q, 'status', 0, 599);
    if (status !== undefined) filter.status = status;
    const after = intParam(q, 'after', 0, Number.MAX_SAFE_INTEGER);
    if (after !== undefined) filter.after = after;
    const limit = intParam(q, 'limit', 1, 100_000);
    if (limit !== undefined) filter.limit = limit;
    return {
      capacity: control.journal.capacity,
      size: control.journal.size,
      items: control.journal.read(filter),
      links: links(request, '/journal', '', ['clear', 'configure']),
    };
  });
  const journalState = (request: FastifyRequest) => ({ capacity: control.journal.capacity, size: control.journal.size, links: links(request, '/journal', '', ['clear', 'configure']) });
  post('/journal/clear', (request) => {
    control.journal.clear();
    return journalState(request);
  });
  post('/journal/configure', (request) => {
    const b = request.body;
    if (typeof b !== 'object' || b === null || Array.isArray(b)) throw badRequest('The request body must be a JSON object, for example {"capacity": 500}.');
    for (const k of Object.keys(b)) if (k !== 'capacity') throw badRequest(`There is no property '${k}' here; the property is capacity.`, k);
    control.journal.resize((b as { capacity?: unknown }).capacity);
    return journalState(request);
  });
  // Anything else below the root: 404 in the same envelope.
  app.all(r('/*'), async (request) => {
    guard(request);
    throw notFound(request.url.split('?')[0]!.slice(CONTROL_ROOT.length + 1));
  });

}

/** The hooks by which faults act on requests (before authentication) and the journal records them. */
export function registerControlHooks(app: FastifyInstance, control: Control): void {
  app.addHook('onRequest', async (request, reply) => {
    if (isControlUrl(request.url)) return;
    const fault = control.faults.forRequest(request.method, request.url.split('?')[0]!);
    if (!fault) return;
    (request as { fault?: string }).fault = fault.fault;
    await act(request, reply, fault, control);
  });
  app.addHook('onResponse', async (request, reply) => {
    if (isControlUrl(request.url)) return;
    record(request, control, reply.statusCode, reply.elapsedTime, Number(reply.getHeader('content-length') ?? 0) || 0);
  });
}

function record(request: FastifyRequest, control: Control, status: number, ms: number, responseBytes: number): void {
  const fault = (request as { fault?: string }).fault;
  control.journal.record({
    time: Date.now() - Math.round(ms),
    method: request.method,
    path: request.url,
    user: request.principal?.user ?? null,
    status,
    durationMs: Math.round(ms * 10) / 10,
    requestBytes: Number(request.headers['content-length'] ?? 0) || 0,
    responseBytes,
    ...(fault !== undefined ? { fault } : {}),
  });
}

/** What a matched request meets: an answer of the given status, a dropped connection, or a wait. */
async function act(request: FastifyRequest, reply: FastifyReply, fault: RequestFault, control: Control): Promise<void> {
  switch (fault.kind) {
    case 'status': {
      const headers: Record<string, string> = fault.status === 503 ? { 'retry-after': '1' } : {};
      // The body is not read: the connection closes after the answer when one was sent.
      if (request.headers['content-length'] !== undefined || request.headers['transfer-encoding'] !== undefined) headers.connection = 'close';
      sendJson(reply, fault.status, errorBody(fault.status, [{ detail: fault.message }]), headers);
      return;
    }
    case 'drop': {
      const started = process.hrtime.bigint();
      reply.hijack();
      request.raw.socket?.destroy();
      record(request, control, 0, Number(process.hrtime.bigint() - started) / 1e6, 0);
      return;
    }
    case 'slow':
      await wait(reply, fault.latencyMs, () => false);
      return;
    case 'hang':
      await wait(reply, fault.boundMs, fault.until);
      return;
  }
}

/** Waits `ms` of real time at most, less when `over` turns true or the client goes away. */
function wait(reply: FastifyReply, ms: number, over: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const end = Date.now() + ms;
    let timer: NodeJS.Timeout;
    const done = () => {
      clearTimeout(timer);
      reply.raw.off('close', gone);
      resolve();
    };
    const gone = () => done();
    reply.raw.once('close', gone);
    const tick = () => {
      const left = end - Date.now();
      if (left <= 0 || over()) return done();
      timer = setTimeout(tick, Math.min(left, 50));
    };
    tick();
  });
}
