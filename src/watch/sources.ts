// Where the journal's events come from: this server's activations, and the runtime states and
// tasks it writes to the store. Each change is journaled once, by the server that made it; what
// other servers sharing the store made, they journal themselves.
import type { ConfigService } from '../config/config-service.js';
import type { RuntimePersistence } from '../runtime/persistence.js';
import type { WatchEventWrite } from '../store/store.js';
import { activationEvent, restoredEvent, runtimeEvent, taskEvent } from './events.js';
import type { WatchJournal } from './journal.js';

/** Task fingerprints remembered, so that a task saved again unchanged is not told twice. */
const REMEMBERED_TASKS = 10_000;

export interface WatchedParts {
  configService: ConfigService;
  persistence: RuntimePersistence;
  /** Registers a call for when the whole domain was replaced (a snapshot restored). */
  onRestored: (fn: () => void) => void;
}

export function connectSources(journal: WatchJournal, parts: WatchedParts): void {
  const { configService, persistence } = parts;
  // Everything may have changed at once: every watcher is told to read again.
  parts.onRestored(() => journal.append([restoredEvent(Date.now())]));
  // Before the runtime follows the activation, so its event comes before those of what it starts.
  configService.onActivation((result) => {
    // What another server activated, it journals; a dry run changed nothing.
    if (result.remote || result.id === undefined) return;
    const record = configService.records.find((r) => r.id === result.id);
    journal.append([activationEvent(result, { user: record?.user ?? '', editSession: record?.editSession ?? '' }, Date.now())]);
  }, true);

  const seen = new Map<string, string>();
  const chained = persistence.onPersisted;
  persistence.onPersisted = (changes) => {
    const now = Date.now();
    const events: WatchEventWrite[] = [];
    for (const e of changes.entries ?? []) {
      const event = runtimeEvent(e.key, e.before, e.after, now);
      if (event) events.push(event);
    }
    for (const t of changes.tasks ?? []) {
      const told = taskEvent(t, now);
      if (!told || seen.get(t.key) === told.fingerprint) continue;
      seen.delete(t.key);
      seen.set(t.key, told.fingerprint);
      if (seen.size > REMEMBERED_TASKS) seen.delete(seen.keys().next().value!);
      events.push(told.event);
    }
    journal.append(events);
    return chained(changes);
  };
}
