// The watch journal: events written to the store in the order this server made its changes, one
// write at a time, numbered by the store (so every server sharing it numbers in one sequence), and
// kept for a bounded window: the newest `window` events; older ones are removed in batches.
import type { Log } from '../core/log.js';
import type { Store, WatchEventWrite } from '../store/store.js';

/** Events kept for watchers that reconnect (Last-Event-ID). */
export const DEFAULT_WINDOW = 10_000;

export class WatchJournal {
  private writes: Promise<void> = Promise.resolve();
  private pending: WatchEventWrite[] = [];
  private queued = false;
  /** Newest id written here, and the id up to which this server last trimmed. */
  private newest = 0;
  private trimmed = 0;
  /** Told after each write reached the store (the hub reads it then). */
  onWritten: () => void = () => {};

  constructor(
    private readonly store: Store,
    private readonly log: Log,
    readonly window = DEFAULT_WINDOW,
  ) {}

  /**
   * Queues events; they are written in the order queued, together with any others queued before
   * the write starts. A failed write is logged and dropped: the changes themselves are stored.
   */
  append(events: WatchEventWrite[]): void {
    if (events.length === 0) return;
    this.pending.push(...events);
    if (this.queued) return;
    this.queued = true;
    this.writes = this.writes
      .then(async () => {
        this.queued = false;
        const batch = this.pending;
        this.pending = [];
        const ids = await this.store.appendWatchEvents(batch);
        this.newest = Math.max(this.newest, ids[ids.length - 1] ?? 0);
        this.onWritten();
        await this.trim();
      })
      .catch((err: unknown) => {
        this.queued = false;
        this.log.warn({ err }, 'watch events not stored');
      });
  }

  /** Waits until every queued event is written. */
  async flush(): Promise<void> {
    while (this.queued || this.pending.length > 0) await this.writes;
    await this.writes;
  }

  /** Removes what fell out of the window, once a tenth of a window more has (fewer, larger deletes). */
  private async trim(): Promise<void> {
    const through = this.newest - this.window;
    if (through <= 0 || through - this.trimmed < Math.max(1, Math.floor(this.window / 10))) return;
    await this.store.trimWatchEvents(through);
    this.trimmed = through;
  }
}
