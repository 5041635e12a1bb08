// An administrator's single-bean GET (throughput, p50/p99, non-2xx) alone, then while (a) one Monitor
// drips 1,000 request bodies (each announces 1,000 bytes, sends a few and stops; a connection the
// server closes is opened again at once), then while (b) four Monitors loop over the HTML view of a
// collection of about 17 MB (the servers of a domain of 1,600). The attackers run in a worker thread;
// the server and the measuring client share this process's event loop. Goal (issue 23, items 3 and
// 5): the administrator's p99 under 50 ms and no 503 while either attack runs.
import net from 'node:net';
import { type AttackData, addMonitor, attackers, describeAttack, during } from './attackers.js';
import { load, report } from './harness.js';
import { AUTH, benchServer } from './reads.js';
import type { BenchStore } from './stores.js';

const MONITOR = { user: 'benchdrip', password: 'benchdrip-pw1' };
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

type Attack = AttackData<'drip' | 'html'>;

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

attackers<Attack>(async (d, side) => {
  if (d.kind === 'drip') {
    await Promise.all(
      Array.from({ length: 1000 }, async () => {
        while (!side.stopped) side.count(await drip(d.port, d.monitorAuth));
      }),
    );
  } else {
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (!side.stopped) {
          const p = await page(d.port, d.monitorAuth);
          side.stats.pageBytes ??= p.bytes;
          side.count(p.status);
        }
      }),
    );
  }
});

/** The drips take their share (and the pages start looping) before measuring; dripped connections end when the server cuts them (at most 10 s). */
const HERE = new URL(import.meta.url);

const TIMING = { warmUpMs: 1500, collectMs: 15_000 };

export async function benchShares(store: BenchStore): Promise<string[]> {
  const lines: string[] = [];
  const demo = await benchServer(store, { servers: 1600, clusters: 4, partitions: 2, applications: 20 });
  try {
    const monitorAuth = await addMonitor(demo.base, MONITOR.user, MONITOR.password);
    const json = await (await fetch(`${demo.base}/serverConfig/servers`, { headers: { authorization: monitorAuth, accept: 'application/json' } })).arrayBuffer();
    console.log(`serverConfig/servers as JSON: ${(json.byteLength / 1048576).toFixed(1)} MiB`);
    const url = `${demo.base}/serverConfig/servers/ms1`;
    const port = demo.server.port;
    const alone = await load('admin GET serverConfig/servers/ms1 alone', { url, headers: AUTH });
    console.log(`${alone.name}: ${alone.requestsPerSec.toFixed(0)} req/s (p50 ${alone.p50} ms, p99 ${alone.p99} ms)`);
    const [dripped, drips] = await during(HERE, { kind: 'drip', port, monitorAuth } satisfies Attack, () => load('admin GET while a Monitor drips 1,000 bodies', { url, headers: AUTH }), TIMING);
    lines.push(report(dripped, alone, 'admin GET ms1 during 1,000 dripped bodies', store.label));
    console.log(`  ${describeAttack(drips)}`);
    const [paged, pages] = await during(HERE, { kind: 'html', port, monitorAuth } satisfies Attack, () => load('admin GET while 4 Monitors loop over a 17 MB HTML view', { url, headers: AUTH }), TIMING);
    lines.push(report(paged, alone, 'admin GET ms1 during 4 Monitors on a large HTML view', store.label));
    console.log(`  ${describeAttack(pages)}`);
  } finally {
    await demo.close();
  }
  return lines;
}
