// Keeps the store in step with the runtime: the durable runtime state (one entry per server,
// partition, resource group...) and the tasks. Writes are coalesced per turn of the event loop and
// reach the store in the order they were made; `flush` waits for all of them.
import type { Store, StoredTask } from '../store/store.js';
import type { RuntimeEngine } from './engine.js';
import { type RuntimeState, applyEntryChanges, entriesToState, snapshotState, stateChanges } from './state.js';
import type { Task, TaskEngine } from './tasks.js';

/** What one write of the runtime state or of tasks stored (for the watch journal). */
export interface PersistedChanges {
  /** Runtime state entries written: each key with the value before (undefined: new) and after (undefined: removed). */
  entries?: { key: string; before: unknown; after: unknown }[];
  /** Tasks written, as stored. */
  tasks?: StoredTask[];
}

/** Delay before a failed write of the runtime state or tasks is tried again (ms). */
const RETRY_MS = 2000;

export class RuntimePersistence {
  /**
   * Told of every write this server made, once it reached the store and in the order the writes
   * were made (what other servers wrote is theirs to tell).
   */
  onPersisted: (changes: PersistedChanges) => void | Promise<void> = () => {};
  private writes: Promise<void> = Promise.resolve();
  /** Writes queued so far: a reload that saw one queued while it read must read again. */
  private queued = 0;
  /**
   * The runtime state as last written or read: each write compares the state's tables with it, one
   * lookup per entry, and makes keys and JSON only of the entries that differ.
   */
  private persisted: RuntimeState;
  private readonly taskSaves = new Map<string, Task>();
  private readonly taskDeletes = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly runtime: RuntimeEngine,
    tasks: TaskEngine,
  ) {
    this.persisted = snapshotState(runtime.state);
    runtime.onStateChange = () => this.saveState();
    tasks.onSave = (saved) => {
      for (const t of saved) {
        this.taskSaves.set(t.key, t);
        this.taskDeletes.delete(t.key);
      }
      this.saveTasks();
    };
    tasks.onDelete = (keys) => {
      for (const k of keys) {
        this.taskSaves.delete(k);
        this.taskDeletes.add(k);
      }
      this.saveTasks();
    };
  }

  /**
   * The error of the last write, when it failed (cleared by the next that succeeds), and the number
   * of that write: what an action changed is in every write begun after it started.
   */
  private failure?: { err: unknown; write: number };
  /** Writes begun so far (each takes what is in memory when it begins). */
  private begun = 0;
  private retry?: NodeJS.Timeout;

  /** The number of writes begun so far: give it to `flushStored` to hear only of later writes. */
  get writesBegun(): number {
    return this.begun;
  }

  /**
   * Queues a write so that writes reach the store in the order they were made. The write calls
   * `begin` just before it takes what is in memory.
   */
  private queue(write: (begin: () => void) => Promise<void>): void {
    this.queued++;
    let number = 0;
    this.writes = this.writes
      .then(() => write(() => (number = ++this.begun)))
      .then(
        () => {
          this.failure = undefined;
        },
        (err: unknown) => {
          this.failure = { err, write: number };
          this.retryLater();
        },
      );
  }

  /**
   * After a failed write (the store out of reach, its disk full) what was not stored is written
   * again a little later, and so on until the store takes it: nothing waits for another change.
   */
  private retryLater(): void {
    if (this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.saveState();
      if (this.taskSaves.size > 0 || this.taskDeletes.size > 0) this.saveTasks();
    }, RETRY_MS);
    this.retry.unref();
  }

  /**
   * A write run once for any number of changes made before it starts: it waits one turn of the
   * event loop, so that concurrent requests share it.
   */
  private coalesced(write: () => Promise<void>): () => void {
    let queued = false;
    return () => {
      if (queued) return;
      queued = true;
      this.queue(async (begin) => {
        await new Promise((resolve) => setImmediate(resolve));
        queued = false;
        begin();
        await write();
      });
    };
  }

  /** Writes the tasks changed since the last write. */
  private readonly saveTasks = this.coalesced(async () => {
    const tasks = [...this.taskSaves.values()];
    const saves = tasks.map(storedTask);
    const deletes = [...this.taskDeletes];
    this.taskSaves.clear();
    this.taskDeletes.clear();
    try {
      if (deletes.length > 0) await this.store.deleteTasks(deletes);
      if (saves.length > 0) await this.store.putTasks(saves);
    } catch (err) {
      // Kept for the next write, unless a later change of the same task came meanwhile.
      for (const t of tasks) if (!this.taskSaves.has(t.key) && !this.taskDeletes.has(t.key)) this.taskSaves.set(t.key, t);
      for (const k of deletes) if (!this.taskSaves.has(k)) this.taskDeletes.add(k);
      throw err;
    }
    if (saves.length > 0) await this.onPersisted({ tasks: saves });
  });

  /** Writes the runtime state entries that changed. */
  readonly saveState = this.coalesced(async () => {
    const entries = stateChanges(this.persisted, this.runtime.state);
    if (entries.length === 0) return;
    const put: Record<string, unknown> = {};
    const remove: string[] = [];
    for (const e of entries) {
      if (e.after === undefined) remove.push(e.key);
      else put[e.key] = e.after;
    }
    await this.store.writeRuntimeEntries(put, remove);
    // What was written is what the state held when the write began (later changes are the next write's).
    applyEntryChanges(this.persisted, entries);
    await this.onPersisted({ entries });
  });

  /** Waits until every queued write reached the store (or failed: see `flushStored`). */
  flush(): Promise<void> {
    return this.writes;
  }

  /**
   * Waits for the queued writes and throws the error of the last one when it failed: a change the
   * store did not take is not acknowledged (it is written once the store takes writes again).
   * `since` (a `writesBegun` taken before the change was made): a failed write begun earlier did
   * not carry the change, and is not its refusal (it is retried by itself).
   */
  async flushStored(since = 0): Promise<void> {
    await this.writes;
    if (this.failure !== undefined && this.failure.write > since) throw this.failure.err;
  }

  /** Stops retrying failed writes (the domain closes). */
  stop(): void {
    if (this.retry) clearTimeout(this.retry);
    this.retry = undefined;
  }

  /**
   * Takes in runtime state other servers sharing the store wrote. True when it differed from what
   * this server holds (the runtime state is then replaced; its trees must be rebuilt).
   */
  async reload(): Promise<boolean> {
    let entries: Record<string, unknown>;
    for (let attempt = 0; ; attempt++) {
      const before = this.queued;
      await this.writes;
      entries = await this.store.runtimeEntries();
      // A change made here while the store was read may have been written before or after the
      // read: what was read could be older than this server's own state, so it is read again.
      if (this.queued === before || attempt >= 5) break;
    }
    const incoming = entriesToState(entries);
    if (stateChanges(this.persisted, incoming).length === 0) return false;
    this.persisted = snapshotState(incoming);
    const state = this.runtime.state;
    Object.assign(state, entriesToState(entries));
    if (!state.servers.has(this.runtime.adminServerName)) state.servers.set(this.runtime.adminServerName, 'RUNNING');
    return true;
  }
}

/** A task as the store keeps it (its identity travels with its values). */
function storedTask(t: Task): StoredTask {
  return { key: t.key, collection: t.collection, ord: t.ord, type: t.type, values: { ...t.values, $identity: t.identity } };
}
