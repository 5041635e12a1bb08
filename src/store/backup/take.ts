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

/** The bytes of a backup of `store`, consistent to one committed state of it. */
export async function takeBackup(store: Store, opts: TakeOptions = {}): Promise<{ configVersion: number; bytes: AsyncGenerator<Buffer> }> {
  const dump = await store.backupTables();
  const archives = opts.dataDir !== undefined ? listArchives(opts.dataDir) : [];
  return {
    configVersion: dump.configVersion,
    bytes: writeBackup(dump, archives, { ...(opts.dataDir !== undefined ? { dataDir: opts.dataDir } : {}), ...(opts.secretKey ? { secretKey: opts.secretKey } : {}) }),
  };
}
