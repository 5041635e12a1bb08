// Command line: `appserver-admin serve` runs the administration server.
import { Command } from 'commander';
import type { LogFormat } from './logging.js';
import { DEFAULT_SIZE, type DomainSize } from '../domain/generate.js';
import { SECRET_KEY_ENV } from '../config/secret-key.js';
import { initDataDir, startServer } from './server.js';

const program = new Command();
program.name('appserver-admin').description('Administration server of an appserver domain');

program
  .command('serve')
  .description('serve the domain of a data directory (a new directory gets the demo domain)')
  .option('--host <address>', 'address to listen on', '127.0.0.1')
  .option('--port <number>', 'port to listen on', (v) => Number.parseInt(v, 10), 7001)
  .option('--data-dir <dir>', 'data directory', './data')
  .option('--store <url>', 'postgres://user:password@host:port/database to share the domain between servers (default: SQLite in the data directory)')
  .option('--log-level <level>', 'log level (fatal, error, warn, info, debug): info shows start-up, warnings, activations, lifecycle changes and the audit; debug adds a line per request', 'info')
  .option('--log-format <format>', 'json (a JSON object per line) or pretty (readable lines)', 'json')
  .option('--secret-key-file <path>', `file holding the key of sealed passwords (default: secret.key in the data directory; ${SECRET_KEY_ENV} gives the key itself)`)
  .option(
    '--trust-proxy <addresses>',
    'IP addresses or CIDR ranges (comma-separated, repeatable) of proxies whose X-Forwarded-Proto and X-Forwarded-Host are believed (default: none)',
    (value: string, list: string[] = []) => [...list, value],
  )
  .action(async (opts: { host: string; port: number; dataDir: string; logLevel: string; logFormat: string; store?: string; secretKeyFile?: string; trustProxy?: string[] }) => {
    const server = await startServer({
      host: opts.host,
      port: opts.port,
      dataDir: opts.dataDir,
      logLevel: opts.logLevel,
      logFormat: opts.logFormat as LogFormat,
      ...(opts.store ? { store: opts.store } : {}),
      ...(opts.secretKeyFile !== undefined ? { secretKeyFile: opts.secretKeyFile } : {}),
      ...(opts.trustProxy ? { trustProxy: opts.trustProxy } : {}),
    });
    const stop = async () => {
      await server.close();
      process.exit(0);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });

program
  .command('init')
  .description('create a data directory holding a generated domain of the given size')
  .requiredOption('--data-dir <dir>', 'data directory to create')
  .option('--store <url>', 'a postgres:// URL to create the domain in (default: SQLite in the data directory)')
  .option('--servers <n>', 'managed servers', (v) => Number.parseInt(v, 10), DEFAULT_SIZE.servers)
  .option('--clusters <n>', 'clusters', (v) => Number.parseInt(v, 10), DEFAULT_SIZE.clusters)
  .option('--partitions <n>', 'partitions', (v) => Number.parseInt(v, 10), DEFAULT_SIZE.partitions)
  .option('--applications <n>', 'application deployments', (v) => Number.parseInt(v, 10), DEFAULT_SIZE.applications)
  .option('--secret-key-file <path>', `file holding the key of sealed passwords (default: secret.key in the data directory; ${SECRET_KEY_ENV} gives the key itself)`)
  .action(async (opts: { dataDir: string; store?: string; secretKeyFile?: string } & DomainSize) => {
    const { dataDir, store, secretKeyFile, ...size } = opts;
    const created = await initDataDir(dataDir, size, store, secretKeyFile !== undefined ? { secretKeyFile } : {});
    for (const w of created.warnings) process.stderr.write(`appserver-admin: warning: ${w}\n`);
    process.stdout.write(`Created ${dataDir}: ${size.servers} servers, ${size.clusters} clusters, ${size.partitions} partitions, ${size.applications} applications.\n`);
    if (created.message) process.stdout.write(`${created.message}\n`);
  });

program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(`appserver-admin: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
