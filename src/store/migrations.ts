// Schema migrations, applied in order inside one transaction; a store remembers the last one it ran.
// The two dialects differ only in how an auto-numbered key is declared.

export interface Migration {
  version: number;
  sql: (dialect: 'sqlite' | 'postgres') => string[];
}

const autoId = (d: 'sqlite' | 'postgres') => (d === 'sqlite' ? 'INTEGER PRIMARY KEY AUTOINCREMENT' : 'BIGSERIAL PRIMARY KEY');
/** Keys compare byte by byte (subtrees are key ranges); PostgreSQL would otherwise use the locale's order. */
const keyText = (d: 'sqlite' | 'postgres') => (d === 'sqlite' ? 'TEXT' : 'TEXT COLLATE "C"');

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    sql: (d) => [
      'CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)',
      'CREATE TABLE versions (component TEXT PRIMARY KEY, version BIGINT NOT NULL)',
      `CREATE TABLE beans (
         tree TEXT NOT NULL, key ${keyText(d)} NOT NULL, collection TEXT, name TEXT, ord BIGINT NOT NULL DEFAULT 0,
         type TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (tree, key))`,
      "CREATE TABLE users (name TEXT PRIMARY KEY, hash TEXT NOT NULL, description TEXT NOT NULL DEFAULT '')",
      "CREATE TABLE groups (name TEXT PRIMARY KEY, description TEXT NOT NULL DEFAULT '')",
      'CREATE TABLE group_members (grp TEXT NOT NULL, member TEXT NOT NULL, PRIMARY KEY (grp, member))',
      'CREATE TABLE sessions (name TEXT PRIMARY KEY, info TEXT NOT NULL, changes TEXT NOT NULL, rev BIGINT NOT NULL)',
      `CREATE TABLE activations (id ${autoId(d)}, version BIGINT NOT NULL, data TEXT NOT NULL)`,
      'CREATE TABLE runtime (key TEXT PRIMARY KEY, data TEXT NOT NULL)',
      `CREATE TABLE tasks (key ${keyText(d)} PRIMARY KEY, collection TEXT NOT NULL, ord BIGINT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL)`,
      'CREATE TABLE documents (key TEXT PRIMARY KEY, data TEXT NOT NULL, rev BIGINT NOT NULL)',
    ],
  },
  {
    version: 2,
    // Servers sharing a store say they are alive, so one starting alone can finish what others left.
    sql: () => ['CREATE TABLE instances (id TEXT PRIMARY KEY, seen BIGINT NOT NULL)'],
  },
  {
    version: 3,
    sql: (d) => [
      // The audit trail: rows are only ever added.
      `CREATE TABLE audit (id ${autoId(d)}, at BIGINT NOT NULL, username TEXT, address TEXT NOT NULL, action TEXT NOT NULL,
         bean TEXT NOT NULL, outcome TEXT NOT NULL, detail TEXT NOT NULL DEFAULT '')`,
      // Failed logins per user name ('user') and per client address ('address'), and their lockouts.
      `CREATE TABLE login_failures (kind TEXT NOT NULL, key TEXT NOT NULL, failures BIGINT NOT NULL, last_at BIGINT NOT NULL,
         locked_until BIGINT NOT NULL DEFAULT 0, PRIMARY KEY (kind, key))`,
    ],
  },
  {
    version: 4,
    // Servers sharing a store: which one opens each running managed server's ports (one at a time).
    sql: () => ['CREATE TABLE listener_leases (server TEXT PRIMARY KEY, owner TEXT NOT NULL, since BIGINT NOT NULL)'],
  },
  {
    version: 5,
    // Saved states of the whole domain (the control interface's snapshots), one JSON document each.
    sql: () => ['CREATE TABLE snapshots (name TEXT PRIMARY KEY, created BIGINT NOT NULL, bytes BIGINT NOT NULL, data TEXT NOT NULL)'],
  },
  {
    version: 6,
    sql: (d) => [
      // The watch journal: what changed (activations, runtime states, task progress), numbered in
      // the order the changes were made, kept for a bounded window (src/watch/journal.ts).
      `CREATE TABLE watch_events (id ${autoId(d)}, at BIGINT NOT NULL, kind TEXT NOT NULL, data TEXT NOT NULL)`,
    ],
  },
  {
    version: 7,
    sql: () => [
      // Identical audit records within a minute fold into one: how many, and when the last came.
      // Rows written before keep count 1 and their own time as the last.
      'ALTER TABLE audit ADD COLUMN count BIGINT NOT NULL DEFAULT 1',
      'ALTER TABLE audit ADD COLUMN last_at BIGINT',
      'UPDATE audit SET last_at = at',
      // Retention removes the oldest first.
      'CREATE INDEX audit_last_at ON audit (last_at)',
    ],
  },
  {
    version: 8,
    sql: (d) => [
      // A tree's beans as one JSON text, read at start-up instead of a row per bean (SQLite only:
      // src/store/images.ts). Any change of the tree's rows, by whatever path, drops it in the same
      // transaction, so an image present is always the rows' copy.
      'CREATE TABLE images (tree TEXT PRIMARY KEY, data TEXT NOT NULL)',
      ...(d === 'sqlite'
        ? ['INSERT', 'UPDATE', 'DELETE'].map(
            (op) => `CREATE TRIGGER beans_${op.toLowerCase()}_drops_image AFTER ${op} ON beans BEGIN DELETE FROM images WHERE tree = ${op === 'INSERT' ? 'NEW' : 'OLD'}.tree${op === 'UPDATE' ? ' OR tree = NEW.tree' : ''}; END`,
          )
        : []),
    ],
  },
];
