// Pool actions: JDBC data source runtimes (state transitions, tests, maintenance) and the connector
// service with its resource adapters and connection pools.
import { badRequest } from '../core/problems.js';
import type { RuntimeEngine } from '../runtime/engine.js';
import type { Scheduler } from '../core/clock.js';
import { type TaskEngine, serverTaskPrefix } from '../runtime/tasks.js';
import type { TaskReplies } from './task-reply.js';
import type { ActionCall, ActionRegistry } from './invoke.js';

const R = 'appserver.management.runtime.';
const done = { value: undefined };

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

/** Suspendable activity of a resource adapter: ALL unless a `type` bit mask says otherwise. */
const ALL_ACTIVITY = 7;

export interface PoolActionDeps {
  engine: RuntimeEngine;
  tasks: TaskEngine;
  scheduler: Scheduler;
  replies: TaskReplies;
}

export function registerPoolActions(actions: ActionRegistry, deps: PoolActionDeps): void {
  const { engine } = deps;
  const server = (call: ActionCall) => String(call.node.root.source.bean('')?.values.name);
  const last = (call: ActionCall) => call.node.identity[call.node.identity.length - 1]!;

  // ---- JDBC data sources ----
  const DS = `${R}JDBCDataSourceRuntimeMBean`;
  const where = (call: ActionCall) => {
    const id = call.node.identity;
    return { server: server(call), partition: id[0] === 'partitionRuntimes' ? id[1]! : '', ds: last(call) };
  };
  const stateOf = (call: ActionCall) => {
    const w = where(call);
    return engine.dataSourceState(w.server, w.partition, w.ds);
  };
  for (const [op, t] of Object.entries(DATA_SOURCE)) {
    actions.register(DS, op, (call) => {
      const w = where(call);
      const state = stateOf(call);
      if (!t.from.includes(state)) {
        throw badRequest(`Data source '${w.ds}' on ${w.server} is ${state}; '${op}' can only be done when it is ${t.from.join(' or ')}. Nothing was changed.`);
      }
      if (t.to) engine.setDataSourceState(w.server, w.partition, w.ds, t.to);
      return done;
    });
  }
  // Suspend or shut down over `operationSecs`: a task in the data source's `tasks`, its last one in `lastTask`.
  for (const [op, to] of [['asyncSuspend', 'Suspended'], ['asyncShutdown', 'Shutdown']] as const) {
    actions.register(DS, op, (call) => {
      const w = where(call);
      const state = stateOf(call);
      const from = to === 'Suspended' ? ['Running'] : ['Running', 'Suspended'];
      if (!from.includes(state)) throw badRequest(`Data source '${w.ds}' on ${w.server} is ${state}; '${op}' can only be done when it is ${from.join(' or ')}. Nothing was changed.`);
      const seconds = typeof call.args.operationSecs === 'number' && call.args.operationSecs > 0 ? call.args.operationSecs : 0;
      const owner = { key: serverTaskPrefix(w.server) + call.node.key, identity: [...call.node.identity] };
      const task = deps.tasks.create(owner, `${R}JDBCDataSourceTaskRuntimeMBean`, op, { description: `${op === 'asyncSuspend' ? 'Suspending' : 'Shutting down'} data source ${w.ds} on ${w.server}` });
      engine.setLastDataSourceTask(w.server, w.partition, w.ds, task.identity);
      deps.scheduler.after(seconds * 1000, () => {
        if (engine.dataSourceState(w.server, w.partition, w.ds) === state) engine.setDataSourceState(w.server, w.partition, w.ds, to);
        task.finish();
      });
      return deps.replies.reply(call, task, call.node.root);
    });
  }
  actions.register(DS, 'testPool', (call) => {
    const state = stateOf(call);
    return { value: state === 'Running' ? null : `Connection test failed: data source '${last(call)}' is ${state}.` };
  });
  actions.register(DS, 'poolExists', (call) => {
    const name = call.args.poolName;
    const tree = call.node.root.source;
    const pools = [...tree.itemNames('JDBCServiceRuntime/JDBCDataSourceRuntimeMBeans')];
    for (const p of tree.itemNames('partitionRuntimes')) {
      pools.push(...tree.itemNames(`partitionRuntimes/${encodeURIComponent(p)}/JDBCPartitionRuntime/JDBCDataSourceRuntimeMBeans`));
    }
    return { value: typeof name === 'string' && pools.includes(name) };
  });
  actions.register(DS, 'isOperationAllowed', (call) => {
    const op = String(call.args.operation ?? '');
    const t = DATA_SOURCE[op] ?? (op === 'testPool' ? { from: ['Running'] } : undefined);
    if (!t) throw badRequest(`'${op}' is not an operation of a data source.`, 'operation');
    return { value: t.from.includes(stateOf(call)) };
  });

  // ---- connection pools of resource adapters ----
  const POOL = `${R}ConnectorConnectionPoolRuntimeMBean`;
  const pool = (call: ActionCall) => String(call.node.record?.values.poolName ?? last(call));
  actions.register(POOL, 'testPool', (call) => ({ value: engine.pools.test(server(call), pool(call)) }));
  actions.register(POOL, 'reset', (call) => ({ value: engine.pools.reset(server(call), pool(call)) }));
  actions.register(POOL, 'forceReset', (call) => (engine.pools.forceReset(server(call), pool(call)), done));
  for (const op of ['ensureLogOpened', 'flushLog', 'forceLogRotation']) actions.register(`${R}LogRuntimeMBean`, op, () => done);

  // ---- one connection of a pool (.../connectionPools/{pool}/connections/{id}) ----
  const CONNECTION = `${R}ConnectorConnectionRuntimeMBean`;
  const connection = (call: ActionCall) => {
    const id = call.node.identity;
    return { pool: id[id.length - 3]!, id: Number(id[id.length - 1]) };
  };
  actions.register(CONNECTION, 'delete', (call) => {
    const c = connection(call);
    if (!engine.pools.deleteConnection(server(call), c.pool, c.id)) {
      throw badRequest(`Connection ${c.id} of '${c.pool}' is in use by an application and cannot be deleted; it can be deleted once released (or use forceReset on the pool).`);
    }
    return done;
  });
  actions.register(CONNECTION, 'hasError', () => ({ value: false }));
  actions.register(CONNECTION, 'testConnection', () => ({ value: true }));

  // ---- resource adapters and the connector service ----
  const RA = `${R}ConnectorComponentRuntimeMBean`;
  const SERVICE = `${R}ConnectorServiceRuntimeMBean`;
  const adapters = (call: ActionCall) => call.node.root.source.itemNames('connectorServiceRuntime/RAs');
  const mask = (call: ActionCall) => (typeof call.args.type === 'number' ? call.args.type : ALL_ACTIVITY);
  const suspension = (type: string, all: (call: ActionCall) => string[]) => {
    for (const [op, suspend, whole] of [['suspend', true, false], ['resume', false, false], ['suspendAll', true, true], ['resumeAll', false, true]] as const) {
      actions.register(type, op, (call) => {
        for (const a of all(call)) engine.pools.setSuspended(server(call), a, whole ? ALL_ACTIVITY : mask(call), suspend);
        return done;
      });
    }
  };
  suspension(RA, (call) => [last(call)]);
  suspension(SERVICE, (call) => [...adapters(call)]);
  actions.register(SERVICE, 'getRA', (call) => {
    const key = String(call.args.key ?? '');
    const hit = adapters(call).find((a) => call.node.root.source.bean(`connectorServiceRuntime/RAs/${encodeURIComponent(a)}`)?.values.jndiName === key);
    return { value: hit ? ['connectorServiceRuntime', 'RAs', hit] : null };
  });
  actions.register(SERVICE, 'getInboundConnections', () => ({ value: [] }));
  actions.register(RA, 'getConnectionPool', (call) => {
    const key = String(call.args.key ?? '');
    const names = call.node.root.source.itemNames(`${call.node.key}/connectionPools`);
    return { value: names.includes(key) ? [...call.node.identity, 'connectionPools', key] : null };
  });
  actions.register(RA, 'getInboundConnection', () => ({ value: null }));
  actions.register(RA, 'getConfiguration', (call) => {
    const jndi = String(call.node.record?.values.jndiName ?? '');
    return { value: `<connector><resourceadapter><outbound-resourceadapter><connection-definition><jndi-name>${jndi}</jndi-name></connection-definition></outbound-resourceadapter></resourceadapter></connector>` };
  });
  actions.register(RA, 'getSchema', () => ({ value: '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="connector"/></xs:schema>' }));
}
