// The data directory: only this account may read it. It is made with mode 0700 and its files 0600;
// wider permissions found at start-up are reported, not changed (they may be deliberate).
import { accessSync, closeSync, constants, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SECRET_KEY_ENV, type SecretKeySource, syncDir } from '../config/secret-key.js';

/** Where a generated administrator password is written when there is no terminal to show it on. */
export const PASSWORD_FILE = 'initial-admin-password';
const KEY_FILE = 'secret.key';
/** Entries of the applications folder looked at for permissions (it holds few archives). */
const WALK_LIMIT = 10_000;

/**
 * Makes the data directory if there is none, and checks that the server may write in it (its store,
 * uploaded archives, the key file): a read-only one stops the start with a message naming it.
 */
export function prepareDataDir(dataDir: string): void {
  const dir = resolve(dataDir);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new Error(`cannot create the data directory ${dir}: ${(err as Error).message}. The server did not start.`);
  }
  try {
    accessSync(dir, constants.W_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'EROFS' ? 'it is on a read-only file system' : code === 'EACCES' ? 'this account may not write in it' : (err as Error).message;
    throw new Error(`the data directory ${dir} cannot be written (${why}). The server keeps its store, uploaded archives and key there: make it writable, or give another --data-dir. The server did not start.`);
  }
}

/**
 * Where the key of sealed values comes from: the key given (embedded uses), else APPSERVER_SECRET_KEY,
 * else the key file (`--secret-key-file`, default `<data dir>/secret.key`).
 */
export function secretKeySource(dataDir: string, opts: { secretKey?: string; secretKeyFile?: string }): SecretKeySource {
  const env = process.env[SECRET_KEY_ENV];
  const value = opts.secretKey ?? (env !== undefined && env.trim() !== '' ? env : undefined);
  if (opts.secretKey === undefined && value !== undefined && opts.secretKeyFile !== undefined) {
    throw new Error(`the secret key is given twice: by ${SECRET_KEY_ENV} and by --secret-key-file ${opts.secretKeyFile}. Give it one way.`);
  }
  const file = opts.secretKeyFile !== undefined ? resolve(opts.secretKeyFile) : join(resolve(dataDir), KEY_FILE);
  return { ...(value !== undefined ? { value } : {}), file, fileNamed: opts.secretKeyFile !== undefined };
}

/** Writes a generated password to a new file of the data directory, mode 0600; returns its path. */
export function writePasswordFile(dataDir: string, password: string): string {
  const file = join(resolve(dataDir), PASSWORD_FILE);
  // A file left by an earlier domain is replaced, never written through (it may be a link).
  try {
    unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`cannot replace ${file}: ${(err as Error).message}`);
  }
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch (err) {
    throw new Error(`cannot write the administrator's password to ${file}: ${(err as Error).message}`);
  }
  try {
    writeSync(fd, `${password}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  syncDir(resolve(dataDir));
  return file;
}

/** What in the data directory other accounts may read or change, each with the command that fixes it. */
export function permissionWarnings(dataDir: string): string[] {
  const out: string[] = [];
  const dir = resolve(dataDir);
  const look = (path: string, directory: boolean) => {
    let mode: number;
    try {
      mode = statSync(path).mode;
    } catch {
      return;
    }
    if ((mode & 0o077) !== 0) out.push(`${path} is open to other accounts (mode ${octal(mode)}): chmod ${directory ? 700 : 600} ${path}`);
  };
  look(dir, true);
  for (const f of ['domain.db', 'domain.db-wal', 'domain.db-shm', PASSWORD_FILE]) look(join(dir, f), false);
  // The default key file is looked at when it is read.
  const apps = join(dir, 'applications');
  const open = openEntries(apps);
  if (open.length > 0) {
    const shown = open.slice(0, 3).join(', ') + (open.length > 3 ? ', ...' : '');
    out.push(`${open.length} entr${open.length === 1 ? 'y' : 'ies'} of ${apps} ${open.length === 1 ? 'is' : 'are'} open to other accounts (${shown}): chmod -R go-rwx ${apps}`);
  }
  return out;
}

/** Files and folders under `root` (itself included) whose mode lets other accounts in; links are not followed. */
function openEntries(root: string): string[] {
  const out: string[] = [];
  const queue = [root];
  let seen = 0;
  while (queue.length > 0 && seen < WALK_LIMIT) {
    const path = queue.shift()!;
    seen++;
    let st;
    try {
      st = lstatSync(path);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) continue;
    if ((st.mode & 0o077) !== 0) out.push(path);
    if (!st.isDirectory()) continue;
    try {
      for (const name of readdirSync(path)) queue.push(join(path, name));
    } catch {
      // An unreadable folder has nothing to report.
    }
  }
  return out;
}

function octal(mode: number): string {
  return (mode & 0o777).toString(8).padStart(4, '0');
}
