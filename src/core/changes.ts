// A signal that the domain's state moved. Whatever keeps answers computed from that state (the read
// cache) listens and forgets them. Every part that changes state tells it right after the change
// and before the change is acknowledged, so a read that starts after an acknowledged change never
// gets an answer computed before it.
import type { Scheduler } from './clock.js';

export class ChangeSignal {
  private readonly listeners: (() => void)[] = [];
  /** How many changes were told so far. */
  count = 0;

  listen(fn: () => void): void {
    this.listeners.push(fn);
  }

  changed(): void {
    this.count++;
    for (const fn of this.listeners) fn();
  }
}

/**
 * The scheduler whose callbacks tell `changes` when they return: what falls due on the clock (a task
 * step, a lock that lapses, a server that finishes starting) changes state outside any request.
 */
export function announcing(scheduler: Scheduler, changes: ChangeSignal): Scheduler {
  return {
    now: () => scheduler.now(),
    after: (ms, fn) =>
      scheduler.after(ms, () => {
        try {
          fn();
        } finally {
          changes.changed();
        }
      }),
  };
}
