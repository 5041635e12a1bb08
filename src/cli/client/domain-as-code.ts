// Domain as code: `discover` writes the live domain as a model, `plan` compares a model with the
// live domain, `apply` makes the domain look like the model in one edit session and one
// activation. All three run on the typed client's model functions (src/client/model/), which
// speak the documented management interface only.
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { AppserverClient, AppserverError } from '../../client/index.js';
import { discover, variablesText } from '../../client/model/index.js';
import { type ConnectionFlags, clientOptions } from './connection.js';
import { exitCodeOf } from './exit-codes.js';
import { json, printable } from './output.js';

interface Common extends ConnectionFlags {
  json?: boolean;
}

/** A whole domain is read in one answer: allow a large one. */
const MAX_DOMAIN_BYTES = 1024 * 1024 * 1024;

const print = (text: string): void => {
  process.stdout.write(text);
};

function clientFor(opts: Common): AppserverClient {
  return new AppserverClient({ ...clientOptions(opts), maxResponseBytes: MAX_DOMAIN_BYTES });
}

function report(err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`appserver-admin: ${printable(message)}\n`);
  if (err instanceof AppserverError && err.details.length > 1) for (const d of err.details) process.stderr.write(`  - ${printable(d)}\n`);
}

/** Runs a command's body; an error is printed and sets the exit code (`code` fixes it, for plan). */
function guarded<A extends unknown[]>(body: (...args: A) => Promise<void>, code?: number) {
  return async (...args: A): Promise<void> => {
    try {
      await body(...args);
    } catch (err) {
      report(err);
      process.exitCode = code ?? exitCodeOf(err);
    }
  };
}

function writeText(file: string, text: string, what: string, mode = 0o644): void {
  try {
    writeFileSync(file, text, { mode });
  } catch (err) {
    throw new AppserverError('usage', `cannot write the ${what} ${file}: ${(err as Error).message}`);
  }
}

export function registerDomainAsCode(program: Command, command: (name: string, description: string) => Command): void {
  command('discover', 'write the running domain as a model (YAML: topology, resources, appDeployments), read over REST with one search')
    .option('--out <file>', 'write the model to this file (default: standard output)')
    .option('--variables <file>', 'host names and ports become @@PROP:key@@ tokens; their values are written to this properties file')
    .action(
      guarded(async (opts: Common & { out?: string; variables?: string }) => {
        const started = Date.now();
        const result = await discover(clientFor(opts), { variables: opts.variables !== undefined });
        if (opts.variables !== undefined) writeText(opts.variables, variablesText(result.variables), 'variables file');
        if (opts.out !== undefined) writeText(opts.out, result.model, 'model');
        else print(result.model);
        const summary = { beans: result.beans, secrets: result.secrets, variables: result.variables.size, ms: Date.now() - started, ...(opts.out !== undefined ? { out: opts.out } : {}) };
        if (opts.json && opts.out !== undefined) print(json(summary));
        else if (opts.out !== undefined) {
          print(`Wrote ${opts.out}: ${result.beans} beans${result.secrets.length > 0 ? `, ${result.secrets.length} secret token${result.secrets.length === 1 ? '' : 's'} to supply` : ''}${opts.variables !== undefined ? `, ${result.variables.size} variables in ${opts.variables}` : ''}.\n`);
        }
      }),
    );
  void program;
}
