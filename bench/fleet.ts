// A fleet under watch, all at once on one process (issue 28): a generated domain of 100 running
// managed servers (20 applications each), every one listening on its own port on 127.0.0.1, while
// - an exporter scrapes each server on its own port once a second (a `serverRuntime/search` of the
//   exporter's shape: 100 searches a second in all, spread evenly, sent on time whether or not the
//   earlier ones have been answered);
// - an operator's health search reaches each server on its own port every five seconds;
// - four console users poll the dashboard's reads (its domain search every two seconds, the
//   activations and clusters every ten), each user on a different beat;
// - an administrator reads one bean (`serverConfig/servers/ms1`) five times a second.
// The server runs in a process of its own: its CPU (utime + stime from /proc/<pid>/stat over the
// measured window, as a share of one core) and resident memory (peak of VmRSS sampled each second,
// and VmHWM) are its own. The load generator runs in this process, on the same machine.
// Goals: scrape p99 < 50 ms, single GET p99 < 20 ms, 0 errors, < 60 % of one core, < 400 MB RSS.
// `npm run bench -- fleet` (60 s); `FLEET_SECONDS=15 npm run bench -- fleet` for a quick run.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initDataDir } from '../src/cli/server.js';
import { rows } from './harness.js';
import { freeOffset } from './listeners.js';
import { adminEnv, BIN, statusMiB, stopChild } from './processes.js';
import { AUTH, EXPORTER_QUERY } from './reads.js';

const SERVERS = 100;
const SIZE = { servers: SERVERS, clusters: 10, partitions: 10, applications: 200, running: true, listenAddress: '127.0.0.1' };
const POST = { ...AUTH, 'content-type': 'application/json', 'x-requested-by': 'bench' };
/** The exporter's question to one server, asked on that server's own port. */
const SCRAPE = JSON.stringify(EXPORTER_QUERY.children.serverRuntimes);
/** The operator's health check of one server. */
const HEALTH = JSON.stringify({
  links: [],
  fields: ['name', 'state', 'healthState', 'overallHealthState'],
  children: {
    JDBCServiceRuntime: { links: [], fields: ['healthState'], children: { JDBCDataSourceRuntimeMBeans: { links: [], fields: ['name', 'state', 'healthState'] } } },
    threadPoolRuntime: { links: [], fields: ['healthState', 'hoggingThreadCount', 'stuckThreadCount'] },
    applicationRuntimes: { links: [], fields: ['name', 'healthState', 'overallHealthState'] },
  },
});
/** The dashboard's domain search (src/console/static/dashboard.js), every two seconds per user. */
const DASHBOARD = JSON.stringify({
  fields: [],
  links: [],
  children: {
    serverLifeCycleRuntimes: { fields: ['name', 'state'], links: [], children: { tasks: { fields: ['name', 'operation', 'progress', 'running', 'completed', 'taskStatus', 'taskError', 'serverName'], links: [] } } },
    serverRuntimes: {
      fields: ['name', 'state', 'healthState'],
      links: [],
      children: {
        JVMRuntime: { fields: ['heapSizeCurrent', 'heapFreeCurrent'], links: [] },
        threadPoolRuntime: { fields: ['executeThreadTotalCount', 'completedRequestCount', 'hoggingThreadCount'], links: [] },
      },
    },
  },
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Latencies and failures of one kind of request. */
class Tally {
  times: number[] = [];
  errors = 0;
  firstError: string | undefined;
  constructor(readonly name: string) {}
  async send(url: string, init: RequestInit): Promise<void> {
    const started = performance.now();
    try {
      const res = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
      await res.arrayBuffer();
      if (res.status !== 200) this.fail(`${res.status} from ${url}`);
    } catch (err) {
      this.fail(`${(err as Error).message} (${url})`);
    }
    this.times.push(performance.now() - started);
  }
  fail(what: string): void {
    this.errors++;
    this.firstError ??= what;
  }
  quantile(q: number): number {
    const sorted = [...this.times].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0;
  }
  summary(): string {
    return `${this.times.length} requests, p50 ${this.quantile(0.5).toFixed(1)} ms, p99 ${this.quantile(0.99).toFixed(1)} ms, max ${this.quantile(1).toFixed(0)} ms, ${this.errors} errors`;
  }
}

/** CPU time (user + system) the process has used so far, in ms (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * Calls `fire(i)` for i = 0, 1, 2, ... every `everyMs` / `count` ms (so each of `count` targets once
 * per `everyMs`), on time by the clock, until `until`; resolves when every request has ended.
 */
async function paced(count: number, everyMs: number, offsetMs: number, until: number, fire: (i: number) => Promise<void>): Promise<void> {
  const pending: Promise<void>[] = [];
  const step = everyMs / count;
  const start = performance.now() + offsetMs;
  for (let i = 0; ; i++) {
    const due = start + i * step;
    if (due >= until) break;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    else lag.note(-wait);
    pending.push(fire(i));
  }
  await Promise.all(pending);
}

/** How late the load generator sent its requests (it shares the machine): its own starvation. */
const lag = {
  max: 0,
  late: 0,
  note(ms: number): void {
    this.max = Math.max(this.max, ms);
    if (ms > 100) this.late++;
  },
};

/** Server CPU (ms) per request of each kind, sent one at a time: what the fleet's rates need of a core. */
async function costs(pid: number, kinds: [string, number, (i: number) => Promise<void>][]): Promise<Map<string, { cpuMs: number; p50: number }>> {
  const out = new Map<string, { cpuMs: number; p50: number }>();
  for (const [name, count, send] of kinds) {
    const times: number[] = [];
    const before = cpuMs(pid);
    for (let i = 0; i < count; i++) {
      const t = performance.now();
      await send(i);
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    out.set(name, { cpuMs: (cpuMs(pid) - before) / count, p50: times[Math.floor(times.length / 2)]! });
  }
  return out;
}

export async function benchFleet(): Promise<string> {
  const seconds = Number(process.env.FLEET_SECONDS ?? 60);
  adminEnv();
  const dataDir = mkdtempSync(join(tmpdir(), 'appserver-bench-fleet-'));
  await initDataDir(dataDir, SIZE);
  const offset = await freeOffset();
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = spawn(process.execPath, [BIN, 'serve', '--data-dir', dataDir, '--port', String(port), '--port-offset', String(offset), '--log-level', 'error'], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: process.env,
  });
  try {
    const admin = `http://127.0.0.1:${port}/management/appserver/latest`;
    const own = (i: number) => `http://127.0.0.1:${8001 + i + offset}/management/appserver/latest/serverRuntime/search`;
    // Ready when the administration server and every server's own port answer (one scrape and one
    // health search each, in turn: this also makes each server's runtime tree once).
    const began = performance.now();
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
      if (performance.now() - began > 120_000) throw new Error('the administration server gave no 200 within two minutes');
      const status = await fetch(`${admin}/serverConfig/servers/ms1?links=none`, { headers: AUTH }).then(
        async (r) => (await r.arrayBuffer(), r.status),
        () => 0,
      );
      if (status === 200) break;
      await sleep(100);
    }
    const warm = new Tally('warm-up');
    for (let i = 0; i < SERVERS; i++) {
      await warm.send(own(i), { method: 'POST', headers: POST, body: SCRAPE });
      await warm.send(own(i), { method: 'POST', headers: POST, body: HEALTH });
    }
    if (warm.errors > 0) throw new Error(`the servers' own ports did not all answer: ${warm.errors} failures, the first: ${warm.firstError}`);
    await sleep(2000);

    const scrapes = new Tally('scrape');
    const health = new Tally('health');
    const dashboard = new Tally('dashboard');
    const gets = new Tally('single GET');
    const pid = child.pid!;
    writeClearRefs(pid);
    let peakRss = statusMiB(pid, 'VmRSS');
    const rssWatch = setInterval(() => (peakRss = Math.max(peakRss, statusMiB(pid, 'VmRSS'))), 1000);
    const cpuBefore = cpuMs(pid);
    const t0 = performance.now();
    const until = t0 + seconds * 1000;
    try {
      const users = [0, 1, 2, 3].map((u) =>
        paced(1, 2000, u * 500, until, async (round) => {
          const reads = [dashboard.send(`${admin}/domainRuntime/search`, { method: 'POST', headers: POST, body: DASHBOARD })];
          if (round % 5 === 0) {
            reads.push(dashboard.send(`${admin}/edit/changeManager/activations?links=none`, { headers: AUTH }));
            reads.push(dashboard.send(`${admin}/domainConfig/clusters?links=none&fields=name,servers`, { headers: AUTH }));
          }
          await Promise.all(reads);
        }),
      );
      await Promise.all([
        paced(SERVERS, 1000, 0, until, (i) => scrapes.send(own(i % SERVERS), { method: 'POST', headers: POST, body: SCRAPE })),
        paced(SERVERS, 5000, 25, until, (i) => health.send(own(i % SERVERS), { method: 'POST', headers: POST, body: HEALTH })),
        paced(1, 200, 60, until, () => gets.send(`${admin}/serverConfig/servers/ms1?links=none`, { headers: AUTH })),
        ...users,
      ]);
    } finally {
      clearInterval(rssWatch);
    }
    const wall = performance.now() - t0;
    const cpu = ((cpuMs(pid) - cpuBefore) / wall) * 100;
    peakRss = Math.max(peakRss, statusMiB(pid, 'VmRSS'));
    const hwm = statusMiB(pid, 'VmHWM');
    // Then each kind of request alone, one at a time: the server's CPU per request, whatever the
    // machine's load (CPU time is counted only while the process runs).
    await sleep(2000);
    const quiet = new Tally('cost');
    const cost = await costs(pid, [
      ['scrape', 300, (i) => quiet.send(own(i % SERVERS), { method: 'POST', headers: POST, body: SCRAPE })],
      ['health', 100, (i) => quiet.send(own(i % SERVERS), { method: 'POST', headers: POST, body: HEALTH })],
      ['dashboard', 20, () => quiet.send(`${admin}/domainRuntime/search`, { method: 'POST', headers: POST, body: DASHBOARD })],
      ['GET', 300, () => quiet.send(`${admin}/serverConfig/servers/ms1?links=none`, { headers: AUTH })],
    ]);
    const c = (k: string) => cost.get(k)!;
    // Per second: 100 scrapes, 20 health searches, 2 dashboard searches (+ 0.8 small reads), 5 GETs.
    const needed = (100 * c('scrape').cpuMs + 20 * c('health').cpuMs + 2 * c('dashboard').cpuMs + 5.8 * c('GET').cpuMs) / 10;
    const errors = scrapes.errors + health.errors + dashboard.errors + gets.errors;
    const firstError = [scrapes, health, dashboard, gets].map((t) => t.firstError).find((e) => e !== undefined);
    const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
    const lines = [
      `fleet: 100 running servers on their own ports, ${seconds} s (${(wall / 1000).toFixed(1)} s measured), load generator on the same machine`,
      `  scrapes (serverRuntime/search on each server's own port, 100/s): ${scrapes.summary()}`,
      `  health searches (each server every 5 s): ${health.summary()}`,
      `  console users' dashboard reads (4 users): ${dashboard.summary()}`,
      `  administrator's GET serverConfig/servers/ms1 (5/s): ${gets.summary()}`,
      `  goal scrape p99 < 50 ms: ${scrapes.quantile(0.99).toFixed(1)} ms (${met(scrapes.quantile(0.99) < 50)})`,
      `  goal single GET p99 < 20 ms: ${gets.quantile(0.99).toFixed(1)} ms (${met(gets.quantile(0.99) < 20)})`,
      `  goal 0 errors: ${errors}${firstError ? ` (first: ${firstError})` : ''} (${met(errors === 0)})`,
      `  load generator: ${lag.late} sends more than 100 ms late, the latest by ${lag.max.toFixed(0)} ms`,
      `  one at a time afterwards, server CPU per request (p50 latency): scrape ${c('scrape').cpuMs.toFixed(2)} ms (${c('scrape').p50.toFixed(1)} ms), ` +
        `health ${c('health').cpuMs.toFixed(2)} ms (${c('health').p50.toFixed(1)} ms), dashboard search ${c('dashboard').cpuMs.toFixed(1)} ms (${c('dashboard').p50.toFixed(1)} ms), ` +
        `GET ${c('GET').cpuMs.toFixed(2)} ms (${c('GET').p50.toFixed(1)} ms), ${quiet.errors} errors -> the fleet's rates need ${needed.toFixed(0)} % of one core`,
      `  goal CPU < 60 % of one core: ${cpu.toFixed(0)} % during the run, ${needed.toFixed(0)} % needed by the costs measured alone (${met(cpu < 60 && needed < 60)})`,
      `  goal RSS < 400 MB: peak ${peakRss.toFixed(0)} MiB sampled each second, VmHWM ${hwm.toFixed(0)} MiB (${met(hwm * 1.048576 < 400)})`,
    ];
    const line = lines.join('\n');
    console.log(line);
    rows.push({
      benchmark: `fleet: 100 running servers scraped on their own ports (100/s), health every 5 s, 4 dashboards, ${seconds} s (goals: scrape p99 < 50 ms, GET p99 < 20 ms, 0 errors, < 60 % CPU, < 400 MB)`,
      store: 'SQLite',
      subject: `scrape p99 ${scrapes.quantile(0.99).toFixed(1)} ms, GET p99 ${gets.quantile(0.99).toFixed(1)} ms, ${errors} errors, CPU ${cpu.toFixed(0)} % (needed by the costs alone: ${needed.toFixed(0)} %)`,
      baseline: '-',
      ratio: '-',
      latency: `scrape ${scrapes.quantile(0.5).toFixed(1)} / ${scrapes.quantile(0.99).toFixed(1)} ms`,
      peakRss: `${hwm.toFixed(0)} MiB`,
    });
    return line;
  } finally {
    await stopChild(child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Starts the peak resident memory of the process afresh (Linux: clear_refs 5). */
function writeClearRefs(pid: number): void {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    // Without the right to reset it, VmHWM is the peak since the start.
  }
}
