// Shared benchmark machinery: run autocannon against a URL and report throughput and latency.
import autocannon from 'autocannon';

export interface LoadResult {
  name: string;
  requestsPerSec: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

export interface LoadOptions {
  url: string;
  headers?: Record<string, string>;
  method?: 'GET' | 'POST';
  body?: string;
  connections?: number;
  pipelining?: number;
  durationSeconds?: number;
}

export async function load(name: string, opts: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: opts.url,
    method: opts.method ?? 'GET',
    headers: opts.headers ?? {},
    ...(opts.body !== undefined ? { body: opts.body } : {}),
    connections: opts.connections ?? 10,
    pipelining: opts.pipelining ?? 1,
    duration: opts.durationSeconds ?? Number(process.env.BENCH_SECONDS ?? 5),
  });
  return {
    name,
    requestsPerSec: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

/** Prints one comparison line: the subject against its baseline measured in the same run. */
export function report(subject: LoadResult, baseline: LoadResult): string {
  const ratio = subject.requestsPerSec / baseline.requestsPerSec;
  const line =
    `${subject.name}: ${subject.requestsPerSec.toFixed(0)} req/s (p50 ${subject.p50} ms, p99 ${subject.p99} ms) ` +
    `vs ${baseline.name}: ${baseline.requestsPerSec.toFixed(0)} req/s (p50 ${baseline.p50} ms, p99 ${baseline.p99} ms) ` +
    `-> throughput ratio ${ratio.toFixed(2)}` +
    (subject.errors + subject.non2xx > 0 ? ` [${subject.errors} errors, ${subject.non2xx} non-2xx]` : '');
  console.log(line);
  return line;
}
