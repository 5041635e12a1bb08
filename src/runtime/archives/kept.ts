// The archives the server keeps: uploads moved to `<data dir>/applications/<application>/`. An
// archive (or plan) stays while some deployment names it, in the active configuration or in any edit
// session, and while a deployment that just stored it is being made; otherwise it is removed, with its
// application's folder once empty. Nothing outside the area is ever removed, nor the staging folder
// of uploads in progress (`.incoming`), whatever a deployment's path says.
import { readdirSync, rmSync, rmdirSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';

/** Where uploads wait while they arrive (not kept archives). */
const STAGING = '.incoming';

/** True when `path` lies strictly inside `dir`. */
function inside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

export class KeptArchives {
  readonly dir: string;
  /** Files stored for deployments still being made (not yet named by any configuration). */
  private readonly pending = new Map<string, number>();

  constructor(dir: string) {
    this.dir = resolve(dir);
  }

  /** True when `path` is a kept archive's place: inside the area, in an application's folder, not staging. */
  holds(path: string): boolean {
    const p = resolve(path);
    if (!inside(this.dir, p) || dirname(p) === this.dir) return false;
    const first = relative(this.dir, p).split(/[\\/]/)[0];
    return first !== STAGING;
  }

  /** Marks files as in use until the returned function is called (a deployment being made). */
  hold(paths: readonly string[]): () => void {
    const held = paths.map((p) => resolve(p));
    for (const p of held) this.pending.set(p, (this.pending.get(p) ?? 0) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      for (const p of held) {
        const n = (this.pending.get(p) ?? 1) - 1;
        if (n > 0) this.pending.set(p, n);
        else this.pending.delete(p);
      }
    };
  }

  /**
   * Removes those of `paths` that are kept archives named by no deployment (`referenced`, as the
   * configuration and the sessions give them) and not held, then their folders once empty.
   * Returns the files removed.
   */
  remove(paths: readonly unknown[], referenced: ReadonlySet<string>): string[] {
    const removed: string[] = [];
    const named = new Set([...referenced].map((r) => resolve(r)));
    for (const given of paths) {
      if (typeof given !== 'string' || given === '') continue;
      const p = resolve(given);
      if (!this.holds(p) || named.has(p) || this.pending.has(p)) continue;
      rmSync(p, { force: true, recursive: true });
      removed.push(p);
      this.removeEmptyFolder(dirname(p));
    }
    return removed;
  }

  /**
   * Removes every kept archive named by no deployment and not held (what refused deployments and
   * undeployments left, also by earlier versions of the server). Returns the files removed.
   */
  sweep(referenced: ReadonlySet<string>, opts: { olderThan?: number } = {}): string[] {
    let folders: string[];
    try {
      folders = readdirSync(this.dir, { withFileTypes: true })
        .filter((d) => d.isDirectory() && d.name !== STAGING)
        .map((d) => join(this.dir, d.name));
    } catch {
      return [];
    }
    const files: string[] = [];
    for (const folder of folders) {
      let names: string[] = [];
      try {
        names = readdirSync(folder);
      } catch {
        // A folder removed meanwhile has nothing to sweep.
      }
      for (const f of names) {
        const file = join(folder, f);
        if (opts.olderThan !== undefined && !modifiedBefore(file, opts.olderThan)) continue;
        files.push(file);
      }
      if (names.length === 0) this.removeEmptyFolder(folder);
    }
    return this.remove(files, referenced);
  }

  private removeEmptyFolder(folder: string): void {
    if (!this.holds(join(folder, 'x')) || folder === this.dir) return;
    try {
      rmdirSync(folder);
    } catch {
      // Not empty (another archive or plan of the application stays), or gone already.
    }
  }
}

/** Collections whose beans name archives and plans by path. */
export const DEPLOYABLE_COLLECTIONS = ['appDeployments', 'libraries'] as const;

/** Whether a file was last changed before `time` (epoch ms); a file gone meanwhile is not. */
function modifiedBefore(file: string, time: number): boolean {
  try {
    return statSync(file).mtimeMs < time;
  } catch {
    return false;
  }
}
