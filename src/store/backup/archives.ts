// The archives of a data directory that a backup carries: every regular file below `applications/`
// (uploaded applications and their plans), the upload staging folder and symbolic links aside.
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type ArchiveFile, BACKUP_LIMITS } from './format.js';

export const ARCHIVE_FOLDER = 'applications';
/** Where uploads wait while they arrive (never part of a backup). */
const STAGING = '.incoming';

export function listArchives(dataDir: string): ArchiveFile[] {
  const out: ArchiveFile[] = [];
  const walk = (dir: string, segments: string[]) => {
    if (segments.length >= BACKUP_LIMITS.pathDepth) return;
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    for (const name of names) {
      if (segments.length === 1 && name === STAGING) continue;
      const file = join(dir, name);
      const st = lstatSync(file);
      const path = [...segments, name];
      if (st.isDirectory()) walk(file, path);
      else if (st.isFile()) {
        if (out.length >= BACKUP_LIMITS.files) throw new Error(`${join(dataDir, ARCHIVE_FOLDER)} holds more than ${BACKUP_LIMITS.files} files: too many for a backup`);
        out.push({ path: path.join('/'), file });
      }
    }
  };
  walk(join(dataDir, ARCHIVE_FOLDER), [ARCHIVE_FOLDER]);
  return out;
}
