// Command line: `appserver-admin serve` runs the administration server.
import { Command } from 'commander';
import { startServer } from './server.js';

const program = new Command();
program.name('appserver-admin').description('Administration server of an appserver domain');

program
  .command('serve')
  .description('serve the domain of a data directory (a new directory gets the demo domain)')
  .option('--host <address>', 'address to listen on', '127.0.0.1')
  .option('--port <number>', 'port to listen on', (v) => Number.parseInt(v, 10), 7001)
  .option('--data-dir <dir>', 'data directory', './data')
  .option('--log-level <level>', 'log level (fatal, error, warn, info, debug)', 'info')
  .action(async (opts: { host: string; port: number; dataDir: string; logLevel: string }) => {
    const server = await startServer({ host: opts.host, port: opts.port, dataDir: opts.dataDir, logLevel: opts.logLevel });
    const stop = async () => {
      await server.close();
      process.exit(0);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });

program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(`appserver-admin: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
