// Files that operations write and read on a client's behalf (security data exports, published
// metadata). They live in folders of the data directory, private to this account (folders 0700,
// files 0600), and a client names only a plain file name: no path can lead out of its folder, and
// links are not followed.
import { closeSync, constants, fstatSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { badRequest } from '../core/problems.js';
import { nameProblem } from '../config/validate.js';

/** Largest file an operation reads back. */
export const MAX_DATA_FILE_BYTES = 16 * 1024 * 1024;

export class DataFiles {
  constructor(private readonly dataDir: string) {}

  /** The checked name of a file in `folder`; `arg` is the argument that named it (for messages). */
  private path(folder: string, name: unknown, arg: string): { path: string; shown: string } {
    if (typeof name !== 'string' || name === '') throw badRequest(`The argument '${arg}' must name a file (a plain file name such as 'realm.json').`, arg);
    const problem = nameProblem(name);
    if (problem) throw badRequest(`The file name ${JSON.stringify(name)} given as '${arg}' ${problem}; give a plain file name, without folders.`, arg);
    return { path: join(this.dataDir, folder, name), shown: `${folder}/${name}` };
  }

  /** Writes a file (mode 0600); refuses to replace one unless `overwrite`. Returns where it went, relative to the data directory. */
  write(folder: string, name: unknown, arg: string, content: string, overwrite: boolean): string {
    const { path, shown } = this.path(folder, name, arg);
    mkdirSync(join(this.dataDir, folder), { recursive: true, mode: 0o700 });
    if (!overwrite) {
      try {
        writeFileSync(path, content, { mode: 0o600, flag: 'wx' });
        return shown;
      } catch (err) {
        if ((err as { code?: string }).code === 'EEXIST') throw badRequest(`The file '${shown}' already exists in the data directory and may not be overwritten.`, arg);
        throw err;
      }
    }
    // Written aside, then renamed over the old file: a link in its place is replaced, never followed.
    const temp = `${path}.${process.pid}.tmp`;
    writeFileSync(temp, content, { mode: 0o600, flag: 'w' });
    renameSync(temp, path);
    return shown;
  }

  /** Reads a file written earlier (or put there by the administrator); at most MAX_DATA_FILE_BYTES. */
  read(folder: string, name: unknown, arg: string): { text: string; shown: string } {
    const { path, shown } = this.path(folder, name, arg);
    let fd: number;
    try {
      fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'ENOENT') throw badRequest(`There is no file '${shown}' in the data directory.`, arg);
      if (code === 'ELOOP') throw badRequest(`'${shown}' in the data directory is a link; only plain files are read.`, arg);
      throw err;
    }
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) throw badRequest(`'${shown}' in the data directory is not a plain file.`, arg);
      if (st.size > MAX_DATA_FILE_BYTES) throw badRequest(`'${shown}' is larger than ${MAX_DATA_FILE_BYTES / 1024 / 1024} MiB.`, arg);
      return { text: readFileSync(fd, 'utf8'), shown };
    } finally {
      closeSync(fd);
    }
  }
}
