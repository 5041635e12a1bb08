// Round 3, item 12: applications answer at their context root on the administration server, but
// never in place of the server's own routes. Applications named `metrics`, `console`, `appserver`,
// `partitions` and like a partition are deployed and running; the metrics, the console, the
// readiness probe and the partition-scoped management interface still answer as themselves (with
// their own authentication), never with an application's answer and never with a 500.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ASYNC, type RuntimeServer, completed, request, startRuntimeServer } from '../support/runtime-server.js';

const SHADOWS = ['metrics', 'console', 'appserver', 'partitions', 'partition1'];

let srv: RuntimeServer;

before(async () => {
  srv = await startRuntimeServer();
  const tasks: string[] = [];
  for (const name of SHADOWS) {
    const r = await srv.admin.post('edit/appDeployments', { name, sourcePath: `/srv/apps/${name}.war`, targets: [{ identity: ['servers', 'AdminServer'] }] }, ASYNC);
    assert.equal(r.status, 202, `deploy ${name}: ${r.text}`);
    tasks.push(r.headers.get('location')!);
  }
  srv.advance(5000);
  for (const t of tasks) await completed(srv.admin, t);
});

after(async () => {
  await srv.stop(true);
});

test('round3-12: the applications run, and one of an ordinary name answers at its context root', async () => {
  for (const name of SHADOWS) {
    const r = await srv.admin.get(`serverRuntime/applicationRuntimes/${name}?links=none&fields=name`);
    assert.equal(r.status, 200, `${name} runs: ${r.text}`);
  }
  const app = await request(`${srv.origin}/inventory/`, { auth: null });
  assert.equal(app.status, 200, app.text);
  assert.equal(app.json.application, 'inventory');
});

test('round3-12: /metrics is the metrics, behind the login, whatever application is called so', async () => {
  const anonymous = await request(`${srv.origin}/metrics`, { auth: null, headers: { accept: 'text/plain' } });
  assert.equal(anonymous.status, 401, anonymous.text);
  const r = await request(`${srv.origin}/metrics`, { headers: { accept: 'text/plain' } });
  assert.equal(r.status, 200, r.text.slice(0, 300));
  assert.match(r.headers.get('content-type') ?? '', /^text\/plain/);
  assert.match(r.text, /^# (HELP|TYPE) /m);
  for (const path of ['/metrics/', '/metrics?server=AdminServer', '/metrics/work?pool=x']) {
    const any = await request(`${srv.origin}${path}`, { headers: { accept: 'text/plain' } });
    assert.ok(any.status < 500, `${path}: ${any.status} ${any.text.slice(0, 200)}`);
    assert.notEqual(any.json?.application, 'metrics', `${path} answered by the application`);
  }
});

test('round3-12: the console, the readiness probe and the partition-scoped interface answer as themselves', async () => {
  const console = await request(`${srv.origin}/console/`, { auth: null, headers: { accept: 'text/html' } });
  assert.equal(console.status, 200);
  assert.match(console.headers.get('content-type') ?? '', /^text\/html/);
  const ready = await request(`${srv.origin}/appserver/ready`, { auth: null });
  assert.equal(ready.status, 200, ready.text);
  assert.equal(ready.json.server, 'AdminServer');
  for (const prefix of ['partition1', 'partitions/partition1']) {
    const url = `${srv.origin}/${prefix}/management/appserver/latest/domainConfig?links=none&fields=name`;
    const anonymous = await request(url, { auth: null });
    assert.equal(anonymous.status, 401, `${prefix} without credentials: ${anonymous.text}`);
    const r = await request(url);
    assert.equal(r.status, 200, `${prefix}: ${r.text}`);
    assert.equal(r.json.application, undefined, `${prefix} answered by the application`);
    assert.equal(typeof r.json.name, 'string');
  }
});
