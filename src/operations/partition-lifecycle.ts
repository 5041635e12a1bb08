// Partition and resource-group lifecycle: domain-wide (partitionLifeCycleRuntime and
// resourceGroupLifeCycleRuntimes, tasks honouring `Prefer`; spec, ops B.3, B.5), on one server
// (serverRuntime helpers and partitionRuntimes, void; spec, ops B.1), and the domain runtime's
// waiting forms and system resource restart (ops B.1).
import { badRequest } from '../core/problems.js';
import type { RuntimeEngine } from '../runtime/engine.js';
import { partitionWire } from '../runtime/state.js';
import { DONE, type Invocation, type OperationDefinition, type OperationServices, defineOperation, returns, runs } from './define.js';
import {
  CFG,
  LONG,
  OPERATOR,
  PARTITION_TASK,
  RG_TASK,
  RT,
  STRING,
  VOID,
  action,
  bool,
  int,
  lifecycleShutdown,
  lifecycleSuspend,
  ov,
  p,
  query,
  str,
  targeted,
  task,
} from './declare.js';
import { restartSystemResource } from './system-resources.js';
import { beanName, partitionOf, serverOf } from './beans.js';

const SERVER = RT + 'ServerRuntimeMBean';
const PARTITION_RUNTIME = RT + 'PartitionRuntimeMBean';
const PARTITION_LIFECYCLE = RT + 'PartitionLifeCycleRuntimeMBean';
const RG_LIFECYCLE = RT + 'ResourceGroupLifeCycleRuntimeMBean';
const DOMAIN = RT + 'DomainRuntimeMBean';

/** A string argument that must be given. */
function required(call: Invocation, arg: string): string {
  const v = call.args[arg];
  if (typeof v !== 'string' || v === '') throw badRequest(`The argument '${arg}' of '${call.op.name}' must be a non-empty string.`, arg);
  return v;
}

/** Server names a list of target references or names stands for. */
function serversOf(engine: RuntimeEngine, call: Invocation): string[] | undefined {
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

/** The server named by `serverName`, or by the older `serverMBean` reference. */
function serverArg(engine: RuntimeEngine, call: Invocation): string {
  const ref = call.args.serverMBean as string[] | undefined;
  const name = ref ? ref[ref.length - 1] : call.args.serverName;
  if (typeof name !== 'string' || !engine.hasServer(name)) throw badRequest(`There is no server ${JSON.stringify(name)}.`, 'serverName');
  return name;
}

// A partition runtime's resource-group helpers name the partition's own groups; a server runtime's
// name the domain's ('' as partition): both are the bean's partition scope.

function partitionRef(engine: RuntimeEngine, call: Invocation): string {
  const id = call.args.partition as string[] | null;
  const name = id?.[id.length - 1];
  if (!name || !engine.partition(name)) throw badRequest(`The argument 'partition' must reference a partition, such as ["partitions", "partition1"].`, 'partition');
  return name;
}

/** Server-side resource-group helpers (argument names chosen, api): a void operation running a task. */
function resourceGroupHelpers(on: string): OperationDefinition[] {
  const rg = () => str('resourceGroupName');
  const helper = (op: string) => (call: Invocation, use: OperationServices) => runs(use.lifecycles.resourceGroup(partitionOf(call), required(call, 'resourceGroupName'), op));
  return [
    defineOperation(action(on, 'startResourceGroup', [ov(VOID, rg())], OPERATOR), helper('start')),
    defineOperation(action(on, 'startResourceGroupInAdmin', [ov(VOID, rg())], OPERATOR), helper('startInAdmin')),
    defineOperation(action(on, 'suspendResourceGroup', [ov(VOID, rg()), ov(VOID, rg(), int('timeout'), bool('ignoreSessions'))], OPERATOR), helper('suspend')),
    defineOperation(action(on, 'forceSuspendResourceGroup', [ov(VOID, rg())], OPERATOR), helper('forceSuspend')),
    defineOperation(action(on, 'resumeResourceGroup', [ov(VOID, rg())], OPERATOR), helper('resume')),
    defineOperation(
      action(
        on,
        'shutdownResourceGroup',
        [ov(VOID, rg()), ov(VOID, rg(), int('timeout'), bool('ignoreSessions')), ov(VOID, rg(), int('timeout'), bool('ignoreSessions'), bool('waitForAllSessions'))],
        OPERATOR,
      ),
      helper('shutdown'),
    ),
    defineOperation(action(on, 'forceShutdownResourceGroup', [ov(VOID, rg())], OPERATOR), helper('forceShutdown')),
    defineOperation(query(on, 'getRgState', [ov(STRING, rg())]), (call, use) => returns(use.engine.resourceGroupState(partitionOf(call), required(call, 'resourceGroupName')))),
  ];
}

/** A partition runtime's own lifecycle on its server: void, running a task. */
const onThisServer = (op: string) => (call: Invocation, use: OperationServices) => runs(use.lifecycles.partition(beanName(call), op, [serverOf(call)]));
/** Domain-wide partition lifecycle: a task, on the servers named or all the partition's servers. */
const partitionTask = (op: string) => (call: Invocation, use: OperationServices) =>
  runs(use.lifecycles.partition(partitionOf(call), op, serversOf(use.engine, call), call.args.initialState as string | undefined));
const groupTask = (op: string) => (call: Invocation, use: OperationServices) => {
  serversOf(use.engine, call);
  return runs(use.lifecycles.resourceGroup(partitionOf(call), beanName(call), op));
};

export const partitionLifecycleOperations: OperationDefinition[] = [
  // ---- server runtime helpers; argument names chosen (api); forceRestartPartition waits `timeout` ms (spec) ----
  defineOperation(action(SERVER, 'startPartition', [ov(VOID, str('partitionName'))], OPERATOR), (call, use) =>
    runs(use.lifecycles.partition(required(call, 'partitionName'), 'start', [serverOf(call)])),
  ),
  defineOperation(action(SERVER, 'startPartitionInAdmin', [ov(VOID, str('partitionName'))], OPERATOR), (call, use) =>
    runs(use.lifecycles.partition(required(call, 'partitionName'), 'startInAdmin', [serverOf(call)])),
  ),
  defineOperation(action(SERVER, 'bootPartition', [ov(VOID, str('partitionName'))], OPERATOR), (call, use) =>
    runs(use.lifecycles.partition(required(call, 'partitionName'), 'boot', [serverOf(call)])),
  ),
  defineOperation(action(SERVER, 'forceRestartPartition', [ov(VOID, str('partitionName'), p('timeout', LONG))], OPERATOR), (call, use) => {
    const wait = typeof call.args.timeout === 'number' ? call.args.timeout : 0;
    return runs(use.lifecycles.forceRestart(required(call, 'partitionName'), serverOf(call), wait));
  }),
  ...resourceGroupHelpers(SERVER),

  // ---- a partition on one server (serverRuntime/partitionRuntimes/{p}) ----
  defineOperation(action(PARTITION_RUNTIME, 'suspend', [ov(VOID), ov(VOID, int('timeout'), bool('ignoreSessions'))], OPERATOR), onThisServer('suspend')),
  defineOperation(action(PARTITION_RUNTIME, 'forceSuspend', [ov(VOID)], OPERATOR), onThisServer('forceSuspend')),
  defineOperation(action(PARTITION_RUNTIME, 'resume', [ov(VOID)], OPERATOR), onThisServer('resume')),
  defineOperation(
    action(PARTITION_RUNTIME, 'shutdown', [ov(VOID), ov(VOID, int('timeout'), bool('ignoreSessions')), ov(VOID, int('timeout'), bool('ignoreSessions'), bool('waitForAllSessions'))], OPERATOR),
    onThisServer('shutdown'),
  ),
  defineOperation(action(PARTITION_RUNTIME, 'forceShutdown', [ov(VOID)], OPERATOR), onThisServer('forceShutdown')),
  defineOperation(action(PARTITION_RUNTIME, 'halt', [ov(VOID)], OPERATOR), onThisServer('halt')),
  ...resourceGroupHelpers(PARTITION_RUNTIME),

  // ---- partition lifecycle, domain-wide (spec; ops B.3) ----
  // `targets` (references) variants are superseded by `targetNames` in 12.2.1.3 but still accepted.
  defineOperation(task(PARTITION_LIFECYCLE, 'start', [...targeted(PARTITION_TASK), ov(PARTITION_TASK, str('initialState'), int('timeOut'))], OPERATOR), partitionTask('start')),
  defineOperation(task(PARTITION_LIFECYCLE, 'startInAdmin', targeted(PARTITION_TASK), OPERATOR), partitionTask('startInAdmin')),
  defineOperation(task(PARTITION_LIFECYCLE, 'shutdown', lifecycleShutdown(PARTITION_TASK), OPERATOR), partitionTask('shutdown')),
  defineOperation(task(PARTITION_LIFECYCLE, 'forceShutdown', [...targeted(PARTITION_TASK), ov(PARTITION_TASK, int('timeout'))], OPERATOR), partitionTask('forceShutdown')),
  defineOperation(task(PARTITION_LIFECYCLE, 'suspend', lifecycleSuspend(PARTITION_TASK), OPERATOR), partitionTask('suspend')),
  defineOperation(task(PARTITION_LIFECYCLE, 'forceSuspend', targeted(PARTITION_TASK), OPERATOR), partitionTask('forceSuspend')),
  defineOperation(task(PARTITION_LIFECYCLE, 'resume', targeted(PARTITION_TASK), OPERATOR), partitionTask('resume')),
  defineOperation(task(PARTITION_LIFECYCLE, 'boot', targeted(PARTITION_TASK), OPERATOR), partitionTask('boot')),
  defineOperation(task(PARTITION_LIFECYCLE, 'halt', targeted(PARTITION_TASK), OPERATOR), partitionTask('halt')),
  // `serverMBean` form is the older one, kept (cannot be flagged per overload)
  defineOperation(query(PARTITION_LIFECYCLE, 'getState', [ov(STRING, str('serverName')), ov(STRING, p('serverMBean', CFG + 'ServerMBean'))]), (call, use) =>
    returns(partitionWire(use.engine.partitionOn(partitionOf(call), serverArg(use.engine, call))).state),
  ),
  defineOperation(query(PARTITION_LIFECYCLE, 'getSubState', [ov(STRING, str('serverName'))]), (call, use) =>
    returns(partitionWire(use.engine.partitionOn(partitionOf(call), serverArg(use.engine, call))).subState),
  ),
  defineOperation(action(PARTITION_LIFECYCLE, 'purgeTasks', [ov(VOID)], OPERATOR), (call, use) => {
    use.tasks.purge(call.node.key);
    return DONE;
  }),

  // ---- resource-group lifecycle (spec; ops B.5) ----
  defineOperation(task(RG_LIFECYCLE, 'start', targeted(RG_TASK), OPERATOR), groupTask('start')),
  defineOperation(task(RG_LIFECYCLE, 'startInAdmin', targeted(RG_TASK), OPERATOR), groupTask('startInAdmin')),
  defineOperation(task(RG_LIFECYCLE, 'shutdown', lifecycleShutdown(RG_TASK), OPERATOR), groupTask('shutdown')),
  defineOperation(task(RG_LIFECYCLE, 'forceShutdown', targeted(RG_TASK), OPERATOR), groupTask('forceShutdown')),
  defineOperation(task(RG_LIFECYCLE, 'suspend', lifecycleSuspend(RG_TASK), OPERATOR), groupTask('suspend')),
  defineOperation(task(RG_LIFECYCLE, 'forceSuspend', targeted(RG_TASK), OPERATOR), groupTask('forceSuspend')),
  defineOperation(task(RG_LIFECYCLE, 'resume', targeted(RG_TASK), OPERATOR), groupTask('resume')),
  defineOperation(query(RG_LIFECYCLE, 'getState', [ov(STRING, str('serverName'))]), (call, use) => {
    serverArg(use.engine, call);
    return returns(use.engine.resourceGroupState(partitionOf(call), beanName(call)));
  }),
  defineOperation(action(RG_LIFECYCLE, 'purgeTasks', [ov(VOID)], OPERATOR), (call, use) => {
    use.tasks.purge(call.node.key);
    return DONE;
  }),

  // ---- domain runtime (ops B.1; brief) ----
  defineOperation(action(DOMAIN, 'restartSystemResource', [ov(VOID, p('resource', CFG + 'SystemResourceMBean'))], OPERATOR), (call, use) => {
    const id = call.args.resource as string[] | null;
    if (!id || !use.engine.currentTopology.bean(id)) throw badRequest(`The argument 'resource' must reference a system resource, such as ["JDBCSystemResources", "ds1"].`, 'resource');
    call.audit.detail = restartSystemResource(use, id);
    return DONE;
  }),
  defineOperation(action(DOMAIN, 'startPartitionWait', [ov(VOID, p('partition', CFG + 'PartitionMBean'))], OPERATOR), (call, use) =>
    runs(use.lifecycles.partition(partitionRef(use.engine, call), 'start')),
  ),
  defineOperation(action(DOMAIN, 'forceShutdownPartitionWait', [ov(VOID, p('partition', CFG + 'PartitionMBean'))], OPERATOR), (call, use) =>
    runs(use.lifecycles.partition(partitionRef(use.engine, call), 'forceShutdown')),
  ),
];
