// Where the store's URL and password come from. A password written into `--store` shows in the
// process list to every local account, so there are three ways that keep it out: the whole URL in
// the APPSERVER_STORE variable, a URL without password plus PostgreSQL's own PGPASSWORD variable
// (or ~/.pgpass), or `--store-password-file FILE`. A password given on the command line all the
// same still works, with a warning naming those ways, and is wiped from the process's command line
// as soon as the process can (it was visible until then).
import { readFileSync, statSync } from 'node:fs';

/** The variable holding the store's URL when `--store` is not given. */
export const STORE_ENV = 'APPSERVER_STORE';

export interface StoreChoice {
  /** The URL to open (undefined: SQLite in the data directory). */
  url?: string;
  warnings: string[];
}

const POSTGRES = /^postgres(ql)?:\/\//i;

/** The longest password file read (a password is short; anything longer is not one). */
const MAX_PASSWORD_FILE = 4096;

/**
 * The store a command uses: `--store`, else APPSERVER_STORE; with the password of
 * `--store-password-file` put into it. Throws a sentence naming what is wrong.
 */
export function chooseStore(opts: { store?: string | undefined; storePasswordFile?: string | undefined }, env: NodeJS.ProcessEnv = process.env): StoreChoice {
  const warnings: string[] = [];
  const fromEnv = env[STORE_ENV] !== undefined && env[STORE_ENV] !== '' ? env[STORE_ENV] : undefined;
  const given = opts.store ?? fromEnv;
  const origin = opts.store !== undefined ? '--store' : STORE_ENV;
  if (given === undefined || !POSTGRES.test(given)) {
    if (opts.storePasswordFile !== undefined) throw new Error(`--store-password-file needs a PostgreSQL store: give --store postgres://user@host:port/database (or ${STORE_ENV})`);
    return given === undefined ? { warnings } : { url: given, warnings };
  }
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new Error(`${origin} is not a URL this server can read (postgres://user@host:port/database)`);
  }
  if (opts.store !== undefined && url.password !== '') {
    warnings.push(
      `the --store URL holds a password, which other accounts of this machine can read in the process list; give it with --store-password-file FILE, the PGPASSWORD variable, or the whole URL in ${STORE_ENV} instead`,
    );
  }
  if (opts.storePasswordFile === undefined) return { url: given, warnings };
  if (url.password !== '') throw new Error(`the store's password is given twice: in the ${origin} URL and in --store-password-file; give it once`);
  const password = readPasswordFile(opts.storePasswordFile, warnings);
  url.password = encodeURIComponent(password);
  return { url: url.toString(), warnings };
}

/** The password a file holds: its first line, without the line end. */
function readPasswordFile(path: string, warnings: string[]): string {
  let text: string;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new Error(`--store-password-file ${path} is not a file`);
    if (st.size > MAX_PASSWORD_FILE) throw new Error(`--store-password-file ${path} is ${st.size} bytes long; a password file holds one line of at most ${MAX_PASSWORD_FILE} bytes`);
    if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) {
      warnings.push(`--store-password-file ${path} can be read by other accounts (mode ${(st.mode & 0o777).toString(8)}); run: chmod 600 ${path}`);
    }
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === 'ENOENT') throw new Error(`--store-password-file ${path} does not exist`);
    if (code === 'EACCES') throw new Error(`--store-password-file ${path} cannot be read by this account`);
    throw err;
  }
  const password = text.split(/\r?\n/)[0] ?? '';
  if (password === '') throw new Error(`--store-password-file ${path} is empty: its first line must be the password`);
  return password;
}

/**
 * Replaces the password of a `--store` URL in the command line the system shows for this process
 * (`ps`, /proc/<pid>/cmdline) by `***`. Where the system does not allow it, nothing changes.
 */
export function hideStorePassword(argv: readonly string[] = process.argv): void {
  let changed = false;
  const shown = argv.slice(1).map((arg, i, all) => {
    const inline = /^--store=/.exec(arg);
    const value = inline ? arg.slice(inline[0].length) : all[i - 1] === '--store' ? arg : undefined;
    if (value === undefined || !POSTGRES.test(value)) return arg;
    const masked = value.replace(/^(postgres(?:ql)?:\/\/[^:@/]*):[^@/]*@/i, '$1:***@');
    if (masked === value) return arg;
    changed = true;
    return inline ? `--store=${masked}` : masked;
  });
  if (!changed) return;
  try {
    process.title = ['appserver-admin', ...shown.slice(1)].join(' ');
  } catch {
    // Some systems refuse a new title: the warning already said how to avoid this.
  }
}
