// Bodies that stop coming. A request whose body is still arriving holds a place among the requests
// in flight (and, for uploads, staging room): a client that announces a body and then sends nothing,
// or a byte now and then, would hold it until the request timeout. Every body is watched while it
// arrives: no new byte for `idleMs`, or fewer than `minBytesPerSecond` on average once `graceMs`
// have passed, and the request is answered 408 and its connection closed. Progress is read from the
// connection's byte count, so watching costs nothing per chunk; a body the server itself has not
// read yet (its bytes wait in the request's buffer) is never the client's fault.
import type { IncomingMessage } from 'node:http';

export interface BodyProgressLimits {
  /** Longest time without a byte of the body (ms). */
  idleMs: number;
  /** Least average rate of a body once `graceMs` have passed (bytes per second; 0 for no such check). */
  minBytesPerSecond: number;
  /** Time a body has before its average rate is checked (ms). */
  graceMs: number;
}

export const DEFAULT_BODY_PROGRESS: BodyProgressLimits = { idleMs: 10_000, minBytesPerSecond: 1024, graceMs: 5_000 };

interface Watched {
  request: IncomingMessage;
  startedAt: number;
  startBytes: number;
  lastBytes: number;
  lastAt: number;
  /** Called once when the body is cut, with the reason in words. */
  cut: (why: string) => void;
}

export class BodyProgress {
  private readonly watched = new Set<Watched>();
  private timer: NodeJS.Timeout | undefined;
  private readonly tick: number;

  constructor(readonly limits: BodyProgressLimits) {
    this.tick = Math.max(50, Math.min(1000, Math.floor(limits.idleMs / 4)));
  }

  /** Watches the body of `request` until it has arrived or the request ends; `cut` is called if it stalls. */
  watch(request: IncomingMessage, cut: (why: string) => void): void {
    if (request.complete) return;
    const bytes = request.socket?.bytesRead ?? 0;
    const now = performance.now();
    const entry: Watched = { request, startedAt: now, startBytes: bytes, lastBytes: bytes, lastAt: now, cut };
    this.watched.add(entry);
    const forget = () => this.watched.delete(entry);
    request.once('end', forget);
    request.once('close', forget);
    if (!this.timer) {
      this.timer = setInterval(() => this.sweep(), this.tick);
      this.timer.unref();
    }
  }

  /** Bodies being watched (for tests and figures). */
  get size(): number {
    return this.watched.size;
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.watched.clear();
  }

  private sweep(): void {
    const now = performance.now();
    const { idleMs, minBytesPerSecond, graceMs } = this.limits;
    for (const w of this.watched) {
      const request = w.request;
      if (request.complete || request.destroyed) {
        this.watched.delete(w);
        continue;
      }
      const bytes = request.socket?.bytesRead ?? w.lastBytes;
      // Bytes the server has not read yet are its own delay, not the client's.
      if (bytes !== w.lastBytes || request.readableLength > 0) {
        w.lastBytes = bytes;
        w.lastAt = now;
      }
      let why: string | undefined;
      if (now - w.lastAt >= idleMs) {
        why = `no byte of the request body arrived for ${Math.round(idleMs / 100) / 10} s`;
      } else if (minBytesPerSecond > 0 && now - w.startedAt >= graceMs && request.readableLength === 0) {
        const rate = ((bytes - w.startBytes) * 1000) / (now - w.startedAt);
        if (rate < minBytesPerSecond) why = `the request body arrives at ${Math.round(rate)} bytes a second, less than the ${minBytesPerSecond} the server waits for`;
      }
      if (why === undefined) continue;
      this.watched.delete(w);
      if (this.watched.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
      w.cut(why);
    }
  }
}
