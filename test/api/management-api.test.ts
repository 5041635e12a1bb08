// The management API used in-process, without HTTP: read, create, update, delete, invoke and
// search for a principal; roles checked; every change recorded in the audit trail; tasks waited
// for on the injectable clock; the same bodies the HTTP interface serves.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { lifecycle, management } from '../../src/api/address.js';
import type { Caller, View } from '../../src/api/caller.js';
import { type OpenManagement, openManagement } from '../../src/cli/server.js';
import { ManualScheduler } from '../../src/core/clock.js';
import { isProblem } from '../../src/core/problems.js';
import type { Principal } from '../../src/security/service.js';
import { storeFor } from '../support/store.js';

const dir = mkdtempSync(join(tmpdir(), 'appserver-api-'));
const clock = new ManualScheduler();
let open: OpenManagement;

const admin: Caller = { principal: { user: 'admin', roles: new Set(['Admin']) } as Principal, address: 'in-process' };
const monitor: Caller = { principal: { user: 'watcher', roles: new Set(['Monitor']) } as Principal, address: 'in-process' };
const view: View = { origin: 'http://api.test' };

interface AuditRecord {
  user: string | null;
  address: string;
  action: string;
  bean: string;
  outcome: string;
}

/** The audit trail as an administrator reads it through the API. */
async function auditRecords(): Promise<AuditRecord[]> {
  const page = await open.api.get(admin, management('domainRuntime', 'auditRecords'), { ...view, query: { links: 'none' } });
  return (page.body as { items: AuditRecord[] }).items;
}

before(async () => {
  const store = await storeFor(dir);
  open = await openManagement({ host: '127.0.0.1', port: 7001, dataDir: dir, logLevel: 'silent', quiet: true, adminUser: 'admin', adminPassword: 'welcome1', scheduler: clock, ...(store ? { store } : {}) });
});

after(async () => {
  await open.close();
  rmSync(dir, { recursive: true, force: true });
});

test('reads answer with the bodies the interface serves, links on the origin given', async () => {
  const ms1 = await open.api.get(admin, management('serverConfig', 'servers', 'ms1'), view);
  assert.equal(ms1.status, 200);
  const body = ms1.body as { name: string; listenPort: number; links: { rel: string; href: string }[] };
  assert.equal(body.name, 'ms1');
  assert.equal(body.listenPort, 7003);
  assert.equal(body.links.find((l) => l.rel === 'self')?.href, 'http://api.test/management/appserver/latest/serverConfig/servers/ms1');
  const shaped = await open.api.get(admin, management('serverConfig', 'servers'), { ...view, query: { fields: 'name', links: 'none' } });
  assert.deepEqual(shaped.body, { items: [{ name: 'AdminServer' }, { name: 'ms1' }, { name: 'ms2' }] });
  const versions = await open.api.get(admin, lifecycle(), view);
  assert.equal(versions.status, 200);
});

test('a create, an update and a delete go through an edit session and are audited', async () => {
  const made = await open.api.create(admin, management('edit', 'machines'), { name: 'api-machine' }, view);
  assert.equal(made.status, 201);
  assert.equal(made.headers?.location, 'http://api.test/management/appserver/latest/edit/machines/api-machine');
  assert.equal((await open.api.update(admin, management('edit', 'machines', 'api-machine'), { notes: 'made in-process' }, view)).status, 200);
  const read = await open.api.get(admin, management('domainConfig', 'machines', 'api-machine'), { ...view, query: { fields: 'notes', links: 'none' } });
  assert.deepEqual(read.body, { notes: 'made in-process' });
  assert.equal((await open.api.delete(admin, management('edit', 'machines', 'api-machine'), view)).status, 200);
  const records = await auditRecords();
  const mine = records.filter((r) => r.address === 'in-process' && r.bean.includes('api-machine')).map((r) => `${r.action} ${r.outcome}`);
  assert.deepEqual(mine.sort(), ['delete success', 'update success']);
  assert.ok(records.some((r) => r.address === 'in-process' && r.action === 'create' && r.bean === 'edit/machines' && r.outcome === 'success'));
});

test('roles hold in-process: a Monitor is refused a change, and the refusal is audited', async () => {
  await assert.rejects(open.api.create(monitor, management('edit', 'machines'), { name: 'nope' }, view), (err) => isProblem(err, 'forbidden'));
  const records = await auditRecords();
  assert.ok(records.some((r) => r.user === 'watcher' && r.action === 'create' && r.outcome === 'refused'));
  const search = await open.api.search(monitor, management('serverRuntime', 'search'), { fields: ['name'], links: [] }, view);
  assert.deepEqual(search.body, { name: 'AdminServer' });
});

test('an action returns its task, waited for on the injectable clock as Prefer says', async () => {
  const started = await open.api.invoke({ ...admin, prefer: 'respond-async' }, management('domainRuntime', 'serverLifeCycleRuntimes', 'ms2', 'start'), {}, view);
  assert.equal(started.status, 202);
  assert.match(String(started.headers?.location), /\/domainRuntime\/serverLifeCycleRuntimes\/ms2\/tasks\/_\d+_start$/);
  clock.advance(60_000);
  const state = await open.api.get(admin, management('domainRuntime', 'serverLifeCycleRuntimes', 'ms2'), { ...view, query: { fields: 'state', links: 'none' } });
  assert.deepEqual(state.body, { state: 'RUNNING' });
});

test('a call that names the wrong kind of thing is refused, not acted on', async () => {
  await assert.rejects(open.api.invoke(admin, management('serverConfig', 'servers', 'ms1'), {}, view), (err) => isProblem(err, 'invalid') && /not something to invoke/.test(err.message));
  await assert.rejects(open.api.get(admin, management('serverConfig', 'servers', 'nope'), view), (err) => isProblem(err, 'not-found'));
});
