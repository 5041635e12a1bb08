// The watch as Server-Sent Events: GET /management/appserver/{version}/watch?path=...&kinds=...
// Each event is `id:` (its journal id), `event:` (its kind) and `data:` (one line of JSON); comments
// keep an idle stream open through proxies. The request is judged (version, parameters, header,
// role, limits) before the stream starts, so a refusal is an ordinary JSON error.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import type { WatchApi } from '../api/watch-api.js';
import { Problem, methodNotAllowed, notAcceptable } from '../core/problems.js';
import { problemBody, problemHeaders, statusOf } from './errors.js';
import { clientAddress } from './management.js';
import { serialize } from './send.js';

export const WATCH_ROUTE = '/management/appserver/:version/watch';

/** How long an EventSource waits before it reconnects (sent as `retry:`). */
const RETRY_MS = 3000;

/** True for the watch URL of any version (it answers `text/event-stream`, not JSON). */
export function isWatch(url: string): boolean {
  return /^\/management\/appserver\/[^/?#]+\/watch\/?(?:[?#]|$)/.test(url);
}

/** True when an Accept header admits `text/event-stream` (absent, that type, `text/*` or a wildcard). */
export function acceptsEventStream(accept: string | undefined): boolean {
  if (!accept) return true;
  return accept.split(',').some((part) => {
    const [range = '', ...params] = part.trim().toLowerCase().split(';');
    if (params.some((p) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(p))) return false;
    const type = range.trim();
    return type === '*/*' || type === 'text/*' || type === 'text/event-stream';
  });
}

/** A watcher's stream on an HTTP response. */
class EventStream {
  private started = false;

  constructor(private readonly res: ServerResponse) {}

  /** Sends the head (once): from here on the answer is a stream. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      // nginx and similar proxies otherwise hold events back to fill their buffers.
      'x-accel-buffering': 'no',
      // A stream ends only when the watch does: the connection is not kept for another request.
      connection: 'close',
    });
    this.res.socket?.setNoDelay(true);
    this.write(`retry: ${RETRY_MS}\n\n`);
  }

  get isStarted(): boolean {
    return this.started;
  }

  write(text: string): void {
    this.start();
    if (!this.res.writableEnded && !this.res.destroyed) this.res.write(text);
  }

  event(id: number, kind: string, data: unknown): void {
    this.write(`id: ${id}\nevent: ${kind}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  comment(text: string): void {
    this.write(`: ${text}\n\n`);
  }

  backlog(): number {
    return this.res.writableLength;
  }

  drained(ms: number): Promise<void> {
    // 'drain' comes only after a write found the buffer full.
    if (!this.res.writableNeedDrain || this.res.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.res.once('drain', done);
      this.res.once('close', done);
    });
  }

  end(): void {
    if (!this.res.writableEnded) this.res.end();
  }

  destroy(): void {
    this.res.destroy();
  }
}

/**
 * `elsewhere`, on a port that stops serving management while the domain's administration port is
 * enabled, names that port then: a stream opened here before the switch ends at its next event or
 * heartbeat instead of going on carrying the domain's changes (nothing more is sent on it).
 */
export function registerWatch(app: FastifyInstance, watch: WatchApi, elsewhere?: () => string | undefined): { endAll(): void } {
  /** Ends each stream open on this app, as when the server stops (its client reconnects). */
  const open = new Set<() => void>();
  app.get(WATCH_ROUTE, async (request: FastifyRequest, reply: FastifyReply) => {
    if (!acceptsEventStream(request.headers.accept)) {
      throw notAcceptable(`A watch answers text/event-stream only; the request's Accept header is '${String(request.headers.accept).slice(0, 200)}'.`);
    }
    const header = request.headers['last-event-id'];
    const filter = watch.filter((request.params as { version: string }).version, request.query as Record<string, unknown>, typeof header === 'string' ? header : undefined);
    const res = reply.raw;
    if (request.method === 'HEAD') {
      reply.hijack();
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'close' });
      res.end();
      return;
    }
    // From here the response is written by hand: events may be sent while the watch opens.
    reply.hijack();
    const stream = new EventStream(res);
    let ended = false;
    let subscription: { close(): void } | undefined;
    const finish = () => {
      ended = true;
      subscription?.close();
    };
    const stop = () => {
      finish();
      stream.comment('the server is stopping; reconnect with Last-Event-ID');
      stream.end();
    };
    open.add(stop);
    res.once('close', () => {
      open.delete(stop);
      finish();
    });
    /** True (and the stream ended) once management has moved to the administration port. */
    const moved = (): boolean => {
      if (ended) return true;
      const where = elsewhere?.();
      if (where === undefined) return false;
      finish();
      stream.comment(`management is served only on the administration port (${where}) now: this stream ends here`);
      stream.end();
      return true;
    };
    try {
      subscription = await watch.watch({ principal: request.principal, address: clientAddress(request) }, filter, {
        event: (e) => {
          if (!moved()) stream.event(e.id, e.kind, e);
        },
        reset: (lastEventId, resumeFrom, why) =>
          moved() ||
          stream.event(resumeFrom, 'reset', {
            lastEventId,
            resumeFrom,
            reason: why,
            detail: `${why === 'expired' ? `The events after ${lastEventId} are no longer kept` : `${lastEventId} is not the id of an event this domain sent`}: read the resources again, then follow the events after ${resumeFrom}.`,
          }),
        heartbeat: () => {
          if (!moved()) stream.comment('heartbeat');
        },
        backlog: () => stream.backlog(),
        drained: (ms) => stream.drained(ms),
        close: (reason) => {
          if (reason === 'slow') return stream.destroy();
          stream.comment('the server is stopping; reconnect with Last-Event-ID');
          stream.end();
        },
      });
    } catch (err) {
      if (stream.isStarted || !(err instanceof Problem)) {
        request.log.warn({ err }, 'watch failed');
        return stream.isStarted ? stream.destroy() : sendRaw(res, internalError());
      }
      return sendRaw(res, err);
    }
    if (ended) subscription.close();
    else stream.comment('watching');
  });
  // The watch is read only.
  app.route({
    method: ['POST', 'PUT', 'DELETE', 'PATCH'],
    url: WATCH_ROUTE,
    handler: async (request) => {
      throw methodNotAllowed(request.method, ['GET']);
    },
  });
  return {
    endAll: () => {
      for (const stop of [...open]) stop();
    },
  };
}

function internalError(): Problem {
  return new Problem('internal', [{ detail: 'The watch could not be opened; retry.' }]);
}

/** A problem written on a response Fastify no longer handles. */
function sendRaw(res: ServerResponse, problem: Problem): void {
  if (res.headersSent) return void res.destroy();
  const body = Buffer.from(serialize(problemBody(problem)), 'utf8');
  res.writeHead(statusOf(problem), {
    'content-type': 'application/json',
    'content-length': body.length,
    'cache-control': 'no-store',
    connection: 'close',
    ...problemHeaders(problem),
  });
  res.end(body);
}
