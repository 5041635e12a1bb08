// Helpers for the configuration-editing tests: a small client bound to a user (and optionally an
// edit session), the error-envelope checks, and user management through the default authenticator.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before } from 'node:test';
import { type TestServer, adminAuth, basic, call, startTestServer } from './server.js';
import { jsonOrUndefined } from './answer.js';

export const ERROR_TYPE = 'http://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html#sec10.4.1';
/** The default authenticator of the default realm, where users and groups are managed. */
export const AUTHN = 'serverConfig/securityConfiguration/realms/myrealm/authenticationProviders/DefaultAuthenticator';
/** Named edit sessions of the domain. */
export const ESC = 'domainRuntime/editSessionConfigurationManager/editSessionConfigurations';
export const SESSION_HEADER = 'appserver.edit.session';

export type Reply = Awaited<ReturnType<typeof call>>;

export interface Client {
  readonly auth: string;
  get(path: string, headers?: Record<string, string>): Promise<Reply>;
  /** POST; a string body is sent as is (relaxed JSON, forms), anything else as JSON. */
  post(path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  del(path: string, headers?: Record<string, string>): Promise<Reply>;
  /** The same client as another user. */
  as(auth: string): Client;
  /** The same client working in a named edit session. */
  inSession(name: string): Client;
}

/**
 * A client for paths relative to `.../management/appserver/latest`. `base` is read on every
 * request so that a client survives a restart (which changes the port).
 */
export function client(base: () => string, auth: string = adminAuth, session?: string): Client {
  const headers = (extra: Record<string, string> = {}) => ({
    'x-requested-by': 'edit-tests',
    ...(session !== undefined ? { [SESSION_HEADER]: session } : {}),
    ...extra,
  });
  const url = (path: string) => `${base()}/${path}`;
  return {
    auth,
    get: (path, extra) => call(url(path), { auth, headers: headers(extra) }),
    post: (path, body = {}, extra) => call(url(path), { method: 'POST', body, auth, headers: headers(extra) }),
    del: (path, extra) => call(url(path), { method: 'DELETE', auth, headers: headers(extra) }),
    as: (other) => client(base, other, session),
    inSession: (name) => client(base, auth, name),
  };
}

export interface ErrorItem {
  path?: string;
  detail: string;
}

/**
 * Checks an error answer: the status, a JSON content type, and the envelope (flat `FAILURE` with a
 * `detail`, or `ERRORS` with a non-empty `appserver:errorsDetails` list). Returns the problems.
 */
export function errorItems(r: Reply, status: number, what = ''): ErrorItem[] {
  const context = `${what ? `${what}: ` : ''}status ${r.status}, body ${r.text.slice(0, 600)}`;
  assert.equal(r.status, status, context);
  assert.match(r.headers.get('content-type') ?? '', /^application\/json\b/, context);
  const b = r.json;
  assert.ok(b !== null && typeof b === 'object' && !Array.isArray(b), `the error body is not a JSON object: ${context}`);
  assert.equal(b.status, status, context);
  assert.equal(b.type, ERROR_TYPE, context);
  if (b.title === 'FAILURE') {
    assert.equal(typeof b.detail, 'string', context);
    assert.ok(b.detail.length > 0, context);
    assert.ok(!('appserver:errorsDetails' in b), context);
    return [{ detail: b.detail }];
  }
  assert.equal(b.title, 'ERRORS', context);
  const list = b['appserver:errorsDetails'];
  assert.ok(Array.isArray(list) && list.length > 0, `no appserver:errorsDetails: ${context}`);
  for (const d of list) {
    assert.equal(d.type, ERROR_TYPE, context);
    assert.equal(d.title, 'FAILURE', context);
    assert.equal(typeof d.detail, 'string', context);
    if ('o:errorPath' in d) assert.equal(typeof d['o:errorPath'], 'string', context);
  }
  return list.map((d: Record<string, string>) => ({ ...(d['o:errorPath'] !== undefined ? { path: d['o:errorPath'] } : {}), detail: d.detail }));
}

/** Asserts one of the problems matches `detail` (and, when given, names the property `path`). */
export function assertProblem(items: ErrorItem[], detail: RegExp | string, path?: string): void {
  const text = JSON.stringify(items);
  const matches = (d: string) => (typeof detail === 'string' ? d.includes(detail) : detail.test(d));
  assert.ok(
    items.some((i) => matches(i.detail) && (path === undefined || i.path === path)),
    `no problem${path ? ` on '${path}'` : ''} matching ${String(detail)} in ${text}`,
  );
}

/** Creates a user over HTTP and puts it in a group (the group grants its role). */
export async function createUser(admin: Client, name: string, password: string, group?: string): Promise<string> {
  const r = await admin.post(`${AUTHN}/createUser`, { userName: name, password, description: `test user ${name}` });
  assert.equal(r.status, 200, `createUser ${name}: ${r.text}`);
  assert.deepEqual(r.json, {});
  if (group !== undefined) {
    const m = await admin.post(`${AUTHN}/addMemberToGroup`, { groupName: group, memberUserOrGroupName: name });
    assert.equal(m.status, 200, `addMemberToGroup ${group} ${name}: ${m.text}`);
    assert.deepEqual(m.json, {});
  }
  return basic(name, password);
}

/** The change manager's lock values (no links, no pending changes) as the client's session sees them. */
export async function changeManager(c: Client): Promise<Record<string, unknown>> {
  const r = await c.get('edit/changeManager?links=none&excludeFields=pendingChanges');
  assert.equal(r.status, 200, r.text);
  return r.json;
}

/**
 * POSTs a body of `size` bytes with node:http and stops sending as soon as an answer arrives, so a
 * server that refuses early (and closes the connection) can still be heard. `declared` sends a
 * Content-Length; otherwise the body goes chunked.
 */
export function postHuge(
  url: string,
  size: number,
  opts: { auth?: string; declared: boolean },
): Promise<{ status: number; contentType: string; text: string; json: any; sent: number }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const headers: Record<string, string> = {
      authorization: opts.auth ?? adminAuth,
      'x-requested-by': 'edit-tests',
      'content-type': 'application/json',
      accept: 'application/json',
    };
    const head = '{"name":"huge","notes":"';
    const tail = '"}';
    if (opts.declared) headers['content-length'] = String(size);
    const req = http.request({ host: u.hostname, port: u.port, method: 'POST', path: u.pathname + u.search, headers });
    let answered = false;
    let sent = 0;
    req.on('response', (res) => {
      answered = true;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => {
        const json = jsonOrUndefined(text);
        req.destroy();
        resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), text, json, sent });
      });
      res.on('error', reject);
    });
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    const chunk = Buffer.alloc(64 * 1024, 'x');
    req.write(head);
    sent = head.length;
    const pump = () => {
      while (!answered && sent + tail.length < size) {
        const n = Math.min(chunk.length, size - tail.length - sent);
        sent += n;
        if (!req.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
          req.once('drain', pump);
          return;
        }
      }
      if (!answered) req.end(tail);
    };
    pump();
  });
}

/**
 * A test server started before the tests of this file (or of the suite it is called in) and
 * stopped after them: `use` is given it and an administrator's client of its latest version.
 */
export function serverForTests(use: (srv: TestServer, admin: Client) => void): void {
  let srv: TestServer | undefined;
  before(async () => {
    const started = await startTestServer();
    srv = started;
    use(started, client(() => started.latest));
  });
  after(async () => {
    await srv?.stop(true);
  });
}
