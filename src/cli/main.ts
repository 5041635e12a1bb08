// Command line: `appserver-admin serve` runs the administration server; `init`, `export` and `users`
// work on a data directory; the client commands (get, set, ..., see ./client/) talk to a running server.
// The server's modules are imported when a server command runs, so client commands (and shell
// completion, which runs one per key press) start quickly.
import { Command } from 'commander';
import { readFileSync } from 'node:fs';
import type { LogFormat } from './logging.js';
import type { RunningServer } from './server.js';
import { DEFAULT_FIRST_PORT, DEFAULT_LISTEN_ADDRESS, DEFAULT_SIZE, type DomainSize, generatedPortsProblem, parseFirstPort } from '../domain/generate.js';
import { SECRET_KEY_ENV } from '../config/secret-key.js';
import { DEFAULT_PRODUCT_VERSION, PRODUCT_VERSIONS } from '../catalog/versions.js';
import type { Finding } from '../interchange/findings.js';
import { parsePortOffset } from '../runtime/endpoints.js';
import { DEFAULT_HEAP_GROWTH_PERCENT, limitHeapGrowth, parseHeapGrowth } from './heap.js';
import { STORE_ENV, chooseStore, hideStorePassword } from './store-url.js';
import { DEFAULT_AUDIT_RETENTION_MS } from '../security/audit.js';

const STORE_PASSWORD_FILE_HELP = "file whose first line is the PostgreSQL store's password (keeps it out of the process list; so do PGPASSWORD and " + STORE_ENV + ')';

/** The store of a server command, from --store, APPSERVER_STORE and --store-password-file; warnings on standard error. */
function storeOf(opts: { store?: string; storePasswordFile?: string }): string | undefined {
  hideStorePassword();
  const choice = chooseStore(opts);
  for (const w of choice.warnings) process.stderr.write(`appserver-admin: warning: ${w}\n`);
  return choice.url;
}

/** How long a stopping server lets requests in flight finish, by default (s). */
const DEFAULT_STOP_TIMEOUT_SECONDS = 20;

function parseStopTimeout(value: string): number {
  if (!/^\d{1,4}(\.\d{1,3})?$/.test(value) || Number(value) > 3600) throw new Error(`--stop-timeout takes a number of seconds from 0 to 3600, not '${value.slice(0, 40)}'`);
  return Number(value);
}

/** How long one statement may run on a PostgreSQL store by default (s). */
const DEFAULT_STATEMENT_TIMEOUT_SECONDS = 30;

function parseStatementTimeout(value: string): number {
  if (!/^\d{1,4}(\.\d{1,3})?$/.test(value) || Number(value) > 3600) throw new Error(`--store-statement-timeout takes a number of seconds from 0 to 3600, not '${value.slice(0, 40)}'`);
  return Number(value);
}

const program = new Command();
// The version of the package this command belongs to (package.json sits three levels above dist/src/cli/).
const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
program.name('appserver-admin').description('Administration server of an appserver domain').version(version, '-V, --version', 'print the version and exit');

program
  .command('serve')
  .description('serve the domain of a data directory (a new directory gets the demo domain)')
  .option('--host <address>', 'address to listen on', '127.0.0.1')
  .option('--port <number>', 'port to listen on', (v) => Number.parseInt(v, 10), 7001)
  .option('--data-dir <dir>', 'data directory', './data')
  .option('--store <url>', `postgres://user@host:port/database to share the domain between servers (default: ${STORE_ENV}, else SQLite in the data directory)`)
  .option('--store-password-file <file>', STORE_PASSWORD_FILE_HELP)
  .option(
    '--store-statement-timeout <seconds>',
    'PostgreSQL store: how long one statement may run before the database cancels it and the request answers 503 with Retry-After (0 to 3600; 0: no bound)',
    parseStatementTimeout,
    DEFAULT_STATEMENT_TIMEOUT_SECONDS,
  )
  .option('--port-offset <n>', "added to every managed server's ports (listen, SSL and administration ports), so several domains share one host", parsePortOffset, 0)
  .option('--no-listeners', "running managed servers do not open their own ports")
  .option('--managed-host <address>', "the address managed servers without a listen address of their own (or with 0.0.0.0 or ::) bind (default: --host); 0.0.0.0 binds them to every interface")
  .option('--managed-max-connections <n>', 'connections each managed port keeps at once, from 1 to 1000000 (more are closed as they arrive)', (v) => wholeNumber('--managed-max-connections', v, 1, 1_000_000), 1024)
  .option('--log-level <level>', 'log level (fatal, error, warn, info, debug): info shows start-up, warnings, activations, lifecycle changes and the audit; debug adds a line per request', 'info')
  .option('--log-format <format>', 'json (a JSON object per line) or pretty (readable lines); default: pretty on a terminal, json otherwise')
  .option('--secret-key-file <path>', `file holding the key of sealed passwords (default: secret.key in the data directory; ${SECRET_KEY_ENV} gives the key itself)`)
  .option(
    '--trust-proxy <addresses>',
    'IP addresses or CIDR ranges (comma-separated, repeatable) of proxies whose X-Forwarded-Proto and X-Forwarded-Host are believed (default: none)',
    (value: string, list: string[] = []) => [...list, value],
  )
  .option('--control', 'serve the control interface for tests at /management/appserver-control: faults, clock, snapshots, request journal (also APPSERVER_CONTROL=1)')
  .option('--heap-growth <percent>', 'how far the memory heap may grow past what the last full collection kept, in percent from 0 to 300 (0: the JavaScript engine chooses)', parseHeapGrowth, DEFAULT_HEAP_GROWTH_PERCENT)
  .option('--stop-timeout <seconds>', 'on SIGTERM or SIGINT, how long requests in flight may take to finish before their connections are cut (0 to 3600; a second signal stops at once)', parseStopTimeout, DEFAULT_STOP_TIMEOUT_SECONDS)
  .option('--max-edit-sessions <n>', 'named edit sessions the domain may have, from 1 to 10000', (v) => wholeNumber('--max-edit-sessions', v, 1, 10_000), 100)
  .option('--max-edit-sessions-per-user <n>', 'named edit sessions one user may have created, from 1 to 10000', (v) => wholeNumber('--max-edit-sessions-per-user', v, 1, 10_000), 10)
  .option('--audit-retention <duration>', 'how long audit records are kept: a number with d, h, m or s (days, hours, minutes, seconds), up to 36500d; 0 keeps them for ever (default: 90d)', parseRetention)
  .option('--edit-session-idle <hours>', 'a named edit session unused (not changed, locked or activated) for this many hours is discarded with its lock and changes, from 1 to 8760', (v) => wholeNumber('--edit-session-idle', v, 1, 8760), 24)
  .action(async (opts: { host: string; port: number; dataDir: string; logLevel: string; logFormat?: string; store?: string; storePasswordFile?: string; secretKeyFile?: string; trustProxy?: string[]; portOffset: number; listeners: boolean; managedHost?: string; managedMaxConnections: number; control?: boolean; heapGrowth: number; maxEditSessions: number; maxEditSessionsPerUser: number; editSessionIdle: number; stopTimeout: number; auditRetention?: number; storeStatementTimeout: number }) => {
    limitHeapGrowth(opts.heapGrowth);
    const store = storeOf(opts);
    // A stop asked for while the server starts is kept and done once it has started, so that it
    // closes its store cleanly instead of dying by the signal.
    let server: RunningServer | undefined;
    let stopAsked = false;
    const stop = async () => {
      stopAsked = true;
      if (!server) return;
      await server.close();
      process.exit(0);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    const { startServer } = await import('./server.js');
    server = await startServer({
      host: opts.host,
      port: opts.port,
      dataDir: opts.dataDir,
      stopTimeoutMs: opts.stopTimeout * 1000,
      portOffset: opts.portOffset,
      listeners: opts.listeners,
      ...(opts.managedHost !== undefined ? { managedHost: opts.managedHost } : {}),
      managedConnections: { perListener: opts.managedMaxConnections },
      logLevel: opts.logLevel,
      // People at a terminal read lines; log collectors (a pipe, a file, a service) get JSON.
      logFormat: (opts.logFormat ?? (process.stdout.isTTY ? 'pretty' : 'json')) as LogFormat,
      ...(store ? { store, storeStatementTimeoutMs: Math.round(opts.storeStatementTimeout * 1000) } : {}),
      ...(opts.secretKeyFile !== undefined ? { secretKeyFile: opts.secretKeyFile } : {}),
      ...(opts.trustProxy ? { trustProxy: opts.trustProxy } : {}),
      ...(opts.control ? { control: true } : {}),
      sessionLimits: { total: opts.maxEditSessions, perUser: opts.maxEditSessionsPerUser, idleMs: opts.editSessionIdle * 3_600_000 },
      auditRetentionMs: opts.auditRetention ?? DEFAULT_AUDIT_RETENTION_MS,
    });
    if (stopAsked) await stop();
  });

const printFindings = async (findings: Finding[]) => {
  const { formatFinding } = await import('../interchange/findings.js');
  for (const f of findings) process.stderr.write(`appserver-admin: ${formatFinding(f)}\n`);
};

const RETENTION_UNITS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 };

/** `--audit-retention`: 0, or a whole number of days, hours, minutes or seconds up to 100 years. */
export function parseRetention(value: string): number {
  const m = /^(\d{1,9})([dhms])?$/.exec(value.trim());
  const ms = m ? Number(m[1]) * (m[2] ? RETENTION_UNITS[m[2]]! : m[1] === '0' ? 0 : Number.NaN) : Number.NaN;
  if (!Number.isSafeInteger(ms) || ms > 36_500 * 86_400_000) throw new Error(`--audit-retention takes 0 or a number with d, h, m or s (90d, 12h, 30m), at most 36500d, not '${value.slice(0, 40)}'`);
  return ms;
}

const oneOf = <T extends string>(option: string, values: readonly T[]) => (value: string): T => {
  if (!(values as readonly string[]).includes(value)) throw new Error(`${option} takes ${values.join(' or ')}, not '${value}'`);
  return value as T;
};

program
  .command('init')
  .description('create a data directory holding a generated domain of the given size, or one imported from config.xml or a model')
  .requiredOption('--data-dir <dir>', 'data directory to create')
  .option('--from <file>', 'import the domain from config.xml (its descriptors are read from its folder) or a model (.yaml, .yml)')
  .option('--store <url>', `a postgres://user@host:port/database URL to create the domain in (default: ${STORE_ENV}, else SQLite in the data directory)`)
  .option('--store-password-file <file>', STORE_PASSWORD_FILE_HELP)
  .option('--servers <n>', 'managed servers', (v) => Number.parseInt(v, 10), DEFAULT_SIZE.servers)
  .option('--clusters <n>', 'clusters', (v) => Number.parseInt(v, 10), DEFAULT_SIZE.clusters)
  .option('--partitions <n>', 'partitions', (v) => Number.parseInt(v, 10), DEFAULT_SIZE.partitions)
  .option('--applications <n>', 'application deployments', (v) => Number.parseInt(v, 10), DEFAULT_SIZE.applications)
  .option('--listen-address <address>', "the managed servers' listen address (an IP address or a host name of this machine)", DEFAULT_LISTEN_ADDRESS)
  .option('--first-port <n>', "the first managed server's listen port; the others follow it", parseFirstPort, DEFAULT_FIRST_PORT)
  .option('--secret-key-file <path>', `file holding the key of sealed passwords (default: secret.key in the data directory; ${SECRET_KEY_ENV} gives the key itself)`)
  .option('--product-version <version>', `the product version of the domain: ${PRODUCT_VERSIONS.join(', ')} (default ${DEFAULT_PRODUCT_VERSION}; with --from, the file's domain-version)`, oneOf('--product-version', PRODUCT_VERSIONS))
  .option('--foreign-secrets <mode>', 'with --from: values sealed with another key are kept sealed (keep) or replaced by the placeholder (placeholder)', oneOf('--foreign-secrets', ['keep', 'placeholder'] as const), 'keep')
  .option('--secret-placeholder <text>', 'with --from --foreign-secrets placeholder: the text put in their place', 'changeme')
  .action(async (opts: { dataDir: string; from?: string; store?: string; storePasswordFile?: string; secretKeyFile?: string; productVersion?: string; foreignSecrets: 'keep' | 'placeholder'; secretPlaceholder: string } & DomainSize, cmd: Command) => {
    const { dataDir, from, store: _store, storePasswordFile: _file, secretKeyFile, productVersion, foreignSecrets, secretPlaceholder, ...size } = opts;
    const store = storeOf(opts);
    const { initFrom } = await import('./interchange.js');
    const { initDataDir } = await import('./server.js');
    if (from !== undefined) {
      const sized = ['servers', 'clusters', 'partitions', 'applications', 'listenAddress', 'firstPort'].filter((o) => cmd.getOptionValueSource(o) === 'cli');
      if (sized.length > 0) throw new Error(`--from imports a domain: ${sized.map((o) => `--${o.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')} cannot be given with it`);
      const created = await initFrom(from, dataDir, {
        foreignSecrets,
        secretPlaceholder,
        ...(store ? { store } : {}),
        ...(secretKeyFile !== undefined ? { secretKeyFile } : {}),
        ...(productVersion !== undefined ? { productVersion } : {}),
      });
      for (const w of created.warnings) process.stderr.write(`appserver-admin: warning: ${w}\n`);
      await printFindings(created.findings);
      const warnings = created.findings.filter((f) => f.severity === 'warning').length;
      process.stdout.write(`Created ${dataDir} from ${from}: ${created.servers} servers; ${warnings} warning${warnings === 1 ? '' : 's'}, ${created.findings.length - warnings} note${created.findings.length - warnings === 1 ? '' : 's'}.\n`);
      if (created.message) process.stdout.write(`${created.message}\n`);
      return;
    }
    const ports = generatedPortsProblem(size);
    if (ports) throw new Error(ports);
    const created = await initDataDir(dataDir, size, store, { ...(secretKeyFile !== undefined ? { secretKeyFile } : {}), ...(productVersion !== undefined ? { productVersion } : {}) });
    for (const w of created.warnings) process.stderr.write(`appserver-admin: warning: ${w}\n`);
    process.stdout.write(`Created ${dataDir}: ${size.servers} servers, ${size.clusters} clusters, ${size.partitions} partitions, ${size.applications} applications.\n`);
    if (size.servers > 0) {
      const first = size.firstPort ?? DEFAULT_FIRST_PORT;
      process.stdout.write(
        `Managed servers listen on ${size.listenAddress ?? DEFAULT_LISTEN_ADDRESS}, ports ${first}${size.servers > 1 ? `-${first + size.servers - 1}` : ''} ` +
          '(choose them with init --listen-address and --first-port; serve --port-offset N shifts them all, serve --no-listeners opens none).\n',
      );
    }
    if (created.message) process.stdout.write(`${created.message}\n`);
  });

program
  .command('export')
  .description('write the domain of a data directory as config.xml (with its descriptors) or as a model, without starting a server')
  .requiredOption('--format <format>', 'xml (config.xml and its descriptors) or model (YAML)', oneOf('--format', ['xml', 'model'] as const))
  .requiredOption('--data-dir <dir>', 'data directory of the domain')
  .option('--store <url>', `a postgres://user@host:port/database URL holding the domain (default: ${STORE_ENV}, else SQLite in the data directory)`)
  .option('--store-password-file <file>', STORE_PASSWORD_FILE_HELP)
  .option('--out <file>', 'file to write (default: standard output); for xml, the descriptors go beside it')
  .option('--secrets <mode>', "this domain's sealed values: sealed (only its key opens them) or placeholder (@@SECRET:...@@ to be supplied)", oneOf('--secrets', ['sealed', 'placeholder'] as const), 'sealed')
  .action(async (opts: { format: 'xml' | 'model'; dataDir: string; store?: string; storePasswordFile?: string; out?: string; secrets: 'sealed' | 'placeholder' }) => {
    const store = storeOf(opts);
    const { exportDataDir } = await import('./interchange.js');
    const result = await exportDataDir(opts.dataDir, {
      format: opts.format,
      secrets: opts.secrets,
      ...(store ? { store } : {}),
      ...(opts.out ? { out: opts.out } : {}),
    });
    await printFindings(result.findings);
    if (result.stdout !== undefined) process.stdout.write(result.stdout);
    else process.stderr.write(`appserver-admin: wrote ${result.written.join(', ')}\n`);
  });

program
  .command('backup')
  .description('write a backup of a domain to a file: from a running server (--url, as an administrator), or from a data directory or store with no server (--data-dir, --store)')
  .requiredOption('--out <file>', 'the backup file to write (written beside it first, then renamed, mode 0600)')
  .option('--url <url>', 'a running server, http://host:port (env APPSERVER_URL; the default when neither --data-dir nor --store is given: http://127.0.0.1:7001)')
  .option('--user <name>', 'an administrator (env APPSERVER_USER)')
  .option('--password <password>', 'password (env APPSERVER_PASSWORD; safer than a flag, which others may see in the process list)')
  .option('--config <file>', 'client configuration file, as the client commands take it (env APPSERVER_CONFIG)')
  .option('--request-timeout <seconds>', 'how long to wait for the server to begin answering, and between pieces of the answer (default 30)', (v) => Number(v))
  .option('--data-dir <dir>', 'back up this data directory (its SQLite store, or with --store the store named, and its archives) without a server')
  .option('--store <url>', 'back up the domain of this postgres:// store without a server')
  .option('--include-secret-key', "offline only: put the domain's secret key in the backup (keep such a file as safe as the key)")
  .option('--secret-key-file <path>', `with --include-secret-key: the key file (default: secret.key in the data directory; ${SECRET_KEY_ENV} gives the key itself)`)
  .action(async (opts: { out: string; url?: string; user?: string; password?: string; config?: string; requestTimeout?: number; dataDir?: string; store?: string; includeSecretKey?: boolean; secretKeyFile?: string }) => {
    const offline = opts.dataDir !== undefined || opts.store !== undefined;
    if (offline && (opts.url !== undefined || opts.user !== undefined)) throw new Error('--url and --user take a backup from a running server; --data-dir and --store take one without it: give one or the other');
    if (offline) {
      const { backupOffline } = await import('./backup.js');
      const done = await backupOffline({
        out: opts.out,
        ...(opts.dataDir !== undefined ? { dataDir: opts.dataDir } : {}),
        ...(opts.store !== undefined ? { store: opts.store } : {}),
        ...(opts.includeSecretKey ? { includeSecretKey: true } : {}),
        ...(opts.secretKeyFile !== undefined ? { secretKeyFile: opts.secretKeyFile } : {}),
      });
      process.stdout.write(`Wrote ${opts.out}: ${done.bytes} bytes, configuration version ${done.configVersion}${done.archives ? '' : ', no archives (no --data-dir)'}${opts.includeSecretKey ? ', with the secret key' : ''}.\n`);
      return;
    }
    if (opts.includeSecretKey) throw new Error("--include-secret-key works offline only (--data-dir or --store): a running server never sends its key. Keep the key file apart (see docs/reliability.md)");
    if (opts.requestTimeout !== undefined && !(opts.requestTimeout > 0 && opts.requestTimeout <= 86_400)) throw new Error('--request-timeout takes a number of seconds between 0 and 86400');
    const { backupOnline } = await import('./client/backup.js');
    const done = await backupOnline(
      {
        ...(opts.url !== undefined ? { url: opts.url } : {}),
        ...(opts.user !== undefined ? { user: opts.user } : {}),
        ...(opts.password !== undefined ? { password: opts.password } : {}),
        ...(opts.config !== undefined ? { config: opts.config } : {}),
        ...(opts.requestTimeout !== undefined ? { requestTimeout: opts.requestTimeout } : {}),
      },
      opts.out,
    );
    process.stdout.write(`Wrote ${opts.out}: ${done.bytes} bytes, configuration version ${done.configVersion ?? 'unknown'}.\n`);
  });

program
  .command('restore')
  .description('restore a backup file into a data directory (SQLite) or a store, with no server running on it')
  .argument('<file>', 'the backup file')
  .option('--data-dir <dir>', 'data directory to restore into (its store, unless --store, and its archives)', undefined)
  .option('--store <url>', 'a postgres:// store to restore into (default: SQLite in the data directory)')
  .option('--force', 'replace the domain the store already holds (stop every server using it first)')
  .option('--secret-key-file <path>', `where the key of the restored domain is looked for, or written when the backup holds it (default: secret.key in the data directory; ${SECRET_KEY_ENV} gives the key itself)`)
  .action(async (file: string, opts: { dataDir?: string; store?: string; force?: boolean; secretKeyFile?: string }) => {
    const { restoreOffline } = await import('./backup.js');
    const { result, notes } = await restoreOffline(file, opts);
    const rows = Object.values(result.rows).reduce((a, b) => a + b, 0);
    process.stdout.write(
      `Restored ${file} (taken ${result.header.created} from ${result.header.store}, configuration version ${result.header.configVersion}): ${rows} rows, ${result.restoredArchives} of ${result.archives} archives.\n`,
    );
    for (const n of notes) process.stderr.write(`appserver-admin: note: ${n}\n`);
  });

// The way back in when every administrator is held up: work on the store, no server needed.
const users = program.command('users').description("unlock user names or set a user's password in a data directory's store, without a running server");
users
  .command('unlock [user]')
  .description('forget the failed logins and back-off of a user name (and of a client address of that spelling), or of everyone when no user is named')
  .requiredOption('--data-dir <dir>', 'data directory of the domain')
  .option('--store <url>', 'a postgres:// URL holding the domain (default: SQLite in the data directory)')
  .action(async (user: string | undefined, opts: { dataDir: string; store?: string }) => {
    const { unlockUsers } = await import('./users.js');
    process.stdout.write(`${await unlockUsers({ dataDir: opts.dataDir, ...(opts.store ? { store: opts.store } : {}) }, user)}\n`);
  });
users
  .command('reset-password <user>')
  .description('set a user\'s password (typed at a prompt, or the first line of standard input or of --password-file; never an argument) and forget its failed logins')
  .requiredOption('--data-dir <dir>', 'data directory of the domain')
  .option('--store <url>', 'a postgres:// URL holding the domain (default: SQLite in the data directory)')
  .option('--password-file <file>', 'read the new password from the first line of this file')
  .action(async (user: string, opts: { dataDir: string; store?: string; passwordFile?: string }) => {
    const { passwordFromFile, passwordFromStdin, resetPassword } = await import('./users.js');
    const password = opts.passwordFile !== undefined ? passwordFromFile(opts.passwordFile) : await passwordFromStdin();
    process.stdout.write(`${await resetPassword({ dataDir: opts.dataDir, ...(opts.store ? { store: opts.store } : {}) }, user, password)}\n`);
  });

// The server commands (serve above all) leave the client's commands and their modules unloaded:
// a start does not pay for them. Help and every other command line see them all.
const SERVER_COMMANDS = new Set(['serve', 'init', 'export', 'backup', 'restore', 'users']);
if (!SERVER_COMMANDS.has(process.argv[2] ?? '')) {
  const { registerClientCommands } = await import('./client/commands.js');
  registerClientCommands(program);
}

program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(`appserver-admin: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});

/** A whole number from `min` to `max` given on the command line, or an error naming the option. */
function wholeNumber(option: string, text: string, min: number, max: number): number {
  const n = /^\s*\d{1,7}\s*$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${option} takes a whole number from ${min} to ${max}, not '${text.slice(0, 40)}'`);
  return n;
}
