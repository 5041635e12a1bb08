// Restarting on the same data directory keeps the domain, its users and their passwords.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { basic, call, startTestServer, type TestServer } from '../support/server.js';

const SHAPE = '?links=none';

describe('restart with a given administrator password', () => {
  let srv: TestServer;
  let serversBefore: unknown;
  let partitionsBefore: unknown;

  before(async () => {
    srv = await startTestServer();
    const servers = await call(`${srv.latest}/edit/servers${SHAPE}`);
    assert.equal(servers.status, 200);
    serversBefore = servers.json;
    partitionsBefore = (await call(`${srv.latest}/domainRuntime/domainPartitionRuntimes?links=none&fields=name`)).json;
    srv = await srv.restart();
  });

  after(async () => {
    await srv.stop(true);
  });

  test('the admin credentials still work', async () => {
    const r = await call(`${srv.latest}/currentUser`);
    assert.equal(r.status, 200);
    assert.equal(r.json.user, 'admin');
    const wrong = await call(`${srv.latest}/currentUser`, { auth: basic('admin', 'welcome2') });
    assert.equal(wrong.status, 401);
  });

  test('edit/servers lists the same three servers, unchanged', async () => {
    const r = await call(`${srv.latest}/edit/servers${SHAPE}`);
    assert.equal(r.status, 200);
    assert.deepEqual(
      r.json.items.map((i: { name: string }) => i.name),
      ['AdminServer', 'ms1', 'ms2'],
    );
    assert.deepEqual(r.json, serversBefore);
    const ms1 = (await call(`${srv.latest}/edit/servers/ms1`)).json;
    assert.equal(ms1.listenPort, 7003);
    assert.deepEqual(ms1.cluster, ['clusters', 'cluster1']);
  });

  test('the rest of the domain and the runtime state come back too', async () => {
    const partitions = (await call(`${srv.latest}/domainRuntime/domainPartitionRuntimes?links=none&fields=name`)).json;
    assert.deepEqual(partitions, partitionsBefore);
    const base = `${srv.latest}/domainRuntime/domainPartitionRuntimes`;
    assert.equal((await call(`${base}/partition1/partitionLifeCycleRuntime`)).json.state, 'RUNNING');
    const p2 = (await call(`${base}/partition2/partitionLifeCycleRuntime`)).json;
    assert.deepEqual([p2.state, p2.subState], ['SHUTDOWN', 'HALTED']);
    const jms = (await call(`${srv.latest}/edit/JMSServers/JMSServer1`)).json;
    assert.deepEqual(jms.targets, [{ identity: ['servers', 'ms1'] }]);
  });
});

describe('restart with a generated administrator password', () => {
  let first: TestServer;
  let srv: TestServer;
  let password: string;

  before(async () => {
    first = await startTestServer(undefined, { generatePassword: true });
    assert.ok(first.generatedPassword, `no generated password printed; output was: ${JSON.stringify(first.output)}`);
    password = first.generatedPassword;
    const r = await call(`${first.latest}/currentUser`, { auth: basic('admin', password) });
    assert.equal(r.status, 200, 'the printed password works on the new domain');
    srv = await first.restart();
  });

  after(async () => {
    await srv.stop(true);
    assert.ok(!existsSync(srv.dataDir));
  });

  test('the generated password still works after the restart', async () => {
    const r = await call(`${srv.latest}/currentUser`, { auth: basic('admin', password) });
    assert.equal(r.status, 200);
    assert.equal(r.json.user, 'admin');
  });

  test('no new password is generated or printed on restart', async () => {
    assert.equal(srv.generatedPassword, undefined, `a password was printed again: ${srv.output}`);
    assert.ok(!/Created a new domain/.test(srv.output), srv.output);
    assert.match(srv.output, /listening on http:\/\/127\.0\.0\.1:\d+\/management\/appserver\/latest/);
    const welcome = await call(`${srv.latest}/currentUser`, { auth: basic('admin', 'welcome1') });
    assert.equal(welcome.status, 401, 'the test default password was never set');
  });

  test('the domain is the one created before', async () => {
    const r = await call(`${srv.latest}/edit/servers?links=none&fields=name`, { auth: basic('admin', password) });
    assert.deepEqual(r.json, { items: [{ name: 'AdminServer' }, { name: 'ms1' }, { name: 'ms2' }] });
  });
});

describe('the start-up line of a new domain', () => {
  let srv: TestServer;

  before(async () => {
    srv = await startTestServer(undefined, { generatePassword: true, adminUser: 'domainadmin' });
  });

  after(async () => {
    await srv.stop(true);
  });

  test('names the administrator that was created and the file holding a password that works', async () => {
    const m = /Administrator: (\S+); its generated password is in the file (.+?) \(mode 0600\)/.exec(srv.output);
    assert.ok(m, `no administrator or password file printed: ${JSON.stringify(srv.output)}`);
    const [, user, file] = m;
    assert.equal(user, 'domainadmin');
    const password = readFileSync(file!, 'utf8').trim();
    assert.ok(!srv.output.includes(password), 'the password itself is not printed');
    const r = await call(`${srv.latest}/currentUser`, { auth: basic(user!, password) });
    assert.equal(r.status, 200, `the administrator ${user} and the password in ${file} are refused`);
    assert.equal(r.json.user, 'domainadmin');
  });
});
