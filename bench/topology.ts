// What a large domain costs as a whole: a 1,000-server, 5,000-application domain with 100 running
// servers (all of cluster0: a cluster of 100 running servers).
// - Restart: the server process started on the data directory until its first 200, and its
//   resident memory once idle, against the demo domain started the same way (alternated, median of
//   three processes each).
// - Activations touching the cluster of 100 running servers (a change of the cluster itself; an
//   application moved onto and off its servers), against the same activations touching a cluster
//   where nothing runs, in the same domain and run; then again while a reader reads a running server's
//   runtime without pause (the activations measured again meanwhile) and counts what it did not
//   get (503s) and how long it waited. The restart also reports the CPU time the process used.
// Goals (issue 18): first 200 in < 1 s, idle RSS < 200 MB; such an activation < 50 ms, no 503.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initDataDir, startServer } from '../src/cli/server.js';
import { DEFAULT_SIZE, type DomainSize } from '../src/domain/generate.js';
import { rows } from './harness.js';
import { adminEnv, BIN, statusMiB, stopChild } from './processes.js';
import type { BenchStore } from './stores.js';

/** The domain of the issue: 1,000 servers in 10 clusters, 5,000 applications, cluster0's 100 servers running. */
export const BIG: DomainSize = { ...DEFAULT_SIZE, running: 100 };

const AUTH = `Basic ${Buffer.from('admin:welcome1').toString('base64')}`;
const HEADERS = { authorization: AUTH, 'content-type': 'application/json', 'x-requested-by': 'bench', accept: 'application/json' };

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A data directory holding the domain (the demo domain: made by a first start). */
async function prepare(size: DomainSize | 'demo', storeUrl: string | undefined): Promise<string> {
  adminEnv();
  const dataDir = mkdtempSync(join(tmpdir(), 'appserver-bench-topology-'));
  if (size !== 'demo') await initDataDir(dataDir, size, storeUrl);
  else await (await startServer({ host: '127.0.0.1', port: 0, listeners: false, dataDir, logLevel: 'silent', quiet: true, ...(storeUrl ? { store: storeUrl } : {}) })).close();
  return dataDir;
}

/** CPU time (user + system) the process has used so far, in ms (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // After the command: state is field 3, utime field 14 and stime field 15 of the whole line.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export interface Restart {
  firstOkMs: number;
  /** CPU the process used until its first 200. */
  cpuMs: number;
  idleRssMiB: number;
}

/**
 * Starts `serve` on the data directory in a process of its own (no managed servers' listeners: their
 * cost is the listeners benchmark's), asks for a running server's lifecycle state until the answer
 * is a 200, then lets it idle for two seconds and reads its resident memory.
 */
export async function restart(dataDir: string, storeUrl: string | undefined, port: number): Promise<Restart> {
  const began = performance.now();
  const args = [BIN, 'serve', '--data-dir', dataDir, '--port', String(port), '--no-listeners', '--log-level', 'error', ...(storeUrl ? ['--store', storeUrl] : [])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'], env: process.env });
  try {
    const url = `http://127.0.0.1:${port}/management/appserver/latest/domainRuntime/serverLifeCycleRuntimes/AdminServer?links=none`;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
      if (performance.now() - began > 120_000) throw new Error('no 200 within two minutes');
      const status = await fetch(url, { headers: { authorization: AUTH, accept: 'application/json' } }).then(
        async (r) => (await r.arrayBuffer(), r.status),
        () => 0,
      );
      if (status === 200) break;
      await sleep(10);
    }
    const firstOkMs = performance.now() - began;
    const cpu = cpuMs(child.pid!);
    await sleep(2000);
    return { firstOkMs, cpuMs: cpu, idleRssMiB: statusMiB(child.pid!, 'VmRSS') };
  } finally {
    await stopChild(child);
  }
}

async function benchRestart(store: BenchStore): Promise<string> {
  const demoUrl = await store.fresh();
  const bigUrl = await store.fresh();
  const demoDir = await prepare('demo', demoUrl);
  const bigDir = await prepare(BIG, bigUrl);
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  try {
    const demo: Restart[] = [];
    const big: Restart[] = [];
    // Alternated, so that whatever else the machine does weighs on both alike.
    for (let i = 0; i < 3; i++) {
      demo.push(await restart(demoDir, demoUrl, port));
      big.push(await restart(bigDir, bigUrl, port));
    }
    const summary = (rs: Restart[]) => ({ ms: median(rs.map((r) => r.firstOkMs)), cpu: median(rs.map((r) => r.cpuMs)), rss: median(rs.map((r) => r.idleRssMiB)) });
    const d = summary(demo);
    const b = summary(big);
    const line =
      `restart to the first 200 on ${store.label}: 1,000-server domain (100 running) ${b.ms.toFixed(0)} ms (CPU ${b.cpu} ms), idle RSS ${b.rss.toFixed(0)} MiB ` +
      `vs demo domain ${d.ms.toFixed(0)} ms (CPU ${d.cpu} ms), idle RSS ${d.rss.toFixed(0)} MiB (ratio ${(b.ms / d.ms).toFixed(2)}; goal < 1000 ms, < 200 MB)`;
    console.log(line);
    rows.push({
      benchmark: 'restart to the first 200 (process start): 1,000 servers, 5,000 apps, 100 running / demo domain (median of 3)',
      store: store.label,
      subject: `${b.ms.toFixed(0)} ms (CPU ${b.cpu} ms), idle RSS ${b.rss.toFixed(0)} MiB`,
      baseline: `${d.ms.toFixed(0)} ms (CPU ${d.cpu} ms), idle RSS ${d.rss.toFixed(0)} MiB`,
      ratio: `${(b.ms / d.ms).toFixed(2)} (time)`,
      latency: '-',
      peakRss: '-',
    });
    return line;
  } finally {
    rmSync(demoDir, { recursive: true, force: true });
    rmSync(bigDir, { recursive: true, force: true });
  }
}

/** Requests answered 503 (the overload guard, on a starved machine) and sent again by `post`. */
export const resent = { count: 0 };

export async function post(url: string, body: unknown): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(url, { method: 'POST', headers: HEADERS, body: JSON.stringify(body) });
    const text = await res.text();
    // The overload guard asks to come back a little later: the benchmark does so (and counts it) a few times.
    if (res.status === 503 && attempt < 5) {
      resent.count++;
      await sleep(1000);
      continue;
    }
    if (res.status >= 300) throw new Error(`${url}: ${res.status} ${text.slice(0, 300)}`);
    return;
  }
}

/** A reader that reads `url` back to back until stopped: its latencies and what was not a 200. */
function reader(url: string): { stop(): Promise<{ count: number; p99: number; max: number; unavailable: number; other: number }> } {
  let running = true;
  const times: number[] = [];
  let unavailable = 0;
  let other = 0;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const res = await fetch(url, { headers: { authorization: AUTH, accept: 'application/json' } });
      await res.arrayBuffer();
      times.push(performance.now() - started);
      if (res.status === 503) unavailable++;
      else if (res.status !== 200) other++;
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      const sorted = [...times].sort((a, b) => a - b);
      return { count: sorted.length, p99: sorted[Math.floor(sorted.length * 0.99)] ?? 0, max: sorted.at(-1) ?? 0, unavailable, other };
    },
  };
}

/** Median milliseconds of `activate` after `change` (made in its own edit), over `count` rounds. */
export async function activations(base: string, count: number, change: (round: number) => Promise<void>): Promise<number> {
  const times: number[] = [];
  for (let i = -2; i < count; i++) {
    await post(`${base}/edit/changeManager/startEdit`, {});
    await change(i);
    const started = performance.now();
    await post(`${base}/edit/changeManager/activate`, {});
    if (i >= 0) times.push(performance.now() - started);
  }
  return median(times);
}

async function benchActivations(store: BenchStore): Promise<string[]> {
  const count = Number(process.env.BENCH_CYCLES ?? 20);
  const storeUrl = await store.fresh();
  const dataDir = await prepare(BIG, storeUrl);
  const server = await startServer({ host: '127.0.0.1', port: 0, listeners: false, dataDir, logLevel: 'silent', quiet: true, ...(storeUrl ? { store: storeUrl } : {}) });
  const base = `http://127.0.0.1:${server.port}/management/appserver/latest`;
  const out: string[] = [];
  try {
    const cases: [string, (cluster: string) => (round: number) => Promise<void>][] = [
      ['a change of the cluster', (cluster) => (round) => post(`${base}/edit/clusters/${cluster}`, { notes: `round ${round}` })],
      [
        'an application moved onto its servers and off again',
        (cluster) => (round) => {
          // app1 runs on cluster1; alternately it also runs on the cluster measured.
          const targets = round % 2 === 0 ? [{ identity: ['clusters', 'cluster1'] }, { identity: ['clusters', cluster] }] : [{ identity: ['clusters', 'cluster1'] }];
          return post(`${base}/edit/appDeployments/app1`, { targets });
        },
      ],
    ];
    for (const [what, change] of cases) {
      // cluster9: none of its servers runs (the baseline); cluster0: its 100 servers all run.
      const idle = await activations(base, count, change('cluster9'));
      const busy = await activations(base, count, change('cluster0'));
      // The same again while a reader reads a server of that cluster back to back: each read after
      // an activation makes that server's runtime (500 applications) again.
      const read = reader(`${base}/domainRuntime/serverRuntimes/ms10?links=none&fields=name,state&children=applicationRuntimes`);
      const read0 = await activations(base, count, change('cluster0'));
      const r = await read.stop();
      const line =
        `activation of ${what} on ${store.label}: cluster of 100 running servers ${busy.toFixed(1)} ms vs cluster where none runs ${idle.toFixed(1)} ms ` +
        `(ratio ${(busy / idle).toFixed(2)}; goal < 50 ms); with a reader of ms10's runtime: ${read0.toFixed(1)} ms, the reader ${r.count} reads, ` +
        `p99 ${r.p99.toFixed(0)} ms, max ${r.max.toFixed(0)} ms, ${r.unavailable} × 503, ${r.other} other failures`;
      console.log(line);
      out.push(line);
      rows.push({
        benchmark: `activation touching a cluster of 100 running servers (${what}) / the same on a cluster where none runs, median`,
        store: store.label,
        subject: `${busy.toFixed(1)} ms`,
        baseline: `${idle.toFixed(1)} ms`,
        ratio: `${(busy / idle).toFixed(2)} (time)`,
        latency: '-',
        peakRss: '-',
      });
      rows.push({
        benchmark: `... the same while a reader reads a touched server's runtime back to back`,
        store: store.label,
        subject: `${read0.toFixed(1)} ms; reader: ${r.count} reads, ${r.unavailable} × 503${r.other > 0 ? `, ${r.other} failed` : ''}`,
        baseline: '-',
        ratio: '-',
        latency: `reader p99 ${r.p99.toFixed(0)} ms, max ${r.max.toFixed(0)} ms`,
        peakRss: '-',
      });
    }
    return out;
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function benchTopology(store: BenchStore): Promise<string[]> {
  return [await benchRestart(store), ...(await benchActivations(store))];
}
