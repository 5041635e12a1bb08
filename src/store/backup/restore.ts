// Restoring a backup into a store (and its archives into a data directory). The file is read twice:
// once to check all of it (nothing is touched if any of it is wrong), then to fill the store in one
// transaction while the archives are written to a folder of their own; the archives take their place
// only once the store has committed. A store that already holds a domain is replaced only when asked.
import { randomUUID } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { MIGRATIONS } from '../migrations.js';
import type { Store } from '../store.js';
import type { TableRows } from './tables.js';
import { ARCHIVE_FOLDER } from './archives.js';
import { type BackupHeader, BackupError, readBackup } from './format.js';

const MAX_SCHEMA = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** Opens the backup file afresh (it is read twice). */
export type BackupSource = () => AsyncIterable<Buffer | string>;

export interface BackupSummary {
  header: BackupHeader;
  /** Rows per table. */
  rows: Record<string, number>;
  archives: number;
  archiveBytes: number;
  /** The domain's secret key, when the backup holds it. */
  secretKey?: Buffer;
  /** The check value of the domain's key (meta `secretKeyCheck`), to tell whether a key opens its secrets. */
  keyCheck?: string;
  /** The domain's name, from its configuration. */
  created: string;
}

/** Reads the whole backup and checks it; throws BackupError naming what is wrong. */
export async function verifyBackup(source: BackupSource): Promise<BackupSummary> {
  let header: BackupHeader | undefined;
  const rows: Record<string, number> = {};
  let archives = 0;
  let archiveBytes = 0;
  let secretKey: Buffer | undefined;
  let keyCheck: string | undefined;
  let created: string | undefined;
  for await (const e of readBackup(source(), { maxSchema: MAX_SCHEMA })) {
    if (e.kind === 'header') header = e.header;
    else if (e.kind === 'rows') {
      rows[e.table.name] = (rows[e.table.name] ?? 0) + e.rows.length;
      if (e.table.name === 'meta') {
        for (const [key, value] of e.rows as [string, string][]) {
          if (key === 'created') created = value;
          if (key === 'secretKeyCheck') keyCheck = value;
        }
      }
    } else if (e.kind === 'file') {
      archives++;
      archiveBytes += e.bytes;
    } else if (e.kind === 'secretKey') secretKey = e.key;
  }
  if (created === undefined) throw new BackupError('the backup holds no created domain (its meta table has no creation time)');
  return { header: header!, rows, archives, archiveBytes, created, ...(secretKey ? { secretKey } : {}), ...(keyCheck ? { keyCheck } : {}) };
}

export interface RestoreOptions {
  /** Where the archives go (`<dataDir>/applications`); without it they are left out. */
  dataDir?: string;
  /** Replace a domain the store already holds. */
  force?: boolean;
}

export interface RestoreResult extends BackupSummary {
  /** Archives written to the data directory. */
  restoredArchives: number;
}

/** True when `path` lies strictly inside `dir`. */
function inside(dir: string, path: string): boolean {
  const rel = relative(resolve(dir), resolve(path));
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/**
 * Bean values naming a file of the backed-up data directory's archive folder are made to name the
 * same file in the folder restored into (deployments keep the path of their uploaded archive).
 */
function pathMover(from: string | undefined, to: string | undefined): ((data: string) => string) | undefined {
  if (from === undefined || to === undefined) return undefined;
  const target = join(to, ARCHIVE_FOLDER) + sep;
  const sources = [...new Set([join(from, ARCHIVE_FOLDER) + sep, join(resolve(from), ARCHIVE_FOLDER) + sep])].filter((s) => s !== target);
  if (sources.length === 0) return undefined;
  return (data) => {
    if (!sources.some((s) => data.includes(JSON.stringify(s).slice(1, -1)))) return data;
    const values = JSON.parse(data) as Record<string, unknown>;
    for (const [k, v] of Object.entries(values)) {
      if (typeof v !== 'string') continue;
      const s = sources.find((p) => v.startsWith(p));
      if (s) values[k] = target + v.slice(s.length);
    }
    return JSON.stringify(values);
  };
}

export async function restoreBackup(store: Store, source: BackupSource, opts: RestoreOptions = {}): Promise<RestoreResult> {
  const summary = await verifyBackup(source);
  await store.open();
  if ((await store.getMeta('created')) !== undefined && !opts.force) {
    throw new BackupError(`${store.description} already holds a domain: give --force to replace it with the backup`);
  }
  const dataDir = opts.dataDir;
  const staging = dataDir !== undefined ? join(dataDir, `.restore-${randomUUID()}`) : undefined;
  const move = pathMover(summary.header.dataDir, dataDir);
  let restoredArchives = 0;
  async function* tables(): AsyncGenerator<TableRows> {
    let fd: number | undefined;
    try {
      for await (const e of readBackup(source(), { maxSchema: MAX_SCHEMA })) {
        if (e.kind === 'rows') {
          const rows = move && e.table.name === 'beans' ? e.rows.map((r) => r.map((v, i) => (i === 6 ? move(v as string) : v))) : e.rows;
          yield { table: e.table.name, columns: e.columns, rows };
        } else if (e.kind === 'file' && staging !== undefined) {
          const file = join(staging, ...e.segments);
          // Checked by the reader already; checked again where the path is made.
          if (!inside(staging, file)) throw new BackupError(`the archive path ${e.path} leads outside ${staging}`);
          mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
          fd = openSync(file, 'wx', 0o600);
        } else if (e.kind === 'chunk' && fd !== undefined) {
          writeSync(fd, e.data);
        } else if (e.kind === 'fileEnd' && fd !== undefined) {
          fsyncSync(fd);
          closeSync(fd);
          fd = undefined;
          restoredArchives++;
        }
      }
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }
  try {
    if (staging !== undefined) mkdirSync(staging, { recursive: true, mode: 0o700 });
    await store.restoreTables(tables());
  } catch (err) {
    if (staging !== undefined) rmSync(staging, { recursive: true, force: true });
    throw err;
  }
  if (staging !== undefined && dataDir !== undefined) {
    // The store holds the restored domain: its archives take the place of the folder's.
    const folder = join(dataDir, ARCHIVE_FOLDER);
    const old = `${staging}-replaced`;
    try {
      renameSync(folder, old);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    mkdirSync(join(staging, ARCHIVE_FOLDER), { recursive: true, mode: 0o700 });
    renameSync(join(staging, ARCHIVE_FOLDER), folder);
    rmSync(old, { recursive: true, force: true });
    rmSync(staging, { recursive: true, force: true });
  }
  return { ...summary, restoredArchives };
}
