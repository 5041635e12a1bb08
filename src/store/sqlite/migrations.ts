// Schema migrations, applied in order; a data directory remembers the last one it ran.
export interface Migration {
  version: number;
  sql: string;
}

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE beans (
        tree TEXT NOT NULL,
        key TEXT NOT NULL,
        collection TEXT,
        name TEXT,
        ord INTEGER NOT NULL DEFAULT 0,
        type TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (tree, key)
      );
      CREATE TABLE users (name TEXT PRIMARY KEY, hash TEXT NOT NULL, description TEXT NOT NULL DEFAULT '');
      CREATE TABLE groups (name TEXT PRIMARY KEY, description TEXT NOT NULL DEFAULT '');
      CREATE TABLE group_members (grp TEXT NOT NULL, member TEXT NOT NULL, PRIMARY KEY (grp, member));
      CREATE TABLE state (key TEXT PRIMARY KEY, data TEXT NOT NULL);
    `,
  },
  {
    version: 2,
    sql: `
      CREATE TABLE sessions (name TEXT PRIMARY KEY, info TEXT NOT NULL, changes TEXT NOT NULL);
      CREATE TABLE activations (id INTEGER PRIMARY KEY AUTOINCREMENT, version INTEGER NOT NULL, data TEXT NOT NULL);
    `,
  },
];
