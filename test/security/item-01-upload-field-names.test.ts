// Item 1: the name of a multipart part is never a path. A Deployer's upload with a part named
// `../../../../victim/pwned` must not write anything outside the data directory: parts other than
// `model`, `sourcePath` and `deploymentPlan` are refused with a 400 naming them, staged files get
// names the server chooses, and a client's file name only ever names a file of the application's
// own folder.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type Client, type RuntimeServer, createUser, errorDetails, startRuntimeServer } from '../support/runtime-server.js';
import { exchange, head, multipartBody, BOUNDARY, type Part } from '../support/raw-http.js';

const MODEL = (name: string) => `{ name: '${name}', targets: [ { identity: [ 'servers', 'AdminServer' ] } ] }`;
const WAR = Buffer.from('PK\u0003\u0004 a small fake archive\n', 'latin1');

let parent: string;
let victim: string;
let srv: RuntimeServer;
let deployer: Client;

before(async () => {
  // The data directory has a sibling folder an attacker would aim at.
  parent = mkdtempSync(join(tmpdir(), 'appserver-item01-'));
  victim = join(parent, 'victim');
  mkdirSync(victim);
  const dataDir = join(parent, 'data');
  mkdirSync(dataDir);
  srv = await startRuntimeServer(dataDir);
  deployer = srv.admin.as(await createUser(srv.admin, 'deployer1', 'deployer-pw1', 'Deployers'));
});

after(async () => {
  await srv.stop(true);
  rmSync(parent, { recursive: true, force: true });
});

function upload(c: Client, parts: Part[]) {
  const body = multipartBody(parts);
  return exchange(
    srv.server.port,
    head('POST', '/management/appserver/latest/edit/appDeployments', {
      authorization: c.auth,
      'x-requested-by': 'item01',
      accept: 'application/json',
      prefer: 'respond-async',
      'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
      'content-length': body.length,
    }),
    body,
  );
}

/** Every file below `dir`, as paths relative to it. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1));
}

test('item 01: a part whose name climbs out of the data directory is refused, naming it, and nothing is written', async () => {
  for (const name of ['../../../../victim/pwned', '../../../victim/pwned', '/tmp/pwned', 'sourcePath/../../x', '..']) {
    const r = await upload(deployer, [
      { name: 'model', data: MODEL('trav1') },
      { name: 'sourcePath', filename: 'trav1.war', data: WAR },
      { name, filename: 'a.war', data: 'pwned' },
    ]);
    assert.equal(r.status, 400, `part '${name}': ${r.status} ${r.text}`);
    const details: { detail: string; 'o:errorPath'?: string }[] = r.json['appserver:errorsDetails'] ?? [{ detail: r.json.detail }];
    assert.ok(details.some((d) => d['o:errorPath'] === name && d.detail.includes(`'${name}'`)), `the error does not name the part '${name}': ${r.text}`);
    assert.deepEqual(filesUnder(victim), [], `part '${name}' wrote into ${victim}`);
    assert.ok(!existsSync(join(parent, 'pwned')) && !existsSync('/tmp/pwned-a.war'), `part '${name}' wrote next to the data directory`);
  }
  // The refused uploads deployed nothing.
  const r = await srv.admin.get('edit/appDeployments/trav1');
  errorDetails(r, 404, 'the refused upload was deployed');
});

test('item 01: a file name that climbs is only ever the name of a file in the application folder', async () => {
  for (const [app, filename] of [['trav2', '../../../victim/evil.war'], ['trav3', '..'], ['trav4', '../..'], ['trav5', '.hidden.war'], ['trav6', 'a\\..\\..\\b.war']]) {
    const r = await upload(deployer, [
      { name: 'model', data: MODEL(app!) },
      { name: 'sourcePath', filename: filename!, data: WAR },
    ]);
    assert.equal(r.status, 202, `${app} with file name '${filename}': ${r.status} ${r.text}`);
    const cfg = await srv.admin.get(`edit/appDeployments/${app}?links=none&fields=sourcePath`);
    const source = cfg.json.sourcePath as string;
    const folder = join(srv.dataDir, 'applications', app!);
    assert.ok(source.startsWith(`${folder}/`) && !source.slice(folder.length).includes('/..'), `${app}: the archive is kept at ${source}, outside ${folder}`);
    assert.deepEqual(readFileSync(source), WAR);
  }
  assert.deepEqual(filesUnder(victim), []);
});
