// Ten times the domain (issue 28): 10,000 servers in 100 clusters, 50,000 applications, 1,000
// running servers, against the 1,000-server domain of the topology benchmark (1,000 servers,
// 5,000 applications, 100 running) measured in the same run:
// - `init` (the data directory made, in this process), goal < 10 s;
// - restart: `serve` spawned on the data directory (managed servers' listeners off) to its first
//   200, alternated with the 1,000-server domain, median of three; goal < 1 s;
// - idle RSS two seconds after that first 200, goal < 300 MB;
// - then one restart of each that finds no start-up image of the configuration (src/store/images.ts)
//   and reads its rows, as a start after a crash that followed a change does (no goal; shown);
// - then both domains served at once by this process (listeners off), alternated: a single GET
//   (`GET serverConfig/servers/ms1`, autocannon, 10 connections) and an edit cycle (startEdit, 10
//   changes, activate), each within 1.2x of the 1,000-server domain's; an activation touching a
//   cluster of 100 running servers (cluster0: a change of the cluster; an application moved onto its
//   servers and off again), goal < 50 ms, with the same on a cluster where none runs (cluster99).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { type RunningServer, initDataDir, startServer } from '../src/cli/server.js';
import { DEFAULT_SIZE, type DomainSize } from '../src/domain/generate.js';
import { cycles } from './edit-activate.js';
import { load, rows } from './harness.js';
import { adminEnv } from './processes.js';
import { AUTH } from './reads.js';
import { BIG, type Restart, activations, post, resent, restart } from './topology.js';

const TEN: DomainSize = { ...DEFAULT_SIZE, servers: 10_000, clusters: 100, applications: 50_000, running: 1000 };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Removes the data directory's start-up images, as a change of its rows would (src/store/images.ts). */
function dropStartImages(dir: string): void {
  const db = new Database(join(dir, 'domain.db'));
  try {
    db.prepare('DELETE FROM images').run();
  } finally {
    db.close();
  }
}

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
    // A start that finds no image of the configuration (the rows changed after the last clean stop,
    // and the server did not stop cleanly since) reads every row: measured once on each domain.
    const rowsOnly: Restart[] = [];
    for (const dir of [big.dir, ten.dir]) {
      dropStartImages(dir);
      rowsOnly.push(await restart(dir, undefined, port));
    }
    const sum = (rs: Restart[]) => ({ ms: median(rs.map((r) => r.firstOkMs)), cpu: median(rs.map((r) => r.cpuMs)), rss: median(rs.map((r) => r.idleRssMiB)) });
    const t = sum(a);
    const o = sum(b);
    const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
    const line =
      `10,000 servers / 50,000 applications / 1,000 running vs 1,000 / 5,000 / 100 (SQLite):\n` +
      `  goal init < 10 s: ${(ten.ms / 1000).toFixed(1)} s vs ${(big.ms / 1000).toFixed(1)} s (${met(ten.ms < 10_000)})\n` +
      `  goal restart to the first 200 < 1 s: ${t.ms.toFixed(0)} ms (CPU ${t.cpu} ms) vs ${o.ms.toFixed(0)} ms (CPU ${o.cpu} ms), median of ${runs} (${met(t.ms < 1000)})\n` +
      `  goal idle RSS < 300 MB: ${t.rss.toFixed(0)} MiB vs ${o.rss.toFixed(0)} MiB (${met(t.rss * 1.048576 < 300)})\n` +
      `  restart without a start-up image (rows read): ${rowsOnly[1]!.firstOkMs.toFixed(0)} ms (CPU ${rowsOnly[1]!.cpuMs} ms) vs ${rowsOnly[0]!.firstOkMs.toFixed(0)} ms (CPU ${rowsOnly[0]!.cpuMs} ms), one each`;
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
    return `${line}\n${await benchServed(big.dir, ten.dir)}`;
  } finally {
    rmSync(big.dir, { recursive: true, force: true });
    rmSync(ten.dir, { recursive: true, force: true });
  }
}

/** The single GET, the edit cycle and the activations, on both domains served by this process at once. */
export async function benchServed(bigDir: string, tenDir: string): Promise<string> {
  const open = (dataDir: string) => startServer({ host: '127.0.0.1', port: 0, listeners: false, dataDir, logLevel: 'silent', quiet: true });
  const servers: RunningServer[] = [];
  try {
    servers.push(await open(bigDir));
    servers.push(await open(tenDir));
    const [o, t] = servers.map((s) => `http://127.0.0.1:${s.port}/management/appserver/latest`) as [string, string];
    const rounds = 2;
    const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
    // Both domains answer a second of the GET first (what each start left to do is done before the rounds).
    for (const base of [o, t]) await load('warm-up', { url: `${base}/serverConfig/servers/ms1`, headers: AUTH, durationSeconds: 1 });
    // The single GET: alternated rounds, requests per second summed over them.
    const gets = { o: 0, t: 0, failed: 0, oMean: [] as number[], tMean: [] as number[] };
    for (let i = 0; i < rounds; i++) {
      for (const [key, base] of [['o', o], ['t', t]] as const) {
        const r = await load(`GET serverConfig/servers/ms1 (${key === 'o' ? '1,000' : '10,000'} servers)`, { url: `${base}/serverConfig/servers/ms1`, headers: AUTH });
        if (r.errors + r.non2xx > 0) {
          const res = await fetch(`${base}/serverConfig/servers/ms1`, { headers: AUTH });
          console.log(`  (GET serverConfig/servers/ms1 on the ${key === 'o' ? '1,000' : '10,000'}-server domain: ${r.errors} errors, ${r.non2xx} answers not 2xx; one now: ${res.status} ${(await res.text()).slice(0, 200)})`);
        }
        gets.failed += r.errors + r.non2xx;
        gets[key] += r.requestsPerSec;
        gets[key === 'o' ? 'oMean' : 'tMean'].push(r.mean);
      }
    }
    const getRatio = gets.o / gets.t;
    // The edit cycle: alternated rounds, mean milliseconds per cycle.
    const count = Number(process.env.BENCH_CYCLES ?? 20);
    const servers50 = Array.from({ length: 50 }, (_, i) => `ms${i}`);
    await cycles(o, servers50, 3);
    await cycles(t, servers50, 3);
    const edit = { o: [] as number[], t: [] as number[] };
    for (let i = 0; i < rounds; i++) {
      edit.o.push(await cycles(o, servers50, count));
      edit.t.push(await cycles(t, servers50, count));
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const editO = mean(edit.o);
    const editT = mean(edit.t);
    // The activations: cluster0's 100 servers all run in both domains; cluster99 of the large one has none running.
    const changes: [string, (base: string, cluster: string) => (round: number) => Promise<void>][] = [
      ['a change of the cluster', (base, cluster) => (round) => post(`${base}/edit/clusters/${cluster}`, { notes: `round ${round}` })],
      [
        'an application moved onto its servers and off again',
        (base, cluster) => (round) => post(`${base}/edit/appDeployments/app1`, { targets: round % 2 === 0 ? [{ identity: ['clusters', 'cluster1'] }, { identity: ['clusters', cluster] }] : [{ identity: ['clusters', 'cluster1'] }] }),
      ],
    ];
    const acts: { what: string; ten: number; tenIdle: number; big: number }[] = [];
    for (const [what, change] of changes) {
      const big = await activations(o, count, change(o, 'cluster0'));
      const ten = await activations(t, count, change(t, 'cluster0'));
      const tenIdle = await activations(t, count, change(t, 'cluster99'));
      acts.push({ what, ten, tenIdle, big });
    }
    const lines = [
      `  goal single GET within 1.2x: ${gets.t / rounds} vs ${gets.o / rounds} req/s (mean latency ${mean(gets.tMean).toFixed(2)} vs ${mean(gets.oMean).toFixed(2)} ms), ` +
        `${getRatio.toFixed(2)}x the 1,000-server time, ${rounds} alternated rounds, ${gets.failed} not answered 200 (${met(getRatio <= 1.2)})`,
      `  goal edit cycle within 1.2x: ${editT.toFixed(1)} vs ${editO.toFixed(1)} ms per cycle (${(editT / editO).toFixed(2)}x; rounds ${edit.t.map((x) => x.toFixed(1)).join(', ')} vs ${edit.o.map((x) => x.toFixed(1)).join(', ')}) (${met(editT / editO <= 1.2)})`,
      ...(resent.count > 0 ? [`  (${resent.count} requests of the activations were answered 503 by the overload guard and sent again a second later)`] : []),
      ...acts.map(
        (a) =>
          `  goal activation touching a cluster of 100 running servers < 50 ms (${a.what}): ${a.ten.toFixed(1)} ms, median of ${count} ` +
          `(a cluster where none runs: ${a.tenIdle.toFixed(1)} ms; the 1,000-server domain's cluster0: ${a.big.toFixed(1)} ms) (${met(a.ten < 50)})`,
      ),
    ];
    const line = lines.join('\n');
    console.log(line);
    rows.push({
      benchmark: `... single GET serverConfig/servers/ms1, 10 connections, ${rounds} alternated rounds (goal within 1.2x)`,
      store: 'SQLite',
      subject: `${(gets.t / rounds).toFixed(0)} req/s`,
      baseline: `${(gets.o / rounds).toFixed(0)} req/s`,
      ratio: `${getRatio.toFixed(2)} (time)`,
      latency: `mean ${mean(gets.tMean).toFixed(2)} / ${mean(gets.oMean).toFixed(2)} ms`,
      peakRss: '-',
    });
    rows.push({
      benchmark: `... edit cycle (startEdit, 10 changes, activate), ${count} cycles x ${rounds} alternated rounds (goal within 1.2x)`,
      store: 'SQLite',
      subject: `${editT.toFixed(1)} ms per cycle`,
      baseline: `${editO.toFixed(1)} ms per cycle`,
      ratio: `${(editT / editO).toFixed(2)} (time)`,
      latency: '-',
      peakRss: '-',
    });
    for (const a of acts) {
      rows.push({
        benchmark: `... activation touching a cluster of 100 running servers (${a.what}), median of ${count} (goal < 50 ms)`,
        store: 'SQLite',
        subject: `${a.ten.toFixed(1)} ms`,
        baseline: `${a.big.toFixed(1)} ms (1,000 servers); ${a.tenIdle.toFixed(1)} ms (a cluster where none runs)`,
        ratio: `${(a.ten / a.big).toFixed(2)} (time)`,
        latency: '-',
        peakRss: '-',
      });
    }
    return line;
  } finally {
    for (const s of servers) await s.close();
  }
}
