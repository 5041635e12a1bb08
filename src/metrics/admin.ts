// The administration server's own figures: requests by tree, method and status, their latency,
// activations, tasks by state, edit locks held and running servers. Each server process keeps its
// own registry (never the library's global one), so servers sharing a process keep apart.
// prom-client (and what it loads) is no part of a start: it is loaded at the first /metrics, or once
// enough requests wait to be counted; until then each answered request waits in a bounded list.
import type { Counter, Histogram, Registry } from 'prom-client';

export interface AdminSources {
  /** Every task and deployment progress object kept, with its status field. */
  tasks(): Iterable<{ values: Record<string, unknown> }>;
  /** Edit sessions whose lock someone holds. */
  editLocksHeld(): number;
  /** Servers in a running state. */
  runningServers(): number;
}

/** A task's status as one word. */
function taskState(values: Record<string, unknown>): string {
  const s = String(values.taskStatus ?? values.state ?? '');
  if (s === 'TASK IN PROGRESS' || s === 'STATE_RUNNING' || s === 'STATE_INITIALIZED' || s === 'STATE_DEFERRED') return 'running';
  if (s === 'TASK COMPLETED' || s === 'STATE_COMPLETED') return 'completed';
  if (s === 'FAILED' || s === 'STATE_FAILED') return 'failed';
  return 'other';
}

/** Requests counted before the figures' library is loaded; beyond this many, it is loaded. */
const PENDING_LIMIT = 2048;

type Observation = [tree: string, method: string, status: number, seconds: number];

interface Figures {
  registry: Registry;
  requests: Counter<'tree' | 'method' | 'status'>;
  latency: Histogram<'tree'>;
  activations: Counter;
}

export class AdminMetrics {
  private figures?: Figures;
  private loading?: Promise<Figures>;
  private pending: Observation[] = [];
  private pendingActivations = 0;

  constructor(private readonly sources: AdminSources) {}

  /** The registry of these figures, every request counted so far in it. */
  async registry(): Promise<Registry> {
    return (await this.load()).registry;
  }

  private load(): Promise<Figures> {
    this.loading ??= import('prom-client').then((lib) => {
      const figures = makeFigures(lib, this.sources);
      for (const [tree, method, status, seconds] of this.pending) record(figures, tree, method, status, seconds);
      if (this.pendingActivations > 0) figures.activations.inc(this.pendingActivations);
      this.pending = [];
      this.pendingActivations = 0;
      this.figures = figures;
      return figures;
    });
    return this.loading;
  }

  /** Counts an answered request; `tree` is the part of the interface it went to. */
  observeRequest(tree: string, method: string, status: number, seconds: number): void {
    if (this.figures) return record(this.figures, tree, method, status, seconds);
    this.pending.push([tree, method, status, seconds]);
    if (this.pending.length >= PENDING_LIMIT) void this.load().catch(() => undefined);
  }

  activated(): void {
    if (this.figures) this.figures.activations.inc();
    else this.pendingActivations++;
  }
}

function record(f: Figures, tree: string, method: string, status: number, seconds: number): void {
  f.requests.inc({ tree, method, status: String(status) });
  f.latency.observe({ tree }, seconds);
}

function makeFigures(lib: typeof import('prom-client'), sources: AdminSources): Figures {
  const { Counter, Gauge, Histogram, Registry } = lib;
  const registry = new Registry();
  const registers = [registry];
  const requests = new Counter({ name: 'appserver_admin_requests_total', help: 'Requests answered, by tree, method and status', labelNames: ['tree', 'method', 'status'] as const, registers });
  const latency = new Histogram({
    name: 'appserver_admin_request_duration_seconds',
    help: 'Time from a request to its answer, by tree',
    labelNames: ['tree'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers,
  });
  const activations = new Counter({ name: 'appserver_admin_activations_total', help: 'Configuration changes activated by this server', registers });
  new Gauge({
    name: 'appserver_admin_tasks',
    help: 'Tasks kept, by state (running, completed, failed)',
    labelNames: ['state'],
    registers,
    collect() {
      const counts = new Map<string, number>([['running', 0], ['completed', 0], ['failed', 0]]);
      for (const t of sources.tasks()) counts.set(taskState(t.values), (counts.get(taskState(t.values)) ?? 0) + 1);
      this.reset();
      for (const [state, n] of counts) this.set({ state }, n);
    },
  });
  new Gauge({
    name: 'appserver_admin_edit_locks_held',
    help: 'Edit sessions whose lock a user holds',
    registers,
    collect() {
      this.set(sources.editLocksHeld());
    },
  });
  new Gauge({
    name: 'appserver_admin_running_servers',
    help: 'Servers of the domain in a running state',
    registers,
    collect() {
      this.set(sources.runningServers());
    },
  });
  return { registry, requests, latency, activations };
}
