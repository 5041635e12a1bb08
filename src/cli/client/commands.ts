// The client commands of `appserver-admin`: get, set, create, delete, invoke, start, stop, deploy,
// describe, search, completion. Each one talks to a running server through AppserverClient (HTTP
// only), prints a table for people or JSON with --json, and ends with an exit code of EXIT.
import { readFileSync, statSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { AppserverClient, AppserverError, type Task, isTask, taskFailure } from '../../client/index.js';
import { type ConnectionFlags, clientOptions } from './connection.js';
import { completionScript, completions } from './completion.js';
import { describePath } from './describe.js';
import { EXIT, UsageError, exitCodeOf } from './exit-codes.js';
import { ProgressBar, beanTable, cell, itemsTable, json, printable, table, taskLine, withoutLinks } from './output.js';
import { shapesOf, typeAt } from './type-facts.js';
import { parseAssignments } from './values.js';
import { registerDomainAsCode } from './domain-as-code.js';

interface Common extends ConnectionFlags {
  json?: boolean;
}

/** An edit lock the CLI takes lapses after this long, should the CLI be killed before it lets go. */
const LOCK_LAPSE_MS = 5 * 60_000;

/** Largest archive `deploy` uploads (the server refuses larger uploads anyway). */
const MAX_ARCHIVE_BYTES = 512 * 1024 * 1024;

export const CLIENT_COMMANDS = ['get', 'set', 'create', 'delete', 'invoke', 'start', 'stop', 'deploy', 'describe', 'search', 'discover', 'plan', 'apply', 'completion'] as const;

function seconds(option: string) {
  return (value: string): number => {
    const n = Number(value);
    // Commander reports an InvalidArgumentError as a usage mistake (exit code 2).
    if (!Number.isFinite(n) || n <= 0 || n > 86_400) throw new InvalidArgumentError(`${option} takes a number of seconds between 0 and 86400.`);
    return n;
  };
}

function list(value: string): string[] {
  return value.split(',').map((s) => s.trim()).filter((s) => s !== '');
}

/** The connection options every client command takes. */
function connected(cmd: Command): Command {
  return cmd
    .option('--url <url>', 'the server, http://host:port (env APPSERVER_URL; default http://127.0.0.1:7001)')
    .option('--user <name>', 'user name (env APPSERVER_USER)')
    .option('--password <password>', 'password (env APPSERVER_PASSWORD; safer than a flag, which others may see in the process list)')
    .option('--config <file>', 'configuration file, JSON with url, user, password, version; mode 0600 when it holds a password (env APPSERVER_CONFIG; default ~/.config/appserver-admin/config.json)')
    .option('--api-version <version>', 'version of the management trees (default latest)')
    .option('--request-timeout <seconds>', 'time limit of each request (default 30)', seconds('--request-timeout'))
    .option('--json', 'print JSON for scripts instead of tables');
}

/** Runs a command's body; an error is printed on standard error and chooses the exit code. */
function guarded<A extends unknown[]>(body: (...args: A) => Promise<void>) {
  return async (...args: A): Promise<void> => {
    try {
      await body(...args);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      process.stderr.write(`appserver-admin: ${printable(message)}\n`);
      if (err instanceof AppserverError && err.details.length > 1) for (const d of err.details) process.stderr.write(`  - ${printable(d)}\n`);
      process.exitCode = exitCodeOf(err);
    }
  };
}

function clientFor(opts: Common): AppserverClient {
  return new AppserverClient(clientOptions(opts));
}

const print = (text: string): void => {
  process.stdout.write(text);
};

function editPath(path: string, command: string): string {
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  if (trimmed !== 'edit' && !trimmed.startsWith('edit/')) throw new UsageError(`${command} changes the configuration: the path must be in the edit tree (edit/...), not '${path}'`);
  return trimmed;
}

/** Plain values take the types the facts give the properties, else those of the values shown now. */
async function shapesFor(path: string, current: Record<string, unknown>, wireType: string | undefined): Promise<{ shapes: Record<string, unknown>; known?: Set<string>; typeName?: string }> {
  const t = await typeAt(path, wireType);
  if (!t) return { shapes: current };
  return { shapes: { ...current, ...shapesOf(t.facts) }, known: new Set(t.facts.p.map((p) => p[0])), typeName: t.facts.s };
}

function checkKnown(values: Record<string, unknown>, known: Set<string> | undefined, typeName: string | undefined): void {
  if (!known) return;
  const unknown = Object.keys(values).filter((k) => !known.has(k));
  // The server ignores properties a type does not have; a typo would change nothing, silently.
  if (unknown.length > 0) throw new UsageError(`${typeName ?? 'the bean'} has no propert${unknown.length === 1 ? 'y' : 'ies'} ${unknown.map((u) => `'${u}'`).join(', ')}`);
}

/** Waits for a task, with a progress bar on a terminal; prints the outcome. */
async function follow(client: AppserverClient, task: Task, label: string, opts: Common & { timeout?: number }): Promise<void> {
  const bar = new ProgressBar(process.stderr, label, process.stderr.isTTY === true && !opts.json);
  const started = Date.now();
  let last = task;
  try {
    last = await client.waitForTask(task, {
      timeoutMs: (opts.timeout ?? 300) * 1000,
      allowFailure: true,
      onProgress: (t, elapsed) => {
        last = t;
        bar.update(t, elapsed);
      },
    });
  } finally {
    bar.end();
  }
  print(opts.json ? json(withoutLinks(last)) : taskLine(last, Date.now() - started));
  const failure = taskFailure(last);
  if (failure !== undefined) throw new AppserverError('failed', `${label} failed: ${failure}`);
}

function printResult(result: unknown, opts: Common): void {
  if (opts.json) return print(json(result === undefined ? null : withoutLinks(result)));
  if (result === undefined) return print('done\n');
  if (result === null || typeof result !== 'object') return print(`${cell(result)}\n`);
  if (Array.isArray(result)) return print(result.map((r) => `${cell(r)}\n`).join(''));
  print(beanTable(result as Record<string, unknown>));
}

/** A server name, or the path of any bean with lifecycle actions. */
function lifecyclePath(target: string): string {
  if (target.includes('/')) return target;
  if (!/^[^\s?#]+$/.test(target)) throw new UsageError(`'${target}' is not a server name`);
  return `domainRuntime/serverLifeCycleRuntimes/${target}`;
}

/** Every bean of a search result as one row: its path and its fields; the children the query asked for nest. */
function searchRows(result: unknown, query: Record<string, unknown>): { path: string; fields: Record<string, unknown> }[] {
  const rows: { path: string; fields: Record<string, unknown> }[] = [];
  const childrenOf = (q: unknown): Record<string, unknown> => {
    const c = q && typeof q === 'object' ? (q as { children?: unknown }).children : undefined;
    return c && typeof c === 'object' && !Array.isArray(c) ? (c as Record<string, unknown>) : {};
  };
  const walk = (bean: Record<string, unknown>, at: string[], q: unknown) => {
    const asked = childrenOf(q);
    const fields: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(bean)) if (k !== 'links' && k !== 'identity' && !Object.hasOwn(asked, k)) fields[k] = v;
    rows.push({ path: at.join('/') || '.', fields });
    for (const [k, sub] of Object.entries(asked)) {
      const v = bean[k];
      if (!v || typeof v !== 'object') continue;
      const items = (v as { items?: unknown }).items;
      if (Array.isArray(items)) for (const it of items) walk(it as Record<string, unknown>, [...at, k, String((it as { name?: unknown }).name ?? '')], sub);
      else walk(v as Record<string, unknown>, [...at, k], sub);
    }
  };
  if (result && typeof result === 'object') walk(result as Record<string, unknown>, [], query);
  return rows;
}

function readQuery(value: string): Record<string, unknown> {
  let text = value;
  if (value.startsWith('@')) {
    const file = value.slice(1);
    try {
      if (statSync(file).size > 1024 * 1024) throw new UsageError(`the query file ${file} is larger than 1 MiB`);
      text = readFileSync(file, 'utf8');
    } catch (err) {
      if (err instanceof UsageError) throw err;
      throw new UsageError(`cannot read the query file ${file}: ${(err as Error).message}`);
    }
  }
  let q: unknown;
  try {
    q = JSON.parse(text);
  } catch {
    throw new UsageError(`--query takes a JSON object (or @file), and '${text.slice(0, 80)}' is not JSON`);
  }
  if (!q || typeof q !== 'object' || Array.isArray(q)) throw new UsageError('--query takes a JSON object');
  return q as Record<string, unknown>;
}

export function registerClientCommands(program: Command): void {
  const command = (name: string, description: string) => {
    const cmd = connected(program.command(name).description(description));
    // Mistakes in flags and arguments end with the usage code, so scripts can tell them apart.
    cmd.exitOverride((err) => {
      process.exit(err.exitCode === 0 ? 0 : EXIT.usage);
    });
    return cmd;
  };

  command('get', 'read a bean or a collection: a table of its properties (or items), or JSON with --json')
    .argument('<path>', 'bean path below the version root, e.g. edit/servers/server1 (or /management/... from the server root)')
    .option('--fields <names>', 'only these properties (comma-separated)', list)
    .option('--columns <names>', 'for a collection: the columns after NAME (comma-separated)', list)
    .option('--links', 'with --json: keep the links')
    .action(
      guarded(async (path: string, opts: Common & { fields?: string[]; columns?: string[]; links?: boolean }) => {
        const client = clientFor(opts);
        const body = await client.get(path, { ...(opts.fields ? { fields: opts.fields } : {}), ...(opts.links ? {} : { links: [] }) });
        if (opts.json) return print(json(opts.links ? body : withoutLinks(body)));
        const items = (body as { items?: unknown }).items;
        print(Array.isArray(items) ? itemsTable(items as Record<string, unknown>[], opts.columns) : beanTable(body as Record<string, unknown>));
      }),
    );

  command('set', 'change properties of a configuration bean in an edit session of its own, then activate it (all or nothing)')
    .argument('<path>', 'bean in the edit tree, e.g. edit/servers/server1')
    .argument('<assignments...>', 'name=value (typed like the property: numbers, true/false, a reference as clusters/c1, lists with commas) or name:=json')
    .action(
      guarded(async (path: string, assignments: string[], opts: Common) => {
        const target = editPath(path, 'set');
        const client = clientFor(opts);
        const current = await client.get(target, { links: [] });
        const { shapes, known, typeName } = await shapesFor(target, current, typeof current.type === 'string' ? current.type : undefined);
        const values = parseAssignments(assignments, shapes);
        checkKnown(values, known, typeName);
        await client.inEditSession((c) => c.update(target, values), { lockLapseMs: LOCK_LAPSE_MS });
        print(opts.json ? json({ path: target, set: values, activated: true }) : `Set ${Object.keys(values).join(', ')} of ${target}; activated.\n`);
      }),
    );

  command('create', 'create a configuration bean in an edit session of its own, then activate it (all or nothing)')
    .argument('<collection>', 'collection in the edit tree, e.g. edit/servers')
    .argument('<name>', 'name of the new bean')
    .argument('[assignments...]', 'name=value or name:=json, as for set')
    .option('--type <type>', 'the type of the new bean, where the collection holds several (e.g. a security provider)')
    .action(
      guarded(async (collection: string, name: string, assignments: string[], opts: Common & { type?: string }) => {
        const target = editPath(collection, 'create');
        if (name === '' || /[/?#]/.test(name)) throw new UsageError(`'${name}' cannot name a bean (no /, ? or #)`);
        const client = clientFor(opts);
        const { shapes, known, typeName } = await shapesFor(target, {}, opts.type);
        const values = parseAssignments(assignments, shapes);
        checkKnown(values, known, typeName);
        if ('name' in values) throw new UsageError('the name is the second argument, not an assignment');
        const body = { name, ...(opts.type !== undefined ? { type: opts.type } : {}), ...values };
        const location = await client.inEditSession((c) => c.create(target, body), { lockLapseMs: LOCK_LAPSE_MS });
        const created = location.startsWith(client.root) ? location.slice(client.root.length + 1) : location;
        print(opts.json ? json({ path: created, url: location, activated: true }) : `Created ${created}; activated.\n`);
      }),
    );

  command('delete', 'delete a bean; in the edit tree, in an edit session of its own that is then activated')
    .argument('<path>', 'e.g. edit/servers/server9')
    .action(
      guarded(async (path: string, opts: Common) => {
        const client = clientFor(opts);
        const trimmed = path.replace(/^\/+|\/+$/g, '');
        if (trimmed.startsWith('edit/')) await client.inEditSession((c) => c.delete(trimmed), { lockLapseMs: LOCK_LAPSE_MS });
        else await client.delete(path);
        print(opts.json ? json({ path: trimmed, deleted: true }) : `Deleted ${trimmed}.\n`);
      }),
    );

  command('invoke', 'invoke an action of a bean; a task is followed until it ends (unless --no-wait)')
    .argument('<path>', 'the bean, e.g. domainRuntime/serverLifeCycleRuntimes/server1')
    .argument('<action>', 'the action, e.g. getState')
    .argument('[arguments...]', 'name=value or name:=json')
    .option('--timeout <seconds>', 'how long to wait for a task (default 300)', seconds('--timeout'))
    .option('--no-wait', 'print a task as it is and do not wait for it')
    .action(
      guarded(async (path: string, action: string, args: string[], opts: Common & { timeout?: number; wait: boolean }) => {
        const client = clientFor(opts);
        const t = await typeAt(path);
        const declared = t?.facts.a.find((a) => a[0] === action);
        const shapes: Record<string, unknown> = {};
        for (const overload of declared?.[1] ?? []) {
          for (const param of overload) {
            const [pname, ptype = ''] = param.split(':');
            shapes[pname!] = ptype.endsWith('[]') ? (ptype.includes('MBean') ? [{ identity: [] }] : []) : ptype.includes('MBean') ? ['reference'] : /^(int|long|double|float|java\.lang\.(Integer|Long))$/.test(ptype) ? 0 : ptype === 'boolean' ? false : '';
          }
        }
        const result = await client.invoke(path, action, parseAssignments(args, shapes), { async: true });
        if (isTask(result) && opts.wait) return follow(client, result, `${action} ${path}`, opts);
        printResult(result, opts);
      }),
    );

  for (const [name, verb] of [['start', 'start'], ['stop', 'shut down']] as const) {
    command(name, `${verb} a server (or any bean with lifecycle actions) and follow the task with a progress bar`)
      .argument('<target>', 'a server name, or a bean path such as domainRuntime/domainPartitionRuntimes/p1/partitionLifeCycleRuntime')
      .option('--timeout <seconds>', 'how long to wait for the task (default 300)', seconds('--timeout'))
      .option('--no-wait', 'print the task and do not wait for it')
      .addOption(name === 'stop' ? new Option('--force', 'force the shutdown (forceShutdown)') : new Option('--admin', 'start in administration mode (startInAdmin)'))
      .action(
        guarded(async (target: string, opts: Common & { timeout?: number; wait: boolean; force?: boolean; admin?: boolean }) => {
          const client = clientFor(opts);
          const path = lifecyclePath(target);
          const action = name === 'start' ? (opts.admin ? 'startInAdmin' : 'start') : opts.force ? 'forceShutdown' : 'shutdown';
          const task = await client.startTask(path, action);
          if (!opts.wait) return print(opts.json ? json(withoutLinks(task)) : `${task.name ?? action}: ${task.taskStatus ?? task.progress ?? ''}\n`);
          await follow(client, task, `${action} ${target}`, opts);
        }),
      );
  }

  command('deploy', 'deploy an application or a shared library (uploading its archive, or naming a path on the server) and follow it with a progress bar')
    .argument('[archive]', 'the archive to upload (.war, .ear, .jar, or a file the server accepts)')
    .requiredOption('--targets <names>', 'servers or clusters to deploy to (comma-separated)', list)
    .option('--name <name>', 'application or library name (default: the archive name without its extension)')
    .option('--library', 'deploy a shared library (edit/libraries) rather than an application')
    .option('--source-path <path>', 'a path on the server to deploy from, instead of uploading')
    .option('--timeout <seconds>', 'how long to wait for the deployment (default 300)', seconds('--timeout'))
    .option('--no-wait', 'print the progress object and do not wait')
    .action(
      guarded(async (archive: string | undefined, opts: Common & { targets: string[]; name?: string; sourcePath?: string; library?: boolean; timeout?: number; wait: boolean }) => {
        if ((archive === undefined) === (opts.sourcePath === undefined)) throw new UsageError('give either an archive to upload or --source-path, not both or neither');
        const name = opts.name ?? (archive !== undefined ? basename(archive, extname(archive)) : undefined);
        if (name === undefined || name === '') throw new UsageError('--name is needed with --source-path');
        if (opts.targets.length === 0) throw new UsageError('--targets names no target');
        let upload: { bytes: Uint8Array; fileName: string } | undefined;
        if (archive !== undefined) {
          let size: number;
          try {
            const st = statSync(archive);
            if (!st.isFile()) throw new UsageError(`${archive} is not a file`);
            size = st.size;
          } catch (err) {
            if (err instanceof UsageError) throw err;
            throw new UsageError(`cannot read ${archive}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
          }
          if (size > MAX_ARCHIVE_BYTES) throw new UsageError(`${archive} is larger than ${MAX_ARCHIVE_BYTES / 1024 / 1024} MiB`);
          upload = { bytes: readFileSync(archive), fileName: basename(archive) };
        }
        const client = clientFor(opts);
        const [servers, clusters] = await Promise.all([
          client.list('edit/servers', { fields: ['name'], links: [] }),
          client.list('edit/clusters', { fields: ['name'], links: [] }),
        ]);
        const targets = opts.targets.map((t) => {
          if (servers.some((s) => s.name === t)) return { type: 'servers' as const, name: t };
          if (clusters.some((c) => c.name === t)) return { type: 'clusters' as const, name: t };
          throw new AppserverError('notFound', `no server or cluster is named '${t}'`);
        });
        const task = await client.deploy({ name, targets, ...(upload ? { upload } : {}), ...(opts.sourcePath !== undefined ? { sourcePath: opts.sourcePath } : {}), ...(opts.library ? { library: true } : {}) });
        if (!opts.wait) return print(opts.json ? json(withoutLinks(task)) : `${name}: ${task.state ?? task.progress ?? ''}\n`);
        await follow(client, task, `deploy ${name}`, opts);
      }),
    );

  command('describe', "describe a bean's type: properties (type, default, legal values, writable, restart), children, actions, roles")
    .argument('<path>', 'a bean or collection path, e.g. edit/servers/server1')
    .action(
      guarded(async (path: string, opts: Common) => {
        const d = await describePath(clientFor(opts), path);
        print(opts.json ? json(d.json) : d.text);
      }),
    );

  command('search', 'search a tree (POST <tree>/search): a row per bean found, or the JSON result')
    .argument('<tree>', 'edit, serverConfig, domainConfig, serverRuntime, domainRuntime, or a bean with a search link')
    .option('--query <json>', 'the search query as JSON, or @file holding it')
    .option('--fields <names>', 'fields of the tree root (comma-separated), when no --query is given', list)
    .option('--child <spec>', 'a child to include, name[:field,field] (repeatable), when no --query is given', (v: string, acc: string[] = []) => [...acc, v])
    .option('--links', 'with --json: keep the links')
    .action(
      guarded(async (tree: string, opts: Common & { query?: string; fields?: string[]; child?: string[]; links?: boolean }) => {
        let query: Record<string, unknown>;
        if (opts.query !== undefined) {
          if (opts.fields || opts.child) throw new UsageError('--query cannot be combined with --fields or --child');
          query = readQuery(opts.query);
        } else {
          const children: [string, unknown][] = (opts.child ?? []).map((spec) => {
            const [child, fields] = spec.split(':', 2) as [string, string | undefined];
            if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(child)) throw new UsageError(`--child '${spec}': '${child}' is not a child name`);
            return [child, { links: [], ...(fields !== undefined ? { fields: list(fields) } : {}) }];
          });
          query = { links: [], fields: opts.fields ?? [], ...(children.length > 0 ? { children: Object.fromEntries(children) } : {}) };
        }
        const result = await clientFor(opts).search(tree, query);
        if (opts.json) return print(json(opts.links ? result : withoutLinks(result)));
        const rows = searchRows(result, query);
        const columns = [...new Set(rows.flatMap((r) => Object.keys(r.fields)))];
        print(table(['PATH', ...columns.map((c) => c.toUpperCase())], rows.map((r) => [r.path, ...columns.map((c) => cell(r.fields[c]))])));
      }),
    );

  registerDomainAsCode(program, command);

  program
    .command('completion')
    .description('print a shell completion script: eval "$(appserver-admin completion bash)"')
    .argument('<shell>', 'bash (zsh reads it too, with bashcompinit)')
    .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : EXIT.usage))
    .action(
      guarded(async (shell: string) => {
        if (shell !== 'bash' && shell !== 'zsh') throw new UsageError(`completion knows bash and zsh, not '${shell}'`);
        print(completionScript(CLIENT_COMMANDS));
      }),
    );

  // Called back by the completion script: candidates for the word being completed, one per line.
  connected(program.command('__complete', { hidden: true }))
    .argument('<command>')
    .argument('[word]', '', '')
    .argument('[path]', 'for `action`: the bean whose actions are completed')
    .action(async (cmdName: string, word: string, path: string | undefined, opts: Common) => {
      try {
        const client = new AppserverClient({ ...clientOptions(opts), requestTimeoutMs: 3000 });
        for (const c of await completions(client, cmdName, word, path)) print(`${c}\n`);
      } catch {
        // Completion stays quiet: a shell prompt is no place for errors.
      }
    });
}
