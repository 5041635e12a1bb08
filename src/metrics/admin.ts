// The administration server's own figures: requests by tree, method and status, their latency,
// activations, tasks by state, edit locks held and running servers. Each server process keeps its
// own registry (never the library's global one), so servers sharing a process keep apart.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

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

export class AdminMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'tree' | 'method' | 'status'>;
  private readonly latency: Histogram<'tree'>;
  private readonly activations: Counter;

  constructor(sources: AdminSources) {
    const registers = [this.registry];
    this.requests = new Counter({ name: 'appserver_admin_requests_total', help: 'Requests answered, by tree, method and status', labelNames: ['tree', 'method', 'status'], registers });
    this.latency = new Histogram({
      name: 'appserver_admin_request_duration_seconds',
      help: 'Time from a request to its answer, by tree',
      labelNames: ['tree'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    });
    this.activations = new Counter({ name: 'appserver_admin_activations_total', help: 'Configuration changes activated by this server', registers });
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
  }

  /** Counts an answered request; `tree` is the part of the interface it went to. */
  observeRequest(tree: string, method: string, status: number, seconds: number): void {
    this.requests.inc({ tree, method, status: String(status) });
    this.latency.observe({ tree }, seconds);
  }

  activated(): void {
    this.activations.inc();
  }
}
