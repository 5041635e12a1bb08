// A server for the runtime tests: like startTestServer (random port, fresh data directory, the demo
// domain, admin/welcome1), but on a manual clock, so lifecycle tasks move only when a test advances
// the scheduler. Also a small HTTP client (every request carries X-Requested-By), task polling, and
// user creation through the default authenticator.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningServer, type ServerOptions, startServer } from '../../src/cli/server.js';
import { storeFor } from './store.js';
import { TEST_MAX_EVENT_LOOP_DELAY } from './server.js';
import type { LifecycleTimings } from '../../src/runtime/lifecycle.js';
import { ManualScheduler } from '../../src/core/clock.js';
import { answerOf } from './answer.js';

export const ADMIN = { user: 'admin', password: 'welcome1' };
export const ERROR_TYPE = 'http://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html#sec10.4.1';
/** The default authenticator of the default realm, where users and groups are managed. */
export const AUTHN = 'serverConfig/securityConfiguration/realms/myrealm/authenticationProviders/DefaultAuthenticator';
/** Answer at once with the task (202 while it runs). */
export const ASYNC = { prefer: 'respond-async' };

export function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

export const adminAuth = basic(ADMIN.user, ADMIN.password);

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/** One HTTP request; JSON (or raw text) back. A string body is sent as is (relaxed JSON). */
export async function request(
  url: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string>; auth?: string | null; signal?: AbortSignal } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
  if (init.auth !== null) headers.authorization = init.auth ?? adminAuth;
  let body: string | FormData | undefined;
  if (init.body instanceof FormData) body = init.body;
  else if (init.body !== undefined) {
    body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(url, { method: init.method ?? 'GET', headers, ...(body !== undefined ? { body } : {}), ...(init.signal ? { signal: init.signal } : {}) });
  return answerOf(res);
}

export interface Client {
  readonly auth: string;
  get(path: string, headers?: Record<string, string>): Promise<Reply>;
  post(path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  del(path: string, headers?: Record<string, string>): Promise<Reply>;
  /** A full URL (absolute task hrefs) or a path relative to `.../management/appserver/latest`. */
  url(path: string): string;
  as(auth: string): Client;
}

export function client(base: () => string, auth: string = adminAuth): Client {
  const url = (path: string) => (/^https?:/.test(path) ? path : `${base()}/${path}`);
  const headers = (extra: Record<string, string> = {}) => ({ 'x-requested-by': 'runtime-tests', ...extra });
  return {
    auth,
    url,
    get: (path, extra) => request(url(path), { auth, headers: headers(extra) }),
    post: (path, body = {}, extra) => request(url(path), { method: 'POST', body, auth, headers: headers(extra) }),
    del: (path, extra) => request(url(path), { method: 'DELETE', auth, headers: headers(extra) }),
    as: (other) => client(base, other),
  };
}

export interface RuntimeServer {
  server: RunningServer;
  scheduler: ManualScheduler;
  /** http://127.0.0.1:port */
  origin: string;
  /** origin + /management/appserver/latest */
  latest: string;
  dataDir: string;
  /** An admin client that follows restarts. */
  admin: Client;
  /** Moves the manual clock. */
  advance(ms: number): void;
  stop(remove?: boolean): Promise<void>;
  /** Stops and starts again on the same data directory (new port, new ManualScheduler). */
  restart(): Promise<RuntimeServer>;
}

export interface RuntimeServerOptions {
  /** Managed servers listen on their own ports shifted by this; without it they do not listen at all. */
  portOffset?: number;
  /** The store (default: the one `storeFor` gives for the data directory). */
  store?: string;
  /** The key of sealed values (servers sharing a store share it). */
  secretKey?: string;
  /** How often servers sharing a store look for listeners to take over (ms). */
  leaseCheckMs?: number;
  /** Caps and idle expiry of named edit sessions. */
  sessionLimits?: ServerOptions['sessionLimits'];
  /** How long audit records are kept (ms). */
  auditRetentionMs?: number;
  /** Where the manual clock starts (epoch ms; default 2026-01-01). */
  clockStart?: number;
  /** The product version of the domain a new data directory gets (default: the default version). */
  productVersion?: string;
}

/**
 * What every test server starts with: loopback on a free port, the data directory's store (SQLite,
 * or a PostgreSQL database of its own under APPSERVER_TEST_PG), quiet, the test administrator, a
 * tolerant overload check, and managed servers without ports of their own (test runs would fight
 * over them) unless a test gives an offset.
 */
export async function testServerOptions(dataDir: string, store?: string): Promise<ServerOptions> {
  const where = store ?? (await storeFor(dataDir));
  return {
    host: '127.0.0.1',
    port: 0,
    dataDir,
    ...(where ? { store: where } : {}),
    logLevel: 'silent',
    quiet: true,
    adminUser: ADMIN.user,
    adminPassword: ADMIN.password,
    maxEventLoopDelay: TEST_MAX_EVENT_LOOP_DELAY,
    listeners: false,
  };
}

export async function startRuntimeServer(
  dataDir = mkdtempSync(join(tmpdir(), 'appserver-runtime-')),
  timings?: Partial<LifecycleTimings>,
  options: RuntimeServerOptions = {},
): Promise<RuntimeServer> {
  const scheduler = new ManualScheduler(options.clockStart);
  const server = await startServer({
    ...(await testServerOptions(dataDir, options.store)),
    scheduler,
    ...(timings ? { timings } : {}),
    // Test runs would fight over the managed servers' ports: they listen only when a test asks.
    ...(options.portOffset !== undefined ? { portOffset: options.portOffset, listeners: true } : {}),
    ...(options.secretKey !== undefined ? { secretKey: options.secretKey } : {}),
    ...(options.leaseCheckMs !== undefined ? { leaseCheckMs: options.leaseCheckMs } : {}),
    ...(options.sessionLimits !== undefined ? { sessionLimits: options.sessionLimits } : {}),
    ...(options.auditRetentionMs !== undefined ? { auditRetentionMs: options.auditRetentionMs } : {}),
    ...(options.productVersion !== undefined ? { productVersion: options.productVersion } : {}),
  });
  const origin = `http://127.0.0.1:${server.port}`;
  const self: RuntimeServer = {
    server,
    scheduler,
    origin,
    latest: `${origin}/management/appserver/latest`,
    dataDir,
    admin: client(() => self.latest),
    advance: (ms) => scheduler.advance(ms),
    stop: async (remove = false) => {
      await server.close();
      if (remove) rmSync(dataDir, { recursive: true, force: true });
    },
    restart: async () => {
      await server.close();
      return startRuntimeServer(dataDir, timings, options);
    },
  };
  return self;
}

/** Creates a user over HTTP and puts it in a group (the group grants its role). */
export async function createUser(admin: Client, name: string, password: string, group: string): Promise<string> {
  const r = await admin.post(`${AUTHN}/createUser`, { userName: name, password, description: `test user ${name}` });
  assert.equal(r.status, 200, `createUser ${name}: ${r.text}`);
  const m = await admin.post(`${AUTHN}/addMemberToGroup`, { groupName: group, memberUserOrGroupName: name });
  assert.equal(m.status, 200, `addMemberToGroup ${group} ${name}: ${m.text}`);
  return basic(name, password);
}

/** Checks a JSON error answer of the flat or nested form and returns its details. */
export function errorDetails(r: Reply, status: number, what = ''): string[] {
  const context = `${what ? `${what}: ` : ''}status ${r.status}, body ${r.text.slice(0, 600)}`;
  assert.equal(r.status, status, context);
  assert.match(r.headers.get('content-type') ?? '', /^application\/json\b/, context);
  assert.equal(r.json?.status, status, context);
  assert.equal(r.json.type, ERROR_TYPE, context);
  if (r.json.title === 'FAILURE') {
    assert.equal(typeof r.json.detail, 'string', context);
    return [r.json.detail];
  }
  assert.equal(r.json.title, 'ERRORS', context);
  const list = r.json['appserver:errorsDetails'];
  assert.ok(Array.isArray(list) && list.length > 0, context);
  return list.map((d: { detail: string; 'o:errorPath'?: string }) => (d['o:errorPath'] ? `[${d['o:errorPath']}] ${d.detail}` : d.detail));
}

/** Asserts a 202 task answer: Location = the `job` link (the only link), the task still running. */
export function assertAccepted(r: Reply, what = ''): string {
  const context = `${what}: status ${r.status}, body ${r.text.slice(0, 600)}`;
  assert.equal(r.status, 202, context);
  const location = r.headers.get('location');
  assert.ok(location, `no Location: ${context}`);
  assert.deepEqual(r.json.links, [{ rel: 'job', href: location }], context);
  assert.equal(r.json.completed, false, context);
  return location;
}

/** GETs a job resource (task or progress object); it must exist. */
export async function job(c: Client, href: string): Promise<any> {
  const r = await c.get(href);
  assert.equal(r.status, 200, `GET ${href}: ${r.text}`);
  return r.json;
}

/** Polls a task until it completed (the clock must already have been moved far enough). */
export async function completed(c: Client, href: string): Promise<any> {
  const t = await job(c, href);
  assert.equal(t.completed, true, `task not completed: ${JSON.stringify(t)}`);
  return t;
}

/** Polls `read` until `until` holds, with short pauses; fails after `limitMs` of real time. */
export async function pollUntil<T>(read: () => Promise<T>, until: (v: T) => boolean, what: string, limitMs = 5000): Promise<T> {
  const end = Date.now() + limitMs;
  let last: T;
  for (;;) {
    last = await read();
    if (until(last)) return last;
    if (Date.now() > end) assert.fail(`${what}: still ${JSON.stringify(last)} after ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Item names of a collection. */
export async function names(c: Client, path: string): Promise<string[]> {
  const r = await c.get(`${path}?links=none&fields=name`);
  assert.equal(r.status, 200, `GET ${path}: ${r.text}`);
  return r.json.items.map((i: { name: string }) => i.name);
}
