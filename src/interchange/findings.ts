// What an import or export could not carry as it was, each with where it was found: the file, the
// path inside it (`/domain/server[ms1]/listen-port`, `topology.Server.ms1.ListenPort`) and the line
// when the reader knows it. Nothing is left out silently: whatever is not carried is a finding.

export type FindingSeverity =
  /** Something was left out or could not be understood. */
  | 'warning'
  /** Carried, but changed on the way (a secret sealed, a password to be supplied). */
  | 'info';

export interface Location {
  file: string;
  path: string;
  line?: number;
}

export interface Finding extends Location {
  severity: FindingSeverity;
  message: string;
}

/** One finding as a line of text: `config.xml:12: /domain/server[ms1]/foo: message`. */
export function formatFinding(f: Finding): string {
  return `${f.severity}: ${f.file}${f.line !== undefined ? `:${f.line}` : ''}: ${f.path}: ${f.message}`;
}

/** A location below another: `/domain` + `server[ms1]` or `topology` + `Server`. */
export function below(loc: Location, step: string, separator: string, line?: number): Location {
  return { file: loc.file, path: loc.path === '' ? step : `${loc.path}${separator}${step}`, ...(line !== undefined ? { line } : {}) };
}

/** A location as messages show it. */
export function where(loc: Location): string {
  return `${loc.file}${loc.line !== undefined ? `:${loc.line}` : ''} (${loc.path})`;
}
