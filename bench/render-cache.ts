// The read cache against bare Fastify routes (issue 18, items 1 and 6): a single-bean GET, and a
// collection of 1,000 servers, each compared with a bare route that prints the same body on every
// request. The machine is shared: the two are measured in alternation, several rounds each (after a
// warm-up of each), and the ratio given is that of their mean throughputs (each round's ratio, and
// their median, are printed too). BENCH_ROUNDS rounds (default 3) of BENCH_SECONDS each.
import { type LoadResult, load, report } from './harness.js';
import { AUTH, bare, benchServer } from './reads.js';
import type { BenchStore } from './stores.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

/** Mean of the rounds' figures (latencies: the worst round's). */
function mean(name: string, results: LoadResult[]): LoadResult {
  const avg = (f: (r: LoadResult) => number) => results.reduce((a, r) => a + f(r), 0) / results.length;
  return {
    name,
    requestsPerSec: avg((r) => r.requestsPerSec),
    p50: Math.max(...results.map((r) => r.p50)),
    p99: Math.max(...results.map((r) => r.p99)),
    mean: avg((r) => r.mean),
    errors: results.reduce((a, r) => a + r.errors, 0),
    non2xx: results.reduce((a, r) => a + r.non2xx, 0),
    peakRssMiB: Math.max(...results.map((r) => r.peakRssMiB)),
  };
}

async function alternate(benchmark: string, store: BenchStore, url: string, connections: number): Promise<string> {
  const sample = (await (await fetch(url, { headers: AUTH })).json()) as unknown;
  const bytes = Buffer.byteLength(JSON.stringify(sample));
  const baseline = await bare(sample);
  try {
    const subjects: LoadResult[] = [];
    const bases: LoadResult[] = [];
    // A short run of each first, not counted: both warmed up (compiled, caches filled) alike.
    await load('warm-up', { url: baseline.url, headers: AUTH, connections, durationSeconds: 2 });
    await load('warm-up', { url, headers: AUTH, connections, durationSeconds: 2 });
    const ratios: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Alternated, and in turn first, so that neither gets the quieter moments of the machine.
      const runBase = () => load('bare Fastify route', { url: baseline.url, headers: AUTH, connections }).then((r) => bases.push(r));
      const runSubject = () => load(benchmark, { url, headers: AUTH, connections }).then((r) => subjects.push(r));
      if (round % 2 === 0) {
        await runBase();
        await runSubject();
      } else {
        await runSubject();
        await runBase();
      }
      const s = subjects[round]!.requestsPerSec;
      const b = bases[round]!.requestsPerSec;
      ratios.push(s / b);
      console.log(`  round ${round + 1}: ${s.toFixed(0)} vs ${b.toFixed(0)} req/s, ratio ${(s / b).toFixed(2)}`);
    }
    const sorted = [...ratios].sort((x, y) => x - y);
    console.log(`  ratio per round: median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(2)}, from ${sorted[0]!.toFixed(2)} to ${sorted[sorted.length - 1]!.toFixed(2)}`);
    return report(mean(`${benchmark} (${Math.round(bytes / 1024)} KiB, ${ROUNDS} rounds)`, subjects), mean('bare Fastify route', bases), `${benchmark}, ${connections} connections`, store.label);
  } finally {
    await baseline.close();
  }
}

export async function benchRenderCache(store: BenchStore): Promise<string[]> {
  const lines: string[] = [];
  const demo = await benchServer(store);
  try {
    lines.push(await alternate('GET serverConfig/servers/ms1', store, `${demo.base}/serverConfig/servers/ms1`, 10));
  } finally {
    await demo.close();
  }
  // The same read with the cache keeping nothing: what each read costs when it is rendered.
  const uncached = await benchServer(store, undefined, { readCache: { maxBytes: 0 } });
  try {
    lines.push(await alternate('GET serverConfig/servers/ms1, read cache off', store, `${uncached.base}/serverConfig/servers/ms1`, 10));
  } finally {
    await uncached.close();
  }
  // The bare route shares this process: printing 4 MB blocks the event loop for a second or more,
  // which the server under test would take for its own overload (503) in the rounds that follow.
  const big = await benchServer(store, { servers: 1000, clusters: 10, partitions: 10, applications: 100 }, { maxEventLoopDelay: 10_000 });
  try {
    lines.push(await alternate('GET serverConfig/servers (1,001 items)', store, `${big.base}/serverConfig/servers`, 4));
  } finally {
    await big.close();
  }
  // The same collection printed (streamed) on every read: the cache keeping nothing.
  const streamed = await benchServer(store, { servers: 1000, clusters: 10, partitions: 10, applications: 100 }, { maxEventLoopDelay: 10_000, readCache: { maxBytes: 0 } });
  try {
    lines.push(await alternate('GET serverConfig/servers (1,001 items), read cache off', store, `${streamed.base}/serverConfig/servers`, 4));
  } finally {
    await streamed.close();
  }
  return lines;
}
