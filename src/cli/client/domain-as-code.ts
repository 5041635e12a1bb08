// Domain as code: `discover` writes the live domain as a model, `plan` compares a model with the
// live domain, `apply` makes the domain look like the model in one edit session and one
// activation. All three run on the typed client's model functions (src/client/model/), which
// speak the documented management interface only.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { AppserverClient, AppserverError } from '../../client/index.js';
import { type Change, type Node, type Plan, type Problem, type Substitutions, ApplyError, addRealm, apply, discover, parseVariables, plan, problemText, readLive, readModel, variablesText } from '../../client/model/index.js';
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
  if (err instanceof AppserverError) for (const d of err.details) process.stderr.write(`  - ${printable(d)}\n`);
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

const MAX_MODEL_BYTES = 64 * 1024 * 1024;

function readText(file: string, what: string, max = MAX_MODEL_BYTES): string {
  let size: number;
  try {
    const st = statSync(file);
    if (!st.isFile()) throw new AppserverError('usage', `the ${what} ${file} is not a file`);
    size = st.size;
  } catch (err) {
    if (err instanceof AppserverError) throw err;
    throw new AppserverError('usage', `cannot read the ${what} ${file}: ${(err as Error).message}`);
  }
  if (size > max) throw new AppserverError('usage', `the ${what} ${file} is larger than ${max} bytes`);
  return readFileSync(file, 'utf8');
}

/** Where @@SECRET:name:key@@ values come from: files DIR/name/key (or DIR/name-key), or variables NAME_KEY. */
function secretsFrom(source: string | undefined): Pick<Substitutions, 'secret' | 'secretSource'> {
  if (source === undefined) return {};
  if (source === 'env') {
    const envName = (name: string, key: string) => `${name}_${key}`.toUpperCase().replace(/[^A-Z0-9]/g, '_');
    return { secret: (name, key) => process.env[envName(name, key)], secretSource: 'the environment (NAME_KEY, upper case, other characters as _)' };
  }
  if (!existsSync(source) || !statSync(source).isDirectory()) throw new AppserverError('usage', `--secrets-from takes a directory or 'env', and ${source} is not a directory`);
  const safe = (s: string) => s !== '' && s !== '.' && s !== '..' && !/[/\\\0]/.test(s);
  return {
    secret: (name, key) => {
      if (!safe(name) || !safe(key)) return undefined;
      for (const f of [join(source, name, key), join(source, `${name}-${key}`)]) {
        try {
          if (statSync(f).isFile()) return readFileSync(f, 'utf8').replace(/\r?\n$/, '');
        } catch {
          // Not there: try the other spelling.
        }
      }
      return undefined;
    },
    secretSource: `${source} (files <name>/<key>)`,
  };
}

interface ModelFlags extends Common {
  variables?: string;
  secretsFrom?: string;
  prune?: boolean;
  yes?: boolean;
}

function loadModel(file: string, opts: ModelFlags): { root: Node; notes: Problem[] } {
  const subs: Substitutions = { ...secretsFrom(opts.secretsFrom) };
  if (opts.variables !== undefined) subs.variables = parseVariables(readText(opts.variables, 'variables file', 4 * 1024 * 1024));
  const read = readModel(readText(file, 'model'), file, subs);
  if (read.problems.length > 0) {
    throw new AppserverError('usage', `${file} has ${read.problems.length} problem${read.problems.length === 1 ? '' : 's'}: nothing was compared or changed`, undefined, read.problems.map(problemText));
  }
  return { root: read.root, notes: read.notes };
}

/** Starts the search of the domain, then reads the model while its answer comes in; a bad model abandons the search. */
function readBoth(client: AppserverClient, file: string, opts: ModelFlags): { reading: Promise<Node>; root: Node; notes: Problem[] } {
  const abandon = new AbortController();
  const reading = readLive(client, { signal: abandon.signal });
  reading.catch(() => undefined);
  try {
    return { reading, ...loadModel(file, opts) };
  } catch (err) {
    abandon.abort();
    throw err;
  }
}

function show(v: unknown): string {
  if (v === undefined) return '(unset)';
  if (Array.isArray(v)) return `[${v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(', ')}]`;
  if (typeof v === 'string') return JSON.stringify(v);
  return JSON.stringify(v);
}

function planText(p: Plan): string {
  const lines: string[] = [];
  const sign = { create: '+', update: '~', delete: '-' } as const;
  for (const c of p.changes) {
    const where = c.at?.line !== undefined ? `  (${c.at.path}, line ${c.at.line})` : '';
    lines.push(`${sign[c.op]} ${c.op} ${c.path.join('/')}${c.restart ? '  [restart needed]' : ''}${where}`);
    for (const pc of c.props) {
      const value = pc.secret ? '(secret)' : show(pc.new);
      lines.push(c.op === 'create' ? `    ${pc.key}: ${value}` : `    ${pc.key}: ${show(pc.old)} -> ${value}${pc.restart ? '  (restart)' : ''}`);
    }
    if (c.op === 'create' && c.node) {
      const below = countBelow(c.node);
      if (below > 0) lines.push(`    (and ${below} bean${below === 1 ? '' : 's'} below it, made and compared once it exists)`);
    }
  }
  const n = (op: Change['op']) => p.changes.filter((c) => c.op === op).length;
  const restarts = p.changes.filter((c) => c.restart).length;
  lines.push(p.changes.length === 0 ? 'No changes: the domain matches the model.' : `Plan: ${n('create')} to create, ${n('update')} to change, ${n('delete')} to delete${restarts > 0 ? `; ${restarts} need${restarts === 1 ? 's' : ''} a restart` : ''}.`);
  for (const note of p.notes) lines.push(`note: ${problemText(note)}`);
  return `${lines.join('\n')}\n`;
}

function countBelow(node: Node): number {
  let n = 0;
  for (const s of node.singletons.values()) n += (s.values.size > 0 ? 1 : 0) + countBelow(s);
  for (const items of node.collections.values()) for (const i of items.values()) n += 1 + countBelow(i);
  return n;
}

function planJson(p: Plan): unknown {
  return {
    changes: p.changes.map((c) => ({
      op: c.op,
      path: c.path.join('/'),
      restart: c.restart,
      ...(c.at?.line !== undefined ? { model: c.at.path, line: c.at.line } : {}),
      properties: c.props.map((pc) => ({ name: pc.name, key: pc.key, ...(c.op !== 'create' ? { old: pc.old } : {}), new: pc.secret ? '(secret)' : pc.new, restart: pc.restart })),
    })),
    notes: p.notes.map(problemText),
  };
}

async function confirm(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
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
  command('plan', 'compare a model with the running domain and print what apply would do; exit 0: no change, 2: changes, 1: error')
    .argument('<model>', 'the model file (YAML)')
    .option('--variables <file>', 'values of the @@PROP:key@@ tokens (a properties file)')
    .option('--secrets-from <source>', "values of the @@SECRET:name:key@@ tokens: a directory (files <name>/<key>) or 'env' (variables NAME_KEY)")
    .option('--prune', 'also show the deletes apply --prune would make')
    .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 1))
    .action(
      guarded(async (file: string, opts: ModelFlags) => {
        const client = clientFor(opts);
        // The domain is searched while the model is read (a worker takes in the answer).
        const { reading, root, notes } = readBoth(client, file, opts);
        const live = await reading;
        if (root.realm) await addRealm(client, live);
        const p = plan(root, live, { prune: opts.prune === true, ...(client.options.user !== undefined ? { self: client.options.user } : {}) });
        p.notes.unshift(...notes);
        if (p.problems.length > 0) throw new ApplyError(`the model has ${p.problems.length} problem${p.problems.length === 1 ? '' : 's'}`, p.problems);
        print(opts.json ? json(planJson(p)) : planText(p));
        process.exitCode = p.changes.length > 0 ? 2 : 0;
      }, 1),
    );

  command('apply', 'make the running domain match a model: every change in one edit session and one activation (all or nothing)')
    .argument('<model>', 'the model file (YAML)')
    .option('--variables <file>', 'values of the @@PROP:key@@ tokens (a properties file)')
    .option('--secrets-from <source>', "values of the @@SECRET:name:key@@ tokens: a directory (files <name>/<key>) or 'env' (variables NAME_KEY)")
    .option('--prune', 'delete the beans of the kinds the model covers that it does not name')
    .option('--yes', 'apply without asking (required when not on a terminal)')
    .action(
      guarded(async (file: string, opts: ModelFlags) => {
        const started = Date.now();
        const client = clientFor(opts);
        const { reading, root, notes } = readBoth(client, file, opts);
        const result = await apply(client, root, {
          live: reading,
          prune: opts.prune === true,
          onPlan: async (p) => {
            p.notes.unshift(...notes);
            if (!opts.json) process.stderr.write(planText(p));
            if (opts.yes) return true;
            if (!process.stdin.isTTY) throw new AppserverError('usage', 'apply changes the domain: give --yes to apply without a terminal to confirm on (nothing was changed)');
            return confirm('Apply these changes? (yes/no) ');
          },
        });
        const summary = { created: result.created, updated: result.updated, deleted: result.deleted, activated: result.activated, usersAndGroups: result.realm, requests: result.requests, ms: Date.now() - started };
        if (opts.json) return print(json({ ...summary, plan: planJson(result.plan) }));
        if (result.plan.changes.length === 0) return print('No changes: the domain matches the model.\n');
        if (!result.activated && result.realm === 0) return print('Nothing was changed.\n');
        print(`Applied: ${result.created} created, ${result.updated} changed, ${result.deleted} deleted; ${result.activated ? 'one activation' : 'users and groups only, no activation'}.\n`);
      }),
    );
  void program;
}
