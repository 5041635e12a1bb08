// Actions of the runtime trees: server, partition and resource-group lifecycles (tasks honouring
// `Prefer`), state queries, and the server-side helpers of the server runtime.
import { badRequest } from '../core/problems.js';
import vm from 'node:vm';
import v8 from 'node:v8';
import type { Catalog } from '../catalog/load.js';
import type { RuntimeEngine } from '../runtime/engine.js';
import { type Lifecycles, PARTITION_OPERATIONS, RESOURCE_GROUP_OPERATIONS, SERVER_OPERATIONS } from '../runtime/lifecycle.js';
import type { Scheduler } from '../core/clock.js';
import { partitionWire } from '../runtime/state.js';
import type { TaskEngine } from '../runtime/tasks.js';
import type { TreeRoot } from '../tree/resolve.js';
import { itemKey } from '../core/identity.js';
import type { ActionCall, ActionRegistry } from './invoke.js';
import type { TaskReplies } from './task-reply.js';

const R = 'appserver.management.runtime.';
const done = { value: undefined };

export interface RuntimeActionDeps {
  catalog: Catalog;
  engine: RuntimeEngine;
  lifecycles: Lifecycles;
  tasks: TaskEngine;
  scheduler: Scheduler;
  replies: TaskReplies;
  /** The domain runtime tree, where every lifecycle task lives. */
  domainRuntime: () => TreeRoot;
}

/** Server names a list of target references or names stands for. */
function serversOf(engine: RuntimeEngine, call: ActionCall): string[] | undefined {
  if (Array.isArray(call.args.targetNames)) return call.args.targetNames as string[];
  if (Array.isArray(call.args.targets)) {
    const out = new Set<string>();
    for (const id of call.args.targets as string[][]) {
      const servers = engine.currentTopology.serversOf(id);
      if (servers.length === 0) throw badRequest(`The target ${JSON.stringify(id)} names no server.`, 'targets');
      for (const s of servers) out.add(s);
    }
    return [...out];
  }
  return undefined;
}

function urlOf(engine: RuntimeEngine, server: string, protocol: unknown): string {
  const s = engine.currentTopology.servers().find((x) => x.name === server);
  const host = String(s?.values.listenAddress || 'localhost');
  const port = Number(s?.values.listenPort ?? 7001);
  const scheme = typeof protocol === 'string' && protocol !== '' ? protocol : 't3';
  return `${scheme}://${host}:${port}`;
}

function runGc(): void {
  // The garbage collector is reachable only when exposed; expose it once, then call it.
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

export function registerRuntimeActions(actions: ActionRegistry, deps: RuntimeActionDeps): void {
  const { engine, lifecycles, tasks, replies } = deps;
  const dr = () => deps.domainRuntime();
  const nameOf = (call: ActionCall) => String(call.node.record?.values.name ?? call.node.identity[call.node.identity.length - 1]);
  const str = (call: ActionCall, arg: string): string => {
    const v = call.args[arg];
    if (typeof v !== 'string' || v === '') throw badRequest(`The argument '${arg}' of '${call.op.name}' must be a non-empty string.`, arg);
    return v;
  };

  // ---- server lifecycle runtimes (domainRuntime/serverLifeCycleRuntimes/{s}) ----
  for (const op of SERVER_OPERATIONS) {
    actions.register(`${R}ServerLifeCycleRuntimeMBean`, op, (call) => replies.reply(call, lifecycles.server(nameOf(call), op), dr()));
  }
  actions.register(`${R}ServerLifeCycleRuntimeMBean`, 'clearOldServerLifeCycleTaskRuntimes', (call) => {
    tasks.purge(itemKey('serverLifeCycleRuntimes', nameOf(call)), deps.scheduler.now() - 30 * 60_000);
    return done;
  });
  for (const op of ['getIPv4URL', 'getIPv6URL']) {
    actions.register(`${R}ServerLifeCycleRuntimeMBean`, op, (call) => ({ value: urlOf(engine, nameOf(call), call.args.protocol) }));
  }

  // ---- a server's own runtime (serverRuntime, domainRuntime/serverRuntimes/{s}) ----
  const server = (call: ActionCall) => String(call.node.root.source.bean('')?.values.name);
  for (const op of ['suspend', 'forceSuspend', 'resume', 'shutdown', 'forceShutdown']) {
    actions.register(`${R}ServerRuntimeMBean`, op, (call) => replies.reply(call, lifecycles.server(server(call), op), dr(), true));
  }
  for (const op of ['getURL', 'getIPv4URL', 'getIPv6URL']) {
    actions.register(`${R}ServerRuntimeMBean`, op, (call) => ({ value: urlOf(engine, server(call), call.args.protocol) }));
  }
  actions.register(`${R}ServerRuntimeMBean`, 'restartSSLChannels', () => done);
  const partitionOnServer: Record<string, string> = { startPartition: 'start', startPartitionInAdmin: 'startInAdmin', bootPartition: 'boot' };
  for (const [action, op] of Object.entries(partitionOnServer)) {
    actions.register(`${R}ServerRuntimeMBean`, action, (call) => replies.reply(call, lifecycles.partition(str(call, 'partitionName'), op, [server(call)]), dr(), true));
  }
  actions.register(`${R}ServerRuntimeMBean`, 'forceRestartPartition', (call) => {
    const wait = typeof call.args.timeout === 'number' ? call.args.timeout : 0;
    return replies.reply(call, lifecycles.forceRestart(str(call, 'partitionName'), server(call), wait), dr(), true);
  });

  // Resource-group helpers: on the server runtime they name domain-level groups, on a partition
  // runtime the partition's own.
  const rgOps: Record<string, string> = {
    startResourceGroup: 'start',
    startResourceGroupInAdmin: 'startInAdmin',
    suspendResourceGroup: 'suspend',
    forceSuspendResourceGroup: 'forceSuspend',
    resumeResourceGroup: 'resume',
    shutdownResourceGroup: 'shutdown',
    forceShutdownResourceGroup: 'forceShutdown',
  };
  const partitionOf = (call: ActionCall) => (call.node.type.short === 'PartitionRuntime' ? nameOf(call) : '');
  for (const [action, op] of Object.entries(rgOps)) {
    for (const type of ['ServerRuntimeMBean', 'PartitionRuntimeMBean']) {
      actions.register(`${R}${type}`, action, (call) => replies.reply(call, lifecycles.resourceGroup(partitionOf(call), str(call, 'resourceGroupName'), op), dr(), true));
    }
  }
  for (const type of ['ServerRuntimeMBean', 'PartitionRuntimeMBean']) {
    actions.register(`${R}${type}`, 'getRgState', (call) => ({ value: engine.resourceGroupState(partitionOf(call), str(call, 'resourceGroupName')) }));
  }

  // ---- a partition on one server (serverRuntime/partitionRuntimes/{p}) ----
  for (const op of ['suspend', 'forceSuspend', 'resume', 'shutdown', 'forceShutdown', 'halt']) {
    actions.register(`${R}PartitionRuntimeMBean`, op, (call) => replies.reply(call, lifecycles.partition(nameOf(call), op, [server(call)]), dr(), true));
  }

  // ---- partition lifecycle, domain-wide ----
  const partitionName = (call: ActionCall) => call.node.identity[1]!;
  for (const op of PARTITION_OPERATIONS) {
    actions.register(`${R}PartitionLifeCycleRuntimeMBean`, op, (call) =>
      replies.reply(call, lifecycles.partition(partitionName(call), op, serversOf(engine, call), call.args.initialState as string | undefined), dr()),
    );
  }
  const serverArg = (call: ActionCall): string => {
    const ref = call.args.serverMBean as string[] | undefined;
    const name = ref ? ref[ref.length - 1] : call.args.serverName;
    if (typeof name !== 'string' || !engine.hasServer(name)) throw badRequest(`There is no server ${JSON.stringify(name)}.`, 'serverName');
    return name;
  };
  actions.register(`${R}PartitionLifeCycleRuntimeMBean`, 'getState', (call) => ({
    value: partitionWire(engine.partitionOn(partitionName(call), serverArg(call))).state,
  }));
  actions.register(`${R}PartitionLifeCycleRuntimeMBean`, 'getSubState', (call) => ({
    value: partitionWire(engine.partitionOn(partitionName(call), serverArg(call))).subState,
  }));
  actions.register(`${R}PartitionLifeCycleRuntimeMBean`, 'purgeTasks', (call) => (tasks.purge(call.node.key), done));

  // ---- resource group lifecycle ----
  const rgPartition = (call: ActionCall) => (call.node.identity[0] === 'domainPartitionRuntimes' ? call.node.identity[1]! : '');
  for (const op of RESOURCE_GROUP_OPERATIONS) {
    actions.register(`${R}ResourceGroupLifeCycleRuntimeMBean`, op, (call) => {
      serversOf(engine, call);
      return replies.reply(call, lifecycles.resourceGroup(rgPartition(call), nameOf(call), op), dr());
    });
  }
  actions.register(`${R}ResourceGroupLifeCycleRuntimeMBean`, 'getState', (call) => {
    serverArg(call);
    return { value: engine.resourceGroupState(rgPartition(call), nameOf(call)) };
  });
  actions.register(`${R}ResourceGroupLifeCycleRuntimeMBean`, 'purgeTasks', (call) => (tasks.purge(call.node.key), done));

  // ---- domain runtime ----
  const partitionRef = (call: ActionCall) => {
    const id = call.args.partition as string[] | null;
    const name = id?.[id.length - 1];
    if (!name || !engine.partition(name)) throw badRequest(`The argument 'partition' must reference a partition, such as ["partitions", "partition1"].`, 'partition');
    return name;
  };
  actions.register(`${R}DomainRuntimeMBean`, 'startPartitionWait', (call) => replies.reply(call, lifecycles.partition(partitionRef(call), 'start'), dr(), true));
  actions.register(`${R}DomainRuntimeMBean`, 'forceShutdownPartitionWait', (call) => replies.reply(call, lifecycles.partition(partitionRef(call), 'forceShutdown'), dr(), true));
  actions.register(`${R}DomainRuntimeMBean`, 'restartSystemResource', (call) => {
    const id = call.args.resource as string[] | null;
    if (!id || !engine.currentTopology.bean(id)) throw badRequest(`The argument 'resource' must reference a system resource, such as ["JDBCSystemResources", "ds1"].`, 'resource');
    return done;
  });

  // ---- the JVM of this process ----
  actions.register(`${R}JVMRuntimeMBean`, 'runGC', (call) => {
    if (server(call) !== engine.adminServerName) return done;
    runGc();
    return done;
  });
}
