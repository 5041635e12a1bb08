// Searches against a bare Fastify route serving the same body (printed whole per request, the
// product's way): the exporter's query over 100 running servers at one connection, and the same
// query over a 1000-server domain with 100 running servers (about 23 MB) at four connections, with
// a single-bean GET alongside, whose latency and errors say whether the large answers starve it.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { initDataDir } from '../src/cli/server.js';
import { serialize } from '../src/http/send.js';
import { type LoadResult, load, report, rows } from './harness.js';
import { adminEnv, BIN, statusMiB, stopChild } from './processes.js';
import { AUTH, benchServer, EXPORTER_QUERY } from './reads.js';
import type { BenchStore } from './stores.js';
import { BIG } from './topology.js';

/** Starts the peak resident memory of the process afresh (Linux: clear_refs 5). */
function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

/** Waits (two minutes at most) until the server answers 200. */
async function ready(url: string, child: ChildProcess): Promise<void> {
  const began = performance.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    if (performance.now() - began > 120_000) throw new Error('no 200 within two minutes');
    const code = await fetch(url, { headers: AUTH }).then(
      async (r) => (await r.arrayBuffer(), r.status),
      () => 0,
    );
    if (code === 200) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const POST = { ...AUTH, 'content-type': 'application/json', 'x-requested-by': 'bench' };

/** A bare route answering every request with `body` printed whole. */
async function bareRoute(body: unknown): Promise<{ url: string; close(): Promise<void> }> {
  const app = Fastify({ bodyLimit: 1024 * 1024 });
  app.all('/*', async (_req, reply) => reply.header('content-type', 'application/json').send(serialize(body)));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}/resource`, close: () => app.close() };
}

function mib(bytes: number): string {
  return `${(bytes / 1048576).toFixed(1)} MiB`;
}

/**
 * The exporter over 100 running servers × 20 applications at one connection, against the bare route
 * printing the same answer per request; issue 28's goal: p50 ≤ 1.5× the bare route's.
 */
export async function benchSearchOne(store: BenchStore): Promise<string[]> {
  const lines: string[] = [];
  const body = JSON.stringify(EXPORTER_QUERY);

  // The exporter over 100 running servers × 20 applications, one connection.
  const hundred = await benchServer(store, { servers: 100, clusters: 10, partitions: 10, applications: 200, running: true });
  try {
    const url = `${hundred.base}/domainRuntime/search`;
    const sample = await (await fetch(url, { method: 'POST', headers: POST, body })).json();
    const bare = await bareRoute(sample);
    try {
      const base = await load('bare Fastify route', { url: bare.url, method: 'POST', headers: POST, body, connections: 1 });
      const subject = await load(`POST domainRuntime/search, 100 running servers on ${store.label} (1 connection)`, { url, method: 'POST', headers: POST, body, connections: 1 });
      lines.push(report(subject, base, 'exporter search, 100 running servers × 20 apps, 1 connection', store.label));
      const ratio = subject.mean / base.mean;
      const p50 = base.p50 > 0 ? (subject.p50 / base.p50).toFixed(2) : 'n/a';
      const line =
        `exporter search at one connection: p50 ${subject.p50} ms (mean ${subject.mean.toFixed(2)} ms) vs bare route p50 ${base.p50} ms (mean ${base.mean.toFixed(2)} ms) ` +
        `-> p50 ratio ${p50}, mean ratio ${ratio.toFixed(2)} (goal p50 ≤ 1.5×: ${base.p50 > 0 && subject.p50 / base.p50 <= 1.5 ? 'met' : 'NOT met'})`;
      console.log(line);
      lines.push(line);
      rows.push({
        benchmark: 'exporter search, 100 running servers × 20 apps, 1 connection: latency / bare route printing the same JSON (goal p50 ≤ 1.5×)',
        store: store.label,
        subject: `p50 ${subject.p50} ms, mean ${subject.mean.toFixed(2)} ms`,
        baseline: `p50 ${base.p50} ms, mean ${base.mean.toFixed(2)} ms`,
        ratio: `${p50} (p50), ${ratio.toFixed(2)} (mean)`,
        latency: `${subject.p50} / ${subject.p99} ms`,
        peakRss: '-',
      });
    } finally {
      await bare.close();
    }
  } finally {
    await hundred.close();
  }
  return lines;
}

/** The exporter's query over the 1,000-server domain at four connections, a single-bean GET alongside. */
export async function benchSearch(store: BenchStore): Promise<string[]> {
  const lines: string[] = [];
  const body = JSON.stringify(EXPORTER_QUERY);
  // The same query over 1000 servers (100 running) and 5000 applications, four connections, with a
  // single-bean GET at one connection alongside. The server runs in a process of its own, so that
  // its peak resident memory is its own (read from /proc, reset once the domain is warm).
  const storeUrl = await store.fresh();
  adminEnv();
  const dataDir = mkdtempSync(join(tmpdir(), 'appserver-bench-search-'));
  await initDataDir(dataDir, BIG, storeUrl);
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = spawn(process.execPath, [BIN, 'serve', '--data-dir', dataDir, '--port', String(port), '--no-listeners', '--log-level', 'error', ...(storeUrl ? ['--store', storeUrl] : [])], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: process.env,
  });
  try {
    const base = `http://127.0.0.1:${port}/management/appserver/latest`;
    await ready(`${base}/serverConfig/servers/ms1`, child);
    const url = `${base}/domainRuntime/search`;
    // The first search makes the running servers' runtime trees (they are made when first read).
    const bytes = (await (await fetch(url, { method: 'POST', headers: POST, body })).arrayBuffer()).byteLength;
    const warm = statusMiB(child.pid!, 'VmRSS');
    const seconds = Math.max(20, 3 * Number(process.env.BENCH_SECONDS ?? 5));
    const get = { url: `${base}/serverConfig/servers/ms1`, headers: AUTH, connections: 1, durationSeconds: seconds };
    const alone = await load('GET serverConfig/servers/ms1 alone', get);
    resetPeak(child.pid!);
    // A search may take a while on a busy machine: it counts as failed only after a minute.
    const heavy = { method: 'POST' as const, headers: POST, body, connections: 4, durationSeconds: seconds, timeoutSeconds: 60 };
    const [searches, during] = await Promise.all([
      load(`POST domainRuntime/search (${mib(bytes)}) on ${store.label} (4 connections)`, { url, ...heavy }),
      load('GET serverConfig/servers/ms1 alongside', get),
    ]);
    const peak = statusMiB(child.pid!, 'VmHWM');
    searches.peakRssMiB = Math.round(peak);
    during.peakRssMiB = Math.round(peak);
    lines.push(report(during, alone, `GET ms1 while four ${mib(bytes)} searches stream (1000 servers, 100 running)`, store.label));
    const sample = await (await fetch(url, { method: 'POST', headers: POST, body })).json();
    const bare = await bareRoute(sample);
    let baseline: LoadResult;
    try {
      baseline = await load('bare Fastify route', { url: bare.url, ...heavy });
    } finally {
      await bare.close();
    }
    lines.push(report(searches, baseline, `search of ${mib(bytes)} (1000 servers, 100 running), 4 connections; server RSS ${Math.round(warm)} MiB warm before`, store.label));
  } finally {
    await stopChild(child);
    rmSync(dataDir, { recursive: true, force: true });
  }
  return lines;
}
