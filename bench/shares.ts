// An administrator's single-bean GET (throughput, p50/p99, non-2xx) alone, then while (a) one Monitor
// drips 1,000 request bodies (each announces 1,000 bytes, sends a few and stops; a connection the
// server closes is opened again at once), then while (b) four Monitors loop over the HTML view of a
// collection of about 17 MB (the servers of a domain of 1,600). The attackers run in a worker thread;
// the server and the measuring client share this process's event loop. Goal (issue 23, items 3 and
// 5): the administrator's p99 under 50 ms and no 503 while either attack runs.
import net from 'node:net';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { load, report } from './harness.js';
import { AUTH, benchServer } from './reads.js';
import type { BenchStore } from './stores.js';

const MONITOR = { user: 'benchdrip', password: 'benchdrip-pw1' };
const AUTHN = 'serverConfig/securityConfiguration/realms/myrealm/authenticationProviders/DefaultAuthenticator';
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

type AttackKind = 'drip' | 'html';
interface AttackData {
  kind: AttackKind;
  port: number;
  monitorAuth: string;
}
interface AttackStats {
  requests: number;
  statuses: Record<string, number>;
  /** Bytes of the HTML answers (their first one). */
  pageBytes?: number;
}

/** One dripped body: a search announcing 1,000 bytes that sends 12; resolves with the status it got (0: none) when the connection closes. */
function drip(port: number, auth: string): Promise<number> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let raw = '';
    socket.on('error', () => undefined);
    socket.on('data', (d: Buffer) => (raw += d.toString('latin1')));
    socket.on('close', () => {
      const final = /HTTP\/1\.1 ([2-5]\d\d)/.exec(raw);
      resolve(final ? Number(final[1]) : 0);
    });
    socket.write(
      `POST /management/appserver/latest/serverRuntime/search HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${auth}\r\nX-Requested-By: bench\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"fields": [`,
    );
  });
}

async function page(port: number, auth: string): Promise<{ status: number; bytes: number }> {
  const r = await fetch(`http://127.0.0.1:${port}/management/appserver/latest/serverConfig/servers`, { headers: { authorization: auth, accept: BROWSER, 'user-agent': 'Mozilla/5.0' } });
  const body = await r.arrayBuffer();
  return { status: r.status, bytes: body.byteLength };
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
  if (d.kind === 'drip') {
    await Promise.all(
      Array.from({ length: 1000 }, async () => {
        while (!stop) count(await drip(d.port, d.monitorAuth));
      }),
    );
  } else {
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (!stop) {
          const p = await page(d.port, d.monitorAuth);
          stats.pageBytes ??= p.bytes;
          count(p.status);
        }
      }),
    );
  }
  return stats;
}

if (!isMainThread && (workerData as AttackData | undefined)?.kind) {
  attack(workerData as AttackData).then((stats) => parentPort!.postMessage(stats));
}

async function during<T>(kind: AttackKind, port: number, monitorAuth: string, measure: () => Promise<T>): Promise<[T, AttackStats]> {
  const worker = new Worker(new URL(import.meta.url), { workerData: { kind, port, monitorAuth } satisfies AttackData });
  const stats = new Promise<AttackStats>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  try {
    // The drips take their share (and the pages start looping) before measuring.
    await new Promise((r) => setTimeout(r, 1500));
    const result = await measure();
    worker.postMessage('stop');
    // Dripped connections end when the server cuts them (at most 10 s): the worker is stopped rather than waited for.
    const seen = await Promise.race([stats, new Promise<AttackStats>((r) => setTimeout(() => r({ requests: -1, statuses: {} }), 15_000))]);
    return [result, seen];
  } finally {
    await worker.terminate();
  }
}

function describe(s: AttackStats): string {
  if (s.requests < 0) return 'attacker figures not collected';
  return `${s.requests} attacker requests answered (${Object.entries(s.statuses)
    .map(([k, v]) => `${k === '0' ? 'no answer' : k}: ${v}`)
    .join(', ')})${s.pageBytes !== undefined ? `, HTML answer ${s.pageBytes} bytes` : ''}`;
}

export async function benchShares(store: BenchStore): Promise<string[]> {
  const lines: string[] = [];
  const demo = await benchServer(store, { servers: 1600, clusters: 4, partitions: 2, applications: 20 });
  try {
    const post = (path: string, body: unknown) =>
      fetch(`${demo.base}/${path}`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json', 'x-requested-by': 'bench' }, body: JSON.stringify(body) });
    await post(`${AUTHN}/createUser`, { userName: MONITOR.user, password: MONITOR.password, description: 'benchmark monitor' });
    await post(`${AUTHN}/addMemberToGroup`, { groupName: 'Monitors', memberUserOrGroupName: MONITOR.user });
    const monitorAuth = `Basic ${Buffer.from(`${MONITOR.user}:${MONITOR.password}`).toString('base64')}`;
    const json = await (await fetch(`${demo.base}/serverConfig/servers`, { headers: { authorization: monitorAuth, accept: 'application/json' } })).arrayBuffer();
    console.log(`serverConfig/servers as JSON: ${(json.byteLength / 1048576).toFixed(1)} MiB`);
    const url = `${demo.base}/serverConfig/servers/ms1`;
    const port = demo.server.port;
    const alone = await load('admin GET serverConfig/servers/ms1 alone', { url, headers: AUTH });
    console.log(`${alone.name}: ${alone.requestsPerSec.toFixed(0)} req/s (p50 ${alone.p50} ms, p99 ${alone.p99} ms)`);
    const [dripped, drips] = await during('drip', port, monitorAuth, () => load('admin GET while a Monitor drips 1,000 bodies', { url, headers: AUTH }));
    lines.push(report(dripped, alone, 'admin GET ms1 during 1,000 dripped bodies', store.label));
    console.log(`  ${describe(drips)}`);
    const [paged, pages] = await during('html', port, monitorAuth, () => load('admin GET while 4 Monitors loop over a 17 MB HTML view', { url, headers: AUTH }));
    lines.push(report(paged, alone, 'admin GET ms1 during 4 Monitors on a large HTML view', store.label));
    console.log(`  ${describe(pages)}`);
  } finally {
    await demo.close();
  }
  return lines;
}
