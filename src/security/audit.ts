// The audit trail: who did what, from which address, on which bean, and how it ended. Entries are
// appended to the store, logged, and readable by administrators at `domainRuntime/auditRecords`.
// Never a password, not even a wrong one. Identical requests within one minute (same user,
// address, action, bean, outcome and detail) fold into one record with a count, and records older
// than the retention are removed.
import type { AuditIncrement, AuditRecord, AuditWrite, Store } from '../store/store.js';

export type { AuditRecord } from '../store/store.js';

export interface AuditEntry {
  /** The authenticated user, or the user name tried for a failed login; null for the server itself. */
  user: string | null;
  address: string;
  action: string;
  bean: string;
  /** 'success', 'accepted' (a task runs on), 'failure', 'refused', 'locked out'... */
  outcome: string;
  detail?: string;
}

/** What a handler adds to the audit record of its request. */
export interface AuditNote {
  detail?: string;
}

/** Records listed at `domainRuntime/auditRecords` (every record stays readable by its id). */
export const AUDIT_PAGE = 200;
/** Records stored in one transaction at most. */
const BATCH = 500;
/** Identical records within one such window fold into one. */
export const FOLD_WINDOW_MS = 60_000;
/** Kinds of record remembered for folding in the current window at most (past that, each gets its own row). */
const FOLD_KINDS = 10_000;
/** Default retention of audit records: 90 days. */
export const DEFAULT_AUDIT_RETENTION_MS = 90 * 24 * 3_600_000;
/** Records removed in one transaction by retention, and transactions per sweep at most. */
const PRUNE_BATCH = 5_000;
const PRUNE_BATCHES = 20;
/** How often retention looks for old records at most (more often for retentions under a day). */
const PRUNE_EVERY_MS = 10 * 60_000;

/** Audit records read for one request. */
export interface AuditView {
  /** Newest first. */
  page: AuditRecord[];
  /** A record asked for by id, outside the page. */
  extra?: AuditRecord;
}

const clip = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 3)}...` : s);

/** Argument and property names whose values are secrets: they never reach the audit. */
export const SECRET_NAME = /pass|secret|credential|encrypted|confidential|token/i;

/**
 * The values a request body holds under secret names, whatever their JSON type: every string and
 * number below a key named like a secret (`password: 12345`, `password: ["x"]`, `password: {"a":
 * "x"}`), and below the other keys of a name/value pair whose name is (`{"name": "password",
 * "value": ...}`, as data source and Lifecycle Manager properties are written).
 */
export function secretValues(body: unknown, out: string[] = [], secret = false, depth = 0): string[] {
  if (depth > 32) return out;
  if (secret && (typeof body === 'string' || typeof body === 'number' || typeof body === 'bigint') && String(body) !== '') out.push(String(body));
  if (body === null || typeof body !== 'object') return out;
  const entries = Object.entries(body as Record<string, unknown>);
  const named = (body as Record<string, unknown>).name;
  const pairOfSecret = !Array.isArray(body) && typeof named === 'string' && SECRET_NAME.test(named);
  for (const [k, v] of entries) secretValues(v, out, secret || SECRET_NAME.test(k) || (pairOfSecret && k !== 'name'), depth + 1);
  return out;
}

/** Shortest start of a secret that is still masked where a message cut it short (`abcdef...`). */
const MIN_CUT = 6;

/**
 * `text` with every occurrence of the secrets replaced by `***`: as sent, as JSON writes them
 * (quotes and backslashes escaped), and cut short where a message shows only their start (`...`).
 */
export function redact(text: string, secrets: readonly string[]): string {
  const forms = new Set<string>();
  for (const s of secrets) {
    forms.add(s);
    forms.add(JSON.stringify(s).slice(1, -1));
  }
  let out = text;
  for (const s of [...forms].sort((a, b) => b.length - a.length)) out = out.split(s).join('***');
  if (!out.includes('...')) return out;
  for (const s of forms) {
    for (let k = Math.min(s.length - 1, 200); k >= MIN_CUT; k--) {
      const cut = `${s.slice(0, k)}...`;
      if (out.includes(cut)) out = out.split(cut).join('***...');
    }
  }
  return out;
}

type Pending = { entry: AuditEntry; record: Omit<AuditRecord, 'id' | 'count' | 'lastTime'>; done: () => void };

export class AuditLog {
  private queue: Pending[] = [];
  private writing: Promise<void> | undefined;
  /** The window being folded, and the stored record of each kind seen in it. */
  private window = -1;
  private kinds = new Map<string, number>();
  private pruneTimer: ReturnType<typeof setTimeout> | undefined;
  private pruning: Promise<void> | undefined;
  private closed = false;
  /** Called with every record written here (the server logs them); `id` is the row it was folded into. */
  onRecord: (record: AuditRecord) => void = () => {};
  /** Called when a record could not be stored. */
  onError: (err: unknown, entry: AuditEntry) => void = () => {};

  constructor(
    private readonly store: Store,
    private readonly now: () => number,
  ) {}

  /**
   * Appends a record, resolved once it is stored (a new row, or the count of the identical row of
   * the same minute); a failure to store it is reported, never thrown at the caller. Records that
   * arrive while a write is under way are stored together next, in one transaction.
   */
  record(entry: AuditEntry): Promise<void> {
    const record = {
      time: this.now(),
      user: entry.user === null ? null : clip(entry.user, 200),
      address: clip(entry.address, 100),
      action: clip(entry.action, 100),
      bean: clip(entry.bean, 500),
      outcome: clip(entry.outcome, 50),
      detail: clip(entry.detail ?? '', 1000),
    };
    return new Promise((done) => {
      this.queue.push({ entry, record, done });
      this.writing ??= this.write();
    });
  }

  /** Resolves once every record asked for so far is stored (or reported as failed). */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async write(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, BATCH);
      // New rows for kinds not stored yet in their window; increments for the others.
      const rows: (AuditWrite & { count: number; lastTime: number; key: string; window: number })[] = [];
      const fresh = new Map<string, (typeof rows)[number]>();
      const increments = new Map<number, AuditIncrement>();
      const targets: { row?: (typeof rows)[number]; id?: number }[] = [];
      for (const b of batch) {
        const r = b.record;
        const window = Math.floor(r.time / FOLD_WINDOW_MS);
        const key = JSON.stringify([window, r.user, r.address, r.action, r.bean, r.outcome, r.detail]);
        const storedId = window === this.window ? this.kinds.get(key) : undefined;
        if (storedId !== undefined) {
          const inc = increments.get(storedId) ?? { id: storedId, count: 0, lastTime: r.time };
          inc.count++;
          inc.lastTime = Math.max(inc.lastTime, r.time);
          increments.set(storedId, inc);
          targets.push({ id: storedId });
          continue;
        }
        const row = fresh.get(key);
        if (row) {
          row.count++;
          row.lastTime = Math.max(row.lastTime, r.time);
          targets.push({ row });
          continue;
        }
        const added = { ...r, count: 1, lastTime: r.time, key, window };
        fresh.set(key, added);
        rows.push(added);
        targets.push({ row: added });
      }
      try {
        const ids = await this.store.appendAudit(
          rows.map(({ key: _k, window: _w, ...w }) => w),
          [...increments.values()],
        );
        const idOf = new Map(rows.map((row, i) => [row, ids[i]!]));
        for (const row of rows) this.remember(row.window, row.key, idOf.get(row)!);
        batch.forEach((b, i) => {
          const t = targets[i]!;
          const id = t.id ?? idOf.get(t.row!)!;
          this.onRecord({ id, ...b.record, count: 1, lastTime: b.record.time });
        });
      } catch (err) {
        for (const b of batch) this.onError(err, b.entry);
      }
      for (const b of batch) b.done();
    }
    this.writing = undefined;
  }

  /** Remembers the stored row of a kind for the rest of its window (only the newest window is kept). */
  private remember(window: number, key: string, id: number): void {
    if (window < this.window) return;
    if (window > this.window) {
      this.window = window;
      this.kinds.clear();
    }
    if (this.kinds.size < FOLD_KINDS) this.kinds.set(key, id);
  }

  /**
   * Removes records whose last request is older than `retentionMs` now and then every so often
   * (0: keeps them all). Each sweep removes a bounded number; a sweep that did not finish is
   * followed by another soon.
   */
  startRetention(retentionMs: number): void {
    if (retentionMs <= 0 || this.closed) return;
    const every = Math.max(1000, Math.min(PRUNE_EVERY_MS, Math.floor(retentionMs / 2)));
    const sweep = async (): Promise<void> => {
      let more = false;
      try {
        more = await this.prune(this.now() - retentionMs);
      } catch (err) {
        this.onPruneError(err);
      }
      if (this.closed) return;
      this.pruneTimer = setTimeout(() => (this.pruning = sweep()), more ? 1000 : every);
      this.pruneTimer.unref?.();
    };
    this.pruning = sweep();
  }

  /** Called when removing old records failed (tried again at the next sweep). */
  onPruneError: (err: unknown) => void = () => {};

  /** One sweep: removes records older than `before`; true if some may be left. */
  async prune(before: number): Promise<boolean> {
    for (let i = 0; i < PRUNE_BATCHES; i++) {
      if (this.closed) return false;
      if ((await this.store.pruneAudit(before, PRUNE_BATCH)) < PRUNE_BATCH) return false;
    }
    return true;
  }

  /** Stops retention and stores every record asked for so far (before the store closes). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.pruneTimer) clearTimeout(this.pruneTimer);
    await this.pruning?.catch(() => undefined);
    await this.flush();
  }

  /**
   * The records a request shows: the newest `AUDIT_PAGE` (or those before the id `before`), and the
   * one with the id `id` wherever it is.
   */
  async view(opts: { before?: number | undefined; id?: number | undefined } = {}): Promise<AuditView> {
    const page = await this.store.auditRecords(AUDIT_PAGE, opts.before);
    const id = opts.id;
    const extra = id !== undefined && Number.isSafeInteger(id) && !page.some((r) => r.id === id) ? await this.store.auditRecord(id) : undefined;
    return { page, ...(extra ? { extra } : {}) };
  }
}
