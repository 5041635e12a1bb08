// JDBC data source runtimes (ops E.3; rc JDBCDataSourceRuntime): state transitions, tests and
// maintenance, and the asynchronous suspend and shutdown that return tasks.
import { badGateway, badRequest } from '../core/problems.js';
import { serverTaskPrefix } from '../runtime/tasks.js';
import { DONE, type Invocation, type OperationDefinition, type OperationServices, defineOperation, returns, runs } from './define.js';
import { BOOL, INT, JDBC_TASK, OPERATOR, READERS, RT, STRING, VOID, action, ov, p, query, str, task } from './declare.js';
import { partitionOf, serverOf } from './beans.js';
import { undisclosedFailure } from '../runtime/data-sources/reasons.js';

const DS = RT + 'JDBCDataSourceRuntimeMBean';

/** Data source transitions: the states each operation may start from, and where it leads. */
const DATA_SOURCE: Record<string, { from: string[]; to?: string }> = {
  start: { from: ['Shutdown'], to: 'Running' },
  suspend: { from: ['Running'], to: 'Suspended' },
  forceSuspend: { from: ['Running'], to: 'Suspended' },
  resume: { from: ['Suspended'], to: 'Running' },
  shutdown: { from: ['Running', 'Suspended'], to: 'Shutdown' },
  forceShutdown: { from: ['Running', 'Suspended'], to: 'Shutdown' },
  reset: { from: ['Running', 'Suspended'] },
  shrink: { from: ['Running', 'Suspended'] },
  clearStatementCache: { from: ['Running', 'Suspended'] },
  dumpPool: { from: ['Running', 'Suspended'] },
  dumpPoolProfile: { from: ['Running', 'Suspended'] },
  resetStatistics: { from: ['Running', 'Suspended', 'Shutdown'] },
};

/** Where a data source runtime is: its server, its partition ('' at domain level), its name. */
function where(call: Invocation): { server: string; partition: string; ds: string } {
  return { server: serverOf(call), partition: partitionOf(call), ds: call.node.identity[call.node.identity.length - 1]! };
}

function stateOf(call: Invocation, use: OperationServices): string {
  const w = where(call);
  return use.engine.dataSourceState(w.server, w.partition, w.ds);
}

/** A transition or maintenance step, refused (changing nothing) from the wrong state. */
const transition = (op: string) => async (call: Invocation, use: OperationServices) => {
  const t = DATA_SOURCE[op]!;
  const w = where(call);
  const state = stateOf(call, use);
  if (!t.from.includes(state)) {
    throw badRequest(`Data source '${w.ds}' on ${w.server} is ${state}; '${op}' can only be done when it is ${t.from.join(' or ')}. Nothing was changed.`);
  }
  if (t.to) use.engine.setDataSourceState(w.server, w.partition, w.ds, t.to);
  await maintain(op, w, use);
  return DONE;
};

/** What a maintenance step does to the data source's pool of real connections. */
async function maintain(op: string, w: { server: string; partition: string; ds: string }, use: OperationServices): Promise<void> {
  const pools = use.engine.dataSources;
  if (op === 'reset') {
    // The pool is made again; a database that still cannot be used is told, not hidden.
    const reason = await pools.reset(w.server, w.partition, w.ds);
    if (reason !== null) throw badGateway(`Data source '${w.ds}' on ${w.server} was reset, but its new pool cannot use its database: ${reason}`);
  } else if (op === 'shrink') await pools.shrink(w.server, w.partition, w.ds);
  else if (op === 'clearStatementCache') await pools.clearStatementCache(w.server, w.partition, w.ds);
  else if (op === 'resetStatistics') pools.resetStatistics(w.server, w.partition, w.ds);
}

/** Suspend or shut down over `operationSecs`: a task in the data source's `tasks`, its last one in `lastTask`. */
const gradually = (op: 'asyncSuspend' | 'asyncShutdown', to: string) => (call: Invocation, use: OperationServices) => {
  const w = where(call);
  const state = stateOf(call, use);
  const from = to === 'Suspended' ? ['Running'] : ['Running', 'Suspended'];
  if (!from.includes(state)) throw badRequest(`Data source '${w.ds}' on ${w.server} is ${state}; '${op}' can only be done when it is ${from.join(' or ')}. Nothing was changed.`);
  const seconds = typeof call.args.operationSecs === 'number' && call.args.operationSecs > 0 ? call.args.operationSecs : 0;
  const owner = { key: serverTaskPrefix(w.server) + call.node.key, identity: [...call.node.identity] };
  const job = use.tasks.create(owner, JDBC_TASK, op, { description: `${op === 'asyncSuspend' ? 'Suspending' : 'Shutting down'} data source ${w.ds} on ${w.server}` });
  use.engine.setLastDataSourceTask(w.server, w.partition, w.ds, job.identity);
  use.scheduler.after(seconds * 1000, () => {
    if (use.engine.dataSourceState(w.server, w.partition, w.ds) === state) use.engine.setDataSourceState(w.server, w.partition, w.ds, to);
    job.finish();
  });
  return runs(job, call.node.root);
};

export const dataSourceOperations: OperationDefinition[] = [
  ...['start', 'suspend', 'forceSuspend', 'resume', 'shutdown', 'forceShutdown'].map((op) => defineOperation(action(DS, op, [ov(VOID)], OPERATOR), transition(op))),
  defineOperation(task(DS, 'asyncSuspend', [ov(JDBC_TASK, p('operationSecs', INT))], OPERATOR), gradually('asyncSuspend', 'Suspended')),
  defineOperation(task(DS, 'asyncShutdown', [ov(JDBC_TASK, p('operationSecs', INT))], OPERATOR), gradually('asyncShutdown', 'Shutdown')),
  ...['reset', 'shrink', 'clearStatementCache', 'dumpPool', 'dumpPoolProfile', 'resetStatistics'].map((op) => defineOperation(action(DS, op, [ov(VOID)], OPERATOR), transition(op))),
  // The test reserves a connection and runs the test statement on it, so it counts as an action;
  // a null return means it passed, a string says why it failed.
  defineOperation(action(DS, 'testPool', [ov(STRING)], READERS), async (call, use) => {
    const w = where(call);
    const state = stateOf(call, use);
    if (state !== 'Running') return returns(`Connection test failed: data source '${w.ds}' is ${state}.`);
    const pools = use.engine.dataSources;
    // The pool's own test; where this process runs no pool (not started), only an injected fault fails it.
    const reason = pools.has(w.server, w.partition, w.ds) ? await pools.testPool(w.server, w.partition, w.ds) : (use.engine.faults.dataSourceDown(w.ds, w.server) ?? null);
    if (reason === null) return returns(null);
    // Why it failed is for administrators: the reason tells an open port from a closed one.
    if (!call.principal.roles.has('Admin')) return returns(`Connection test failed: ${undisclosedFailure(w.ds)}`);
    return returns(`Connection test failed: data source '${w.ds}' cannot reach its database: ${reason}`);
  }),
  defineOperation(query(DS, 'poolExists', [ov(BOOL, str('poolName'))]), (call) => {
    const name = call.args.poolName;
    const tree = call.node.root.source;
    const pools = [...tree.itemNames('JDBCServiceRuntime/JDBCDataSourceRuntimeMBeans')];
    for (const partition of tree.itemNames('partitionRuntimes')) {
      pools.push(...tree.itemNames(`partitionRuntimes/${encodeURIComponent(partition)}/JDBCPartitionRuntime/JDBCDataSourceRuntimeMBeans`));
    }
    return returns(typeof name === 'string' && pools.includes(name));
  }),
  defineOperation(query(DS, 'isOperationAllowed', [ov(BOOL, str('operation'))]), (call, use) => {
    const op = String(call.args.operation ?? '');
    const t = Object.hasOwn(DATA_SOURCE, op) ? DATA_SOURCE[op] : op === 'testPool' ? { from: ['Running'] } : undefined;
    if (!t) throw badRequest(`'${op}' is not an operation of a data source.`, 'operation');
    return returns(t.from.includes(stateOf(call, use)));
  }),
];
