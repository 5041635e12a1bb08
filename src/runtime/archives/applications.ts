// What a deployed application is made of, as its runtime shows it: the modules read from its
// archive, remembered per file (path, size, modification time) so a server's tree is rebuilt
// without reading the archive again. Only archives inside the data directory are read (uploads
// land there; a relative source path is taken from there): a deployer cannot make the server open
// any file of the host. An application whose archive cannot be read shows one module of its type,
// named after it, with the container's servlets only.
import { statSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { ArchiveError, openArchive } from './files.js';
import { CONTAINER_SERVLETS, DEFAULT_SESSION_TIMEOUT, type Module, ejbModule, enterpriseModules, webModule } from './modules.js';

export interface DeployedApplication {
  name: string;
  /** war, ear, jar (lower case). */
  moduleType: string;
  sourcePath: string;
}

export interface ApplicationModules {
  modules: Module[];
  /** Whether the modules were read from the archive (else they are the stand-in of its type). */
  fromArchive: boolean;
  /** Why the archive was not read, when it was not. */
  problem?: string;
}

const MAX_REMEMBERED = 1000;

export class ApplicationArchives {
  private readonly remembered = new Map<string, { size: number; mtimeMs: number; modules: Module[] }>();

  /** `root`: the folder archives are read from (the data directory); none: no archive is read. */
  constructor(private readonly root: string | undefined) {}

  /** The modules of `app`. Never throws: an unreadable archive gives the stand-in. */
  modules(app: DeployedApplication): ApplicationModules {
    const path = this.pathOf(app.sourcePath);
    if (typeof path !== 'string') return { modules: standIn(app), fromArchive: false, problem: path.problem };
    let st;
    try {
      st = statSync(path);
    } catch {
      return { modules: standIn(app), fromArchive: false, problem: `${app.sourcePath} does not exist` };
    }
    const known = this.remembered.get(path);
    if (known && known.size === st.size && known.mtimeMs === st.mtimeMs) return { modules: known.modules, fromArchive: true };
    let modules: Module[];
    try {
      modules = read(openArchive(path), app);
    } catch (err) {
      return { modules: standIn(app), fromArchive: false, problem: err instanceof ArchiveError ? err.message : `${app.sourcePath} cannot be read` };
    }
    if (this.remembered.size >= MAX_REMEMBERED) this.remembered.delete(this.remembered.keys().next().value!);
    this.remembered.set(path, { size: st.size, mtimeMs: st.mtimeMs, modules });
    return { modules, fromArchive: true };
  }

  private pathOf(sourcePath: string): string | { problem: string } {
    if (this.root === undefined) return { problem: 'no archive folder' };
    if (sourcePath === '') return { problem: 'no source path' };
    const full = resolve(this.root, sourcePath);
    const rel = relative(resolve(this.root), full);
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return { problem: `${sourcePath} is outside the data directory` };
    return full;
  }
}

function read(files: ReturnType<typeof openArchive>, app: DeployedApplication): Module[] {
  if (app.moduleType === 'ear') return enterpriseModules(files);
  if (app.moduleType === 'jar') return [ejbModule(files, `${app.name}.jar`)];
  return [webModule(files, `${app.name}.war`, app.name)];
}

/** What an application whose archive is not read shows: one module of its type. */
export function standIn(app: DeployedApplication): Module[] {
  if (app.moduleType === 'jar') return [{ kind: 'ejb', uri: `${app.name}.jar`, ejbs: [] }];
  return [{ kind: 'web', uri: `${app.name}.war`, contextRoot: `/${app.name}`, servlets: [...CONTAINER_SERVLETS], sessionTimeoutSecs: DEFAULT_SESSION_TIMEOUT }];
}
