// Issue 26, item 1: a domain has a product version, and the bean types of that version answer for
// it. For each of the five versions a domain created with it shows its version in the version
// resources, the domain's configuration and serverRuntime, and serves its own types over HTTP: a
// property the version has and its neighbours lack, and one the version lacks (removed in it, or
// for the oldest version, not yet there), in GET, in ?describe and in the OpenAPI document.
// The examples come from comparing the harvested bean types of the versions.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { initFrom } from '../../src/cli/interchange.js';
import { startServer } from '../../src/cli/server.js';
import { openStore } from '../../src/store/open.js';
import { type Client, client, testServerOptions } from '../support/runtime-server.js';
import { storeFor } from '../support/store.js';

interface Example {
  /** The bean, below `edit/`, and the type its schema is named after in the OpenAPI document. */
  path: string;
  schema: string;
  /** A property of this version that the version before it (or after it, for the oldest) lacks. */
  has: string;
  /** A property (or child) of the neighbouring version that this one lacks. */
  lacks: string;
  /** `lacks` is a child bean rather than a field. */
  lacksChild?: boolean;
}

const EXAMPLES: Record<string, Example> = {
  // Only 12.2.1.3.0 has the cross-site recovery settings of the transaction service; the
  // address settings for other domains came with 12.2.1.4.0.
  '12.2.1.3.0': { path: 'JTA', schema: 'JTA', has: 'crossSiteRecoveryLeaseExpiration', lacks: 'useNonSecureAddressesForDomains' },
  '12.2.1.4.0': { path: 'JTA', schema: 'JTA', has: 'useNonSecureAddressesForDomains', lacks: 'crossSiteRecoveryLeaseExpiration' },
  // 14.1.1.0.0 records the installed software's version; partitions are gone from the server.
  '14.1.1.0.0': { path: '', schema: 'Domain', has: 'installedSoftwareVersion', lacks: 'partitions', lacksChild: true },
  // 14.1.2.0.0 bounds the self-tuning thread pool; the buzz settings are gone.
  '14.1.2.0.0': { path: 'servers/AdminServer', schema: 'Server', has: 'selfTuningThreadPoolSizeMax', lacks: 'buzzEnabled' },
  // Only 15.1.1.0.0 has the secure cluster broadcast switch; a server's federation services are gone.
  '15.1.1.0.0': { path: 'clusters/cluster1', schema: 'Cluster', has: 'secureClusterBroadcastEnabled', lacks: 'federationServices', lacksChild: true },
};

/** Runs `check` against a server of the domain in `dataDir` (a new one of `productVersion` when there is none); a new data directory is removed after. */
async function withDomain(productVersion: string | undefined, check: (c: Client, origin: string) => Promise<void>, given?: string): Promise<void> {
  const dataDir = given ?? mkdtempSync(join(tmpdir(), 'appserver-versions-'));
  const server = await startServer({ ...(await testServerOptions(dataDir)), ...(productVersion ? { productVersion } : {}) });
  const origin = `http://127.0.0.1:${server.port}`;
  try {
    await check(client(() => `${origin}/management/appserver/latest`), origin);
  } finally {
    await server.close();
    if (given === undefined) rmSync(dataDir, { recursive: true, force: true });
  }
}

const at = (path: string) => (path === '' ? 'edit' : `edit/${path}`);

for (const [version, example] of Object.entries(EXAMPLES)) {
  test(`a ${version} domain shows its version and serves its own types`, async () => {
    await withDomain(version, async (admin, origin) => {
      // The version resources, the configuration and the server's runtime name the version.
      const list = await admin.get(`${origin}/management/appserver`);
      assert.equal(list.status, 200, list.text);
      assert.deepEqual(list.json.items.map((i: { version: string; isLatest: boolean }) => [i.version, i.isLatest]), [[version, true], ['12.2.1.0', false]]);
      assert.equal((await admin.get(`${origin}/management/appserver/latest`)).json.version, version);
      const domain = await admin.get('domainConfig?fields=domainVersion,configurationVersion&links=none');
      assert.deepEqual(domain.json, { domainVersion: version, configurationVersion: version });
      const runtime = await admin.get('serverRuntime?fields=appserverVersion&links=none');
      assert.match(runtime.json.appserverVersion, new RegExp(` ${version.replace(/\./g, '\\.')} `));
      // The version's own segment names it; a later release's does not.
      assert.equal((await admin.get(`${origin}/management/appserver/${version}/domainConfig?links=none&fields=name`)).status, 200);
      const later = version === '15.1.1.0.0' ? '15.1.2.0.0' : (['12.2.1.4.0', '14.1.1.0.0', '14.1.2.0.0', '15.1.1.0.0'].find((v) => v > version) as string);
      assert.equal((await admin.get(`${origin}/management/appserver/${later}/domainConfig?links=none`)).status, 404, `${later} on a ${version} domain`);

      // GET: the version's property is there, the other is not.
      const bean = await admin.get(`${at(example.path)}?links=none`);
      assert.equal(bean.status, 200, bean.text);
      assert.ok(Object.hasOwn(bean.json, example.has), `${example.has} in ${at(example.path)} of ${version}`);
      assert.ok(!Object.hasOwn(bean.json, example.lacks), `no ${example.lacks} in ${at(example.path)} of ${version}`);
      if (example.lacksChild) {
        const child = await admin.get(`${at(example.path)}/${example.lacks}`);
        assert.equal(child.status, 404, `${at(example.path)}/${example.lacks} of ${version}: ${child.text}`);
      }
      // describe: the same.
      const described = await admin.get(`${at(example.path)}?describe`);
      assert.equal(described.status, 200, described.text);
      const names = [...(described.json.properties ?? []), ...(described.json.children ?? [])].map((p: { name: string }) => p.name);
      assert.ok(names.includes(example.has), `describe of ${version} lists ${example.has}`);
      assert.ok(!names.includes(example.lacks), `describe of ${version} does not list ${example.lacks}`);
      // OpenAPI: the type's schema has the property, not the other.
      const doc = await admin.get(`${origin}/management/appserver/latest/openapi.json?tree=edit`);
      assert.equal(doc.status, 200, doc.text.slice(0, 300));
      assert.equal(doc.json.info.version, version);
      const schema = doc.json.components.schemas[example.schema];
      assert.ok(schema, `schema ${example.schema} in the ${version} document`);
      assert.ok(Object.hasOwn(schema.properties, example.has), `${example.schema}.${example.has} in the ${version} document`);
      assert.ok(!Object.hasOwn(schema.properties, example.lacks), `no ${example.schema}.${example.lacks} in the ${version} document`);
    });
  });
}

test('a domain created without a version is 12.2.1.4.0', async () => {
  await withDomain(undefined, async (admin) => {
    assert.equal((await admin.get('domainConfig?fields=domainVersion&links=none')).json.domainVersion, '12.2.1.4.0');
  });
});

test('a domain stored before domains recorded a version stays 12.2.1.3.0, and the store records it', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'appserver-versions-'));
  const first = await startServer({ ...(await testServerOptions(dataDir)), productVersion: '12.2.1.3.0' });
  await first.close();
  // As a store written before this change: no recorded version.
  const store = openStore(dataDir, await storeFor(dataDir));
  await store.open();
  await store.replaceMeta({}, ['productVersion']);
  assert.equal(await store.getMeta('productVersion'), undefined);
  await store.close();
  await withDomain(
    undefined,
    async (admin, origin) => {
      assert.equal((await admin.get(`${origin}/management/appserver/latest`)).json.version, '12.2.1.3.0');
      assert.ok(Object.hasOwn((await admin.get('edit/JTA?links=none')).json, 'crossSiteRecoveryLeaseExpiration'));
    },
    dataDir,
  );
  const after = openStore(dataDir, await storeFor(dataDir));
  await after.open();
  assert.equal(await after.getMeta('productVersion'), '12.2.1.3.0');
  await after.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test("an imported config.xml's domain-version is the domain's version", async () => {
  const folder = mkdtempSync(join(tmpdir(), 'appserver-versions-xml-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'appserver-versions-'));
  cpSync(new URL('../../../test/interchange/fixtures/realistic/config', import.meta.url), folder, { recursive: true });
  // A 14.1.1.0.0 domain has no partitions: the fixture's are left out (a finding says so).
  const xml = readFileSync(join(folder, 'config.xml'), 'utf8').replace('<domain-version>12.2.1.3.0</domain-version>', '<domain-version>14.1.1.0.0</domain-version>');
  writeFileSync(join(folder, 'config.xml'), xml);
  const store = await storeFor(dataDir);
  // The test administrator, as the import would otherwise generate a password.
  const saved = { user: process.env.APPSERVER_ADMIN_USER, password: process.env.APPSERVER_ADMIN_PASSWORD };
  process.env.APPSERVER_ADMIN_USER = 'admin';
  process.env.APPSERVER_ADMIN_PASSWORD = 'welcome1';
  let created;
  try {
    created = await initFrom(join(folder, 'config.xml'), dataDir, { ...(store ? { store } : {}) });
  } finally {
    for (const [name, value] of [['APPSERVER_ADMIN_USER', saved.user], ['APPSERVER_ADMIN_PASSWORD', saved.password]] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
  assert.ok(created.servers > 0);
  await withDomain(
    undefined,
    async (admin, origin) => {
      assert.equal((await admin.get(`${origin}/management/appserver/latest`)).json.version, '14.1.1.0.0');
      assert.equal((await admin.get('domainConfig?fields=domainVersion&links=none')).json.domainVersion, '14.1.1.0.0');
      assert.equal((await admin.get('edit/partitions')).status, 404);
    },
    dataDir,
  );
  assert.ok(created.findings.some((f) => /partition/.test(f.path + f.message)), 'a finding names the partition left out');
  rmSync(folder, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});
