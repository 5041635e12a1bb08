// A managed server's own listener describes only the trees it serves: no edit tree, no domain-wide
// trees, no Lifecycle Manager (it answers 404 there); its runtime and configuration are described.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type OpenManagement, openManagement } from '../../src/cli/server.js';
import { storeFor } from '../support/store.js';

const dir = mkdtempSync(join(tmpdir(), 'appserver-openapi-'));
let open: OpenManagement;

before(async () => {
  const store = await storeFor(dir);
  open = await openManagement({ host: '127.0.0.1', port: 7001, dataDir: dir, logLevel: 'silent', quiet: true, adminUser: 'admin', adminPassword: 'welcome1', ...(store ? { store } : {}) });
});

after(async () => {
  await open.close();
  rmSync(dir, { recursive: true, force: true });
});

const trees = (doc: any): string[] => doc.tags.map((t: any) => t.name);

test("the administration server's document has every tree; a managed server's only those it serves", async () => {
  const whole = await open.api.openapi('latest', 'appserver.edit.session', { tree: 'serverRuntime' });
  assert.deepEqual(trees(whole), ['serverRuntime']);
  const admin = await open.api.openapi('latest', 'appserver.edit.session');
  assert.deepEqual(trees(admin), ['versions', 'edit', 'serverConfig', 'domainConfig', 'domainRuntime', 'serverRuntime', 'lifecycle']);
  const managed = await open.api.forServer('ms1').openapi('latest', 'appserver.edit.session');
  assert.deepEqual(trees(managed), ['versions', 'serverConfig', 'serverRuntime']);
  assert.ok(!Object.keys(managed.paths as object).some((p) => p.startsWith('/appserver/latest/edit') || p.startsWith('/lifecycle')));
  await assert.rejects(
    () => open.api.forServer('ms1').openapi('latest', 'appserver.edit.session', { tree: 'edit' }),
    (err: Error) => /edit/.test(err.message),
  );
  // Documents are built once and kept.
  assert.equal(await open.api.openapi('latest', 'appserver.edit.session'), admin);
});
