// A request whose answer a worker thread reads: the caller's thread may be busy meanwhile (reading a
// model file while the whole domain is searched), and the server is not held back by a full socket
// while it is. The answer comes back as one buffer, handed over without a copy, as a Response.
import { Worker } from 'node:worker_threads';

export interface BackgroundRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  maxBytes: number;
}

export interface BackgroundOptions {
  /** Ends the request (and its worker) when the caller no longer wants the answer. */
  signal?: AbortSignal;
}

/** What went wrong in the worker: the fields `unreachable` and the caller read. */
export class BackgroundError extends Error {
  constructor(
    message: string,
    override readonly name: string,
    override readonly cause?: { code?: string; message?: string },
    /** Set when the answer was larger than `maxBytes`: its size as far as it was read. */
    readonly tooLarge?: number,
  ) {
    super(message);
  }
}

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const fail = (err) => parentPort.postMessage({ error: { name: err && err.name, message: String(err && err.message), cause: err && err.cause ? { code: err.cause.code, message: err.cause.message } : undefined } });
(async () => {
  const { url, method, headers, body, timeoutMs, maxBytes } = workerData;
  let res;
  try {
    res = await fetch(url, { method, headers, body, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    return fail(err);
  }
  try {
    const declared = Number(res.headers.get('content-length') ?? NaN);
    if (declared > maxBytes) {
      await res.body?.cancel().catch(() => undefined);
      return parentPort.postMessage({ tooLarge: declared });
    }
    const chunks = [];
    let size = 0;
    if (res.body) {
      const reader = res.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > maxBytes) {
          await reader.cancel().catch(() => undefined);
          return parentPort.postMessage({ tooLarge: size });
        }
        chunks.push(value);
      }
    }
    const all = new Uint8Array(size);
    let at = 0;
    for (const c of chunks) {
      all.set(c, at);
      at += c.byteLength;
    }
    parentPort.postMessage({ status: res.status, statusText: res.statusText, headers: [...res.headers], bytes: all.buffer }, [all.buffer]);
  } catch (err) {
    fail(err);
  }
})();
`;

interface Answer {
  status?: number;
  statusText?: string;
  headers?: [string, string][];
  bytes?: ArrayBuffer;
  tooLarge?: number;
  error?: { name?: string; message?: string; cause?: { code?: string; message?: string } };
}

/** Sends the request from a worker thread and returns its whole answer. */
export function fetchInBackground(req: BackgroundRequest, options: BackgroundOptions = {}): Promise<Response> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, { eval: true, workerData: req });
    options.signal?.addEventListener('abort', () => settle(() => reject(new BackgroundError('the request was abandoned', 'AbortError'))), { once: true });
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      fn();
      void worker.terminate();
    };
    worker.once('message', (a: Answer) =>
      settle(() => {
        if (a.error) return reject(new BackgroundError(a.error.message ?? 'the request failed', a.error.name ?? 'Error', a.error.cause));
        if (a.tooLarge !== undefined) return reject(new BackgroundError(`the answer is larger than ${req.maxBytes} bytes`, 'TooLarge', undefined, a.tooLarge));
        const status = a.status ?? 500;
        const empty = !a.bytes || a.bytes.byteLength === 0 || status === 204 || status === 205 || status === 304;
        try {
          resolve(new Response(empty ? null : a.bytes!, { status, statusText: a.statusText ?? '', headers: a.headers ?? [] }));
        } catch (err) {
          // A status or header a Response cannot hold (a server outside HTTP's rules).
          reject(new BackgroundError(`the answer cannot be read: ${(err as Error).message}`, 'Error'));
        }
      }),
    );
    worker.once('error', (err) => settle(() => reject(err)));
    worker.once('exit', (code) => settle(() => reject(new BackgroundError(`the request's worker ended (${code})`, 'Error'))));
  });
}
