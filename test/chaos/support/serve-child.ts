// `appserver-admin serve` as a child process for chaos tests: a crash shows as the process ending,
// not as the test runner dying. Requests go through a small client that never throws on a refused
// or reset connection (it answers status 0), so a test can count every answer.
import { type CliRun, runCli } from '../../support/cli.js';
import { type Answer, answerOf } from '../../support/answer.js';
import { ADMIN, adminAuth } from '../../support/server.js';

/**
 * The chaos tests start their own PostgreSQL server and force SQLite where they need it, so they do
 * the same in both of CI's passes: they run in the pass without APPSERVER_TEST_PG only.
 */
export const SECOND_PASS = process.env.APPSERVER_TEST_PG
  ? 'runs once, in the pass without APPSERVER_TEST_PG (it makes the store it needs itself)'
  : undefined;

/** What a request got; status 0 when no HTTP answer came (connection refused or reset). */
export type { Answer } from '../../support/answer.js';

export interface ServedChild {
  run: CliRun;
  /** http://127.0.0.1:PORT/management/appserver/latest */
  latest: string;
  get(path: string, headers?: Record<string, string>): Promise<Answer>;
  post(path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
  /** Whether the process still runs. */
  alive(): boolean;
}

export async function serveChild(dataDir: string, extra: string[] = [], env: Record<string, string | undefined> = {}): Promise<ServedChild> {
  const run = runCli(['serve', '--port', '0', '--data-dir', dataDir, '--no-listeners', '--log-level', 'warn', ...extra], {
    APPSERVER_ADMIN_USER: ADMIN.user,
    APPSERVER_ADMIN_PASSWORD: ADMIN.password,
    ...env,
  });
  const latest = await run.listening;
  const request = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
    const h: Record<string, string> = { accept: 'application/json', authorization: adminAuth, 'x-requested-by': 'chaos-tests', ...headers };
    if (body !== undefined) h['content-type'] = 'application/json';
    try {
      const res = await fetch(`${latest}/${path}`, { method, headers: h, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
      return await answerOf(res);
    } catch (err) {
      return { status: 0, headers: new Headers(), text: (err as Error).message, json: undefined };
    }
  };
  return {
    run,
    latest,
    get: (path, headers) => request('GET', path, undefined, headers),
    post: (path, body = {}, headers) => request('POST', path, body, headers),
    alive: () => run.proc.exitCode === null && run.proc.signalCode === null,
  };
}

/** One edit: take the lock, create a server, activate. Returns every answer (the first failing one last). */
export async function editAndActivate(s: ServedChild, server: string): Promise<Answer[]> {
  const out: Answer[] = [];
  for (const [path, body] of [
    ['edit/changeManager/startEdit', {}],
    ['edit/servers', { name: server }],
    ['edit/changeManager/activate', {}],
  ] as const) {
    const a = await s.post(path, body);
    out.push(a);
    if (a.status < 200 || a.status >= 300) break;
  }
  return out;
}
