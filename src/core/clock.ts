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

/** How the control interface moves a server's time. */
export interface ClockControl {
  /** True while time stands still (it moves only when advanced). */
  readonly frozen: boolean;
  /** False when this clock can never run by itself (a manual clock given by a test). */
  readonly canRun: boolean;
  now(): number;
  freeze(): void;
  resume(): void;
  /** Moves time forward, running what falls due in time order. */
  advance(ms: number): void;
}

/**
 * A scheduler that follows the wall clock until frozen; frozen, it moves only when advanced, and
 * resumed, it goes on from where it stood. Advancing a running clock jumps it forward.
 */
export class ControlledScheduler implements Scheduler, ClockControl {
  readonly canRun = true;
  private offset = 0;
  private frozenAt: number | undefined;
  private seq = 0;
  private pending: Pending[] = [];
  private timer: NodeJS.Timeout | undefined;

  get frozen(): boolean {
    return this.frozenAt !== undefined;
  }

  now(): number {
    return this.frozenAt ?? Date.now() + this.offset;
  }

  after(ms: number, fn: () => void): { cancel(): void } {
    const p: Pending = { at: this.now() + Math.max(0, ms), seq: this.seq++, fn, cancelled: false };
    this.pending.push(p);
    this.arm();
    return {
      cancel: () => {
        p.cancelled = true;
      },
    };
  }

  freeze(): void {
    if (this.frozenAt !== undefined) return;
    this.frozenAt = this.now();
    this.disarm();
  }

  resume(): void {
    if (this.frozenAt === undefined) return;
    this.offset = this.frozenAt - Date.now();
    this.frozenAt = undefined;
    this.arm();
  }

  advance(ms: number): void {
    const step = Math.max(0, ms);
    if (this.frozenAt === undefined) {
      this.offset += step;
      this.runDue(this.now(), false);
      this.arm();
      return;
    }
    const end = this.frozenAt + step;
    this.runDue(end, true);
    this.frozenAt = end;
  }

  /** Runs, in time order, what falls due by `until` (including what those callbacks schedule). */
  private runDue(until: number, moveFrozen: boolean): void {
    for (;;) {
      this.pending = this.pending.filter((p) => !p.cancelled);
      let next: Pending | undefined;
      for (const p of this.pending) if (!next || p.at < next.at || (p.at === next.at && p.seq < next.seq)) next = p;
      if (!next || next.at > until) return;
      this.pending.splice(this.pending.indexOf(next), 1);
      if (moveFrozen && this.frozenAt !== undefined) this.frozenAt = Math.max(this.frozenAt, next.at);
      try {
        next.fn();
      } catch (err) {
        // As a timer's callback would: the failure surfaces, the clock goes on.
        queueMicrotask(() => {
          throw err;
        });
      }
    }
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** One wall-clock timer, for the earliest callback due (none while frozen). */
  private arm(): void {
    this.disarm();
    if (this.frozenAt !== undefined) return;
    let first: number | undefined;
    for (const p of this.pending) if (!p.cancelled && (first === undefined || p.at < first)) first = p.at;
    if (first === undefined) return;
    const delay = Math.min(Math.max(0, first - this.now()), 2 ** 31 - 1);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.runDue(this.now(), false);
      this.arm();
    }, delay);
    this.timer.unref?.();
  }
}

/** The control a scheduler offers, if any: a manual clock is always frozen and cannot be resumed. */
export function clockControlOf(scheduler: Scheduler): ClockControl | undefined {
  if (scheduler instanceof ControlledScheduler) return scheduler;
  if (scheduler instanceof ManualScheduler) {
    return {
      frozen: true,
      canRun: false,
      now: () => scheduler.now(),
      freeze: () => undefined,
      resume: () => undefined,
      advance: (ms) => scheduler.advance(ms),
    };
  }
  return undefined;
}
