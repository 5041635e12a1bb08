// The cost of managed servers' own listeners: a domain of 100 running managed servers started with
// their listeners (100 ports, each a Fastify application over the shared management interface)
// against the same domain started without them, each start in a fresh process (median of three),
// measuring the time until the server is ready and its memory once settled. Then the throughput
// of a read of a managed server's runtime on its own port against the same read through the
// administration server (domainRuntime/serverRuntimes/ms0), in the same run.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { initDataDir, startServer } from '../src/cli/server.js';
import { load, report, rows } from './harness.js';
import { AUTH } from './reads.js';

const SERVERS = 100;
const FIRST_PORT = 8001;
const SIZE = { servers: SERVERS, clusters: 4, partitions: 4, applications: 20, running: true, listenAddress: '127.0.0.1' };

interface Measure {
  startMs: number;
  heapMiB: number;
  rssMiB: number;
  listening: number;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ port, host: '127.0.0.1', exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/** An offset under which the 100 servers' ports (8001...) are all free, below the outgoing range. */
export async function freeOffset(): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const offset = 2000 + Math.floor(Math.random() * 18_000);
    let free = true;
    for (let i = 0; i < SERVERS && free; i++) free = await portFree(FIRST_PORT + i + offset);
    if (free) return offset;
  }
  throw new Error('no free range of 100 ports found');
}

/** In a child process: start the server on `dataDir`, settle, print what it cost, stop. */
async function child(dataDir: string, mode: string): Promise<void> {
  const listeners = mode !== 'baseline';
  const began = performance.now();
  const server = await startServer({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    logLevel: 'silent',
    quiet: true,
    listeners,
    ...(listeners ? { portOffset: Number(mode) } : {}),
  });
  const startMs = performance.now() - began;
  for (let i = 0; i < 3; i++) global.gc?.();
  const m = process.memoryUsage();
  const out: Measure = { startMs, heapMiB: m.heapUsed / 1048576, rssMiB: m.rss / 1048576, listening: server.listening().length };
  process.stdout.write(`${JSON.stringify(out)}\n`);
  await server.close();
}

function measure(dataDir: string, mode: string): Measure {
  const script = fileURLToPath(import.meta.url);
  const text = execFileSync(process.execPath, ['--expose-gc', script, '--child', dataDir, mode], { encoding: 'utf8', env: process.env });
  return JSON.parse(text.trim().split('\n').at(-1)!) as Measure;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchListeners(): Promise<void> {
  process.env.APPSERVER_ADMIN_USER = 'admin';
  process.env.APPSERVER_ADMIN_PASSWORD = 'welcome1';
  const dataDir = mkdtempSync(join(tmpdir(), 'appserver-bench-listeners-'));
  try {
    await initDataDir(dataDir, SIZE);
    const offset = await freeOffset();
    const base: Measure[] = [];
    const subject: Measure[] = [];
    // Alternated, so that whatever else the machine does weighs on both alike.
    for (let i = 0; i < 3; i++) {
      base.push(measure(dataDir, 'baseline'));
      subject.push(measure(dataDir, String(offset)));
    }
    if (subject.some((s) => s.listening !== SERVERS)) throw new Error(`expected ${SERVERS} listening servers, got ${subject.map((s) => s.listening).join(', ')}`);
    const b = { start: median(base.map((x) => x.startMs)), heap: median(base.map((x) => x.heapMiB)), rss: median(base.map((x) => x.rssMiB)) };
    const s = { start: median(subject.map((x) => x.startMs)), heap: median(subject.map((x) => x.heapMiB)), rss: median(subject.map((x) => x.rssMiB)) };
    const line =
      `${SERVERS} running servers with listeners: start ${s.start.toFixed(0)} ms, heap ${s.heap.toFixed(1)} MiB, RSS ${s.rss.toFixed(0)} MiB ` +
      `vs without: start ${b.start.toFixed(0)} ms, heap ${b.heap.toFixed(1)} MiB, RSS ${b.rss.toFixed(0)} MiB ` +
      `-> per server: +${((s.start - b.start) / SERVERS).toFixed(2)} ms to start, +${(((s.heap - b.heap) * 1024) / SERVERS).toFixed(0)} KiB heap, +${(((s.rss - b.rss) * 1024) / SERVERS).toFixed(0)} KiB RSS`;
    console.log(line);
    rows.push({
      benchmark: `start-up of ${SERVERS} running servers with listeners (median of 3 processes)`,
      store: 'SQLite',
      subject: `${s.start.toFixed(0)} ms, heap ${s.heap.toFixed(0)} MiB, RSS ${s.rss.toFixed(0)} MiB`,
      baseline: `${b.start.toFixed(0)} ms, heap ${b.heap.toFixed(0)} MiB, RSS ${b.rss.toFixed(0)} MiB`,
      ratio: `${(s.start / b.start).toFixed(2)} (start)`,
      latency: '',
      peakRss: '',
    });

    // Reads of one server's runtime: on its own port, and through the administration server.
    const server = await startServer({ host: '127.0.0.1', port: 0, dataDir, logLevel: 'silent', quiet: true, portOffset: offset });
    try {
      const admin = `http://127.0.0.1:${server.port}/management/appserver/latest/domainRuntime/serverRuntimes/ms0?links=none`;
      const own = `http://127.0.0.1:${FIRST_PORT + offset}/management/appserver/latest/serverRuntime?links=none`;
      const through = await load('GET domainRuntime/serverRuntimes/ms0 on the administration server', { url: admin, headers: AUTH });
      const direct = await load(`GET serverRuntime on ms0's own port (${SERVERS} servers listening)`, { url: own, headers: AUTH });
      report(direct, through, `GET a managed server's serverRuntime: its own port vs through the administration server`, 'SQLite');
    } finally {
      await server.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') await child(process.argv[3]!, process.argv[4]!);
