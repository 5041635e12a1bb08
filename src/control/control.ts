// The control interface's model: faults, the clock and step durations, snapshots of the whole
// domain, and the request journal. No HTTP here: http/control.ts serves it, tests may use it in
// process.
import { type ClockControl } from '../core/clock.js';
import { badRequest, notFound } from '../core/problems.js';
import { Mutex } from '../core/mutex.js';
import { Domain, INITIAL_SNAPSHOT } from '../domain/domain.js';
import { DEFAULT_TIMINGS, type LifecycleTimings } from '../runtime/lifecycle.js';
import { REACHABLE } from '../runtime/engine.js';
import type { DomainRows, SnapshotInfo } from '../store/store.js';
import { Faults } from './faults.js';
import { Journal } from './journal.js';

/** Step durations by name: from instant (CI) to realistic (demos). */
export const TIMING_PRESETS: Record<string, LifecycleTimings> = {
  instant: { serverStart: 0, serverShutdown: 0, serverSuspend: 0, partition: 0, resourceGroup: 0, deployment: 0 },
  default: { ...DEFAULT_TIMINGS },
  realistic: { serverStart: 45_000, serverShutdown: 15_000, serverSuspend: 5_000, partition: 8_000, resourceGroup: 3_000, deployment: 12_000 },
};
const MAX_STEP_MS = 3_600_000;
const MAX_ADVANCE_MS = 366 * 24 * 3600 * 1000;
const SNAPSHOT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const MAX_SNAPSHOTS = 200;

export interface ClockView {
  now: number;
  frozen: boolean;
  /** False for a manual clock a test gave the server: it never runs by itself. */
  canRun: boolean;
  timings: LifecycleTimings;
}

export class Control {
  readonly faults: Faults;
  readonly journal = new Journal();
  /** Restores, resets and saves one at a time. */
  private readonly snapshotLock = new Mutex();
  /** When each server was restarted after a crash (for restartMax within restartIntervalSeconds). */
  private readonly restarts = new Map<string, number[]>();

  constructor(
    readonly domain: Domain,
    private readonly clock: ClockControl | undefined,
  ) {
    const topology = () => domain.topology();
    this.faults = new Faults(domain.scheduler, {
      has: (scope, name) => {
        const t = topology();
        if (scope === 'server') return t.servers().some((s) => s.name === name);
        if (scope === 'application') return t.appDeployments().some((a) => a.name === name);
        if (scope === 'jmsServer') return t.items([], 'JMSServers').some((j) => j.name === name);
        // Domain-level data sources, and those of resource groups (of the domain and of partitions).
        const groups = [...t.items([], 'resourceGroups'), ...t.partitions().flatMap((p) => t.resourceGroups(p))];
        return [[] as string[], ...groups.map((g) => g.identity)].some((owner) => t.items(owner, 'JDBCSystemResources').some((d) => d.name === name));
      },
      serversOf: (target) => {
        const t = topology();
        if (t.servers().some((s) => s.name === target)) return [target];
        return t.bean(['clusters', target]) ? t.serversOf(['clusters', target]) : [];
      },
      crash: (server, message) => this.crash(server, message),
    });
    domain.runtime.faults = this.faults;
  }

  // ---- a crash ----

  /** A running server fails now; it is started again when its configuration asks for it. */
  private crash(server: string, message: string): void {
    const runtime = this.domain.runtime;
    if (server === runtime.adminServerName) throw badRequest(`The administration server '${server}' is this process: it cannot crash and still answer. Crash a managed server.`, 'server');
    const state = runtime.serverState(server);
    if (!REACHABLE.has(state) && state !== 'STARTING') throw badRequest(`Server '${server}' is ${state}; only a server that runs (or is starting) can crash.`, 'server');
    runtime.setServerState(server, 'FAILED');
    this.domain.log.warn({ server, state }, `server ${server} crashed: ${message}`);
    this.autoRestart(server);
  }

  /**
   * The product's node manager restarts a failed server whose `autoRestart` is set, after
   * `restartDelaySeconds`, at most `restartMax` times within `restartIntervalSeconds`. Here it
   * applies when the configuration sets `autoRestart` to true (no node manager watches otherwise).
   */
  private autoRestart(server: string): void {
    const bean = this.domain.topology().servers().find((s) => s.name === server);
    if (bean?.values.autoRestart !== true) return;
    const num = (v: unknown, d: number) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : d);
    const delay = num(bean.values.restartDelaySeconds, 0) * 1000;
    const max = num(bean.values.restartMax, 2);
    const interval = num(bean.values.restartIntervalSeconds, 3600) * 1000;
    const scheduler = this.domain.scheduler;
    const recent = (this.restarts.get(server) ?? []).filter((t) => t > scheduler.now() - interval);
    if (recent.length >= max) {
      this.domain.log.warn({ server, restarts: recent.length }, `server ${server} is not restarted: it was restarted ${recent.length} times within ${interval / 1000} s`);
      return;
    }
    scheduler.after(delay, () => {
      if (this.domain.runtime.serverState(server) !== 'FAILED') return;
      recent.push(scheduler.now());
      this.restarts.set(server, recent);
      try {
        this.domain.lifecycles.server(server, 'start');
      } catch (err) {
        this.domain.log.warn({ server, err }, `server ${server} could not be restarted`);
      }
    });
  }

  // ---- the clock ----

  clockView(): ClockView {
    return {
      now: this.domain.scheduler.now(),
      frozen: this.clock?.frozen ?? false,
      canRun: this.clock?.canRun ?? true,
      timings: { ...this.domain.lifecycles.timings },
    };
  }

  private controllable(): ClockControl {
    if (!this.clock) throw badRequest("This server's clock is the wall clock and cannot be controlled.");
    return this.clock;
  }

  freeze(): ClockView {
    this.controllable().freeze();
    return this.clockView();
  }

  resume(): ClockView {
    const clock = this.controllable();
    if (!clock.canRun) throw badRequest('This server runs on a manual clock (given by the program that started it): it moves only when advanced.');
    clock.resume();
    return this.clockView();
  }

  advance(body: unknown): ClockView {
    const b = objectBody(body, '{"ms": 5000} or {"seconds": 5}');
    onlyKeys(b, ['ms', 'seconds']);
    const ms = b.ms ?? (typeof b.seconds === 'number' ? b.seconds * 1000 : b.seconds);
    if (b.ms !== undefined && b.seconds !== undefined) throw badRequest("Give either 'ms' or 'seconds', not both.", 'ms');
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0 || ms > MAX_ADVANCE_MS) {
      throw badRequest(`The clock advances by 'ms' (or 'seconds'): a number from 0 to ${MAX_ADVANCE_MS} ms; it is ${JSON.stringify(b.ms ?? b.seconds)}.`, b.ms !== undefined ? 'ms' : 'seconds');
    }
    this.controllable().advance(Math.round(ms));
    return this.clockView();
  }

  /** Sets step durations: a preset, and/or durations by name (ms); checked whole before any applies. */
  setTimings(body: unknown): ClockView {
    const b = objectBody(body, '{"preset": "instant"} or {"serverStart": 100}');
    const names = Object.keys(DEFAULT_TIMINGS) as (keyof LifecycleTimings)[];
    onlyKeys(b, ['preset', ...names]);
    let next: LifecycleTimings = { ...this.domain.lifecycles.timings };
    if (b.preset !== undefined) {
      if (typeof b.preset !== 'string' || !Object.hasOwn(TIMING_PRESETS, b.preset)) {
        throw badRequest(`The property 'preset' must be one of ${Object.keys(TIMING_PRESETS).join(', ')}; it is ${JSON.stringify(b.preset)}.`, 'preset');
      }
      next = { ...TIMING_PRESETS[b.preset]! };
    }
    for (const n of names) {
      const v = b[n];
      if (v === undefined) continue;
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_STEP_MS) throw badRequest(`The property '${n}' must be an integer number of ms from 0 to ${MAX_STEP_MS}; it is ${JSON.stringify(v)}.`, n);
      next[n] = v;
    }
    Object.assign(this.domain.lifecycles.timings, next);
    return this.clockView();
  }

  // ---- snapshots ----

  snapshots(): Promise<SnapshotInfo[]> {
    return this.domain.store.snapshots().then((all) => all.filter((s) => s.name !== INITIAL_SNAPSHOT));
  }

  async snapshot(name: string): Promise<SnapshotInfo> {
    const s = SNAPSHOT_NAME.test(name) ? await this.domain.store.snapshot(name) : undefined;
    if (!s) throw notFound(name);
    return { name: s.name, created: s.created, bytes: s.bytes };
  }

  /** Saves the whole domain state under a name (replacing a snapshot of that name). */
  save(body: unknown): Promise<SnapshotInfo> {
    const b = objectBody(body, '{"name": "before-test"}');
    onlyKeys(b, ['name']);
    const name = b.name;
    if (typeof name !== 'string' || !SNAPSHOT_NAME.test(name)) {
      throw badRequest(`The property 'name' must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit; it is ${JSON.stringify(name)}.`, 'name');
    }
    return this.snapshotLock.run(async () => {
      const existing = await this.domain.store.snapshots();
      if (existing.length >= MAX_SNAPSHOTS && !existing.some((s) => s.name === name)) throw badRequest(`There are ${MAX_SNAPSHOTS} snapshots already; delete some first.`, 'name');
      const data = JSON.stringify(await this.domain.captureRows());
      const created = Date.now();
      await this.domain.store.putSnapshot(name, created, data);
      return { name, created, bytes: Buffer.byteLength(data) };
    });
  }

  restore(name: string): Promise<void> {
    return this.restoreNamed(name, () => notFound(name));
  }

  /** Back to the domain as it was created. */
  reset(): Promise<void> {
    return this.restoreNamed(INITIAL_SNAPSHOT, () => badRequest('This domain was created before its initial state was recorded: it cannot be reset. Save a snapshot and restore that instead.'));
  }

  private restoreNamed(name: string, missing: () => Error): Promise<void> {
    return this.snapshotLock.run(async () => {
      const s = name === INITIAL_SNAPSHOT || SNAPSHOT_NAME.test(name) ? await this.domain.store.snapshot(name) : undefined;
      if (!s) throw missing();
      const started = Date.now();
      await this.domain.restoreRows(JSON.parse(s.data) as DomainRows);
      this.domain.log.info({ snapshot: name, ms: Date.now() - started }, name === INITIAL_SNAPSHOT ? 'domain reset to its initial state' : `snapshot ${name} restored`);
    });
  }

  async deleteSnapshot(name: string): Promise<void> {
    if (!SNAPSHOT_NAME.test(name) || !(await this.domain.store.deleteSnapshot(name))) throw notFound(name);
  }
}

function objectBody(body: unknown, example: string): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw badRequest(`The request body must be a JSON object, for example ${example}.`);
  return body as Record<string, unknown>;
}

function onlyKeys(body: Record<string, unknown>, known: readonly string[]): void {
  for (const key of Object.keys(body)) if (!known.includes(key)) throw badRequest(`There is no property '${key}' here; the properties are ${known.join(', ')}.`, key);
}
