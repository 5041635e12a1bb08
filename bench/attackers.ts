// Benchmarks that measure an administrator's reads while attackers run (abuse.ts, shares.ts): the
// attackers run in a worker thread, an event loop of their own started from the benchmark's own
// module, while the server and the measuring client share the main one. This module is both ends:
// `during` starts the worker, lets the attack get going, measures, stops it and collects what it
// counted; `attackers` is the worker's side (a stop flag, and a count of the statuses it got).
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { AUTH } from './reads.js';

const AUTHN = 'serverConfig/securityConfiguration/realms/myrealm/authenticationProviders/DefaultAuthenticator';

/** What the worker is told: which attack, the server's port, and the Monitor's credentials. */
export interface AttackData<K extends string = string> {
  kind: K;
  port: number;
  monitorAuth: string;
}

/** What the attackers saw: answers by status (0: none), and for pages the bytes of their first one. */
export interface AttackStats {
  requests: number;
  statuses: Record<string, number>;
  pageBytes?: number;
}

/** The worker's side of an attack, as its function gets it. */
export interface Attackers {
  /** True once the benchmark has measured: each attacker ends its loop. */
  readonly stopped: boolean;
  /** Counts one answer (0: the connection closed without one). */
  count(status: number): void;
  readonly stats: AttackStats;
}

/**
 * In the worker a benchmark module starts (and only there): runs `attack` for the data it was
 * started with, and posts what was counted once every attacker has ended.
 */
export function attackers<D extends AttackData>(attack: (data: D, side: Attackers) => Promise<void>): void {
  if (isMainThread || !(workerData as D | undefined)?.kind) return;
  let stopped = false;
  parentPort!.on('message', (m) => {
    if (m === 'stop') stopped = true;
  });
  const stats: AttackStats = { requests: 0, statuses: {} };
  const side: Attackers = {
    get stopped() {
      return stopped;
    },
    count(status) {
      stats.requests++;
      stats.statuses[status] = (stats.statuses[status] ?? 0) + 1;
    },
    stats,
  };
  attack(workerData as D, side).then(() => parentPort!.postMessage(stats));
}

export interface DuringOptions {
  /** How long the attack runs before the measure starts (ms). */
  warmUpMs: number;
  /**
   * How long the attackers' figures are waited for once told to stop (ms; default 15 s): an
   * attacker whose connection only the server ends (a dripped body) may take that long. The
   * worker is ended either way; figures not in by then are reported as not collected.
   */
  collectMs?: number;
}

/** Runs `measure` while the attack `data` names runs in a worker started on `module` (the benchmark's own); returns its result and what the attackers saw. */
export async function during<T>(module: URL, data: AttackData, measure: () => Promise<T>, options: DuringOptions): Promise<[T, AttackStats]> {
  const worker = new Worker(module, { workerData: data });
  const stats = new Promise<AttackStats>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  try {
    await new Promise((r) => setTimeout(r, options.warmUpMs));
    const result = await measure();
    worker.postMessage('stop');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<AttackStats>((r) => (timer = setTimeout(() => r({ requests: -1, statuses: {} }), options.collectMs ?? 15_000)));
    const seen = await Promise.race([stats, late]);
    clearTimeout(timer);
    return [result, seen];
  } finally {
    await worker.terminate();
  }
}

/** One line on what the attackers saw. */
export function describeAttack(s: AttackStats): string {
  if (s.requests < 0) return 'attacker figures not collected';
  const statuses = Object.entries(s.statuses)
    .map(([k, v]) => `${k === '0' ? 'no answer' : k}: ${v}`)
    .join(', ');
  return `${s.requests} attacker requests answered (${statuses})${s.pageBytes !== undefined ? `, HTML answer ${s.pageBytes} bytes` : ''}`;
}

/** Adds a user to the Monitors group on the server at `base` (as the benchmarks' administrator); returns its Basic credentials. */
export async function addMonitor(base: string, user: string, password: string): Promise<string> {
  const post = async (path: string, body: unknown) => {
    const r = await fetch(`${base}/${path}`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json', 'x-requested-by': 'bench' }, body: JSON.stringify(body) });
    if (!r.ok) throw new Error(`POST ${path} answered ${r.status}: ${await r.text()}`);
  };
  await post(`${AUTHN}/createUser`, { userName: user, password, description: 'benchmark monitor' });
  await post(`${AUTHN}/addMemberToGroup`, { groupName: 'Monitors', memberUserOrGroupName: user });
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}
