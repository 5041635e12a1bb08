// The small adapter between the store and a SQL database: statements with `?` placeholders,
// transactions, and (for PostgreSQL) change notifications between servers.

export interface SqlClient {
  all<T>(sql: string, params?: unknown[]): Promise<T[]>;
  run(sql: string, params?: unknown[]): Promise<{ changes: number; lastId: number | undefined }>;
}

/** 'write' (the default) takes the write lock at once (SQLite); 'snapshot' only reads, and sees one committed state throughout. */
export type TransactionMode = 'write' | 'snapshot';

/** One committed state of the database, read piece by piece on a connection of its own. */
export interface SnapshotReader {
  all<T>(sql: string, params?: unknown[]): Promise<T[]>;
  /** The rows of `sql` in batches of at most `size`, each read when it is asked for. */
  batches<T>(sql: string, size: number): AsyncGenerator<T[]>;
  /** Ends the read and frees its connection (called again: nothing). */
  close(): Promise<void>;
}

export interface SqlDriver extends SqlClient {
  readonly dialect: 'sqlite' | 'postgres';
  /**
   * The rows of `sql`, each as the list of its columns in the order selected: no object with named
   * fields is made per row, which costs more than the read itself when a start reads 60,000 beans.
   */
  rows(sql: string, params?: unknown[]): Promise<unknown[][]>;
  /** Runs `fn` in one transaction; nothing else touches the database meanwhile on this connection. */
  transaction<T>(fn: (tx: SqlClient) => Promise<T>, mode?: TransactionMode): Promise<T>;
  close(): Promise<void>;
  /**
   * Opens a read of one committed state that other statements do not wait for while it is read
   * (a backup streamed to a slow client): writes go on meanwhile and it does not see them.
   */
  snapshot(): Promise<SnapshotReader>;
  /** Sends a notification when the current transaction commits (PostgreSQL). */
  notifySql?: string;
  /**
   * Calls `fn` with each notification on `channel` (PostgreSQL). When listening had to begin again
   * (the connection was lost), `restored` is called: notifications sent meanwhile were missed.
   */
  listen?(channel: string, fn: (payload: string) => void, restored?: () => void): Promise<void>;
}

/** Errors of a COMMIT whose answer was lost: the change may or may not have been applied. */
const uncertain = new WeakSet<object>();

/** Marks an error as thrown by a COMMIT whose outcome is unknown (drivers). */
export function markCommitUncertain<E extends object>(err: E): E {
  uncertain.add(err);
  return err;
}

/** Whether an error was thrown by a COMMIT whose outcome is unknown. */
export function commitUncertain(err: unknown): boolean {
  return typeof err === 'object' && err !== null && uncertain.has(err);
}
