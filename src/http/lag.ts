// How late the event loop runs: a timer that should fire every `tick` milliseconds measures by how
// much it fired late. A loop blocked for two seconds shows two seconds of lag at its next tick, and
// the lag comes down as soon as ticks are on time again: no sampling window can miss a block, and
// no window without samples is taken for an infinite delay (a server busy starting up is not
// "overloaded" for the first second of its life).
export class LoopLag {
  private expected = 0;
  private recent = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Servers using the measure: the timer runs while any does. */
  private users = 0;

  constructor(private readonly tick = 100) {}

  start(): void {
    this.users++;
    if (this.timer) return;
    this.expected = performance.now() + this.tick;
    this.timer = setInterval(() => {
      const now = performance.now();
      const late = Math.max(0, now - this.expected);
      // Lag decays by half each tick on time, so one late tick does not linger.
      this.recent = Math.max(late, this.recent / 2);
      this.expected = now + this.tick;
    }, this.tick);
    this.timer.unref();
  }

  stop(): void {
    this.users = Math.max(0, this.users - 1);
    if (this.users > 0) return;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Milliseconds the loop has recently been late by. */
  get lagMs(): number {
    if (!this.timer) return 0;
    // A block still going on shows as the time since the next tick was due.
    return Math.max(this.recent, performance.now() - this.expected);
  }
}

/** One measure for every server of the process (they share its one event loop): one timer, not one per port. */
export const processLag = new LoopLag();
