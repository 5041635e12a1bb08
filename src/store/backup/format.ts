// The backup file: JSON lines, the same whichever store it was taken from, so a backup of a SQLite
// domain restores into PostgreSQL and back. In order:
//   {"format":"appserver-admin backup","version":1, created, store, schema, configVersion, dataDir, secretKey}
//   per table: {"table","columns","rows":N}, then N lines, each a JSON array of the row's values
//   per archive: {"file":"applications/...","bytes":N}, lines each holding a base64 string of at
//                most 48 KiB of it, then {"fileEnd":true,"sha256":hex}
//   when asked for: {"secretKey":base64}
//   {"end":true,"lines":K,"sha256":hex}: K lines came before it and hex is the SHA-256 of their bytes.
// The reader checks all of it as it goes (order, names, types, sizes, digests) and a file that stops
// early, has bytes after its end, or was changed anywhere is refused; nothing it names becomes a path
// outside the folder it is restored into.
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { BACKUP_TABLES, type BackupTable, type StoreDump } from './tables.js';

export const BACKUP_FORMAT = 'appserver-admin backup';
export const BACKUP_VERSION = 1;

/** Limits a backup file must keep to be read (a hostile file cannot make the reader hold more). */
export const BACKUP_LIMITS = {
  /** Longest line: a row (a saved snapshot of a large domain is the longest) or a header. */
  lineBytes: 256 * 1024 * 1024,
  /** Largest archive. */
  fileBytes: 4 * 1024 * 1024 * 1024,
  /** Archives in one backup. */
  files: 100_000,
  /** Longest archive path, and deepest. */
  pathBytes: 1024,
  pathDepth: 32,
} as const;

/** Raw bytes per archive line (base64 makes 64 KiB of them). */
const CHUNK_BYTES = 48 * 1024;

export interface BackupHeader {
  format: typeof BACKUP_FORMAT;
  version: number;
  /** When the backup was taken (ISO 8601). */
  created: string;
  /** The store it was taken from. */
  store: 'sqlite' | 'postgres';
  /** The store's schema version. */
  schema: number;
  /** The version of the activated configuration it holds. */
  configVersion: number;
  /** The data directory archives were read from, as the server named it (absent: no archives). */
  dataDir?: string;
  /** Whether the domain's secret key is in it. */
  secretKey: boolean;
}

/** An archive of the data directory: its path in the backup (`applications/...`) and on disk. */
export interface ArchiveFile {
  path: string;
  file: string;
}

/** A backup that cannot be read: truncated, changed, of another format, or hostile. */
export class BackupError extends Error {}

function line(value: unknown): Buffer {
  return Buffer.from(`${JSON.stringify(value)}\n`, 'utf8');
}

/**
 * The backup's bytes, piece by piece: the tables of `dump`, then the archives (read as they go;
 * one that changes size meanwhile stops the backup, which then has no end line and is refused).
 */
export async function* writeBackup(dump: StoreDump, archives: ArchiveFile[], opts: { dataDir?: string; secretKey?: Buffer; now?: Date } = {}): AsyncGenerator<Buffer> {
  const digest = createHash('sha256');
  let lines = 0;
  const out = (value: unknown): Buffer => {
    const b = line(value);
    digest.update(b);
    lines++;
    return b;
  };
  const header: BackupHeader = {
    format: BACKUP_FORMAT,
    version: BACKUP_VERSION,
    created: (opts.now ?? new Date()).toISOString(),
    store: dump.dialect,
    schema: dump.schema,
    configVersion: dump.configVersion,
    ...(opts.dataDir !== undefined ? { dataDir: opts.dataDir } : {}),
    secretKey: opts.secretKey !== undefined,
  };
  yield out(header);
  for await (const t of dump.tables) {
    yield out({ table: t.table, columns: t.columns, rows: t.count });
    // Rows go out in groups, so that a large table is not one piece per row.
    let group: Buffer[] = [];
    let size = 0;
    let written = 0;
    for await (const batch of t.batches) {
      for (const r of batch) {
        const b = out(r);
        group.push(b);
        size += b.length;
        written++;
        if (size >= 256 * 1024) {
          yield Buffer.concat(group);
          group = [];
          size = 0;
        }
      }
    }
    if (group.length > 0) yield Buffer.concat(group);
    // The count came from the same snapshot as the rows: a difference is a store that lied.
    if (written !== t.count) throw new BackupError(`the table ${t.table} gave ${written} rows where it counted ${t.count}`);
  }
  for (const a of archives) {
    const fd = openSync(a.file, 'r');
    try {
      const bytes = fstatSync(fd).size;
      yield out({ file: a.path, bytes });
      const fileDigest = createHash('sha256');
      const buf = Buffer.alloc(CHUNK_BYTES);
      let at = 0;
      while (at < bytes) {
        const n = readSync(fd, buf, 0, Math.min(CHUNK_BYTES, bytes - at), at);
        if (n === 0) throw new BackupError(`${a.file} became shorter while it was backed up`);
        fileDigest.update(buf.subarray(0, n));
        yield out(buf.subarray(0, n).toString('base64'));
        at += n;
      }
      yield out({ fileEnd: true, sha256: fileDigest.digest('hex') });
    } finally {
      closeSync(fd);
    }
  }
  if (opts.secretKey) yield out({ secretKey: opts.secretKey.toString('base64') });
  yield line({ end: true, lines, sha256: digest.digest('hex') });
}

/** What reading a backup yields, in the file's order. */
export type BackupEvent =
  | { kind: 'header'; header: BackupHeader }
  | { kind: 'rows'; table: BackupTable; columns: string[]; rows: unknown[][] }
  | { kind: 'file'; path: string; segments: string[]; bytes: number }
  | { kind: 'chunk'; data: Buffer }
  | { kind: 'fileEnd' }
  | { kind: 'secretKey'; key: Buffer }
  | { kind: 'end'; lines: number };

/** Splits a byte stream into lines, refusing a line longer than the limit. */
async function* lines(source: AsyncIterable<Buffer | string>): AsyncGenerator<Buffer> {
  let parts: Buffer[] = [];
  let held = 0;
  for await (const piece of source) {
    let chunk = typeof piece === 'string' ? Buffer.from(piece) : piece;
    for (;;) {
      const nl = chunk.indexOf(0x0a);
      if (nl < 0) break;
      const rest = chunk.subarray(0, nl + 1);
      if (held + rest.length > BACKUP_LIMITS.lineBytes) throw new BackupError(`a line is longer than ${BACKUP_LIMITS.lineBytes} bytes`);
      yield parts.length === 0 ? rest : Buffer.concat([...parts, rest]);
      parts = [];
      held = 0;
      chunk = chunk.subarray(nl + 1);
    }
    if (chunk.length > 0) {
      held += chunk.length;
      if (held > BACKUP_LIMITS.lineBytes) throw new BackupError(`a line is longer than ${BACKUP_LIMITS.lineBytes} bytes`);
      parts.push(chunk);
    }
  }
  if (held > 0) yield Buffer.concat(parts);
}

function parse(bytes: Buffer, n: number): unknown {
  if (bytes[bytes.length - 1] !== 0x0a) throw new BackupError(`the file ends in the middle of line ${n}: it is truncated`);
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new BackupError(`line ${n} is not JSON`);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const count = (v: unknown, max = Number.MAX_SAFE_INTEGER): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v <= max;
const clip = (text: string) => (text.length > 80 ? `${text.slice(0, 80)}...` : text);

/**
 * The segments of an archive path, or an error: `applications/` then plain names, never `.`, `..`,
 * an empty name, a backslash, a control character, or the upload staging folder.
 */
export function archiveSegments(path: unknown): string[] {
  if (typeof path !== 'string') throw new BackupError('an archive path is not a string');
  const shown = JSON.stringify(clip(path));
  if (Buffer.byteLength(path) > BACKUP_LIMITS.pathBytes) throw new BackupError(`the archive path ${shown} is longer than ${BACKUP_LIMITS.pathBytes} bytes`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\\]/.test(path)) throw new BackupError(`the archive path ${shown} holds a control character or a backslash`);
  const segments = path.split('/');
  if (segments[0] !== 'applications' || segments.length < 2 || segments.length > BACKUP_LIMITS.pathDepth) throw new BackupError(`the archive path ${shown} is not a path below applications/`);
  for (const s of segments) if (s === '' || s === '.' || s === '..') throw new BackupError(`the archive path ${shown} has an empty, '.' or '..' segment`);
  if (segments[1] === '.incoming') throw new BackupError(`the archive path ${shown} names the upload staging folder`);
  return segments;
}

function isObjectText(text: string): boolean {
  try {
    return isObject(JSON.parse(text));
  } catch {
    return false;
  }
}

function checkRow(row: unknown, table: BackupTable, columns: string[], n: number): unknown[] {
  if (!Array.isArray(row) || row.length !== columns.length) throw new BackupError(`line ${n}: a row of ${table.name} must be an array of ${columns.length} values`);
  columns.forEach((c, i) => {
    const v = row[i];
    if (v === null) {
      if (!table.nullable.includes(c)) throw new BackupError(`line ${n}: ${table.name}.${c} is null`);
    } else if (table.integers.includes(c)) {
      if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new BackupError(`line ${n}: ${table.name}.${c} must be a whole number, not ${clip(JSON.stringify(v))}`);
      const least = table.least?.[c];
      if (least !== undefined && v < least) throw new BackupError(`line ${n}: ${table.name}.${c} must be at least ${least}, not ${v}`);
    } else if (typeof v !== 'string') {
      throw new BackupError(`line ${n}: ${table.name}.${c} must be text, not ${clip(JSON.stringify(v))}`);
    } else if (table.objects?.includes(c) && !isObjectText(v)) {
      throw new BackupError(`line ${n}: ${table.name}.${c} must be the JSON text of an object, not ${clip(JSON.stringify(v))}`);
    }
  });
  return row;
}

/**
 * Reads a backup, checking everything as it goes, and yields what it holds; rows come in groups
 * of up to `batch`. The last event, `end`, comes only once the digest of the whole file matched:
 * a consumer that acts as it reads undoes its work unless it saw `end`.
 */
export async function* readBackup(source: AsyncIterable<Buffer | string>, opts: { maxSchema: number; batch?: number }): AsyncGenerator<BackupEvent> {
  const batch = opts.batch ?? 500;
  const digest = createHash('sha256');
  let n = 0;
  let header: BackupHeader | undefined;
  let ended = false;
  const seenTables = new Set<string>();
  let files = 0;
  // Archive paths so far, and the folders they lie in: a path may come once, and never as both a
  // file and a folder (the second would fail only when written, after the store was filled).
  const archivePaths = new Set<string>();
  const archiveFolders = new Set<string>();
  let haveKey = false;
  // What the following lines are: rows of a table, or pieces of an archive.
  let rows: { table: BackupTable; columns: string[]; left: number; group: unknown[][] } | undefined;
  let file: { path: string; left: number; digest: ReturnType<typeof createHash> } | undefined;
  for await (const bytes of lines(source)) {
    n++;
    if (ended) throw new BackupError(`there is more after the end line (line ${n}): the file was changed`);
    const value = parse(bytes, n);
    if (isObject(value) && value.end === true && !rows && !file) {
      if (!header) throw new BackupError('the file ends before its header');
      if (!count(value.lines) || value.lines !== n - 1 || typeof value.sha256 !== 'string' || value.sha256 !== digest.digest('hex')) {
        throw new BackupError(`the checksum at its end does not match its ${n - 1} lines: the file was changed or damaged`);
      }
      ended = true;
      continue;
    }
    digest.update(bytes);
    if (n === 1) {
      if (!isObject(value) || value.format !== BACKUP_FORMAT) throw new BackupError('this is not a backup of appserver-admin (its first line does not say so)');
      if (value.version !== BACKUP_VERSION) throw new BackupError(`the backup is of format version ${JSON.stringify(value.version)}; this version reads version ${BACKUP_VERSION}`);
      if (value.store !== 'sqlite' && value.store !== 'postgres') throw new BackupError('the header names no store');
      if (!count(value.schema) || value.schema > opts.maxSchema) throw new BackupError(`the backup was taken from a store of schema ${JSON.stringify(value.schema)}, newer than this version knows (${opts.maxSchema}): restore it with a newer appserver-admin`);
      if (!count(value.configVersion) || typeof value.created !== 'string' || typeof value.secretKey !== 'boolean') throw new BackupError('the header is incomplete (created, configVersion, secretKey)');
      if (value.dataDir !== undefined && (typeof value.dataDir !== 'string' || value.dataDir.length > 4096)) throw new BackupError('the header names no valid data directory');
      header = value as unknown as BackupHeader;
      yield { kind: 'header', header };
      continue;
    }
    if (rows) {
      rows.group.push(checkRow(value, rows.table, rows.columns, n));
      rows.left--;
      if (rows.group.length >= batch || rows.left === 0) {
        yield { kind: 'rows', table: rows.table, columns: rows.columns, rows: rows.group };
        rows.group = [];
      }
      if (rows.left === 0) rows = undefined;
      continue;
    }
    if (file) {
      if (file.left > 0) {
        if (typeof value !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(value)) throw new BackupError(`line ${n}: a piece of ${clip(file.path)} is not base64 text`);
        const data = Buffer.from(value, 'base64');
        if (data.length === 0 || data.length > file.left) throw new BackupError(`line ${n}: ${clip(file.path)} holds more bytes than its header says`);
        file.left -= data.length;
        file.digest.update(data);
        yield { kind: 'chunk', data };
        continue;
      }
      if (!isObject(value) || value.fileEnd !== true || value.sha256 !== file.digest.digest('hex')) throw new BackupError(`line ${n}: the checksum of ${clip(file.path)} does not match its bytes`);
      file = undefined;
      yield { kind: 'fileEnd' };
      continue;
    }
    if (!isObject(value)) throw new BackupError(`line ${n} is not a section header`);
    if (haveKey) throw new BackupError(`line ${n}: nothing but the end may follow the secret key`);
    if (typeof value.table === 'string') {
      const table = BACKUP_TABLES.find((t) => t.name === value.table);
      if (!table) throw new BackupError(`line ${n}: the table ${JSON.stringify(clip(value.table))} is not one a backup holds`);
      if (files > 0) throw new BackupError(`line ${n}: a table after the archives`);
      if (seenTables.has(table.name)) throw new BackupError(`line ${n}: the table ${table.name} comes twice`);
      seenTables.add(table.name);
      const columns = value.columns;
      // Every column, or (a file written before some were added) every column but those.
      const older = table.columns.slice(0, table.columns.length - (table.added?.length ?? 0));
      const same = (want: readonly string[]) => Array.isArray(columns) && columns.length === want.length && columns.every((c, i) => c === want[i]);
      if (!same(table.columns) && !same(older)) {
        throw new BackupError(`line ${n}: the columns of ${table.name} must be ${table.columns.join(', ')}${older.length < table.columns.length ? ` (or, in a backup written before the last ones were added, ${older.join(', ')})` : ''}`);
      }
      if (!count(value.rows)) throw new BackupError(`line ${n}: the row count of ${table.name} is not a count`);
      if (value.rows > 0) rows = { table, columns: columns as string[], left: value.rows, group: [] };
      continue;
    }
    if ('file' in value) {
      const segments = archiveSegments(value.file);
      if (!count(value.bytes, BACKUP_LIMITS.fileBytes)) throw new BackupError(`line ${n}: the size of ${clip(String(value.file))} is not a size up to ${BACKUP_LIMITS.fileBytes} bytes`);
      if (++files > BACKUP_LIMITS.files) throw new BackupError(`more than ${BACKUP_LIMITS.files} archives`);
      const shown = JSON.stringify(clip(value.file as string));
      if (archivePaths.has(value.file as string)) throw new BackupError(`line ${n}: the archive ${shown} comes twice`);
      if (archiveFolders.has(value.file as string)) throw new BackupError(`line ${n}: the archive ${shown} is also the folder of another archive`);
      for (let i = 2; i < segments.length; i++) {
        const folder = segments.slice(0, i).join('/');
        if (archivePaths.has(folder)) throw new BackupError(`line ${n}: the archive ${shown} lies in ${JSON.stringify(clip(folder))}, which is an archive too`);
        archiveFolders.add(folder);
      }
      archivePaths.add(value.file as string);
      file = { path: value.file as string, left: value.bytes, digest: createHash('sha256') };
      yield { kind: 'file', path: file.path, segments, bytes: value.bytes };
      continue;
    }
    if (typeof value.secretKey === 'string') {
      const key = Buffer.from(value.secretKey, 'base64');
      if (key.length !== 32 || !header?.secretKey) throw new BackupError(`line ${n}: the secret key is not 32 bytes of base64, or the header did not announce it`);
      haveKey = true;
      yield { kind: 'secretKey', key };
      continue;
    }
    throw new BackupError(`line ${n} is no section this version knows`);
  }
  if (!header) throw new BackupError('the file is empty');
  if (rows || file || !ended) throw new BackupError(`the file stops after line ${n}, before its end line: it is truncated`);
  if (header.secretKey && !haveKey) throw new BackupError('the header announced the secret key and the file does not hold it');
  if (!seenTables.has('meta')) throw new BackupError('the backup holds no meta table, so no domain');
  yield { kind: 'end', lines: n };
}
