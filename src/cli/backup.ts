// `backup --data-dir|--store` (no server needed) and `restore`: the composition root opens the store
// itself. A backup file is written beside its final name and renamed once complete, so a file with
// the final name is always whole. The secret key goes into a backup only when asked; a restore puts
// it in the key file when the backup holds it, and otherwise says whether the key at hand opens the
// restored domain's sealed values.
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, rmSync, renameSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { SECRET_KEY_ENV, givenKey, keyMatchesCheck, syncDir, writeKeyFile } from '../config/secret-key.js';
import { openStore } from '../store/open.js';
import { takeBackup } from '../store/backup/take.js';
import { type RestoreResult, restoreBackup } from '../store/backup/restore.js';
import { secretKeySource } from './data-dir.js';

export interface OfflineBackupOptions {
  out: string;
  dataDir?: string;
  store?: string;
  includeSecretKey?: boolean;
  secretKeyFile?: string;
}

/** Writes `bytes` to `out` through a temporary file beside it (mode 0600), renamed when complete. */
export async function writeFileAtomically(out: string, bytes: AsyncIterable<Buffer> | Readable): Promise<number> {
  const target = resolve(out);
  if (existsSync(target) && statSync(target).isDirectory()) throw new Error(`${out} is a directory: name the backup file to write`);
  const partial = join(dirname(target), `.${basename(target)}.${randomUUID()}.partial`);
  let written = 0;
  const counter = async function* (source: AsyncIterable<Buffer>) {
    for await (const b of source) {
      written += b.length;
      yield b;
    }
  };
  try {
    await pipeline(bytes instanceof Readable ? bytes : Readable.from(bytes), counter, createWriteStream(partial, { flags: 'wx', mode: 0o600, flush: true }));
    renameSync(partial, target);
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  }
  syncDir(dirname(target));
  return written;
}

/** Backs up the domain of a data directory or a store, without a server. */
export async function backupOffline(opts: OfflineBackupOptions): Promise<{ bytes: number; configVersion: number; archives: boolean }> {
  const dataDir = opts.dataDir;
  if (dataDir === undefined && opts.store === undefined) throw new Error('name the domain to back up: --data-dir DIR or --store URL (or --url for a running server)');
  if (!opts.store && !existsSync(join(dataDir!, 'domain.db'))) throw new Error(`${dataDir} holds no domain (no domain.db)`);
  let secretKey: Buffer | undefined;
  const store = openStore(dataDir ?? '.', opts.store);
  try {
    await store.open();
    if ((await store.getMeta('created')) === undefined) throw new Error(`${store.description} holds no domain`);
    if (opts.includeSecretKey) {
      const given = givenKey(secretKeySource(dataDir ?? '.', opts.secretKeyFile !== undefined ? { secretKeyFile: opts.secretKeyFile } : {}), () => undefined);
      if (!given) throw new Error(`--include-secret-key: no key found (no ${SECRET_KEY_ENV}, no key file${dataDir ? ` in ${dataDir}` : ''}; name one with --secret-key-file)`);
      const check = await store.getMeta('secretKeyCheck');
      if (check !== undefined && !keyMatchesCheck(check, given.key)) throw new Error(`--include-secret-key: the key in ${given.from} is not the key of this domain`);
      secretKey = given.key;
    }
    const taken = await takeBackup(store, { ...(dataDir !== undefined ? { dataDir } : {}), ...(secretKey ? { secretKey } : {}) });
    try {
      const bytes = await writeFileAtomically(opts.out, taken.bytes);
      return { bytes, configVersion: taken.configVersion, archives: dataDir !== undefined };
    } finally {
      await taken.close();
    }
  } finally {
    await store.close();
  }
}

export interface RestoreCommandOptions {
  dataDir?: string;
  store?: string;
  force?: boolean;
  secretKeyFile?: string;
}

/** Restores a backup file into a data directory (SQLite) or a store; returns what it did and what to know. */
export async function restoreOffline(file: string, opts: RestoreCommandOptions): Promise<{ result: RestoreResult; notes: string[] }> {
  const dataDir = opts.dataDir ?? (opts.store ? undefined : './data');
  let st;
  try {
    st = statSync(file);
  } catch {
    throw new Error(`the backup file ${file} does not exist`);
  }
  if (!st.isFile()) throw new Error(`${file} is not a file`);
  // A data directory that held no store is left without one if the restore fails.
  const fresh = opts.store === undefined && !existsSync(join(dataDir!, 'domain.db'));
  const store = openStore(dataDir ?? '.', opts.store);
  const notes: string[] = [];
  let result: RestoreResult;
  try {
    result = await restoreBackup(store, () => createReadStream(file, { highWaterMark: 256 * 1024 }), { ...(dataDir !== undefined ? { dataDir } : {}), ...(opts.force ? { force: true } : {}) });
  } catch (err) {
    await store.close().catch(() => undefined);
    if (fresh) for (const f of ['domain.db', 'domain.db-wal', 'domain.db-shm']) rmSync(join(dataDir!, f), { force: true });
    throw err;
  }
  await store.close();
  if (result.archives > 0 && dataDir === undefined) notes.push(`the backup holds ${result.archives} archives and no --data-dir was given: they were not restored`);
  // The key: the backup's own, or the one at hand, must open the restored domain's sealed values.
  const source = secretKeySource(dataDir ?? '.', opts.secretKeyFile !== undefined ? { secretKeyFile: opts.secretKeyFile } : {});
  let given;
  try {
    given = givenKey(source, (w) => notes.push(w));
  } catch (err) {
    notes.push((err as Error).message);
  }
  if (result.secretKey) {
    if (given && !given.key.equals(result.secretKey)) {
      notes.push(`the backup holds the domain's secret key, and ${given.from} holds another one: the server will refuse to start until it is given the backup's key (remove ${given.from === SECRET_KEY_ENV ? SECRET_KEY_ENV : given.from} and run restore again, or put the key in place yourself)`);
    } else if (!given) {
      writeKeyFile(source.file, result.secretKey);
      notes.push(`the domain's secret key was written to ${source.file} (mode 0600)`);
    }
  } else if (result.keyCheck !== undefined) {
    if (!given) notes.push(`the backup holds no secret key: before serving, give the domain's key (the key file it was made with, or ${SECRET_KEY_ENV}); without it the server refuses to start`);
    else if (!keyMatchesCheck(result.keyCheck, given.key)) notes.push(`the key in ${given.from} is not the restored domain's key: the server will refuse to start until it is given the right one`);
  }
  return { result, notes };
}
