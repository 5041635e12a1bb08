// Helpers for the Lifecycle Manager tests: a client for paths below
// `/management/lifecycle/{version}` (every request carries X-Requested-By), a client for the
// management tree, link and error checks, and the setups several files share.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { errorItems, type ErrorItem } from './edit.js';
import { adminAuth, basic, call, type TestServer } from './server.js';
import { onPostgres, storeFor } from './store.js';

export type Reply = Awaited<ReturnType<typeof call>>;

export interface Link {
  rel: string;
  href: string;
  title?: string;
}

export const CSRF = { 'x-requested-by': 'lifecycle-tests' };

export interface Http {
  readonly auth: string;
  /** Absolute URL of a path relative to the client's base (an absolute URL is kept as is). */
  url(path: string): string;
  get(path: string): Promise<Reply>;
  post(path: string, body?: unknown): Promise<Reply>;
  del(path: string): Promise<Reply>;
  as(auth: string): Http;
}

/**
 * A client for paths relative to `base()` (read on every request, so a client survives a restart).
 * An empty path names the base itself.
 */
export function http(base: () => string, auth: string = adminAuth): Http {
  const url = (path: string) => (/^https?:\/\//.test(path) ? path : path === '' ? base() : `${base()}/${path}`);
  return {
    auth,
    url,
    get: (path) => call(url(path), { auth, headers: { ...CSRF } }),
    post: (path, body) => call(url(path), { method: 'POST', auth, headers: { ...CSRF }, ...(body !== undefined ? { body } : {}) }),
    del: (path) => call(url(path), { method: 'DELETE', auth, headers: { ...CSRF } }),
    as: (other) => http(base, other),
  };
}

/** The Lifecycle Manager of a server (`version` defaults to `latest`). */
export function lcOf(srv: () => TestServer, version = 'latest', auth: string = adminAuth): Http {
  return http(() => `${srv().origin}/management/lifecycle/${version}`, auth);
}

/** The management tree `M/latest` of a server. */
export function mOf(srv: () => TestServer, auth: string = adminAuth): Http {
  return http(() => srv().latest, auth);
}

export const rels = (body: { links?: Link[] }): string[] => (body.links ?? []).map((l) => l.rel);

export function href(body: { links?: Link[] }, rel: string): string {
  const l = (body.links ?? []).find((x) => x.rel === rel);
  assert.ok(l, `no '${rel}' link among ${rels(body).join(', ')}`);
  return l.href;
}

/** Asserts the set of link rels equals `expected` (order aside), each rel once. */
export function assertRels(body: { links?: Link[] }, expected: string[], what: string): void {
  const actual = rels(body);
  assert.deepEqual([...actual].sort(), [...expected].sort(), `${what}: link rels ${actual.join(', ')}`);
}

/** Asserts every rel of `expected` is present. */
export function assertHasRels(body: { links?: Link[] }, expected: string[], what: string): void {
  const actual = rels(body);
  const missing = expected.filter((e) => !actual.includes(e));
  assert.deepEqual(missing, [], `${what}: missing link rels ${missing.join(', ')} (has ${actual.join(', ')})`);
}

/** Asserts a 200 JSON answer and returns its body. */
export function ok200(r: Reply, what: string): any {
  assert.equal(r.status, 200, `${what}: ${r.status} ${r.text.slice(0, 600)}`);
  assert.match(r.headers.get('content-type') ?? '', /^application\/json\b/, `${what}: content type`);
  return r.json;
}

/** Asserts a non-GET success: the status, an empty `{}` body, and (for 201) the Location. */
export function assertEmptySuccess(r: Reply, status: 200 | 201, what: string, location?: string): void {
  assert.equal(r.status, status, `${what}: ${r.status} ${r.text.slice(0, 600)}`);
  assert.deepEqual(r.json, {}, `${what}: body ${r.text.slice(0, 300)}`);
  if (location !== undefined) assert.equal(r.headers.get('location'), location, `${what}: Location`);
  else if (status === 200) assert.equal(r.headers.get('location'), null, `${what}: no Location on 200`);
}

/** Asserts an error answer with the server's JSON envelope; returns its problems. */
export function assertError(r: Reply, status: number, what: string): ErrorItem[] {
  return errorItems(r, status, what);
}

/** Asserts some problem's detail matches, and (when given) names the property `path`. */
export function assertDetail(items: ErrorItem[], detail: RegExp | string, path?: string): void {
  const text = JSON.stringify(items);
  const matches = (d: string) => (typeof detail === 'string' ? d.includes(detail) : detail.test(d));
  assert.ok(
    items.some((i) => matches(i.detail) && (path === undefined || i.path === path)),
    `no problem${path ? ` on '${path}'` : ''} matching ${String(detail)} in ${text}`,
  );
}

/** Item names of a collection body. */
export const names = (body: { items: { name: string }[] }): string[] => body.items.map((i) => i.name);

/** Names of the partitions in the activated configuration of a server. */
export async function configPartitions(m: Http): Promise<string[]> {
  return names(ok200(await m.get('serverConfig/partitions?links=none&fields=name'), 'serverConfig/partitions'));
}

/** Names of the partition runtimes of a server. */
export async function partitionRuntimes(m: Http): Promise<string[]> {
  return names(ok200(await m.get('domainRuntime/domainPartitionRuntimes?links=none&fields=name'), 'domainPartitionRuntimes'));
}

/** Names of the partitions a Lifecycle Manager lists for one of its runtimes. */
export async function runtimePartitions(lc: Http, runtime: string): Promise<string[]> {
  return names(ok200(await lc.get(`runtimes/${encodeURIComponent(runtime)}/partitions`), `runtimes/${runtime}/partitions`));
}

/** Names of the environments. */
export async function environments(lc: Http): Promise<string[]> {
  return names(ok200(await lc.get('environments'), 'environments'));
}

/** `{runtimeName, name}` of the partitions of an environment. */
export async function envPartitions(lc: Http, env: string): Promise<{ runtimeName: string; name: string }[]> {
  const b = ok200(await lc.get(`environments/${encodeURIComponent(env)}/partitions`), `environments/${env}/partitions`);
  return b.items.map((i: any) => ({ runtimeName: i.runtimeName, name: i.name }));
}

/** Registers a database runtime. */
export async function createDatabase(lc: Http, name: string, host = 'dbhost', port = 1521, secret = `${name}-db-secret`): Promise<void> {
  const r = await lc.post('runtimes', {
    name,
    type: 'database',
    hostName: host,
    port,
    protocol: 'tcp',
    properties: [
      { name: 'username', value: 'sys' },
      { name: 'password', confidentialValue: secret },
    ],
  });
  assertEmptySuccess(r, 201, `create database runtime ${name}`, lc.url(`runtimes/${name}`));
}

/** Creates a partition on a runtime (no id: the runtime makes it). */
export async function createRuntimePartition(lc: Http, runtime: string, name: string, properties: unknown[] = []): Promise<void> {
  const r = await lc.post(`runtimes/${encodeURIComponent(runtime)}/partitions`, { name, properties });
  assertEmptySuccess(r, 201, `create partition ${name} on ${runtime}`, lc.url(`runtimes/${runtime}/partitions/${name}`));
}

export async function createEnvironment(lc: Http, name: string, orchestration?: unknown): Promise<void> {
  const r = await lc.post('environments', { name, ...(orchestration !== undefined ? { orchestration } : {}) });
  assertEmptySuccess(r, 201, `create environment ${name}`, lc.url(`environments/${name}`));
}

export async function addToEnvironment(lc: Http, env: string, runtimeName: string, name: string): Promise<void> {
  const r = await lc.post(`environments/${env}/partitions`, { name, runtimeName });
  assertEmptySuccess(r, 201, `add ${runtimeName}/${name} to ${env}`, lc.url(`environments/${env}/runtimes/${runtimeName}/partitions/${name}`));
}

export interface AssociationBody {
  partition1Name: string;
  partition1RuntimeName: string;
  partition2Name: string;
  partition2RuntimeName: string;
  properties?: unknown[];
}

export const association = (p1: string, rt1: string, p2: string, rt2: string, properties: unknown[] = []): AssociationBody => ({
  partition1Name: p1,
  partition1RuntimeName: rt1,
  partition2Name: p2,
  partition2RuntimeName: rt2,
  properties,
});

export async function createTenant(lc: Http, name: string, topLevelDir = `/tenants/${name}`): Promise<void> {
  const r = await lc.post('tenants', { name, topLevelDir });
  assertEmptySuccess(r, 201, `create tenant ${name}`, lc.url(`tenants/${name}`));
}

export async function createService(lc: Http, tenant: string, body: Record<string, unknown>): Promise<void> {
  const r = await lc.post(`tenants/${tenant}/services`, body);
  assertEmptySuccess(r, 201, `create service ${String(body.name)}`, lc.url(`tenants/${tenant}/services/${String(body.name)}`));
}

/** A `wls` orchestration tier on a runtime, optionally with resource groups and an association. */
export function wlsTier(
  partitionName: string,
  runtimeName: string,
  opts: { availableTargets?: string[]; resourceGroups?: string[]; associateWith?: string; associateProperties?: unknown[] } = {},
): unknown {
  const partitionProperties: unknown[] = [];
  if (opts.availableTargets) partitionProperties.push({ name: 'availableTargets', values: opts.availableTargets });
  if (opts.resourceGroups) {
    partitionProperties.push({
      name: 'resourceGroups',
      properties: opts.resourceGroups.map((rg) => ({ name: rg, properties: [{ name: 'useDefaultTarget', value: 'true' }] })),
    });
  }
  return {
    name: 'wls',
    properties: [
      { name: 'partitionName', value: partitionName },
      { name: 'runtimeName', value: runtimeName },
      ...(partitionProperties.length > 0 ? [{ name: 'partitionProperties', properties: partitionProperties }] : []),
      ...(opts.associateWith ? [{ name: 'associateWith', value: opts.associateWith }] : []),
      ...(opts.associateProperties ? [{ name: 'associateProperties', properties: opts.associateProperties }] : []),
    ],
  };
}

/** A `db` orchestration tier. */
export function dbTier(partitionName: string, runtimeName: string): unknown {
  return {
    name: 'db',
    properties: [
      { name: 'partitionName', value: partitionName },
      { name: 'runtimeName', value: runtimeName },
    ],
  };
}

/** A user of a group (the group grants its role), created over HTTP through the default authenticator. */
export async function createUserIn(m: Http, user: string, password: string, group: string): Promise<string> {
  const authn = 'serverConfig/securityConfiguration/realms/myrealm/authenticationProviders/DefaultAuthenticator';
  const c = await m.post(`${authn}/createUser`, { userName: user, password, description: `lifecycle test user ${user}` });
  assert.equal(c.status, 200, `createUser ${user}: ${c.text}`);
  const g = await m.post(`${authn}/addMemberToGroup`, { groupName: group, memberUserOrGroupName: user });
  assert.equal(g.status, 200, `addMemberToGroup ${group} ${user}: ${g.text}`);
  return basic(user, password);
}

/** Every file below a directory (recursively). */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const p = join(dir, entry);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

/** Files of a directory whose bytes contain `text`. */
export function filesContaining(dir: string, text: string): string[] {
  const needle = Buffer.from(text, 'utf8');
  return filesUnder(dir).filter((f) => readFileSync(f).includes(needle));
}

/**
 * Where a server's store holds `text` in clear: files of its data directory (SQLite), or tables of
 * its database (PostgreSQL, when the tests run against it).
 */
export async function storedIn(dataDir: string, text: string): Promise<string[]> {
  if (!onPostgres()) return filesContaining(dataDir, text).map((f) => f.slice(dataDir.length + 1));
  const url = await storeFor(dataDir);
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const tables = await db.query<{ schema: string; name: string }>(
      "SELECT table_schema AS schema, table_name AS name FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')",
    );
    const out: string[] = [];
    for (const t of tables.rows) {
      const q = `SELECT count(*)::int AS n FROM "${t.schema}"."${t.name}" AS r WHERE position($1 in r::text) > 0`;
      const found = await db.query<{ n: number }>(q, [text]);
      if ((found.rows[0]?.n ?? 0) > 0) out.push(`${t.schema}.${t.name}`);
    }
    return out;
  } finally {
    await db.end();
  }
}
