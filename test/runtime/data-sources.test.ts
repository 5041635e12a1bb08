// Data sources that touch their database (issue 13, item 5). A data source whose URL points at a
// closed port is Unhealthy, its JDBC service warns with the reason and testPool reports the
// failure; one pointing at the test PostgreSQL (APPSERVER_TEST_PG) is Running, holds its initial
// connections (counted in pg_stat_activity by the application name the pool gives them), and
// testPool runs its test statement for real. Pools follow the operator (shutdown, start, shrink,
// reset), the configuration (a new URL, untargeting, deletion) and the server (shutdown of ms1, the
// process stopping): no connection is left behind. Nothing of a URL's parameters nor any password
// is ever shown.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { ASYNC, type Client, completed, pollUntil, type RuntimeServer, startRuntimeServer } from '../support/runtime-server.js';

const PG = process.env.APPSERVER_TEST_PG;
const RUNTIMES = 'serverRuntime/JDBCServiceRuntime/JDBCDataSourceRuntimeMBeans';
const ADMIN_SERVER = [['servers', 'AdminServer']];

let srv: RuntimeServer;
let admin: Client;
const listeners: net.Server[] = [];
// Sockets the test's listeners accepted: closing a listener waits for them, so they are ended first.
const sockets: net.Socket[] = [];

before(async () => {
  srv = await startRuntimeServer();
  admin = srv.admin;
});

after(async () => {
  await srv?.stop(true);
  for (const s of sockets) s.destroy();
  for (const l of listeners) await new Promise((resolve) => l.close(resolve));
});

/** A port nothing listens on: one the system gave out and that was closed again. */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

/** A port that accepts connections and `onSocket` does what it likes with them. */
async function listening(onSocket: (socket: net.Socket) => void): Promise<number> {
  const s = net.createServer((socket) => {
    sockets.push(socket);
    onSocket(socket);
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  listeners.push(s);
  return (s.address() as net.AddressInfo).port;
}

interface DataSourceSpec {
  url: string;
  user?: string;
  password?: string;
  pool?: Record<string, unknown>;
  properties?: Record<string, string>;
  targets?: string[][];
}

/** Creates a data source in one edit session and activates it. */
async function createDataSource(name: string, spec: DataSourceSpec): Promise<void> {
  const jr = `edit/JDBCSystemResources/${name}/JDBCResource`;
  const steps: [string, unknown][] = [
    ['edit/changeManager/startEdit', {}],
    ['edit/JDBCSystemResources', { name, targets: spec.targets ?? ADMIN_SERVER }],
    [jr, { datasourceType: 'GENERIC' }],
    [`${jr}/JDBCDataSourceParams`, { JNDINames: [`jdbc/${name}`] }],
    [`${jr}/JDBCDriverParams`, { driverName: spec.url.startsWith('jdbc:postgresql') ? 'org.postgresql.Driver' : 'thin.jdbc.Driver', url: spec.url, ...(spec.password !== undefined ? { password: spec.password } : {}) }],
    ...Object.entries({ ...(spec.user !== undefined ? { user: spec.user } : {}), ...spec.properties }).map(([k, v]): [string, unknown] => [`${jr}/JDBCDriverParams/properties/properties`, { name: k, value: v }]),
    ...(spec.pool ? [[`${jr}/JDBCConnectionPoolParams`, spec.pool] as [string, unknown]] : []),
    ['edit/changeManager/activate', {}],
  ];
  for (const [path, body] of steps) {
    const r = await admin.post(path, body);
    assert.ok(r.status >= 200 && r.status < 300, `${path}: ${r.status} ${r.text.slice(0, 400)}`);
  }
}

/** One change activated at once (an implicit edit session). */
async function edit(path: string, body: unknown): Promise<void> {
  const r = await admin.post(`edit/${path}`, body);
  assert.equal(r.status, 200, `${path}: ${r.text.slice(0, 400)}`);
}

async function runtime(name: string, server = 'serverRuntime'): Promise<Record<string, any>> {
  const path = server === 'serverRuntime' ? `${RUNTIMES}/${name}` : `domainRuntime/serverRuntimes/${server}/JDBCServiceRuntime/JDBCDataSourceRuntimeMBeans/${name}`;
  const r = await admin.get(`${path}?links=none`);
  assert.equal(r.status, 200, `${path}: ${r.text.slice(0, 300)}`);
  return r.json;
}

/** The state once the first attempt to reach the database ended (it is Unknown until then). */
async function settled(name: string, server?: string): Promise<Record<string, any>> {
  return pollUntil(() => runtime(name, server), (r) => r.state !== 'Unknown', `data source ${name} settling`, 15_000);
}

async function testPool(name: string): Promise<string | null> {
  const r = await admin.post(`${RUNTIMES}/${name}/testPool`, {});
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(Object.keys(r.json), ['return']);
  return r.json.return;
}

async function jdbcHealth(): Promise<{ state: string; symptoms: { instanceId: string; info: string; severity: string }[] }> {
  const r = await admin.get('serverRuntime/JDBCServiceRuntime?links=none&fields=healthState');
  assert.equal(r.status, 200, r.text);
  return r.json.healthState;
}

describe('an in-memory embedded database, which this server provides', () => {
  test('the demo data source runs and its JDBC service is healthy', async () => {
    const demo = await pollUntil(
      async () => (await admin.get('serverRuntime/partitionRuntimes/partition1/JDBCPartitionRuntime/JDBCDataSourceRuntimeMBeans/partition1-ds?links=none')).json,
      (r) => r.state !== 'Unknown',
      'the demo data source settling',
      15_000,
    );
    assert.equal(demo.state, 'Running');
    assert.equal(demo.databaseProductName, 'Apache Derby');
    assert.equal((await admin.post('serverRuntime/partitionRuntimes/partition1/JDBCPartitionRuntime/JDBCDataSourceRuntimeMBeans/partition1-ds/testPool', {})).json.return, null);
  });

  test('jdbc:derby:memory: and jdbc:h2:mem: run without a network; testPool passes', async () => {
    for (const [name, url, product] of [['memDerby', 'jdbc:derby:memory:orders;create=true', 'Apache Derby'], ['memH2', 'jdbc:h2:mem:orders;DB_CLOSE_DELAY=-1', 'H2']] as const) {
      await createDataSource(name, { url, user: 'app' });
      const rt = await settled(name);
      assert.equal(rt.state, 'Running', name);
      assert.equal(rt.databaseProductName, product);
      assert.equal(await testPool(name), null, name);
      const symptom = (await jdbcHealth()).symptoms.find((s) => s.instanceId === name);
      assert.equal(symptom, undefined, JSON.stringify(symptom));
    }
  });
});

describe('a data source whose database cannot be reached', () => {
  test('a PostgreSQL URL at a closed port: Unhealthy, the JDBC service warns with the reason, testPool reports it', async () => {
    const port = await closedPort();
    await createDataSource('closedPg', { url: `jdbc:postgresql://127.0.0.1:${port}/app?password=url-secret-1`, user: 'app', password: 'sealed-secret-1' });
    const rt = await settled('closedPg');
    assert.equal(rt.state, 'Unhealthy');
    assert.equal(rt.enabled, true);
    assert.equal(rt.databaseProductName, 'PostgreSQL');
    assert.equal(rt.numAvailable, 0, 'no connection was made');
    assert.deepEqual(rt.properties, { user: 'app' });
    const health = await jdbcHealth();
    assert.equal(health.state, 'warn');
    const symptom = health.symptoms.find((s) => s.instanceId === 'closedPg');
    assert.ok(symptom, JSON.stringify(health));
    assert.match(symptom.info, new RegExp(`127\\.0\\.0\\.1:${port}.*refused the connection.*ECONNREFUSED`));
    const failed = await testPool('closedPg');
    assert.equal(typeof failed, 'string');
    assert.match(failed!, /^Connection test failed: data source 'closedPg' cannot reach its database: /);
    assert.match(failed!, /ECONNREFUSED/);
    // Neither the URL's parameters nor the password show anywhere.
    const everything = [JSON.stringify(rt), JSON.stringify(health), failed, (await admin.get(`${RUNTIMES}?links=none`)).text].join('\n');
    for (const secret of ['url-secret-1', 'sealed-secret-1']) assert.ok(!everything.includes(secret), `${secret} was shown`);
  });

  test('a thin-driver URL at a closed port is checked by TCP: Unhealthy; once something listens there, testPool passes and it runs', async () => {
    const port = await closedPort();
    await createDataSource('closedThin', { url: `jdbc:oracle:thin:@//127.0.0.1:${port}/ORCL`, user: 'scott' });
    const rt = await settled('closedThin');
    assert.equal(rt.state, 'Unhealthy');
    // The database's maker is the product vendor's brand, which the server never writes itself.
    assert.equal(rt.databaseProductName, null);
    assert.match((await testPool('closedThin'))!, /ECONNREFUSED/);
    // The database comes up on that port: the next test passes, and the data source runs again.
    const server = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    listeners.push(server);
    assert.equal(await testPool('closedThin'), null);
    assert.equal((await runtime('closedThin')).state, 'Running');
    assert.ok(!(await jdbcHealth()).symptoms.some((s) => s.instanceId === 'closedThin'));
  });

  test('a port that accepts but never answers: the attempt ends after the connectTimeout property', async () => {
    const port = await listening(() => {});
    await createDataSource('silentPg', { url: `jdbc:postgresql://127.0.0.1:${port}/db`, user: 'app', properties: { connectTimeout: '1' } });
    const rt = await settled('silentPg');
    assert.equal(rt.state, 'Unhealthy');
    const symptom = (await jdbcHealth()).symptoms.find((s) => s.instanceId === 'silentPg');
    assert.match(symptom?.info ?? '', /did not answer within 1 s/);
  });

  test('URLs that smuggle something into the address, or that nothing here can reach, are Unhealthy with the reason and never connect', async () => {
    let reached = 0;
    const port = await listening((socket) => {
      reached++;
      socket.destroy();
    });
    const cases: [string, string, RegExp][] = [
      ['badHost', `jdbc:postgresql://user:pw@127.0.0.1:${port}/db`, /host name in its URL/],
      ['badPort', `jdbc:mysql://127.0.0.1:99999/db`, /port in its URL is not a number from 1 to 65535/],
      ['numericHost', `jdbc:postgresql://2130706433:${port}/db`, /IPv4 address in the form a\.b\.c\.d/],
      ['embedded', 'jdbc:derby:app;create=true', /embedded database kept in files/],
      ['embeddedH2File', 'jdbc:h2:~/app', /embedded database kept in files/],
      ['unknownKind', 'jdbc:odbc:legacy', /does not know how to reach \('jdbc:odbc:'\)/],
      ['notJdbc', `http://127.0.0.1:${port}/`, /does not start with 'jdbc:'/],
    ];
    for (const [name, url, reason] of cases) {
      await createDataSource(name, { url, user: 'u' });
      assert.equal((await settled(name)).state, 'Unhealthy', name);
      const failed = await testPool(name);
      assert.match(failed ?? '', reason, name);
      assert.ok(!failed!.includes(url), `${name}: the URL is not repeated`);
    }
    assert.equal(reached, 0, 'nothing connected to the port the bad URLs named');
  });
});

describe('a data source on the test PostgreSQL', { skip: PG ? false : 'APPSERVER_TEST_PG is not set' }, () => {
  const target = PG ? new URL(PG) : new URL('postgres://none@localhost/none');
  const url = `jdbc:postgresql://${target.hostname}:${target.port || 5432}${target.pathname}`;
  const user = decodeURIComponent(target.username || 'postgres');
  let db: pg.Client;

  before(async () => {
    db = new pg.Client({ connectionString: PG });
    await db.connect();
  });

  after(async () => {
    await db?.end();
  });

  /** Connections the server holds for a data source, as the database sees them. */
  async function held(name: string, server = 'AdminServer'): Promise<number> {
    const r = await db.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1', [`appserver ${server} ${name}`]);
    return r.rows[0].n;
  }

  const heldBecomes = (name: string, n: number, server?: string) => pollUntil(() => held(name, server), (v) => v === n, `${name} holding ${n} connections`, 15_000);

  test('Running with its initial connections; testPool runs the test statement; a missing test table fails with its SQLSTATE', async () => {
    await createDataSource('livePg', { url, user, password: 'not-needed-with-trust', pool: { initialCapacity: 3, minCapacity: 1, maxCapacity: 5, testTableName: 'SQL SELECT 1' } });
    const rt = await settled('livePg');
    assert.equal(rt.state, 'Running');
    assert.equal(rt.databaseProductName, 'PostgreSQL');
    assert.match(String(rt.databaseProductVersion), /^\d+/);
    assert.equal(rt.currCapacity, 3);
    assert.equal(rt.numAvailable, 3);
    assert.equal(rt.activeConnectionsCurrentCount, 0);
    assert.equal(rt.connectionsTotalCount, 3);
    assert.equal(await held('livePg'), 3);
    assert.equal((await jdbcHealth()).symptoms.some((s) => s.instanceId === 'livePg'), false);

    const reserves = rt.reserveRequestCount;
    assert.equal(await testPool('livePg'), null);
    const after = await runtime('livePg');
    assert.equal(after.reserveRequestCount, reserves + 1, 'the test reserved a connection');
    assert.equal(after.connectionsTotalCount, 3, 'and reused one of the pool');

    // A test table that does not exist: the database's SQLSTATE, never its message.
    await edit('JDBCSystemResources/livePg/JDBCResource/JDBCConnectionPoolParams', { testTableName: 'no_such_table_x' });
    await heldBecomes('livePg', 3);
    const failed = await testPool('livePg');
    assert.match(failed ?? '', /has no table of the name the test gives \(SQLSTATE 42P01\)/);
    assert.ok(!failed!.includes('relation'), 'the database message is not repeated');
    assert.equal((await runtime('livePg')).state, 'Unhealthy');
    await edit('JDBCSystemResources/livePg/JDBCResource/JDBCConnectionPoolParams', { testTableName: 'pg_catalog.pg_class' });
    assert.equal(await testPool('livePg'), null);
    assert.equal((await runtime('livePg')).state, 'Running');
  });

  test('shrink closes unused connections down to the minimum; shutdown closes them all, start opens the initial ones again; reset makes them anew', async () => {
    await heldBecomes('livePg', 3);
    assert.deepEqual((await admin.post(`${RUNTIMES}/livePg/shrink`, {})).json, {});
    assert.equal((await runtime('livePg')).numAvailable, 1);
    await heldBecomes('livePg', 1);

    assert.equal((await admin.post(`${RUNTIMES}/livePg/shutdown`, {})).status, 200);
    assert.equal((await runtime('livePg')).state, 'Shutdown');
    await heldBecomes('livePg', 0);
    assert.match((await testPool('livePg'))!, /is Shutdown/);

    assert.equal((await admin.post(`${RUNTIMES}/livePg/start`, {})).status, 200);
    const started = await settled('livePg');
    assert.equal(started.state, 'Running');
    await heldBecomes('livePg', 3);

    const pids = async () => (await db.query('SELECT pid FROM pg_stat_activity WHERE application_name = $1 ORDER BY pid', ['appserver AdminServer livePg'])).rows.map((r) => r.pid);
    const before = await pids();
    assert.equal((await admin.post(`${RUNTIMES}/livePg/reset`, {})).status, 200);
    await heldBecomes('livePg', 3);
    const after = await pids();
    assert.equal(after.filter((p) => before.includes(p)).length, 0, 'reset made every connection anew');
  });

  test('a new URL is taken up at activation; untargeting and deleting the data source close its connections', async () => {
    await createDataSource('movingPg', { url: `jdbc:postgresql://127.0.0.1:${await closedPort()}/x`, user, pool: { initialCapacity: 2 } });
    assert.equal((await settled('movingPg')).state, 'Unhealthy');
    await edit('JDBCSystemResources/movingPg/JDBCResource/JDBCDriverParams', { url });
    await heldBecomes('movingPg', 2);
    assert.equal((await settled('movingPg')).state, 'Running');

    await edit('JDBCSystemResources/movingPg', { targets: [] });
    await heldBecomes('movingPg', 0);
    assert.equal((await admin.get(`${RUNTIMES}/movingPg`)).status, 404);

    await edit('JDBCSystemResources/movingPg', { targets: ADMIN_SERVER });
    await heldBecomes('movingPg', 2);
    const del = await admin.del('edit/JDBCSystemResources/movingPg');
    assert.equal(del.status, 200, del.text);
    await heldBecomes('movingPg', 0);
  });

  test("a data source targeted to ms1 connects when ms1 runs and lets go when it shuts down", async () => {
    await createDataSource('ms1Pg', { url, user, targets: [['servers', 'ms1']], pool: { initialCapacity: 2 } });
    assert.equal(await held('ms1Pg', 'ms1'), 0, 'ms1 is not running');
    const start = await admin.post('domainRuntime/serverLifeCycleRuntimes/ms1/start', {}, ASYNC);
    assert.equal(start.status, 202, start.text);
    srv.advance(120_000);
    await completed(admin, start.headers.get('location')!);
    assert.equal((await settled('ms1Pg', 'ms1')).state, 'Running');
    await heldBecomes('ms1Pg', 2, 'ms1');
    const stop = await admin.post('domainRuntime/serverLifeCycleRuntimes/ms1/forceShutdown', {}, ASYNC);
    assert.equal(stop.status, 202, stop.text);
    srv.advance(120_000);
    await completed(admin, stop.headers.get('location')!);
    await heldBecomes('ms1Pg', 0, 'ms1');
  });

  test('the process stopping closes every connection', async () => {
    await heldBecomes('livePg', 3);
    srv = await srv.restart();
    admin = srv.admin;
    // The restarted process opens the pool again...
    assert.equal((await settled('livePg')).state, 'Running');
    await heldBecomes('livePg', 3);
    // ... and closing it lets every connection go.
    await srv.server.close();
    await heldBecomes('livePg', 0);
    srv = await startRuntimeServer(srv.dataDir);
    admin = srv.admin;
  });
});
