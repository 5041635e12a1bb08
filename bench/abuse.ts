// An administrator's single-bean GET (throughput, p50/p99) alone, then while (a) three Monitor
// clients flood 1.5 MiB relaxed-JSON bodies at write URLs, then while (b) a client opens requests by
// the thousand and goes away in the middle of each. The attackers run in a worker thread (an event
// loop of their own); the server and the measuring client share this one, as in the other
// benchmarks. Each disturbed run is reported against the undisturbed run of the same process.
import net from 'node:net';
import { type AttackData, addMonitor, attackers, describeAttack, during } from './attackers.js';
import { load, report } from './harness.js';
import { AUTH, benchServer } from './reads.js';
import type { BenchStore } from './stores.js';

const MONITOR = { user: 'benchmon', password: 'benchmon-pw1' };
/** Write URLs a Monitor may not write to. */
const FLOODED = ['edit/servers/ms1', 'edit/servers', 'domainRuntime/serverLifeCycleRuntimes/ms1/start'];

type Attack = AttackData<'flood' | 'abort'>;

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

attackers<Attack>(async (d, side) => {
  if (d.kind === 'flood') {
    const body = Buffer.from(`{notes: '${'m'.repeat(1.5 * 1024 * 1024)}', name: 'flood'}`);
    await Promise.all(
      [0, 1, 2].map(async (i) => {
        while (!side.stopped) {
          const path = `/management/appserver/latest/${FLOODED[(side.stats.requests + i) % FLOODED.length]}`;
          const head = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${d.monitorAuth}\r\nX-Requested-By: bench\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
          side.count(await once(d.port, head, body, false));
        }
      }),
    );
  } else {
    const head = 'POST /inventory/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 4096\r\nExpect: 100-continue\r\n\r\n';
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (!side.stopped) side.count(await once(d.port, head, undefined, true));
      }),
    );
  }
});

const HERE = new URL(import.meta.url);

/** Let the attack get going before measuring; its requests end within seconds once told to stop. */
const TIMING = { warmUpMs: 500 };

export async function benchAbuse(store: BenchStore): Promise<string[]> {
  const lines: string[] = [];
  const demo = await benchServer(store);
  try {
    const monitorAuth = await addMonitor(demo.base, MONITOR.user, MONITOR.password);
    const url = `${demo.base}/serverConfig/servers/ms1`;
    const port = demo.server.port;

    const alone = await load('admin GET serverConfig/servers/ms1 alone', { url, headers: AUTH });
    console.log(`${alone.name}: ${alone.requestsPerSec.toFixed(0)} req/s (p50 ${alone.p50} ms, p99 ${alone.p99} ms)`);
    const [flooded, floods] = await during(HERE, { kind: 'flood', port, monitorAuth } satisfies Attack, () => load('admin GET while 3 Monitors flood 1.5 MiB bodies at write URLs', { url, headers: AUTH }), TIMING);
    lines.push(report(flooded, alone, 'admin GET ms1 during Monitor body floods', store.label));
    console.log(`  ${describeAttack(floods)}`);
    const [aborted, aborts] = await during(HERE, { kind: 'abort', port, monitorAuth } satisfies Attack, () => load('admin GET while a client abandons requests at a context root', { url, headers: AUTH }), TIMING);
    lines.push(report(aborted, alone, 'admin GET ms1 during abandoned requests', store.label));
    console.log(`  ${describeAttack(aborts)}`);
    const pool = await (await fetch(`${demo.base}/serverRuntime/threadPoolRuntime?links=none&fields=pendingUserRequestCount`, { headers: AUTH })).json();
    console.log(`  afterwards: pendingUserRequestCount ${JSON.stringify(pool.pendingUserRequestCount)} (this request included)`);
  } finally {
    await demo.close();
  }
  return lines;
}
