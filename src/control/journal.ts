// The request journal: the last N requests the server answered, so a test can assert what its
// client did. A ring of plain records; reading filters it, newest first.
import { badRequest } from '../core/problems.js';
import { globMatch } from './glob.js';

export interface JournalEntry {
  id: number;
  /** Epoch ms (wall clock) when the request arrived. */
  time: number;
  method: string;
  /** Path and query as sent. */
  path: string;
  user: string | null;
  /** 0 when the connection was dropped without an answer. */
  status: number;
  durationMs: number;
  /** Bytes of the request body (as declared) and of the answer. */
  requestBytes: number;
  responseBytes: number;
  /** The fault that acted on it, if one did. */
  fault?: string;
}

export const DEFAULT_JOURNAL_CAPACITY = 1000;
export const MAX_JOURNAL_CAPACITY = 100_000;

export interface JournalFilter {
  method?: string;
  /** `*` matches any characters; without one, a substring of the path. */
  path?: string;
  user?: string;
  status?: number;
  /** Entries with an id above this one. */
  after?: number;
  limit?: number;
}

export class Journal {
  private entries: JournalEntry[] = [];
  private next = 1;
  /** Where the oldest entry is, once the ring is full. */
  private start = 0;

  constructor(private cap = DEFAULT_JOURNAL_CAPACITY) {}

  get capacity(): number {
    return this.cap;
  }

  get size(): number {
    return this.entries.length;
  }

  record(entry: Omit<JournalEntry, 'id'>): void {
    const full: JournalEntry = { id: this.next++, ...entry };
    if (this.entries.length < this.cap) this.entries.push(full);
    else {
      this.entries[this.start] = full;
      this.start = (this.start + 1) % this.cap;
    }
  }

  /** Entries oldest first. */
  private ordered(): JournalEntry[] {
    return this.start === 0 ? this.entries : [...this.entries.slice(this.start), ...this.entries.slice(0, this.start)];
  }

  /** Matching entries, newest first. */
  read(filter: JournalFilter = {}): JournalEntry[] {
    const out: JournalEntry[] = [];
    const all = this.ordered();
    for (let i = all.length - 1; i >= 0 && out.length < (filter.limit ?? Infinity); i--) {
      const e = all[i]!;
      if (filter.after !== undefined && e.id <= filter.after) break;
      if (filter.method !== undefined && e.method !== filter.method) continue;
      if (filter.user !== undefined && e.user !== filter.user) continue;
      if (filter.status !== undefined && e.status !== filter.status) continue;
      if (filter.path !== undefined && !(filter.path.includes('*') ? globMatch(filter.path, e.path.split('?')[0]!) : e.path.includes(filter.path))) continue;
      out.push(e);
    }
    return out;
  }

  clear(): number {
    const n = this.entries.length;
    this.entries = [];
    this.start = 0;
    return n;
  }

  /** Keeps the newest entries that fit a new capacity. */
  resize(capacity: unknown): void {
    if (typeof capacity !== 'number' || !Number.isInteger(capacity) || capacity < 1 || capacity > MAX_JOURNAL_CAPACITY) {
      throw badRequest(`The property 'capacity' must be an integer from 1 to ${MAX_JOURNAL_CAPACITY}; it is ${JSON.stringify(capacity)}.`, 'capacity');
    }
    const kept = this.ordered().slice(-capacity);
    this.entries = kept;
    this.start = 0;
    this.cap = capacity;
  }
}
