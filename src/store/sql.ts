// The small adapter between the store and a SQL database: statements with `?` placeholders,
// transactions, and (for PostgreSQL) change notifications between servers.

export interface SqlClient {
  all<T>(sql: string, params?: unknown[]): Promise<T[]>;
  run(sql: string, params?: unknown[]): Promise<{ changes: number; lastId: number | undefined }>;
}

export interface SqlDriver extends SqlClient {
  readonly dialect: 'sqlite' | 'postgres';
  /** Runs `fn` in one transaction; nothing else touches the database meanwhile on this connection. */
  transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** Sends a notification when the current transaction commits (PostgreSQL). */
  notifySql?: string;
  listen?(channel: string, fn: (payload: string) => void): Promise<void>;
}
