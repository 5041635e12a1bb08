// Item 2: a refused upload cleans up only what the server made for it. Cleanup used to remove the
// folder of every staged part, and a part's folder could be named by the client (`../../victim/x`):
// a refused upload deleted that folder recursively. Now nothing outside the request's own staging
// folder is ever removed, whatever the parts are called and whatever the refusal.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type Client, type RuntimeServer, createUser, startRuntimeServer } from '../support/runtime-server.js';
import { BOUNDARY, exchange, head, multipartBody, type Part } from '../support/raw-http.js';

const WAR = Buffer.from('PK\u0003\u0004 a small fake archive\n', 'latin1');

let parent: string;
let srv: RuntimeServer;
let deployer: Client;

before(async () => {
  parent = mkdtempSync(join(tmpdir(), 'appserver-item02-'));
  const dataDir = join(parent, 'data');
  mkdirSync(dataDir);
  srv = await startRuntimeServer(dataDir);
  deployer = srv.admin.as(await createUser(srv.admin, 'deployer2', 'deployer-pw2', 'Deployers'));
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
      'x-requested-by': 'item02',
      accept: 'application/json',
      prefer: 'respond-async',
      'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
      'content-length': body.length,
    }),
    body,
  );
}

/** A folder with a file in it, next to the data directory or inside it. */
function bystander(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'keep.txt');
  writeFileSync(file, 'still here');
  return file;
}

test('item 02: refused uploads whose parts name other folders leave those folders alone', async () => {
  const outside = bystander(join(parent, 'victim'));
  const config = bystander(join(srv.dataDir, 'victim2'));
  // Refusals of several kinds: no archive, an application already deployed, a bad name, bad targets.
  const models = [
    "{ name: 'nosrc', targets: [ { identity: [ 'servers', 'AdminServer' ] } ] }",
    "{ name: 'inventory', targets: [ { identity: [ 'servers', 'AdminServer' ] } ] }",
    "{ name: 'bad/name' }",
    "{ name: 'badtargets', targets: 'AdminServer' }",
  ];
  for (const model of models) {
    for (const name of ['../../../../victim/x', '../../../victim2/x', '../../victim/x', '../x']) {
      const r = await upload(deployer, [
        { name: 'model', data: model },
        { name, filename: 'x.war', data: WAR },
      ]);
      assert.equal(r.status, 400, `${model} with part '${name}': ${r.status} ${r.text}`);
      assert.ok(existsSync(outside), `the upload ${model} with part '${name}' removed ${outside}`);
      assert.ok(existsSync(config), `the upload ${model} with part '${name}' removed ${config}`);
    }
  }
  assert.equal(readFileSync(outside, 'utf8'), 'still here');
  // The applications folder and the data directory keep what they had.
  assert.ok(readdirSync(srv.dataDir).includes('victim2'));
});

test('item 02: a refused upload keeps the archives of applications already uploaded', async () => {
  const ok = await upload(deployer, [
    { name: 'model', data: "{ name: 'kept', targets: [ { identity: [ 'servers', 'AdminServer' ] } ] }" },
    { name: 'sourcePath', filename: 'kept.war', data: WAR },
  ]);
  assert.equal(ok.status, 202, ok.text);
  const source = (await srv.admin.get('edit/appDeployments/kept?links=none&fields=sourcePath')).json.sourcePath as string;
  for (const name of ['../../kept/x', '../kept/x', '../../applications/kept/x']) {
    const r = await upload(deployer, [
      { name: 'model', data: "{ name: 'nosrc2' }" },
      { name, filename: 'kept.war', data: 'replaced' },
    ]);
    assert.equal(r.status, 400, r.text);
    assert.deepEqual(readFileSync(source), WAR, `the refused upload with part '${name}' touched ${source}`);
  }
});
