// The OpenAPI document served at /management/appserver/{version}/openapi.json (and .yaml): valid
// under a maintained validator, covering every type of the catalog and every action with a handler,
// and true of the running server (every URL a crawl meets matches one of its paths).
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { request as httpRequest } from 'node:http';
import { after, before, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { parse as parseYaml } from 'yaml';
import { catalogWithOperations } from '../../src/operations/catalog.js';
import { OPERATIONS } from '../../src/operations/index.js';
import { adminAuth, call, startTestServer, type TestServer } from '../support/server.js';

let srv: TestServer;
let doc: any;
let etag: string;

before(async () => {
  srv = await startTestServer();
  const r = await call(`${srv.latest}/openapi.json`);
  assert.equal(r.status, 200, r.text.slice(0, 300));
  assert.equal(r.headers.get('content-type'), 'application/json');
  doc = r.json;
  etag = r.headers.get('etag') ?? '';
});

after(async () => {
  await srv.stop(true);
});

/** GET with node:http, so that the answer's bytes and headers are seen as sent (no transparent gunzip). */
function raw(path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${srv.origin}${path}`, { headers: { authorization: adminAuth, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

test('the document is valid OpenAPI 3.1 under a maintained validator', async () => {
  assert.equal(doc.openapi, '3.1.0');
  const validator = new Validator();
  const result = await validator.validate(structuredClone(doc));
  assert.equal(result.valid, true, JSON.stringify(result.errors)?.slice(0, 2000));
  assert.equal(validator.version, '3.1');
});

test('every bean type of the catalog has a schema, and every action with a handler is at some path', () => {
  const catalog = catalogWithOperations();
  const described = new Map<string, string>();
  for (const [name, schema] of Object.entries<any>(doc.components.schemas)) if (schema['x-appserver-type']) described.set(schema['x-appserver-type'], name);
  const missingTypes = [...catalog.types.keys()].filter((t) => !described.has(t));
  assert.deepEqual(missingTypes, [], 'types without a schema');
  assert.equal(described.size, catalog.types.size);
  // Where each action is offered, by the full names of the types offering it.
  const offered = new Map<string, Set<string>>();
  for (const item of Object.values<any>(doc.paths)) {
    const op = item.post;
    if (!op?.['x-appserver-action']) continue;
    const types = (op['x-appserver-types'] as string[]).map((n) => doc.components.schemas[n]['x-appserver-type'] as string);
    const set = offered.get(op['x-appserver-action']) ?? new Set<string>();
    for (const t of types) set.add(t);
    offered.set(op['x-appserver-action'], set);
  }
  // Every definition of the operation registry (declaration + handler)...
  const missing: string[] = [];
  for (const { declaration } of OPERATIONS) {
    const where = offered.get(declaration.name);
    const on = catalog.type(declaration.on);
    if (deprecated(on, declaration.name)) continue;
    if (!where || ![on, ...on.subtypes].some((t) => where.has(t.name))) missing.push(`${on.short}.${declaration.name}`);
  }
  // ... and every action of the catalog (the Lifecycle Manager's are performed by its writer).
  for (const t of catalog.types.values()) {
    for (const op of t.operations.values()) {
      if (op.deprecatedIn) continue;
      const where = offered.get(op.name);
      const declaredBy = catalog.type(op.declaredBy);
      if (!where || ![declaredBy, ...declaredBy.subtypes].some((s) => where.has(s.name))) missing.push(`${t.short}.${op.name}`);
    }
  }
  assert.deepEqual([...new Set(missing)], [], 'actions at no path of the document');
  assert.ok(OPERATIONS.length > 100, `${OPERATIONS.length} operations`);

  function deprecated(on: { operations: Map<string, { deprecatedIn?: string }> }, name: string): boolean {
    return on.operations.get(name)?.deprecatedIn !== undefined;
  }
});

test('paths of every tree, with the methods each tree takes', () => {
  const p = doc.paths;
  const edit = p['/appserver/latest/edit/servers/{server}'];
  assert.ok(edit.get && edit.post && edit.delete, 'edit: read, change, delete a server');
  assert.ok(p['/appserver/latest/edit/servers'].post, 'edit: create a server');
  assert.ok(p['/appserver/latest/edit/serverCreateForm'].get);
  assert.ok(p['/appserver/latest/edit/changeManager/activate'].post);
  const config = p['/appserver/latest/serverConfig/servers/{server}'];
  assert.ok(config.get && !config.post && !config.delete, 'serverConfig is read-only');
  assert.ok(p['/appserver/latest/domainConfig/servers/{server}'].get);
  assert.equal(p['/appserver/latest/serverConfig/changeManager'], undefined, 'the change manager is in the edit tree only');
  assert.ok(p['/appserver/latest/domainRuntime/serverRuntimes/{serverRuntime}/JVMRuntime'].get);
  assert.ok(p['/appserver/latest/domainRuntime/serverRuntimes/{serverRuntime}/search'].post, 'each mounted server runtime searches');
  assert.ok(p['/appserver/latest/serverRuntime/JVMRuntime'].get);
  assert.ok(p['/appserver/latest/edit/search'].post);
  assert.ok(p['/lifecycle/latest/environments'].post, 'the Lifecycle Manager creates environments');
  assert.ok(p['/lifecycle/latest/environments/{environment}/runtimes/{runtime}/partitions/{partition}'], 'an addressed collection item');
  assert.ok(p['/appserver'].get && p['/appserver/latest'].get && p['/appserver/latest/currentUser'].get, 'versions and currentUser');
  const tags = new Set(doc.tags.map((t: any) => t.name));
  for (const t of ['edit', 'serverConfig', 'domainConfig', 'domainRuntime', 'serverRuntime', 'lifecycle']) assert.ok(tags.has(t), `tag ${t}`);
});

test('schemas carry the catalog facts: types, defaults, ranges, enums, read-only, references, secrets', () => {
  const server = doc.components.schemas.Server;
  assert.equal(server['x-appserver-type'], 'appserver.management.configuration.ServerMBean');
  assert.match(server.description, /server of the domain/);
  const port = server.properties.listenPort;
  assert.deepEqual([port.type, port.default, port.minimum, port.maximum], ['integer', 7001, 1, 65535]);
  assert.equal(server.properties.cluster.$ref, '#/components/schemas/Reference');
  assert.equal(server.properties.candidateMachines.items.$ref, '#/components/schemas/ReferenceItem');
  assert.equal(server.properties.adminReconnectIntervalSeconds['x-unit'], 'seconds');
  const withEnum = Object.values<any>(server.properties).find((s) => Array.isArray(s.enum));
  assert.ok(withEnum, 'legal values become enums');
  const runtime = doc.components.schemas.ServerRuntime;
  assert.equal(runtime.properties.state.readOnly, true);
  const secret = Object.values<any>(doc.components.schemas).flatMap((s) => Object.values<any>(s.properties ?? {})).find((s) => s.writeOnly === true);
  assert.equal(secret?.format, 'password', 'encrypted properties are write-only passwords');
  assert.equal(doc.components.schemas.Error.properties.title.enum.join(), 'FAILURE,ERRORS');
});

test('actions: arguments per overload, task answers with 200 and 202, the headers a write needs, basic auth', () => {
  const start = doc.paths['/appserver/latest/domainRuntime/serverLifeCycleRuntimes/{serverLifeCycleRuntime}/start'].post;
  assert.equal(start['x-appserver-action'], 'start');
  assert.match(start.description, /Starts it/);
  const refs = start.parameters.map((x: any) => x.$ref);
  assert.ok(refs.includes('#/components/parameters/X-Requested-By') && refs.includes('#/components/parameters/Prefer'));
  const taskRef = doc.components.responses[start.responses['202'].$ref.split('/').pop()];
  assert.equal(taskRef.content['application/json'].schema.$ref, '#/components/schemas/ServerLifeCycleTaskRuntime');
  assert.ok(taskRef.headers.Location);
  assert.ok(start.responses['200'] && start.responses.default);
  const body = doc.components.requestBodies[start.requestBody.$ref.split('/').pop()].content['application/json'].schema;
  assert.ok(Array.isArray(body.oneOf), 'start has overloads');
  const createUser = Object.entries<any>(doc.paths).find(([k]) => k.endsWith('/authenticationProviders/{authenticationProvider}/createUser'));
  assert.ok(createUser, 'an authenticator subtype action is at the provider collection item');
  const cu = doc.components.requestBodies[createUser[1].post.requestBody.$ref.split('/').pop()].content['application/json'].schema;
  assert.deepEqual(cu.required, ['userName', 'password', 'description']);
  assert.deepEqual(doc.components.parameters['X-Requested-By'].required, true);
  assert.deepEqual(doc.components.securitySchemes.basic, { type: 'http', scheme: 'basic', description: doc.components.securitySchemes.basic.description });
  assert.deepEqual(doc.security, [{ basic: [] }]);
  assert.equal(doc.servers[0].url, '/management');
});

test('the document is true of the server: every URL a crawl of its links meets matches a path of the document', async () => {
  const patterns = Object.keys(doc.paths).map((p) => new RegExp(`^${p.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`));
  const matches = (url: string) => {
    const path = new URL(url).pathname.replace(/^\/management/, '');
    return patterns.some((re) => re.test(path));
  };
  const start = ['/appserver/latest', '/appserver/latest/edit', '/appserver/latest/serverConfig', '/appserver/latest/domainRuntime', '/appserver/latest/serverRuntime', '/lifecycle/latest'];
  const queue = start.map((p) => `${srv.origin}/management${p}`);
  const seen = new Set(queue);
  const unmatched = new Set<string>();
  const statuses = new Map<number, number>();
  let reads = 0;
  while (queue.length > 0 && reads < 350) {
    const url = queue.shift()!;
    if (!matches(url)) unmatched.add(url);
    // A loaded machine may shed a read (503 "event loop late", 429): ask again as a client would.
    let r = await call(url);
    for (let tries = 0; (r.status === 503 || r.status === 429) && tries < 5; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      r = await call(url);
    }
    reads++;
    if (r.status !== 200) {
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      continue;
    }
    for (const link of r.json?.links ?? []) {
      if (['self', 'canonical', 'parent'].includes(link.rel) || seen.has(link.href)) continue;
      seen.add(link.href);
      if (!matches(link.href)) unmatched.add(link.href);
      // Actions and searches are matched, not called.
      if (link.rel !== 'action' && link.rel !== 'search' && !link.href.endsWith('/search')) queue.push(link.href);
    }
  }
  assert.ok(seen.size > 300, `the crawl met ${seen.size} URLs; reads not answered 200, by status: ${JSON.stringify([...statuses])}`);
  assert.deepEqual([...unmatched], [], 'URLs of the server that no path of the document describes');
});

test('the documents are gzip-compressed when asked, and revalidated by ETag', async () => {
  const j = await raw('/management/appserver/latest/openapi.json', { 'accept-encoding': 'gzip' });
  assert.equal(j.status, 200);
  assert.equal(j.headers['content-encoding'], 'gzip');
  assert.ok(j.body.length * 5 < Buffer.byteLength(JSON.stringify(doc)), `gzip: ${j.body.length} bytes`);
  assert.deepEqual(JSON.parse(gunzipSync(j.body).toString('utf8')), doc);
  const plain = await raw('/management/appserver/latest/openapi.json', {});
  assert.equal(plain.status, 200);
  assert.equal(plain.headers['content-encoding'], undefined);
  assert.equal(plain.headers.etag, etag);
  const again = await raw('/management/appserver/latest/openapi.json', { 'if-none-match': etag });
  assert.equal(again.status, 304);
  assert.equal(again.body.length, 0);
});

test('each version spelling has its document; the deprecated one shows what was deprecated; unknown versions are 404', async () => {
  const same = await call(`${srv.origin}/management/appserver/12.2.1.3.0/openapi.json`);
  assert.equal(same.headers.get('etag'), etag, 'the current generation has one document');
  const legacy = await call(`${srv.origin}/management/appserver/12.2.1.0/openapi.json`);
  assert.equal(legacy.status, 200);
  assert.equal(legacy.json.info.version, '12.2.1.0');
  assert.ok(JSON.stringify(legacy.json.components.schemas).length > JSON.stringify(doc.components.schemas).length, 'deprecated properties are back');
  const missing = await call(`${srv.origin}/management/appserver/9.9/openapi.json`);
  assert.equal(missing.status, 404);
  assert.equal(missing.json.status, 404);
});

test('a document per tree: its paths, the components they use, valid; an unknown tree is a 404, a repeated one a 400', async () => {
  const r = await call(`${srv.latest}/openapi.json?tree=lifecycle`);
  assert.equal(r.status, 200);
  const lcm = r.json;
  assert.ok(Object.keys(lcm.paths).length > 10);
  assert.ok(Object.keys(lcm.paths).every((p) => p.startsWith('/lifecycle')), Object.keys(lcm.paths).join(' '));
  assert.ok(lcm.components.schemas.Environment);
  assert.ok(Object.keys(lcm.components.schemas).length < 60, 'no schemas of other trees');
  const result = await new Validator().validate(structuredClone(lcm));
  assert.equal(result.valid, true, JSON.stringify(result.errors)?.slice(0, 1000));
  const unknown = await call(`${srv.latest}/openapi.json?tree=nosuch`);
  assert.equal(unknown.status, 404);
  const twice = await call(`${srv.latest}/openapi.json?tree=edit&tree=lifecycle`);
  assert.equal(twice.status, 400);
  assert.match(twice.text, /tree/);
});

test('the documents need a login; an Accept they cannot meet is a 406 in the error envelope', async () => {
  const anonymous = await call(`${srv.latest}/openapi.json`, { auth: null });
  assert.equal(anonymous.status, 401);
  assert.match(anonymous.headers.get('www-authenticate') ?? '', /^Basic realm=/);
  const wrong = await call(`${srv.latest}/openapi.json`, { headers: { accept: 'text/html' } });
  assert.equal(wrong.status, 406, wrong.text);
  assert.match(wrong.json.detail, /openapi\.yaml/);
  const yaml = await call(`${srv.latest}/openapi.yaml`, { headers: { accept: 'application/json' } });
  assert.equal(yaml.status, 406);
  const post = await call(`${srv.latest}/openapi.json`, { method: 'POST', body: {}, headers: { 'x-requested-by': 't' } });
  assert.ok(post.status >= 400 && post.status < 500, `POST: ${post.status}`);
});

// Last: parsing megabytes of YAML here holds this process (and the server in it) for seconds.
test('the YAML document is the same document', async () => {
  const y = await raw('/management/appserver/latest/openapi.yaml', { accept: 'application/yaml', 'accept-encoding': 'gzip' });
  assert.equal(y.status, 200);
  assert.equal(y.headers['content-type'], 'application/yaml; charset=utf-8');
  assert.equal(y.headers['content-encoding'], 'gzip');
  assert.deepEqual(parseYaml(gunzipSync(y.body).toString('utf8')), doc);
});

test('applications and libraries are deployed by POST (JSON or an upload) and undeployed by DELETE, each with its progress object', () => {
  for (const [collection, item] of [['appDeployments', 'appDeployment'], ['libraries', 'library']]) {
    const list = doc.paths[`/appserver/latest/edit/${collection}`];
    assert.ok(list?.post, `no POST on edit/${collection}`);
    assert.ok(list.post.responses['201'] && list.post.responses['202'], JSON.stringify(list.post.responses));
    const body = doc.components.requestBodies[list.post.requestBody.$ref.split('/').pop()];
    assert.deepEqual(Object.keys(body.content).sort(), ['application/json', 'multipart/form-data']);
    assert.deepEqual(Object.keys(body.content['multipart/form-data'].schema.properties), ['model', 'sourcePath', 'deploymentPlan']);
    const accepted = doc.components.responses[list.post.responses['202'].$ref.split('/').pop()];
    assert.match(JSON.stringify(accepted), /DeploymentProgressObject/);
    const one = doc.paths[`/appserver/latest/edit/${collection}/{${item}}`];
    assert.ok(one?.delete?.responses['202'], `no undeployment on edit/${collection}/{${item}}`);
  }
  // Elsewhere (a resource group's deployments, the runtime trees) nothing is deployed this way.
  assert.equal(doc.paths['/appserver/latest/domainConfig/libraries']?.post, undefined);
});
