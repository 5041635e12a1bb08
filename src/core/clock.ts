// Time: every delay and every bounded wait goes through a scheduler, so tests run them on a manual
// clock (advance it, and what falls due runs at once) instead of sleeping.

export interface Scheduler {
  now(): number;
  /** Runs `fn` after `ms` milliseconds of this scheduler's time. */
  after(ms: number, fn: () => void): { cancel(): void };
}

export class RealScheduler implements Scheduler {
  now(): number {
    return Date.now();
  }

  after(ms: number, fn: () => void): { cancel(): void } {
    const t = setTimeout(fn, Math.max(0, ms));
    t.unref?.();
    return { cancel: () => clearTimeout(t) };
  }
}

interface Pending {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/** A clock that moves only when told to; due callbacks run in time order. */
export class ManualScheduler implements Scheduler {
  private time: number;
  private seq = 0;
  private pending: Pending[] = [];

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  after(ms: number, fn: () => void): { cancel(): void } {
    const p: Pending = { at: this.time + Math.max(0, ms), seq: this.seq++, fn, cancelled: false };
    this.pending.push(p);
    return { cancel: () => (p.cancelled = true) };
  }

  /** Moves the clock forward, running every callback that falls due (including ones they schedule). */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      this.pending = this.pending.filter((p) => !p.cancelled);
      this.pending.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.pending[0];
      if (!next || next.at > end) break;
      this.pending.shift();
      this.time = Math.max(this.time, next.at);
      next.fn();
    }
    this.time = end;
  }

  /** Number of callbacks waiting. */
  get waiting(): number {
    return this.pending.filter((p) => !p.cancelled).length;
  }
}

/**
 * Waits for `done` at most `ms` of the scheduler's time (so tests move waits with the clock).
 * True when `done` settled first; false on time-out or when `signal` aborts.
 */
export function settlesWithin(scheduler: Scheduler, ms: number, done: Promise<unknown>, signal?: AbortSignal): Promise<boolean> {
  if (ms <= 0 || signal?.aborted) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    let over = false;
    const finish = (value: boolean) => {
      if (over) return;
      over = true;
      timer.cancel();
      signal?.removeEventListener('abort', abort);
      resolve(value);
    };
    const abort = () => finish(false);
    const timer = scheduler.after(ms, () => finish(false));
    signal?.addEventListener('abort', abort, { once: true });
    done.then(
      () => finish(true),
      () => finish(true),
    );
  });
}
