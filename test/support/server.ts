// Starts a real server on a random port over a fresh data directory, for end-to-end tests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningServer, startServer } from '../../src/cli/server.js';

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
  /** Stops and starts again on the same data directory (and a new port). */
  restart(): Promise<TestServer>;
}

export function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

export const adminAuth = basic(ADMIN.user, ADMIN.password);

export async function startTestServer(dataDir = mkdtempSync(join(tmpdir(), 'appserver-test-'))): Promise<TestServer> {
  const server = await startServer({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    logLevel: 'silent',
    quiet: true,
    adminUser: ADMIN.user,
    adminPassword: ADMIN.password,
  });
  const origin = `http://127.0.0.1:${server.port}`;
  const self: TestServer = {
    server,
    origin,
    latest: `${origin}/management/appserver/latest`,
    dataDir,
    stop: async (remove = false) => {
      await server.close();
      if (remove) rmSync(dataDir, { recursive: true, force: true });
    },
    restart: async () => {
      await server.close();
      return startTestServer(dataDir);
    },
  };
  return self;
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
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}
