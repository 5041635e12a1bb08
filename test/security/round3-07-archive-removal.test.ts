// Round 3, item 7: refused deployments left their uploaded archives on disk, and undeploying never
// removed one. Now an archive stored for a deployment that is refused is removed with its folder; an
// undeployed application's archive and plan go once the undeployment is activated; an archive that
// another deployment still names stays; a file outside the data directory's archive area is never
// removed, whatever a deployment's path says; and what an earlier run left goes at the next activation
// that adds or removes a deployment.
import assert from 'node:assert/strict';
import { onPostgres } from '../support/store.js';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { BOUNDARY, type Part, exchange, head, multipartBody } from '../support/raw-http.js';
import { type RuntimeServer, startRuntimeServer } from '../support/runtime-server.js';

const WAR = Buffer.from('PK\u0003\u0004 a small fake archive\n', 'latin1');
const model = (name: string, extra = '') => `{ name: '${name}', targets: [ { identity: [ 'servers', 'AdminServer' ] } ]${extra} }`;

let srv: RuntimeServer;
let outside: string;

before(async () => {
  srv = await startRuntimeServer();
  outside = mkdtempSync(join(tmpdir(), 'appserver-round3-07-'));
});

after(async () => {
  await srv.stop(true);
  rmSync(outside, { recursive: true, force: true });
});

const area = () => join(srv.dataDir, 'applications');
/** The kept archives, as `folder/file` (the staging folder aside). */
const kept = () =>
  existsSync(area())
    ? readdirSync(area(), { withFileTypes: true })
        .filter((d) => d.isDirectory() && d.name !== '.incoming')
        .flatMap((d) => readdirSync(join(area(), d.name)).map((f) => `${d.name}/${f}`))
        .sort()
    : [];

function upload(parts: Part[]) {
  const body = multipartBody(parts);
  return exchange(
    srv.server.port,
    head('POST', '/management/appserver/latest/edit/appDeployments', {
      authorization: srv.admin.auth,
      'x-requested-by': 'round3-07',
      accept: 'application/json',
      prefer: 'respond-async',
      'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
      'content-length': body.length,
    }),
    body,
  );
}

const deployUpload = (name: string, extra = '', plan = false) =>
  upload([
    { name: 'model', data: model(name, extra) },
    { name: 'sourcePath', filename: `${name}.war`, data: WAR },
    ...(plan ? [{ name: 'deploymentPlan', filename: 'plan.xml', data: '<deployment-plan/>' }] : []),
  ]);

test('item 7: an uploaded deployment that is refused leaves no archive behind', async () => {
  // The model passes the first checks, so the archive is stored; the configuration then refuses a property.
  const r = await deployUpload('refused1', ", notAProperty: 'x'", true);
  assert.equal(r.status, 400, r.text);
  assert.match(r.text, /notAProperty/);
  assert.deepEqual(kept(), []);
  assert.equal((await srv.admin.get('edit/appDeployments/refused1')).status, 404);
});

test('item 7: undeploying removes the archive and plan, and their folder', async () => {
  const r = await deployUpload('gone1', '', true);
  assert.ok(r.status === 201 || r.status === 202, r.text);
  assert.deepEqual(kept(), ['gone1/gone1.war', 'gone1/plan.xml']);
  const d = await srv.admin.del('edit/appDeployments/gone1', { prefer: 'respond-async' });
  assert.ok(d.status === 200 || d.status === 202, d.text);
  assert.deepEqual(kept(), []);
  assert.deepEqual(readdirSync(area()).filter((f) => f !== '.incoming'), [], 'the application folder is left');
});

test('item 7: an archive another deployment names stays until that one goes too', async () => {
  const r = await deployUpload('first1');
  assert.ok(r.status === 201 || r.status === 202, r.text);
  const archive = join(area(), 'first1', 'first1.war');
  assert.ok(existsSync(archive));
  // A second deployment names the first one's archive by its path on the server.
  const second = await srv.admin.post('edit/appDeployments', { name: 'second1', sourcePath: archive, targets: [{ identity: ['servers', 'AdminServer'] }] }, { prefer: 'respond-async' });
  assert.ok(second.status === 201 || second.status === 202, second.text);
  assert.equal((await srv.admin.del('edit/appDeployments/first1', { prefer: 'respond-async' })).status < 300, true);
  assert.ok(existsSync(archive), 'an archive still named by second1 was removed');
  assert.equal((await srv.admin.del('edit/appDeployments/second1', { prefer: 'respond-async' })).status < 300, true);
  assert.ok(!existsSync(archive), 'the archive stayed after its last deployment went');
});

test('item 7: a file outside the archive area is never removed, and leftovers go at the next start and deployment change', async () => {
  const own = join(outside, 'own.war');
  writeFileSync(own, WAR);
  const r = await srv.admin.post('edit/appDeployments', { name: 'outside1', sourcePath: own, targets: [{ identity: ['servers', 'AdminServer'] }] }, { prefer: 'respond-async' });
  assert.ok(r.status === 201 || r.status === 202, r.text);
  assert.equal((await srv.admin.del('edit/appDeployments/outside1', { prefer: 'respond-async' })).status < 300, true);
  assert.ok(existsSync(own), 'a file outside the data directory was removed');
  // What a crash (or an earlier version) left in the area goes when the server starts (on a shared
  // store, once a minute old), and at the next activation that changes deployments.
  mkdirSync(join(area(), 'left1'), { recursive: true });
  writeFileSync(join(area(), 'left1', 'left1.war'), WAR);
  srv = await srv.restart();
  assert.deepEqual(kept(), onPostgres() ? ['left1/left1.war'] : []);
  const r2 = await deployUpload('next1');
  assert.ok(r2.status === 201 || r2.status === 202, r2.text);
  assert.deepEqual(kept(), ['next1/next1.war']);
});
