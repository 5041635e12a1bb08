// Ten times the domain (issue 28): 10,000 servers in 100 clusters, 50,000 applications, 1,000
// running servers, against the 1,000-server domain of the topology benchmark (1,000 servers,
// 5,000 applications, 100 running) measured in the same run:
// - `init` (the data directory made, in this process), goal < 10 s;
// - restart: `serve` spawned on the data directory (managed servers' listeners off) to its first
//   200, alternated with the 1,000-server domain, median of three; goal < 1 s;
// - idle RSS two seconds after that first 200, goal < 300 MB.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initDataDir } from '../src/cli/server.js';
import { DEFAULT_SIZE, type DomainSize } from '../src/domain/generate.js';
import { rows } from './harness.js';
import { adminEnv } from './processes.js';
import { BIG, type Restart, restart } from './topology.js';

const TEN: DomainSize = { ...DEFAULT_SIZE, servers: 10_000, clusters: 100, applications: 50_000, running: 1000 };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timedInit(size: DomainSize): Promise<{ dir: string; ms: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'appserver-bench-ten-'));
  const began = performance.now();
  await initDataDir(dir, size);
  return { dir, ms: performance.now() - began };
}

export async function benchTenThousand(): Promise<string> {
  adminEnv();
  const big = await timedInit(BIG);
  const ten = await timedInit(TEN);
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  try {
    const a: Restart[] = [];
    const b: Restart[] = [];
    const runs = Number(process.env.BENCH_STARTS ?? 3);
    for (let i = 0; i < runs; i++) {
      b.push(await restart(big.dir, undefined, port));
      a.push(await restart(ten.dir, undefined, port));
    }
    const sum = (rs: Restart[]) => ({ ms: median(rs.map((r) => r.firstOkMs)), cpu: median(rs.map((r) => r.cpuMs)), rss: median(rs.map((r) => r.idleRssMiB)) });
    const t = sum(a);
    const o = sum(b);
    const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
    const line =
      `10,000 servers / 50,000 applications / 1,000 running vs 1,000 / 5,000 / 100 (SQLite):\n` +
      `  goal init < 10 s: ${(ten.ms / 1000).toFixed(1)} s vs ${(big.ms / 1000).toFixed(1)} s (${met(ten.ms < 10_000)})\n` +
      `  goal restart to the first 200 < 1 s: ${t.ms.toFixed(0)} ms (CPU ${t.cpu} ms) vs ${o.ms.toFixed(0)} ms (CPU ${o.cpu} ms), median of ${runs} (${met(t.ms < 1000)})\n` +
      `  goal idle RSS < 300 MB: ${t.rss.toFixed(0)} MiB vs ${o.rss.toFixed(0)} MiB (${met(t.rss * 1.048576 < 300)})`;
    console.log(line);
    rows.push({
      benchmark: '10,000 servers, 50,000 apps, 1,000 running / 1,000 servers, 5,000 apps, 100 running: init (goal < 10 s)',
      store: 'SQLite',
      subject: `${(ten.ms / 1000).toFixed(1)} s`,
      baseline: `${(big.ms / 1000).toFixed(1)} s`,
      ratio: `${(ten.ms / big.ms).toFixed(2)} (time)`,
      latency: '-',
      peakRss: '-',
    });
    rows.push({
      benchmark: `... restart to the first 200 (goal < 1 s), idle RSS (goal < 300 MB), median of ${runs}`,
      store: 'SQLite',
      subject: `${t.ms.toFixed(0)} ms (CPU ${t.cpu} ms), idle RSS ${t.rss.toFixed(0)} MiB`,
      baseline: `${o.ms.toFixed(0)} ms (CPU ${o.cpu} ms), idle RSS ${o.rss.toFixed(0)} MiB`,
      ratio: `${(t.ms / o.ms).toFixed(2)} (time)`,
      latency: '-',
      peakRss: '-',
    });
    return line;
  } finally {
    rmSync(big.dir, { recursive: true, force: true });
    rmSync(ten.dir, { recursive: true, force: true });
  }
}
