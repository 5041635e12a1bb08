// Several servers sharing one store: each catches up with what the others changed before it
// answers, says regularly that it is alive, and finishes what a server that stopped left running.
import type { ConfigService } from '../config/config-service.js';
import type { Topology } from '../config/topology.js';
import type { LifecycleService } from '../lifecycle/service.js';
import type { RuntimeEngine } from '../runtime/engine.js';
import type { RuntimePersistence } from '../runtime/persistence.js';
import { settleTarget } from '../runtime/state.js';
import type { TaskEngine } from '../runtime/tasks.js';
import type { SecurityService } from '../security/service.js';
import { COMPONENTS, type Component, type Store } from '../store/store.js';

/** How often a server sharing a store says it is alive. */
export const HEARTBEAT_MS = 5000;

/** Since when a server must have said it is alive to count as alive. */
export const aliveSince = (now: number) => now - HEARTBEAT_MS * 3;

export interface CoordinatedParts {
  store: Store;
  persistence: RuntimePersistence;
  runtime: RuntimeEngine;
  configService: ConfigService;
  tasks: TaskEngine;
  lifecycle: LifecycleService;
  security: SecurityService;
  topology: () => Topology;
  /** Told after what other servers changed was taken in (or this server settled their orphans). */
  changed?: () => void;
  /** Told when a heartbeat or the settling after it failed, once until one succeeds again. */
  beatFailed?: (err: unknown) => void;
}

export class ClusterCoordinator {
  /** Component versions of the store this server has caught up with. */
  private seen: Partial<Record<Component, number>> = {};
  private syncing: Promise<void> | undefined;
  private syncAgain = false;
  private heartbeat?: { timer: NodeJS.Timeout; instance: string };

  constructor(private readonly parts: CoordinatedParts) {
    if (parts.store.shared) parts.store.onChange(() => void this.sync().catch(() => undefined));
  }

  /** Takes the store's current versions as caught up with (at start-up, after loading everything). */
  async settle(): Promise<void> {
    this.seen = await this.parts.store.versions();
  }

  /**
   * Catches up with other servers sharing the store: one query for the versions of every part of
   * the domain, then a reload of the parts that moved. Concurrent callers share one round.
   */
  sync(): Promise<void> {
    if (!this.parts.store.shared) return Promise.resolve();
    if (this.syncing) {
      this.syncAgain = true;
      return this.syncing;
    }
    this.syncing = (async () => {
      try {
        do {
          this.syncAgain = false;
          await this.catchUp();
        } while (this.syncAgain);
      } finally {
        this.syncing = undefined;
      }
    })();
    return this.syncing;
  }

  private async catchUp(): Promise<void> {
    const { store, persistence, runtime, configService, tasks, lifecycle, security, topology } = this.parts;
    // Our own queued writes first, so what is read back includes them.
    await persistence.flush();
    const versions = await store.versions();
    const moved = (c: Component) => versions[c] !== this.seen[c];
    if (!COMPONENTS.some(moved)) return;
    try {
      // The runtime state first: the configuration's listeners then work from current states.
      if (moved('runtime') && (await persistence.reload())) runtime.rebuild(topology());
      if (moved('config') || moved('sessions')) await configService.sync();
      if (moved('tasks')) tasks.load(await store.tasks(), false);
      if (moved('lifecycle')) await lifecycle.reload();
      if (moved('security')) {
        await security.load();
        configService.endWaitsOfRemoved((u) => security.hasUser(u));
      } else if (moved('lockouts')) await security.lockouts.load();
      for (const c of COMPONENTS) this.seen[c] = versions[c];
    } finally {
      this.parts.changed?.();
    }
  }

  /** Says regularly that this server is alive, and settles what stopped servers left running. */
  startHeartbeat(instance: string): void {
    // A failing beat is told once (the store may be out for a while); the next beats try again.
    let failing = false;
    const timer = setInterval(() => {
      void this.parts.store
        .heartbeat(instance, Date.now())
        .then(() => this.settleOrphans())
        .then(
          () => (failing = false),
          (err: unknown) => {
            if (!failing) this.parts.beatFailed?.(err);
            failing = true;
          },
        );
    }, HEARTBEAT_MS);
    timer.unref();
    this.heartbeat = { timer, instance };
  }

  /**
   * Tasks another server was running when it stopped (its heartbeat lapsed) are ended here: the
   * task fails and what it was acting on ends where it was going.
   */
  async settleOrphans(): Promise<void> {
    const { store, persistence, runtime, tasks, topology } = this.parts;
    await this.sync();
    const live = new Set(await store.liveInstances(aliveSince(Date.now())));
    const orphans = tasks.all().filter((t) => !t.local && !t.values.completed && typeof t.values.$executor === 'string' && t.values.$executor !== '' && !live.has(t.values.$executor));
    if (orphans.length === 0) return;
    for (const t of orphans) {
      settleTarget(runtime.state, t.values);
      tasks.abandon(t, 'The server running this task stopped before it completed.');
    }
    runtime.rebuild(topology());
    this.parts.changed?.();
    tasks.onSave(orphans);
    persistence.saveState();
    await persistence.flush();
  }

  /** Stops the heartbeat; a server that stops cleanly is no longer alive at once. */
  async stop(): Promise<void> {
    if (!this.heartbeat) return;
    clearInterval(this.heartbeat.timer);
    await this.parts.store.heartbeat(this.heartbeat.instance, 0).catch(() => undefined);
  }
}
