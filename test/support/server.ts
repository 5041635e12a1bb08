// Starts a real server on a random port over a fresh data directory, for end-to-end tests.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningServer, type ServerOptions, startServer } from '../../src/cli/server.js';
import { storeFor } from './store.js';
import { answerOf } from './answer.js';

export const ADMIN = { user: 'admin', password: 'welcome1' };

export interface TestServer {
  server: RunningServer;
  /** http://127.0.0.1:port */
  origin: string;
  /** origin + /management/appserver/latest */
  latest: string;
  dataDir: string;
  /** Stops the server; keeps the data directory unless `remove` is true. */
  stop(remove?: boolean): Promise<void>;
  /** Stops and starts again on the same data directory (and a new port), with the same options. */
  restart(): Promise<TestServer>;
  /** What the server printed while starting (captured only with `generatePassword`; empty otherwise). */
  output: string;
  /** The administrator password the server generated for a new domain, read from the file it named. */
  generatedPassword?: string;
  /** The file holding the generated password, as the server printed it. */
  passwordFile?: string;
}

export interface TestServerOptions {
  /** First administrator of a new domain (default `admin`). */
  adminUser?: string;
  /** Let the server generate the administrator's password, and read it from the file the start-up output names. */
  generatePassword?: boolean;
  /** The store (default: the one `storeFor` gives for the data directory). Several servers may share one. */
  store?: string;
  /** The key of sealed values (base64), as APPSERVER_SECRET_KEY would give it. */
  secretKey?: string;
  /** The key file (default `<dataDir>/secret.key`). */
  secretKeyFile?: string;
  /** Proxies whose X-Forwarded-* headers the server believes (default: none). */
  trustProxy?: string[];
  /** Event-loop delay beyond which requests get 503 (default 10 s: a busy test machine is no overload). */
  maxEventLoopDelay?: number;
  /** Managed servers listen on their own ports shifted by this; without it they do not listen at all. */
  portOffset?: number;
  /** In-flight limit, its shares, and when stalled bodies are cut (the server's defaults otherwise). */
  requests?: ServerOptions['requests'];
  /** Limits of application uploads (the server's defaults otherwise). */
  uploads?: ServerOptions['uploads'];
}

/** Tests share a small machine: a loop a few seconds late there is load from other tests, not overload. */
export const TEST_MAX_EVENT_LOOP_DELAY = 10_000;

export function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

export const adminAuth = basic(ADMIN.user, ADMIN.password);

export async function startTestServer(
  dataDir = mkdtempSync(join(tmpdir(), 'appserver-test-')),
  options: TestServerOptions = {},
): Promise<TestServer> {
  const generate = options.generatePassword === true;
  let output = '';
  const store = options.store ?? (await storeFor(dataDir));
  const start = () =>
    startServer({
      host: '127.0.0.1',
      port: 0,
      dataDir,
      ...(store ? { store } : {}),
      logLevel: 'silent',
      // The server prints its start-up lines (and where a generated password is) only when not quiet.
      quiet: !generate,
      // Standard output is no terminal here, whoever runs the tests.
      passwordOutput: 'file',
      adminUser: options.adminUser ?? ADMIN.user,
      // An empty password makes a new domain generate one, whatever the environment says.
      adminPassword: generate ? '' : ADMIN.password,
      ...(options.secretKey !== undefined ? { secretKey: options.secretKey } : {}),
      ...(options.secretKeyFile !== undefined ? { secretKeyFile: options.secretKeyFile } : {}),
      ...(options.trustProxy ? { trustProxy: options.trustProxy } : {}),
      maxEventLoopDelay: options.maxEventLoopDelay ?? TEST_MAX_EVENT_LOOP_DELAY,
      ...(options.requests ? { requests: options.requests } : {}),
      ...(options.uploads ? { uploads: options.uploads } : {}),
      // Test runs would fight over the managed servers' ports: they listen only when a test asks.
      ...(options.portOffset !== undefined ? { portOffset: options.portOffset } : { listeners: false }),
    });
  const server = generate
    ? await captureStdout(start, (text) => {
        output += text;
      })
    : await start();
  const origin = `http://127.0.0.1:${server.port}`;
  const passwordFile = /its generated password is in the file (.+?) \(mode 0600\)/.exec(output)?.[1];
  const generatedPassword = passwordFile !== undefined ? readFileSync(passwordFile, 'utf8').trim() : undefined;
  const self: TestServer = {
    server,
    origin,
    latest: `${origin}/management/appserver/latest`,
    dataDir,
    output,
    ...(generatedPassword !== undefined ? { generatedPassword } : {}),
    ...(passwordFile !== undefined ? { passwordFile } : {}),
    stop: async (remove = false) => {
      await server.close();
      if (remove) rmSync(dataDir, { recursive: true, force: true });
    },
    restart: async () => {
      await server.close();
      return startTestServer(dataDir, options);
    },
  };
  return self;
}

/** Runs `fn`, handing the server's own start-up lines on stdout to `sink` instead of printing them. */
async function captureStdout<T>(fn: () => Promise<T>, sink: (text: string) => void): Promise<T> {
  const stdout = process.stdout;
  const original = stdout.write;
  stdout.write = function (this: typeof stdout, chunk: unknown, ...rest: unknown[]) {
    const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : undefined;
    if (text !== undefined && /^(Created a new domain|appserver-admin listening)/.test(text)) {
      sink(text);
      const callback = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      callback?.();
      return true;
    }
    return (original as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof stdout.write;
  try {
    return await fn();
  } finally {
    stdout.write = original;
  }
}

/** GET/POST helper returning status, headers and parsed JSON (or raw text when not JSON). */
export async function call(
  url: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string>; auth?: string | null } = {},
): Promise<{ status: number; headers: Headers; text: string; json: any }> {
  const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
  if (init.auth !== null) headers.authorization = init.auth ?? adminAuth;
  let body: string | undefined;
  if (init.body !== undefined) {
    body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(url, { method: init.method ?? 'GET', headers, ...(body !== undefined ? { body } : {}) });
  return answerOf(res);
}
