// Start-up (issue 28): `serve` on the demo domain, from spawning the process to its first 200
// (a read of the administration server's lifecycle state), against a bare Fastify app spawned the
// same way and asked the same until its first 200, alternated, median of five processes each.
// Goal: the demo domain's start ≤ 2× the bare app's.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../src/cli/server.js';
import { rows } from './harness.js';
import { adminEnv, BIN, stopChild } from './processes.js';
import { AUTH } from './reads.js';

const BARE = fileURLToPath(new URL('./bare-app.js', import.meta.url));
const PATH = '/management/appserver/latest/domainRuntime/serverLifeCycleRuntimes/AdminServer?links=none';
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** CPU time (user + system) the process has used so far, in ms (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Milliseconds from spawning `args` until GET PATH on `port` answers 200, and the CPU the process used until then. */
async function firstOk(args: string[], port: number): Promise<{ ms: number; cpu: number }> {
  const began = performance.now();
  const child: ChildProcess = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'], env: process.env });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${args[0]} exited with ${child.exitCode}`);
      if (performance.now() - began > 60_000) throw new Error(`${args[0]}: no 200 within a minute`);
      const status = await fetch(`http://127.0.0.1:${port}${PATH}`, { headers: AUTH }).then(
        async (r) => (await r.arrayBuffer(), r.status),
        () => 0,
      );
      if (status === 200) return { ms: performance.now() - began, cpu: cpuMs(child.pid!) };
      await sleep(5);
    }
  } finally {
    await stopChild(child);
  }
}

export async function benchStartup(): Promise<string> {
  adminEnv();
  const dataDir = mkdtempSync(join(tmpdir(), 'appserver-bench-startup-'));
  try {
    // The first start makes the demo domain; the measured starts find it there.
    await (await startServer({ host: '127.0.0.1', port: 0, listeners: false, dataDir, logLevel: 'silent', quiet: true })).close();
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const demoRuns: { ms: number; cpu: number }[] = [];
    const bareRuns: { ms: number; cpu: number }[] = [];
    const runs = Number(process.env.BENCH_STARTS ?? 5);
    for (let i = 0; i < runs; i++) {
      bareRuns.push(await firstOk([BARE, String(port)], port));
      demoRuns.push(await firstOk([BIN, 'serve', '--data-dir', dataDir, '--port', String(port), '--log-level', 'error'], port));
    }
    const demo = demoRuns.map((r) => r.ms);
    const bare = bareRuns.map((r) => r.ms);
    const demoCpu = median(demoRuns.map((r) => r.cpu));
    const bareCpu = median(bareRuns.map((r) => r.cpu));
    const d = median(demo);
    const b = median(bare);
    const ratio = d / b;
    const line =
      `start-up to the first 200: demo domain ${d.toFixed(0)} ms (${demo.map((x) => x.toFixed(0)).join(', ')}) vs bare Fastify app ${b.toFixed(0)} ms ` +
      `(${bare.map((x) => x.toFixed(0)).join(', ')}) -> ratio ${ratio.toFixed(2)} (goal ≤ 2: ${ratio <= 2 ? 'met' : 'NOT met'}); ` +
      `CPU until then (median): ${demoCpu} ms vs ${bareCpu} ms (ratio ${(demoCpu / bareCpu).toFixed(2)})`;
    console.log(line);
    rows.push({
      benchmark: `start-up to the first 200: demo domain / bare Fastify app, process spawn, median of ${runs} (goal ≤ 2×)`,
      store: 'SQLite',
      subject: `${d.toFixed(0)} ms (CPU ${demoCpu} ms)`,
      baseline: `${b.toFixed(0)} ms (CPU ${bareCpu} ms)`,
      ratio: `${ratio.toFixed(2)} (time)`,
      latency: '-',
      peakRss: '-',
    });
    return line;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
