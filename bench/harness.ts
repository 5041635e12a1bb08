// Shared benchmark machinery: run autocannon against a URL, watch this process's memory, and
// collect one row per comparison for the summary table.
import autocannon from 'autocannon';

export interface LoadResult {
  name: string;
  requestsPerSec: number;
  p50: number;
  p99: number;
  /** Mean latency (ms, fractional: the percentiles are whole milliseconds). */
  mean: number;
  errors: number;
  non2xx: number;
  /** Largest resident set size seen during the run (MiB). */
  peakRssMiB: number;
}

export interface LoadOptions {
  url: string;
  headers?: Record<string, string>;
  method?: 'GET' | 'POST';
  body?: string;
  connections?: number;
  pipelining?: number;
  durationSeconds?: number;
  /** Seconds a request may take before it counts as an error (autocannon's default: 10). */
  timeoutSeconds?: number;
}

export async function load(name: string, opts: LoadOptions): Promise<LoadResult> {
  let peak = process.memoryUsage().rss;
  const watch = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);
  try {
    const result = await autocannon({
      url: opts.url,
      method: opts.method ?? 'GET',
      headers: opts.headers ?? {},
      ...(opts.body !== undefined ? { body: opts.body } : {}),
      connections: opts.connections ?? 10,
      pipelining: opts.pipelining ?? 1,
      duration: opts.durationSeconds ?? Number(process.env.BENCH_SECONDS ?? 5),
      ...(opts.timeoutSeconds ? { timeout: opts.timeoutSeconds } : {}),
    });
    return {
      name,
      requestsPerSec: result.requests.average,
      p50: result.latency.p50,
      mean: result.latency.average,
      p99: result.latency.p99,
      errors: result.errors,
      non2xx: result.non2xx,
      peakRssMiB: Math.round(peak / 1048576),
    };
  } finally {
    clearInterval(watch);
  }
}

export interface Row {
  benchmark: string;
  store: string;
  subject: string;
  baseline: string;
  ratio: string;
  latency: string;
  peakRss: string;
}

export const rows: Row[] = [];

/** Prints one comparison line and records it for the table: the subject against its baseline. */
export function report(subject: LoadResult, baseline: LoadResult, benchmark: string, store: string): string {
  const ratio = subject.requestsPerSec / baseline.requestsPerSec;
  const problems = subject.errors + subject.non2xx > 0 ? ` [${subject.errors} errors, ${subject.non2xx} non-2xx]` : '';
  const line =
    `${subject.name}: ${subject.requestsPerSec.toFixed(0)} req/s (p50 ${subject.p50} ms, p99 ${subject.p99} ms) ` +
    `vs ${baseline.name}: ${baseline.requestsPerSec.toFixed(0)} req/s (p50 ${baseline.p50} ms, p99 ${baseline.p99} ms) ` +
    `-> throughput ratio ${ratio.toFixed(2)}${problems}`;
  console.log(line);
  rows.push({
    benchmark,
    store,
    subject: `${subject.requestsPerSec.toFixed(0)} req/s${problems}`,
    baseline: `${baseline.requestsPerSec.toFixed(0)} req/s`,
    ratio: ratio.toFixed(2),
    latency: `${subject.p50} / ${subject.p99} ms`,
    peakRss: `${subject.peakRssMiB} MiB`,
  });
  return line;
}

/** The summary as a Markdown table. */
export function table(): string {
  const head = '| benchmark | store | appserver-admin | baseline | ratio | p50 / p99 | peak RSS |\n|---|---|---|---|---|---|---|';
  return [head, ...rows.map((r) => `| ${r.benchmark} | ${r.store} | ${r.subject} | ${r.baseline} | ${r.ratio} | ${r.latency} | ${r.peakRss} |`)].join('\n');
}
