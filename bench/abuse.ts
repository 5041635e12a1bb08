// An administrator's single-bean GET (throughput, p50/p99) alone, then while (a) three Monitor
// clients flood 1.5 MiB relaxed-JSON bodies at write URLs, then while (b) a client opens requests by
// the thousand and goes away in the middle of each. The attackers run in a worker thread (an event
// loop of their own); the server and the measuring client share this one, as in the other
// benchmarks. Each disturbed run is reported against the undisturbed run of the same process.
import net from 'node:net';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { load, report } from './harness.js';
import { AUTH, benchServer } from './reads.js';
import type { BenchStore } from './stores.js';

const MONITOR = { user: 'benchmon', password: 'benchmon-pw1' };
const AUTHN = 'serverConfig/securityConfiguration/realms/myrealm/authenticationProviders/DefaultAuthenticator';
/** Write URLs a Monitor may not write to. */
const FLOODED = ['edit/servers/ms1', 'edit/servers', 'domainRuntime/serverLifeCycleRuntimes/ms1/start'];

type AttackKind = 'flood' | 'abort';
interface AttackData {
  kind: AttackKind;
  port: number;
  monitorAuth: string;
}
interface AttackStats {
  requests: number;
  statuses: Record<string, number>;
}

/** Sends `head` and `body` on a new connection; resolves with the answer's status (0: none), closing at once. */
function once(port: number, head: string, body: Buffer | undefined, abandon: boolean): Promise<number> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let raw = '';
    const done = (status: number) => {
      socket.destroy();
      resolve(status);
    };
    socket.on('error', () => done(0));
    socket.on('close', () => done(0));
    socket.on('data', (d: Buffer) => {
      raw += d.toString('latin1');
      // A client that goes away does so once the server has taken the request in (100 Continue).
      if (abandon && raw.includes('\r\n\r\n')) return done(Number(raw.slice(9, 12)));
      const final = /HTTP\/1\.1 ([2-5]\d\d)/.exec(raw);
      if (final) done(Number(final[1]));
    });
    socket.write(head);
    if (body) socket.write(body);
  });
}

async function attack(d: AttackData): Promise<AttackStats> {
  let stop = false;
  parentPort!.on('message', (m) => {
    if (m === 'stop') stop = true;
  });
  const stats: AttackStats = { requests: 0, statuses: {} };
  const count = (status: number) => {
    stats.requests++;
    stats.statuses[status] = (stats.statuses[status] ?? 0) + 1;
  };
  if (d.kind === 'flood') {
    const body = Buffer.from(`{notes: '${'m'.repeat(1.5 * 1024 * 1024)}', name: 'flood'}`);
    await Promise.all(
      [0, 1, 2].map(async (i) => {
        while (!stop) {
          const path = `/management/appserver/latest/${FLOODED[(stats.requests + i) % FLOODED.length]}`;
          const head = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${d.monitorAuth}\r\nX-Requested-By: bench\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
          count(await once(d.port, head, body, false));
        }
      }),
    );
  } else {
    const head = 'POST /inventory/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 4096\r\nExpect: 100-continue\r\n\r\n';
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (!stop) count(await once(d.port, head, undefined, true));
      }),
    );
  }
  return stats;
}

if (!isMainThread && (workerData as AttackData | undefined)?.kind) {
  attack(workerData as AttackData).then((stats) => parentPort!.postMessage(stats));
}

/** Runs `measure` while attackers of `kind` run in a worker; returns its result and what the attackers saw. */
async function during<T>(kind: AttackKind, port: number, monitorAuth: string, measure: () => Promise<T>): Promise<[T, AttackStats]> {
  const worker = new Worker(new URL(import.meta.url), { workerData: { kind, port, monitorAuth } satisfies AttackData });
  const stats = new Promise<AttackStats>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  try {
    // Let the attack get going before measuring.
    await new Promise((r) => setTimeout(r, 500));
    return [await measure(), await (worker.postMessage('stop'), stats)];
  } finally {
    await worker.terminate();
  }
}

function describe(s: AttackStats): string {
  return `${s.requests} attacker requests (${Object.entries(s.statuses)
    .map(([k, v]) => `${k === '0' ? 'no answer' : k}: ${v}`)
    .join(', ')})`;
}

export async function benchAbuse(store: BenchStore): Promise<string[]> {
  const lines: string[] = [];
  const demo = await benchServer(store);
  try {
    const post = (path: string, body: unknown) =>
      fetch(`${demo.base}/${path}`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json', 'x-requested-by': 'bench' }, body: JSON.stringify(body) });
    await post(`${AUTHN}/createUser`, { userName: MONITOR.user, password: MONITOR.password, description: 'benchmark monitor' });
    await post(`${AUTHN}/addMemberToGroup`, { groupName: 'Monitors', memberUserOrGroupName: MONITOR.user });
    const monitorAuth = `Basic ${Buffer.from(`${MONITOR.user}:${MONITOR.password}`).toString('base64')}`;
    const url = `${demo.base}/serverConfig/servers/ms1`;
    const port = demo.server.port;

    const alone = await load('admin GET serverConfig/servers/ms1 alone', { url, headers: AUTH });
    console.log(`${alone.name}: ${alone.requestsPerSec.toFixed(0)} req/s (p50 ${alone.p50} ms, p99 ${alone.p99} ms)`);
    const [flooded, floods] = await during('flood', port, monitorAuth, () =>
      load('admin GET while 3 Monitors flood 1.5 MiB bodies at write URLs', { url, headers: AUTH }),
    );
    lines.push(report(flooded, alone, 'admin GET ms1 during Monitor body floods', store.label));
    console.log(`  ${describe(floods)}`);
    const [aborted, aborts] = await during('abort', port, monitorAuth, () =>
      load('admin GET while a client abandons requests at a context root', { url, headers: AUTH }),
    );
    lines.push(report(aborted, alone, 'admin GET ms1 during abandoned requests', store.label));
    console.log(`  ${describe(aborts)}`);
    const pool = await (await fetch(`${demo.base}/serverRuntime/threadPoolRuntime?links=none&fields=pendingUserRequestCount`, { headers: AUTH })).json();
    console.log(`  afterwards: pendingUserRequestCount ${JSON.stringify(pool.pendingUserRequestCount)} (this request included)`);
  } finally {
    await demo.close();
  }
  return lines;
}
