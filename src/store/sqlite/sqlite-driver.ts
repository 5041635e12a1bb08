// SQLite through better-sqlite3: one file, WAL journal, full sync. Statements are synchronous, so a
// queue keeps other statements out of a transaction that awaits between its own.
// A new file is made with mode 0600 (SQLite gives its -wal and -shm files the same mode). An
// existing file must be a store: an empty file, one that is not SQLite, or a SQLite database of
// something else is refused and left as it is, never taken for a new store.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import Database from 'better-sqlite3';
import { Mutex } from '../../core/mutex.js';
import { insufficientStorage } from '../../core/problems.js';
import type { SnapshotReader, SqlClient, SqlDriver, TransactionMode } from '../sql.js';

export class SqliteDriver implements SqlDriver {
  readonly dialect = 'sqlite' as const;
  private readonly db: Database.Database;
  private readonly queue = new Mutex();
  private readonly direct: SqlClient;

  constructor(file: string) {
    const fresh = createFile(file);
    if (!fresh) checkHeader(file);
    try {
      this.db = new Database(file, { fileMustExist: true });
    } catch (err) {
      throw unusable(file, `cannot be opened as a SQLite database (${(err as Error).message})`);
    }
    if (!fresh) {
      try {
        checkTables(this.db, file);
      } catch (err) {
        this.db.close();
        throw err;
      }
    }
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('busy_timeout = 5000');
    const db = this.db;
    const full = (err: unknown) => storageProblem(err, file);
    this.direct = {
      async all<T>(sql: string, params: unknown[] = []): Promise<T[]> {
        try {
          return db.prepare(sql).all(...params) as T[];
        } catch (err) {
          throw full(err);
        }
      },
      async run(sql: string, params: unknown[] = []) {
        try {
          const r = db.prepare(sql).run(...params);
          return { changes: r.changes, lastId: Number(r.lastInsertRowid) };
        } catch (err) {
          throw full(err);
        }
      },
    };
    this.file = file;
  }

  private readonly file: string;

  all<T>(sql: string, params?: unknown[]): Promise<T[]> {
    return this.queue.run(() => this.direct.all<T>(sql, params));
  }

  run(sql: string, params?: unknown[]) {
    return this.queue.run(() => this.direct.run(sql, params));
  }

  rows(sql: string, params: unknown[] = []): Promise<unknown[][]> {
    return this.queue.run(async () => {
      try {
        return this.db.prepare(sql).raw(true).all(...params) as unknown[][];
      } catch (err) {
        throw storageProblem(err, this.file);
      }
    });
  }

  transaction<T>(fn: (tx: SqlClient) => Promise<T>, mode: TransactionMode = 'write'): Promise<T> {
    return this.queue.run(async () => {
      // A read-only transaction takes no write lock; in WAL mode it reads one committed state.
      try {
        this.db.exec(mode === 'snapshot' ? 'BEGIN DEFERRED' : 'BEGIN IMMEDIATE');
      } catch (err) {
        throw storageProblem(err, this.file);
      }
      try {
        const result = await fn(this.direct);
        this.db.exec('COMMIT');
        return result;
      } catch (err) {
        // SQLite rolls back by itself after some errors (a full disk among them): a ROLLBACK then
        // would fail and hide the error that matters.
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw storageProblem(err, this.file);
      }
    });
  }

  async close(): Promise<void> {
    await this.queue.run(() => this.db.close());
  }

  /**
   * A second connection to the same file, in a read transaction: in WAL mode it keeps reading the
   * state it began with while the first connection commits, and nothing queues behind it.
   */
  async snapshot(): Promise<SnapshotReader> {
    const file = this.file;
    let db: Database.Database;
    try {
      db = new Database(file, { fileMustExist: true });
      db.pragma('busy_timeout = 5000');
      db.exec('BEGIN');
      // A deferred transaction takes its snapshot at its first read: take it now.
      db.prepare('SELECT 1 FROM schema_version LIMIT 1').all();
    } catch (err) {
      throw storageProblem(err, file);
    }
    const close = async () => {
      if (!db.open) return;
      if (db.inTransaction) db.exec('ROLLBACK');
      db.close();
    };
    return {
      async all<T>(sql: string, params: unknown[] = []): Promise<T[]> {
        return db.prepare(sql).all(...params) as T[];
      },
      async *batches<T>(sql: string, size: number): AsyncGenerator<T[]> {
        let batch: T[] = [];
        for (const row of db.prepare(sql).iterate() as IterableIterator<T>) {
          batch.push(row);
          if (batch.length < size) continue;
          const full = batch;
          batch = [];
          yield full;
        }
        if (batch.length > 0) yield batch;
      },
      close,
    };
  }
}

/** SQLite's result codes of a file system that is full or failed a write. */
const FULL_CODES = /^SQLITE_(FULL|IOERR_WRITE|IOERR_FSYNC|IOERR_TRUNCATE|IOERR_SHMSIZE|IOERR_DIR_FSYNC)$/;
const READ_ONLY_CODES = /^SQLITE_READONLY/;

/** The problem of a statement the file system refused (full, read-only); other errors as they are. */
function storageProblem(err: unknown, file: string): unknown {
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string') return err;
  if (FULL_CODES.test(code)) {
    return insufficientStorage(`The file system holding the domain's store (${file}) is full or failed a write (${code}): nothing was changed. Free space on it; the server goes on by itself once there is room.`);
  }
  if (READ_ONLY_CODES.test(code)) {
    return insufficientStorage(`The domain's store (${file}) cannot be written (${code}: its file or file system became read-only): nothing was changed. Make it writable again; the server goes on by itself.`);
  }
  return err;
}

/** Creates the database file, mode 0600, if there is none; true if it did. */
function createFile(file: string): boolean {
  try {
    closeSync(openSync(file, 'wx', 0o600));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new Error(`cannot create ${file}: ${(err as Error).message}`);
  }
}

const HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/** An existing file must be a regular, non-empty file starting with the SQLite header. */
function checkHeader(file: string): void {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    throw new Error(`cannot read ${file}: ${(err as Error).message}. The server did not start and left the file as it is.`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw unusable(file, 'is not a regular file');
    if (stat.size === 0) {
      throw unusable(file, 'is empty (0 bytes), so it holds no domain (a full disk or a failed copy can leave such a file)', 'remove it to create a new domain here');
    }
    const head = Buffer.alloc(HEADER.length);
    const n = readSync(fd, head, 0, head.length, 0);
    if (n < head.length || !head.equals(HEADER)) {
      throw unusable(file, `is not a SQLite database (${stat.size} bytes that do not start with the SQLite header)`, 'move it away to create a new domain here');
    }
  } finally {
    closeSync(fd);
  }
}

/** A database that holds tables must hold this server's schema. */
function checkTables(db: Database.Database, file: string): void {
  let tables: string[];
  try {
    tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name);
  } catch (err) {
    throw unusable(file, `cannot be read (${(err as Error).message})`);
  }
  if (tables.length > 0 && !tables.includes('schema_version')) {
    const shown = tables.slice(0, 5).join(', ') + (tables.length > 5 ? ', ...' : '');
    throw unusable(file, `is a SQLite database of something else (tables ${shown}), not a domain store`, 'use another data directory');
  }
}

/** The error of a file that is there but is no usable store. */
function unusable(file: string, what: string, otherwise = 'move it away to create a new domain here'): Error {
  return new Error(`${file} ${what}. The server did not start and left the file as it is: restore the file from a backup, or ${otherwise}.`);
}
