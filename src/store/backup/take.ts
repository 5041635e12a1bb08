// Taking a backup: one consistent read of the store, then the archives of the data directory.
import type { Store } from '../store.js';
import { listArchives } from './archives.js';
import { writeBackup } from './format.js';

export interface TakeOptions {
  /** The data directory whose archives go in (none: the store alone). */
  dataDir?: string;
  /** The domain's secret key, when it is to go in. */
  secretKey?: Buffer;
}

/**
 * The bytes of a backup of `store`, consistent to one committed state of it, read from the store as
 * they are asked for. `close` ends the store's read: it is called once the bytes are read through,
 * and must be called by whoever stops reading them before that.
 */
export async function takeBackup(store: Store, opts: TakeOptions = {}): Promise<{ configVersion: number; bytes: AsyncGenerator<Buffer>; close: () => Promise<void> }> {
  const dump = await store.backupTables();
  let archives;
  try {
    archives = opts.dataDir !== undefined ? listArchives(opts.dataDir) : [];
  } catch (err) {
    await dump.close();
    throw err;
  }
  const written = writeBackup(dump, archives, { ...(opts.dataDir !== undefined ? { dataDir: opts.dataDir } : {}), ...(opts.secretKey ? { secretKey: opts.secretKey } : {}) });
  async function* bytes(): AsyncGenerator<Buffer> {
    try {
      yield* written;
    } finally {
      await dump.close();
    }
  }
  return { configVersion: dump.configVersion, bytes: bytes(), close: () => dump.close() };
}
