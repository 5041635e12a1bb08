// What of a store goes into a backup: the tables that hold the domain, each with its columns and
// which of them are whole numbers or may be empty. Left out on purpose: who is alive now
// (instances), who holds a managed server's ports (listener_leases), failed-login counts and
// lockouts (login_failures), the component versions (a restore moves them all on), and the
// start-up images of bean trees (images: copies of rows, which a restore's writes drop).

export interface BackupTable {
  name: string;
  columns: readonly string[];
  /** Columns holding whole numbers (the rest hold text). */
  integers: readonly string[];
  /** Columns that may be null. */
  nullable: readonly string[];
  /** The auto-numbered column, whose counter a restore moves past the restored rows. */
  autoId?: string;
  /**
   * The last columns, added after backups of the table were first written: a file written before
   * them names the columns without these (a restore then gives them their defaults).
   */
  added?: readonly string[];
  /** Whole-number columns with a least value (a record stands for at least one request). */
  least?: Readonly<Record<string, number>>;
  /**
   * Columns that hold a JSON object's text (a bean's values): a restored value that is not one
   * would stop the next start of the server, which reads it as such.
   */
  objects?: readonly string[];
}

export const BACKUP_TABLES: readonly BackupTable[] = [
  { name: 'meta', columns: ['key', 'value'], integers: [], nullable: [] },
  { name: 'beans', columns: ['tree', 'key', 'collection', 'name', 'ord', 'type', 'data'], integers: ['ord'], nullable: ['collection', 'name'], objects: ['data'] },
  { name: 'users', columns: ['name', 'hash', 'description'], integers: [], nullable: [] },
  { name: 'groups', columns: ['name', 'description'], integers: [], nullable: [] },
  { name: 'group_members', columns: ['grp', 'member'], integers: [], nullable: [] },
  { name: 'sessions', columns: ['name', 'info', 'changes', 'rev'], integers: ['rev'], nullable: [] },
  { name: 'activations', columns: ['id', 'version', 'data'], integers: ['id', 'version'], nullable: [], autoId: 'id' },
  { name: 'runtime', columns: ['key', 'data'], integers: [], nullable: [] },
  { name: 'tasks', columns: ['key', 'collection', 'ord', 'type', 'data'], integers: ['ord'], nullable: [] },
  { name: 'documents', columns: ['key', 'data', 'rev'], integers: ['rev'], nullable: [] },
  // A record stands for `count` requests of one kind, the last of them at `last_at`.
  {
    name: 'audit',
    columns: ['id', 'at', 'username', 'address', 'action', 'bean', 'outcome', 'detail', 'count', 'last_at'],
    integers: ['id', 'at', 'count', 'last_at'],
    nullable: ['username', 'last_at'],
    autoId: 'id',
    added: ['count', 'last_at'],
    least: { count: 1 },
  },
  { name: 'snapshots', columns: ['name', 'created', 'bytes', 'data'], integers: ['created', 'bytes'], nullable: [] },
  { name: 'watch_events', columns: ['id', 'at', 'kind', 'data'], integers: ['id', 'at'], nullable: [], autoId: 'id' },
];

/** Tables a restore empties without filling: they describe the servers of the moment, not the domain. */
export const TRANSIENT_TABLES = ['instances', 'listener_leases', 'login_failures'] as const;

/**
 * Meta entries never backed up: a domain half-created by a server ('creating'), and the secret key
 * itself, which stores written by early versions kept there (it goes in only when asked, apart).
 */
export const PRIVATE_META = new Set(['creating', 'secretKey']);

/** The rows of one table, as read for a backup or fed to a restore. */
export interface TableRows {
  table: string;
  columns: readonly string[];
  rows: unknown[][];
}

/** One table as a backup reads it: how many rows, then the rows a batch at a time. */
export interface TableStream {
  table: string;
  columns: readonly string[];
  count: number;
  batches: AsyncIterable<unknown[][]>;
}

/**
 * A consistent read of the store for a backup, read table by table while the backup is written (the
 * server never holds the whole store for it); `close` ends it, read through or not.
 */
export interface StoreDump {
  /** The schema version of the store read. */
  schema: number;
  dialect: 'sqlite' | 'postgres';
  /** The activated configuration's version at the time of the read. */
  configVersion: number;
  /** The tables in the order of BACKUP_TABLES; each is read through before the next is asked for. */
  tables: AsyncIterable<TableStream>;
  close(): Promise<void>;
}
