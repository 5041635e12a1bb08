// One server's watchers, fed from the journal in the store: one reader per server (never one per
// watcher) follows the journal, woken by this server's own writes, by the store's notifications
// (PostgreSQL: LISTEN/NOTIFY) and, while anyone watches a shared store, by a poll every `pollMs`
// in case a notification was lost. A watcher resuming from an id reads what it missed from the
// store, then from the events the reader handed out recently, then live, without a gap.
import { tooMany } from '../core/problems.js';
import type { Log } from '../core/log.js';
import type { Store, StoredWatchEvent } from '../store/store.js';
import type { WatchEvent } from './events.js';

export interface WatchLimits {
  /** Watchers open at once on this server, and per user. */
  maxWatchers: number;
  maxWatchersPerUser: number;
  /** Milliseconds between heartbeats (comments that keep proxies from closing an idle stream). */
  heartbeatMs: number;
  /** Bytes a watcher may leave unread before it is dropped. */
  maxBacklogBytes: number;
  /** Milliseconds between reads of a shared store's journal while anyone watches. */
  pollMs: number;
}

export const DEFAULT_WATCH_LIMITS: WatchLimits = {
  maxWatchers: 256,
  maxWatchersPerUser: 8,
  heartbeatMs: 15_000,
  maxBacklogBytes: 1024 * 1024,
  pollMs: 1000,
};

/** Where a watcher's stream goes (the HTTP adapter writes it as Server-Sent Events). */
export interface WatchSink {
  event(e: WatchEvent): void;
  /**
   * The client cannot resume after `lastEventId` (its events fell out of the window, or the id is
   * not one of this journal's): it must read again, then follow the events after `resumeFrom`.
   */
  reset(lastEventId: number, resumeFrom: number, why: 'expired' | 'unknown'): void;
  heartbeat(): void;
  /** Bytes written that the client has not taken yet. */
  backlog(): number;
  /** Resolves when the client has taken what was written, or after `ms` at the latest. */
  drained(ms: number): Promise<void>;
  /** Ends the stream: the client read too slowly, or the server stops. */
  close(reason: 'slow' | 'shutdown'): void;
}

export interface WatchRequest {
  user: string;
  /** What this watcher may see of an event, shaped for it (undefined: nothing). */
  view: (e: StoredWatchEvent) => WatchEvent | undefined;
  sink: WatchSink;
  /** The last event the client saw (Last-Event-ID); from now on when absent. */
  lastEventId?: number;
}

interface Watcher extends WatchRequest {
  /** The last event id this watcher was handed or passed over. */
  last: number;
  live: boolean;
  closed: boolean;
}

/** Events read from the store per query. */
const PAGE = 500;
/** Recent events kept in memory for watchers catching up. */
const RECENT = 2048;

export class WatchHub {
  private readonly watchers = new Set<Watcher>();
  /** The newest journal id handed out (read from the store at the first watch). */
  private cursor = 0;
  private started: Promise<void> | undefined;
  /** Events handed out recently, oldest first; they cover the ids after `recentFloor`. */
  private recent: StoredWatchEvent[] = [];
  private recentFloor = 0;
  private readonly recentMax: number;
  private reading: Promise<void> | undefined;
  private readAgain = false;
  private timers: NodeJS.Timeout[] = [];
  private stopped = false;
  readonly limits: WatchLimits;

  constructor(
    private readonly store: Store,
    private readonly log: Log,
    limits: Partial<WatchLimits> = {},
    /** The journal's window: events kept in memory for watchers catching up are never more. */
    window = RECENT,
  ) {
    this.limits = { ...DEFAULT_WATCH_LIMITS, ...limits };
    this.recentMax = Math.max(1, Math.min(RECENT, window));
    if (store.shared) store.onWatchEvents(() => this.wake());
  }

  /** Watchers open now. */
  get size(): number {
    return this.watchers.size;
  }

  /** Reads the journal again (after a write here, a notification, or a poll). */
  wake(): void {
    if (!this.started || this.stopped) return;
    void this.read().catch((err: unknown) => this.log.warn({ err }, 'watch journal not read'));
  }

  private start(): Promise<void> {
    this.started ??= (async () => {
      this.cursor = await this.store.latestWatchEvent();
      this.recentFloor = this.cursor;
      const heartbeat = setInterval(() => this.heartbeat(), this.limits.heartbeatMs);
      heartbeat.unref();
      this.timers.push(heartbeat);
      if (this.store.shared) {
        const poll = setInterval(() => {
          if (this.watchers.size > 0) this.wake();
        }, this.limits.pollMs);
        poll.unref();
        this.timers.push(poll);
      }
    })();
    return this.started;
  }

  /**
   * Opens a watch: refused (429) beyond the limits; resumes after `lastEventId` when given (or
   * says that it cannot: `reset`), else starts from now. Returns how to end it.
   */
  async watch(request: WatchRequest): Promise<{ close(): void }> {
    if (this.stopped) throw tooMany('The server is stopping; watch again in a moment.', 1);
    const { maxWatchers, maxWatchersPerUser } = this.limits;
    if (this.watchers.size >= maxWatchers) throw tooMany(`The server has ${maxWatchers} watches open, as many as it takes; retry later.`, 5);
    const mine = [...this.watchers].filter((w) => w.user === request.user).length;
    if (mine >= maxWatchersPerUser) throw tooMany(`User '${request.user}' has ${mine} watches open, as many as a user may; close one first.`, 5);
    const watcher: Watcher = { ...request, last: 0, live: false, closed: false };
    // Counted at once, so concurrent requests cannot pass the limits together.
    this.watchers.add(watcher);
    const close = () => {
      watcher.closed = true;
      this.watchers.delete(watcher);
    };
    try {
      await this.start();
      await this.catchUp(watcher);
    } catch (err) {
      close();
      throw err;
    }
    return { close };
  }

  /** Hands a watcher what it missed, then makes it live (the last step runs without a pause, so nothing slips between). */
  private async catchUp(w: Watcher): Promise<void> {
    if (w.lastEventId === undefined) {
      w.last = this.cursor;
      w.live = true;
      return;
    }
    w.last = w.lastEventId;
    // An id beyond anything handed out may be one this server has not read yet.
    if (w.last > this.cursor) await this.read();
    if (w.last > this.cursor) {
      // Not an id of this journal (another store, or one made anew): start over.
      this.reset(w, 'unknown');
      return;
    }
    // The store says first whether the events after it are still kept (the window is the store's).
    let asked = false;
    for (;;) {
      if (w.closed) return;
      if (asked && w.last >= this.recentFloor) {
        for (const e of this.recent) if (e.id > w.last) this.deliver(w, e);
        w.last = Math.max(w.last, this.cursor);
        w.live = true;
        return;
      }
      const from = w.last;
      const page = await this.store.watchEventsAfter(from, PAGE);
      asked = true;
      const contiguous = page.events.length > 0 && page.events[0]!.id === from + 1;
      if (from < page.trimmedThrough && !contiguous) {
        this.reset(w, 'expired');
        return;
      }
      if (page.events.length === 0) {
        // Nothing after it in the store: nothing after it was handed out either.
        w.live = true;
        return;
      }
      for (const e of page.events) {
        if (w.closed) return;
        if (e.id > w.last) this.deliver(w, e, false);
      }
      await this.atClientPace(w);
      if (w.closed) return;
    }
  }

  /**
   * Waits until the watcher holds no more than it may leave unread: a long catch-up goes at the
   * client's pace, however slow, as long as it reads; one that took nothing for a heartbeat's time
   * while holding too much is dropped. (Waiting only one heartbeat dropped clients that were
   * reading, behind a slow link or a busy machine.) What waits is one page at most.
   */
  private async atClientPace(w: Watcher): Promise<void> {
    for (;;) {
      const before = w.sink.backlog();
      if (before === 0 || w.closed) return;
      await w.sink.drained(this.limits.heartbeatMs);
      const after = w.sink.backlog();
      if (after > this.limits.maxBacklogBytes && after < before) continue;
      this.checkBacklog(w);
      return;
    }
  }

  private reset(w: Watcher, why: 'expired' | 'unknown'): void {
    w.sink.reset(w.lastEventId ?? 0, this.cursor, why);
    w.last = this.cursor;
    w.live = true;
  }

  private deliver(w: Watcher, e: StoredWatchEvent, check = true): void {
    w.last = e.id;
    const shown = w.view(e);
    if (!shown) return;
    w.sink.event(shown);
    if (check) this.checkBacklog(w);
  }

  /** A client that does not read is dropped rather than buffered without end. */
  private checkBacklog(w: Watcher): void {
    if (w.closed || w.sink.backlog() <= this.limits.maxBacklogBytes) return;
    this.log.info({ user: w.user, backlog: w.sink.backlog() }, 'watch dropped: the client does not read its events');
    w.closed = true;
    this.watchers.delete(w);
    w.sink.close('slow');
  }

  /** Reads the journal past the cursor and hands each event to the live watchers. Concurrent calls share one read. */
  private read(): Promise<void> {
    if (this.reading) {
      this.readAgain = true;
      return this.reading;
    }
    this.reading = (async () => {
      try {
        do {
          this.readAgain = false;
          for (;;) {
            const page = await this.store.watchEventsAfter(this.cursor, PAGE);
            for (const e of page.events) this.handOut(e);
            if (page.events.length < PAGE) break;
          }
        } while (this.readAgain);
      } finally {
        this.reading = undefined;
      }
    })();
    return this.reading;
  }

  private handOut(e: StoredWatchEvent): void {
    if (e.id <= this.cursor) return;
    this.cursor = e.id;
    this.recent.push(e);
    if (this.recent.length > this.recentMax) this.recentFloor = this.recent.shift()!.id;
    for (const w of this.watchers) if (w.live && !w.closed && e.id > w.last) this.deliver(w, e);
  }

  private heartbeat(): void {
    for (const w of this.watchers) {
      if (!w.live || w.closed) continue;
      w.sink.heartbeat();
      this.checkBacklog(w);
    }
  }

  /** Ends every watch (the server stops) and stops reading. */
  close(): void {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    for (const w of [...this.watchers]) {
      w.closed = true;
      this.watchers.delete(w);
      w.sink.close('shutdown');
    }
  }
}
