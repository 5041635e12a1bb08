// The audit trail: who did what, from which address, on which bean, and how it ended. Entries are
// appended to the store (never changed or removed), logged, and readable by administrators at
// `domainRuntime/auditRecords`. Never a password, not even a wrong one.
import type { AuditRecord, Store } from '../store/store.js';

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

export class AuditLog {
  private queue: { entry: AuditEntry; record: Omit<AuditRecord, 'id'>; done: () => void }[] = [];
  private writing = false;
  /** Called with every record written here (the server logs them). */
  onRecord: (record: AuditRecord) => void = () => {};
  /** Called when a record could not be stored. */
  onError: (err: unknown, entry: AuditEntry) => void = () => {};

  constructor(
    private readonly store: Store,
    private readonly now: () => number,
  ) {}

  /**
   * Appends a record, resolved once it is stored; a failure to store it is reported, never thrown
   * at the caller. Records that arrive while a write is under way are stored together next.
   */
  record(entry: AuditEntry): Promise<void> {
    const record: Omit<AuditRecord, 'id'> = {
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
      if (!this.writing) void this.write();
    });
  }

  private async write(): Promise<void> {
    this.writing = true;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, BATCH);
      try {
        const ids = await this.store.appendAudit(batch.map((b) => b.record));
        batch.forEach((b, i) => this.onRecord({ id: ids[i]!, ...b.record }));
      } catch (err) {
        for (const b of batch) this.onError(err, b.entry);
      }
      for (const b of batch) b.done();
    }
    this.writing = false;
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
