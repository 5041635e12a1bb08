// Answers of reads as the bytes they were sent, with their entity tag, so that the same read asked
// again costs a lookup instead of a walk, a render and a print. An entry is made for one URL (path
// and query), one origin, one edit session, one answering server and one kind of reader (what
// its roles let it see), and is dropped with every other one as soon as anything in the domain
// changes (the domain's change signal). An answer that shows figures of the workload model holds
// only while the clock and the requests counted into figures stand still; one that shows figures
// moving by themselves (this process's, pools', data sources', lockouts') is never kept. The
// memory held is bounded: least recently used entries go first.

export interface CachedRead {
  bytes: Buffer;
  etag: string;
}

/** Where the domain stood when a read began: its answer is kept only if nothing moved since. */
export interface ReadTicket {
  generation: number;
  at: number;
  served: number;
}

interface Entry extends CachedRead {
  /** The clock's time and the requests served when the answer was made (figures only). */
  at?: number;
  served?: number;
}

/** What a read looked at while it was rendered, beyond the stored state. */
export interface ReadWatch {
  /** Figures of the workload model: they move with the clock and with requests served. */
  figures: boolean;
  /** Figures that move by themselves (the process, pools, data sources, JMS, lockouts): not kept. */
  volatile: boolean;
}

export interface ReadCacheLimits {
  /** Bytes of answers kept at most (all entries together). */
  maxBytes: number;
  /** Largest answer kept. */
  maxEntryBytes: number;
}

export const DEFAULT_READ_CACHE: ReadCacheLimits = { maxBytes: 64 * 1024 * 1024, maxEntryBytes: 8 * 1024 * 1024 };

/** Where figures stand now: the clock and the requests counted into figures. */
export interface FigureClock {
  now(): number;
  served(): number;
}

/** A map bounded by the bytes of what it holds: a use moves an entry last; the first go when full. */
class ByteLru<V> {
  private entries = new Map<string, V>();
  bytes = 0;

  constructor(
    private readonly maxBytes: () => number,
    private readonly sizeOf: (key: string, value: V) => number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The value at `key`, now the most recently used; undefined when absent. */
  use(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: string, value: V): void {
    this.delete(key);
    this.entries.set(key, value);
    this.bytes += this.sizeOf(key, value);
    while (this.bytes > this.maxBytes()) this.delete(this.entries.keys().next().value as string);
  }

  delete(key: string): void {
    const old = this.entries.get(key);
    if (old === undefined) return;
    this.entries.delete(key);
    this.bytes -= this.sizeOf(key, old);
  }

  clear(): void {
    if (this.entries.size === 0) return;
    this.entries = new Map();
    this.bytes = 0;
  }
}

/** Reads found too large for a page that are remembered at most. */
const MAX_REFUSALS = 1024;

export class ReadCache {
  private readonly entries = new ByteLru<Entry>(
    () => this.limits.maxBytes,
    (key, entry) => entry.bytes.length + key.length * 2,
  );
  /** Moves with every change of the domain. */
  private generation = 0;
  hits = 0;
  misses = 0;
  /**
   * Parts of searches' answers (the text of one child of a server's runtime root, for one query
   * node), by the same rule as whole answers but never one that shows figures; an eighth of the bytes.
   */
  private readonly parts = new ByteLru<string>(
    () => this.limits.maxBytes / 8,
    (key, text) => 2 * (text.length + key.length),
  );
  partHits = 0;
  /**
   * Reads found too large for a page (see `View.page`), by the same keys, rules and changes as the
   * answers; the oldest go first past MAX_REFUSALS.
   */
  private readonly refusals = new Map<string, { items?: number }>();

  constructor(
    private readonly limits: ReadCacheLimits,
    private readonly figures: FigureClock,
  ) {}

  /** Forgets every answer (the domain changed). */
  clear(): void {
    this.generation++;
    this.parts.clear();
    this.entries.clear();
    this.refusals.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  get heldBytes(): number {
    return this.entries.bytes;
  }

  /** The largest answer kept. */
  get largestEntry(): number {
    return this.limits.maxEntryBytes;
  }

  /** Taken when a read begins, and given back with its answer (see `put`). */
  ticket(): ReadTicket {
    return { generation: this.generation, at: this.figures.now(), served: this.figures.served() };
  }

  get(key: string): CachedRead | undefined {
    const entry = this.entries.use(key);
    if (entry === undefined) {
      this.misses++;
      return undefined;
    }
    if (entry.at !== undefined && (entry.at !== this.figures.now() || entry.served !== this.figures.served())) {
      this.entries.delete(key);
      this.misses++;
      return undefined;
    }
    this.hits++;
    return entry;
  }

  /**
   * Keeps an answer rendered since `ticket` was taken, unless the domain changed since (the answer
   * may have been printed in pieces over a while), what it showed moves by itself, or it is too large.
   */
  put(key: string, read: CachedRead, watch: ReadWatch, ticket: ReadTicket): void {
    const size = read.bytes.length + key.length * 2;
    if (watch.volatile || size > this.limits.maxEntryBytes || ticket.generation !== this.generation) return;
    if (watch.figures && (ticket.at !== this.figures.now() || ticket.served !== this.figures.served())) return;
    this.entries.set(key, watch.figures ? { ...read, at: ticket.at, served: ticket.served } : { ...read });
  }

  /** Why the read `key` was too large for a page, when it was found so since the domain last changed. */
  refusedPage(key: string): { items?: number } | undefined {
    return this.refusals.get(key);
  }

  /** Remembers that the read `key`, begun at `ticket`, was too large for a page (not for reads showing figures). */
  putRefusedPage(key: string, why: { items?: number }, watch: ReadWatch, ticket: ReadTicket): void {
    if (watch.volatile || watch.figures || ticket.generation !== this.generation) return;
    this.refusals.delete(key);
    this.refusals.set(key, { ...why });
    if (this.refusals.size > MAX_REFUSALS) this.refusals.delete(this.refusals.keys().next().value!);
  }

  /** A part of a search's answer kept by `putPart`. */
  getPart(key: string): string | undefined {
    const text = this.parts.use(key);
    if (text !== undefined) this.partHits++;
    return text;
  }

  /** Keeps a part of a search's answer rendered since `ticket` (showing no figures), unless the domain moved since. */
  putPart(key: string, text: string, ticket: ReadTicket): void {
    const size = 2 * (text.length + key.length);
    if (size > this.limits.maxEntryBytes || size > this.limits.maxBytes / 8 || ticket.generation !== this.generation) return;
    this.parts.set(key, text);
  }
}
