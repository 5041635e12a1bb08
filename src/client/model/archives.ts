// A model's archive paths: a deployment whose `SourcePath` (or `PlanPath`) starts with `wlsdeploy/`
// names a file of the model's archive, kept next to the model file (`wlsdeploy/applications/x.war`
// beside `domain.yaml`), the deploy tooling's layout. apply uploads such a file (a multipart POST,
// as the deployment interface takes an archive) instead of sending the path; any other path is one
// on the server's machine and is sent as it is.
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';

const PREFIX = 'wlsdeploy/';

/** Whether a source or plan path names a file of the model's archive. */
export function isArchivePath(value: string): boolean {
  return value.startsWith(PREFIX);
}

/**
 * The local file an archive path names, below `dir`; or why there is none. A path that leaves the
 * archive's folder (`..`, a link pointing out of it) is refused: a model must not make apply upload
 * any file of the machine it runs on.
 */
export function archiveProblem(value: string, dir: string): { file: string } | string {
  const segments = value.split(/[/\\]/);
  if (segments.some((s) => s === '..' || s === '') || value.includes('\0')) return `the archive path '${value}' must name a file below ${PREFIX} without '..' or empty segments`;
  const file = join(dir, ...segments);
  let real: string;
  try {
    if (!statSync(file).isFile()) return `the archive path '${value}' names ${file}, which is not a file`;
    real = realpathSync(file);
  } catch {
    return `the archive file ${file} is not there (a ${PREFIX}... path is read next to the model, in ${dir})`;
  }
  // The folder as it lies next to the model, not where a link named wlsdeploy would lead: a model
  // checked out from elsewhere may carry such a link to any folder of this machine.
  let root: string;
  try {
    root = join(realpathSync(dir), PREFIX);
  } catch {
    root = join(dir, PREFIX);
  }
  const rel = relative(root, real);
  if (rel === '' || rel.startsWith(`..${sep}`) || rel === '..' || isAbsolute(rel)) return `the archive path '${value}' leads out of ${join(dir, PREFIX)} (through '..' or a link)`;
  return { file };
}

/** The file name at the end of a path, either separator. */
function baseName(path: string): string {
  const parts = path.split(/[/\\]/).filter((s) => s !== '');
  return parts[parts.length - 1] ?? '';
}

/**
 * Whether a deployment's path in the domain is the upload of the model's archive file: the server
 * keeps an upload in a folder of its own under the file name it was given, so the file names match.
 */
export function sameArchive(modelValue: string, liveValue: unknown): boolean {
  return typeof liveValue === 'string' && baseName(liveValue) !== '' && baseName(liveValue) === baseName(modelValue);
}

/** The multipart parts of an upload: the part each archive property travels in. */
const PARTS: Record<string, string> = { sourcePath: 'sourcePath', planPath: 'deploymentPlan' };

/** The multipart body of a deployment whose files are uploaded: its `model` first, then the files. */
export function uploadForm(model: Record<string, unknown>, archives: ReadonlyMap<string, string>): FormData {
  const form = new FormData();
  const sent = { ...model };
  for (const name of archives.keys()) delete sent[name];
  form.append('model', JSON.stringify(sent));
  for (const [name, file] of archives) {
    const part = PARTS[name];
    if (part === undefined) continue;
    form.append(part, new Blob([readFileSync(file)]), baseName(file));
  }
  return form;
}
