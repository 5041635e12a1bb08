// Runs the real command line (`bin/appserver-admin.js`) as a child process, as a user would, and
// collects what it prints. The environment is the test's, without the variables that choose the
// administrator or the secret key, unless a test gives them.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ADMIN } from './server.js';

export const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
export const BIN = join(ROOT, 'bin', 'appserver-admin.js');
const CHOSEN = ['APPSERVER_ADMIN_USER', 'APPSERVER_ADMIN_PASSWORD', 'APPSERVER_SECRET_KEY', 'APPSERVER_STORE'];

export interface CliRun {
  proc: ChildProcess;
  /** Everything printed so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or the signal's name) once the process ended. */
  exited: Promise<number | string>;
  /** Resolves with the URL the server prints when it listens; rejects if it exits first. */
  listening: Promise<string>;
  /** Ends the process (SIGTERM, as a user would) and waits for it. */
  stop(): Promise<number | string>;
}

const running = new Set<ChildProcess>();

/** The test's environment without the chosen variables; `env` adds variables (undefined removes one). */
export function cliEnv(env: Record<string, string | undefined> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !CHOSEN.includes(k)) out[k] = v;
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return out;
}

/** A command run to its end: its exit code (or the signal that ended it) and what it printed. */
export interface CliOutcome {
  code: number | string;
  out: string;
  err: string;
}

/** Runs `appserver-admin <args>` to its end; `env` as for `runCli`. */
export async function cliOutcome(args: string[], env: Record<string, string | undefined> = {}): Promise<CliOutcome> {
  const run = runCli(args, env);
  const code = await run.exited;
  return { code, out: run.stdout(), err: run.stderr() };
}

/**
 * The variables that point the command at a server as its administrator, with no configuration
 * file of the user's (`home`: where it looks for one instead).
 */
export function serverEnv(origin: string, home: string): Record<string, string | undefined> {
  return { APPSERVER_URL: origin, APPSERVER_USER: ADMIN.user, APPSERVER_PASSWORD: ADMIN.password, APPSERVER_CONFIG: undefined, XDG_CONFIG_HOME: home };
}

/** Starts `appserver-admin <args>`; `env` adds variables (undefined removes one). */
export function runCli(args: string[], env: Record<string, string | undefined> = {}): CliRun {
  const proc = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(proc);
  let out = '';
  let err = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  // 'close': the process ended and everything it printed has been read.
  const exited = new Promise<number | string>((done) =>
    proc.once('close', (code, signal) => {
      running.delete(proc);
      done(code ?? signal ?? 'unknown');
    }),
  );
  const listening = new Promise<string>((done, fail) => {
    const look = () => {
      const m = /appserver-admin listening on (http:\/\/\S+)/.exec(out);
      if (m) done(m[1]!);
    };
    proc.stdout!.on('data', look);
    void exited.then((code) => fail(new Error(`appserver-admin ${args.join(' ')} exited (${code}) before listening: ${out}${err}`)));
  });
  listening.catch(() => undefined);
  return {
    proc,
    stdout: () => out,
    stderr: () => err,
    exited,
    listening,
    stop: async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      return exited;
    },
  };
}

/** Kills the processes this file started that still run (for an `after` hook). */
export async function killRunning(): Promise<void> {
  const left = [...running];
  for (const p of left) p.kill('SIGKILL');
  await Promise.all(left.map((p) => new Promise<void>((done) => p.once('close', () => done()))));
}

/**
 * Fresh data directories for the file's `serve` runs: each call makes one. After the file's tests,
 * any process still running is ended, then the directories are removed.
 */
export function dataDirs(prefix: string): () => string {
  const made: string[] = [];
  after(async () => {
    await killRunning();
    for (const d of made) rmSync(d, { recursive: true, force: true });
  });
  return () => {
    const d = mkdtempSync(join(tmpdir(), prefix));
    made.push(d);
    return d;
  };
}
