// Lifecycle operations of servers, partitions and resource groups: each checks that its transition
// is legal, moves the state at once to the transitional state, and completes on the scheduler's
// clock, returning a task that can be polled.
import { badRequest } from '../core/problems.js';
import { childKey, itemKey, keyOfIdentity } from '../core/identity.js';
import type { RuntimeEngine } from './engine.js';
import type { Scheduler } from '../core/clock.js';
import type { ServerState } from './state.js';
import type { Task, TaskEngine } from './tasks.js';
import { PARTITION_LIFECYCLE, RESOURCE_GROUP_LIFECYCLE, SERVER_LIFECYCLE, type StepTiming, type Transition } from '../behaviour/state-machines.js';

const R = 'appserver.management.runtime.';
const SERVER_TASK = `${R}ServerLifeCycleTaskRuntimeMBean`;
const PARTITION_TASK = `${R}PartitionLifeCycleTaskRuntimeMBean`;
const RG_TASK = `${R}ResourceGroupLifeCycleTaskRuntimeMBean`;

/** How long each kind of step takes on the scheduler's clock (ms). */
export type LifecycleTimings = Record<StepTiming | 'deployment', number>;

export const DEFAULT_TIMINGS: LifecycleTimings = {
  serverStart: 2000,
  serverShutdown: 1000,
  serverSuspend: 300,
  partition: 500,
  resourceGroup: 300,
  deployment: 1000,
};

/** How often a hung step looks again whether its hang ended early (the fault was removed). */
const HANG_RECHECK_MS = 1000;

const SERVER = SERVER_LIFECYCLE.transitions;
const PARTITION = PARTITION_LIFECYCLE.transitions;
const RG = RESOURCE_GROUP_LIFECYCLE.transitions;

export const SERVER_OPERATIONS = [...SERVER.keys()];
export const PARTITION_OPERATIONS = [...PARTITION.keys()];
export const RESOURCE_GROUP_OPERATIONS = [...RG.keys()];

function illegal(what: string, state: string, op: string, t: Transition): Error {
  return badRequest(`${what} is ${state}; '${op}' can only be done from ${t.from.join(', ')}. Nothing was changed.`);
}

/** The error of a server task asked for a state the server is in already (the real product fails it). */
function alreadyThere(what: string, state: string, op: string, t: Transition): string {
  return `${what} is already ${state}; '${op}' can only be done from ${t.from.join(', ')}. Nothing was changed.`;
}

/** States a start ends in: the server serves requests on its own ports from then on. */
const SERVING: ReadonlySet<string> = new Set(['RUNNING', 'ADMIN', 'STANDBY']);

/**
 * What must succeed before a starting server reaches a running state: its listeners bind their
 * ports. A rejection fails the start task with the rejection's message, and the server FAILED.
 */
export type StartGate = (server: string) => Promise<void>;

export class Lifecycles {
  /** Set when the process opens managed servers' listeners (`serve`); tests of the model run without. */
  startGate?: StartGate;

  constructor(
    private readonly engine: RuntimeEngine,
    private readonly tasks: TaskEngine,
    private readonly scheduler: Scheduler,
    readonly timings: LifecycleTimings,
  ) {}

  /** Runs a task's next step after `ms`, unless the task was taken back meanwhile (its action refused by the store). */
  private step(task: Task, ms: number, fn: () => void): void {
    this.scheduler.after(ms, () => {
      if (!this.tasks.isDiscarded(task)) fn();
    });
  }

  // ---- servers ----

  server(name: string, op: string): Task {
    const t = SERVER.get(op);
    if (!t) throw badRequest(`'${op}' is not a server lifecycle operation.`);
    if (!this.engine.hasServer(name)) throw badRequest(`There is no server '${name}'.`);
    const state = this.engine.serverState(name);
    if (name === this.engine.adminServerName && (op === 'shutdown' || op === 'forceShutdown')) {
      throw badRequest(`The administration server '${name}' is this process and cannot shut itself down over REST; stop the process instead. Nothing was changed.`);
    }
    if ((op === 'shutdown' || op === 'forceShutdown') && state === 'SHUTDOWN') {
      throw badRequest(`Can not get to the relevant ServerRuntimeMBean for server ${name}. Server is in SHUTDOWN state and cannot be reached.`);
    }
    const owner = { key: itemKey('serverLifeCycleRuntimes', name), identity: ['serverLifeCycleRuntimes', name] };
    if (t.already?.includes(state)) {
      const task = this.tasks.create(owner, SERVER_TASK, t.operation, { serverName: name, description: t.describe(name) });
      task.finish(alreadyThere(`Server '${name}'`, state, op, t));
      return task;
    }
    if (!t.from.includes(state)) throw illegal(`Server '${name}'`, state, op, t);
    const task = this.tasks.create(owner, SERVER_TASK, t.operation, { serverName: name, description: t.describe(name) });
    this.engine.setServerState(name, t.via as ServerState);
    const faults = this.engine.faults;
    // An injected fault may fail a start; it is decided now, and seen when the step ends.
    const failure = t.timing === 'serverStart' ? faults.startFailure(name) : undefined;
    const end = () => {
      // The action was refused by the store and taken back: its step does nothing.
      if (this.tasks.isDiscarded(task)) return;
      // A hung server's step stands still until the hang ends (a hang always has an end).
      const hung = faults.hungUntil(name);
      const now = this.scheduler.now();
      if (hung !== undefined && hung > now) {
        this.scheduler.after(Math.min(hung - now, HANG_RECHECK_MS), end);
        return;
      }
      // A forced operation may have overtaken this one: only the transition still in progress ends.
      const finish = (error: string | undefined) => {
        if (this.engine.serverState(name) === t.via) this.engine.setServerState(name, (error === undefined ? t.to : 'FAILED') as ServerState);
        task.finish(error);
      };
      const gate = t.via === 'STARTING' && SERVING.has(t.to) && failure === undefined ? this.startGate : undefined;
      if (!gate) return finish(failure);
      gate(name).then(
        () => finish(undefined),
        (err: unknown) => finish(`Server '${name}' failed to start: ${err instanceof Error ? err.message : String(err)}`),
      );
    };
    this.scheduler.after(this.timings[t.timing] + faults.lifecycleDelay(name), end);
    return task;
  }

  // ---- partitions ----

  /** Targeted servers of a partition, narrowed by `targetNames`/`targets` when given. */
  partitionServers(partition: string, only?: string[]): string[] {
    const all = this.engine.partitionTargets(partition);
    if (!only) return all;
    const unknown = only.filter((s) => !all.includes(s));
    if (unknown.length > 0) throw badRequest(`Partition '${partition}' is not targeted to ${unknown.join(', ')}; its servers are ${all.join(', ') || 'none'}.`);
    return only;
  }

  partition(name: string, op: string, only?: string[], initialState?: string): Task {
    let key = op;
    if (op === 'start' && initialState !== undefined && initialState !== null) {
      if (initialState !== 'RUNNING' && initialState !== 'ADMIN') throw badRequest('Partition can only be started in "ADMIN" or "RUNNING" mode.', 'initialState');
      if (initialState === 'ADMIN') key = 'startInAdmin';
    }
    const t = PARTITION.get(key);
    if (!t) throw badRequest(`'${op}' is not a partition lifecycle operation.`);
    if (!this.engine.partition(name)) throw badRequest(`There is no partition '${name}'.`);
    const servers = this.partitionServers(name, only);
    const running = servers.filter((s) => this.engine.serverTrees.has(s));
    const all = only === undefined || servers.length === this.engine.partitionTargets(name).length;
    // The check covers every running target, or the desired state when none runs.
    const states = running.length > 0 ? running.map((s) => [s, this.engine.partitionOn(name, s)] as const) : [['(no running server)', this.engine.desiredPartition(name)] as const];
    for (const [server, state] of states) {
      if (!t.from.includes(state) && !t.already?.includes(state)) throw illegal(`Partition '${name}' on ${server}`, state, op, t);
    }
    const owner = this.partitionOwner(name);
    const task = this.tasks.create(owner, PARTITION_TASK, t.operation, { partitionName: name, serverName: '', description: t.describe(name) });
    const moving = running.filter((s) => !t.already?.includes(this.engine.partitionOn(name, s)));
    const subs = running.map((s) => this.tasks.create(owner, PARTITION_TASK, t.operation, { partitionName: name, serverName: s, description: t.describe(name) }, task));
    for (const sub of subs) if (!moving.includes(String(sub.values.serverName))) sub.finish();
    if (moving.length > 0) this.engine.setPartition(name, moving, t.via, false);
    const finish = () => {
      this.engine.setPartition(name, moving, t.to, all);
      for (const sub of subs) sub.finish();
      if (subs.length === 0) task.finish();
      else this.tasks.finishWithSubTasks(task);
    };
    if (moving.length === 0 && running.length > 0) {
      if (all) this.engine.setPartition(name, [], t.to, true);
      this.tasks.finishWithSubTasks(task);
    } else this.step(task, this.timings[t.timing], finish);
    return task;
  }

  /** Halts the partition on one server, then brings it back to the state it had there. */
  forceRestart(name: string, server: string, waitMs: number): Task {
    const before = this.engine.partitionOn(name, server);
    if (!this.engine.partitionTargets(name).includes(server)) throw badRequest(`Partition '${name}' is not targeted to ${server}.`);
    const owner = this.partitionOwner(name);
    const task = this.tasks.create(owner, PARTITION_TASK, 'FORCE_RESTART', { partitionName: name, serverName: server, description: `Force restarting ${name}` });
    this.engine.setPartition(name, [server], 'FORCE_RESTARTING', false);
    this.step(task, this.timings.partition, () => {
      this.engine.setPartition(name, [server], 'HALTED', false);
      this.step(task, Math.max(0, waitMs), () => {
        this.engine.setPartition(name, [server], before, false);
        task.finish();
      });
    });
    return task;
  }

  private partitionOwner(name: string) {
    return {
      key: childKey(itemKey('domainPartitionRuntimes', name), 'partitionLifeCycleRuntime'),
      identity: ['domainPartitionRuntimes', name, 'partitionLifeCycleRuntime'],
    };
  }

  // ---- resource groups ----

  resourceGroup(partition: string, rg: string, op: string): Task {
    const t = RG.get(op);
    if (!t) throw badRequest(`'${op}' is not a resource group lifecycle operation.`);
    const topology = this.engine.currentTopology;
    const p = partition === '' ? undefined : this.engine.partition(partition);
    const groups = p ? topology.resourceGroups(p) : partition === '' ? topology.items([], 'resourceGroups') : [];
    if (!groups.some((g) => g.name === rg)) {
      throw badRequest(partition === '' ? `There is no domain-level resource group '${rg}'.` : `There is no resource group '${rg}' in partition '${partition}'.`);
    }
    const partitionState = p ? this.engine.partitionState(partition) : { state: 'RUNNING', subState: null };
    if (op.startsWith('start') || op === 'resume') {
      const ps = partitionState.state === 'SHUTDOWN' ? `SHUTDOWN/${partitionState.subState}` : partitionState.state;
      if (partitionState.state !== 'RUNNING' && partitionState.state !== 'ADMIN') {
        throw badRequest(`Resource group '${rg}' cannot ${op} while its partition '${partition}' is ${ps}; start the partition first. Nothing was changed.`);
      }
    }
    const state = this.engine.resourceGroupState(partition, rg);
    const ownerIdentity = p
      ? ['domainPartitionRuntimes', partition, 'partitionLifeCycleRuntime', 'resourceGroupLifeCycleRuntimes', rg]
      : ['resourceGroupLifeCycleRuntimes', rg];
    const owner = { key: keyOfIdentity(ownerIdentity), identity: ownerIdentity };
    const fields = { resourceGroupName: rg, serverName: '', description: t.describe(rg) };
    if (t.already?.includes(state)) {
      const task = this.tasks.create(owner, RG_TASK, t.operation, fields);
      task.finish();
      return task;
    }
    if (!t.from.includes(state)) throw illegal(`Resource group '${rg}' of partition '${partition}'`, state, op, t);
    const task = this.tasks.create(owner, RG_TASK, t.operation, fields);
    this.engine.setResourceGroup(partition, rg, t.via);
    this.step(task, this.timings[t.timing], () => {
      this.engine.setResourceGroup(partition, rg, t.to);
      task.finish();
    });
    return task;
  }
}
