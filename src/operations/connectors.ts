// The connector service, its resource adapters, their connection pools and the pools' connections
// (spec; ops F.1–F.3). What is done to a pool is written to the pool's log.
import { badRequest } from '../core/problems.js';
import type { LogFile } from '../runtime/logs.js';
import { DONE, type Invocation, type OperationDefinition, type OperationServices, defineOperation, returns } from './define.js';
import { BOOL, INT, OPERATOR, PROPS, READERS, RT, STRING, VOID, action, ov, ovArray, p, query, str } from './declare.js';
import { serverOf } from './beans.js';

const SERVICE = RT + 'ConnectorServiceRuntimeMBean';
const ADAPTER = RT + 'ConnectorComponentRuntimeMBean';
const POOL = RT + 'ConnectorConnectionPoolRuntimeMBean';
const CONNECTION = RT + 'ConnectorConnectionRuntimeMBean';

/** Suspendable activity of a resource adapter: ALL unless a `type` bit mask says otherwise (INBOUND 1, OUTBOUND 2, WORK 4). */
const ALL_ACTIVITY = 7;

const last = (call: Invocation) => call.node.identity[call.node.identity.length - 1]!;
/** The pool a pool bean stands for, and the resource adapter it belongs to. */
function poolOf(call: Invocation): { pool: string; adapter: string } {
  const id = call.node.identity;
  return { pool: String(call.node.record?.values.poolName ?? last(call)), adapter: id[id.indexOf('connectionPools') - 1] ?? '' };
}
/** The log of a pool of this server. */
export const poolLog = (call: Invocation, use: OperationServices, pool: string): LogFile => use.logs.pool(serverOf(call), pool);

/** The resource adapters of the server's connector service. */
const adapters = (call: Invocation) => call.node.root.source.itemNames('connectorServiceRuntime/RAs');
/** The connection pools of an adapter on the server. */
const poolsOfAdapter = (call: Invocation, adapter: string) => call.node.root.source.itemNames(`connectorServiceRuntime/RAs/${encodeURIComponent(adapter)}/connectionPools`);

/** Suspend or resume activity of the adapters `all` names; `whole`: every kind of activity. */
const suspension = (suspend: boolean, whole: boolean, all: (call: Invocation) => readonly string[]) => (call: Invocation, use: OperationServices) => {
  const mask = whole ? ALL_ACTIVITY : typeof call.args.type === 'number' ? call.args.type : ALL_ACTIVITY;
  for (const adapter of all(call)) {
    use.engine.pools.setSuspended(serverOf(call), adapter, mask, suspend);
    for (const pool of poolsOfAdapter(call, adapter)) poolLog(call, use, pool).write('Info', 'Connector', `${suspend ? 'Suspended' : 'Resumed'} activity ${mask} of the resource adapter ${adapter}.`);
  }
  return DONE;
};

// Connector suspend/resume family; `type` is the activity bit mask, `props` optional (ops F.1, F.2).
function suspendable(on: string, all: (call: Invocation) => readonly string[]): OperationDefinition[] {
  const props = () => p('props', PROPS);
  return [
    defineOperation(action(on, 'suspendAll', [ov(VOID), ov(VOID, props())], OPERATOR), suspension(true, true, all)),
    defineOperation(action(on, 'resumeAll', [ov(VOID), ov(VOID, props())], OPERATOR), suspension(false, true, all)),
    defineOperation(action(on, 'suspend', [ov(VOID, p('type', INT)), ov(VOID, p('type', INT), props())], OPERATOR), suspension(true, false, all)),
    defineOperation(action(on, 'resume', [ov(VOID, p('type', INT)), ov(VOID, p('type', INT), props())], OPERATOR), suspension(false, false, all)),
  ];
}

/** One connection of a pool (.../connectionPools/{pool}/connections/{id}). */
function connectionOf(call: Invocation): { pool: string; adapter: string; id: number } {
  const id = call.node.identity;
  const at = id.lastIndexOf('connectionPools');
  return { pool: id[at + 1]!, adapter: id[at - 1] ?? '', id: Number(id[id.length - 1]) };
}

export const connectorOperations: OperationDefinition[] = [
  // ---- the connector service (spec; ops F.1) ----
  defineOperation(query(SERVICE, 'getRA', [ov(ADAPTER, str('key'))]), (call) => {
    const key = String(call.args.key ?? '');
    const hit = adapters(call).find((a) => call.node.root.source.bean(`connectorServiceRuntime/RAs/${encodeURIComponent(a)}`)?.values.jndiName === key);
    return returns(hit ? ['connectorServiceRuntime', 'RAs', hit] : null);
  }),
  // No adapter here has inbound connections (none declares a message listener).
  defineOperation(query(SERVICE, 'getInboundConnections', [ovArray(RT + 'ConnectorInboundRuntimeMBean', str('messageListenerType'))]), () => returns([])),
  ...suspendable(SERVICE, adapters),

  // ---- a resource adapter (spec; ops F.2); getConfiguration/getSchema argument chosen (api) ----
  ...suspendable(ADAPTER, (call) => [last(call)]),
  defineOperation(query(ADAPTER, 'getConnectionPool', [ov(POOL, str('key'))]), (call) => {
    const key = String(call.args.key ?? '');
    const names = call.node.root.source.itemNames(`${call.node.key}/connectionPools`);
    return returns(names.includes(key) ? [...call.node.identity, 'connectionPools', key] : null);
  }),
  defineOperation(query(ADAPTER, 'getInboundConnection', [ov(RT + 'ConnectorInboundRuntimeMBean', str('key'))]), () => returns(null)),
  defineOperation(query(ADAPTER, 'getConfiguration', [ov(STRING, str('version'))]), (call) => {
    const jndi = String(call.node.record?.values.jndiName ?? '');
    return returns(
      `<connector><resourceadapter><outbound-resourceadapter><connection-definition><jndi-name>${jndi}</jndi-name></connection-definition></outbound-resourceadapter></resourceadapter></connector>`,
    );
  }),
  defineOperation(query(ADAPTER, 'getSchema', [ov(STRING, str('version'))]), () => returns('<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="connector"/></xs:schema>')),

  // ---- a connection pool (spec; ops F.3); its log operations come from LogRuntime ----
  defineOperation(action(POOL, 'testPool', [ov(BOOL)], READERS), (call, use) => {
    const { pool, adapter } = poolOf(call);
    const ok = use.engine.pools.test(serverOf(call), pool, adapter);
    poolLog(call, use, pool).write(ok ? 'Info' : 'Warning', 'Connector', ok ? `Pool ${pool} tested: its connections answer.` : `Pool ${pool} test failed: the outbound activity of ${adapter} is suspended.`);
    return returns(ok);
  }),
  // False when a connection is reserved and nothing was done (spec).
  defineOperation(action(POOL, 'reset', [ov(BOOL)], OPERATOR), (call, use) => {
    const { pool } = poolOf(call);
    const done = use.engine.pools.reset(serverOf(call), pool);
    poolLog(call, use, pool).write('Info', 'Connector', done ? `Pool ${pool} was reset.` : `Pool ${pool} was not reset: a connection is in use.`);
    return returns(done);
  }),
  defineOperation(action(POOL, 'forceReset', [ov(VOID)], OPERATOR), (call, use) => {
    const { pool } = poolOf(call);
    use.engine.pools.forceReset(serverOf(call), pool);
    poolLog(call, use, pool).write('Notice', 'Connector', `Pool ${pool} was reset by force: every connection, in use or not, was destroyed.`);
    return DONE;
  }),

  // ---- one pooled connection (spec) ----
  defineOperation(action(CONNECTION, 'delete', [ov(VOID)], OPERATOR), (call, use) => {
    const c = connectionOf(call);
    if (!use.engine.pools.deleteConnection(serverOf(call), c.pool, c.id)) {
      throw badRequest(`Connection ${c.id} of '${c.pool}' is in use by an application and cannot be deleted; it can be deleted once released (or use forceReset on the pool).`);
    }
    poolLog(call, use, c.pool).write('Info', 'Connector', `Connection ${c.id} of pool ${c.pool} was deleted.`);
    return DONE;
  }),
  // Whether the connection's last test failed.
  defineOperation(query(CONNECTION, 'hasError', [ov(BOOL)]), (call, use) => {
    const c = connectionOf(call);
    return returns(use.engine.pools.hasError(serverOf(call), c.pool, c.id));
  }),
  defineOperation(action(CONNECTION, 'testConnection', [ov(BOOL)], READERS), (call, use) => {
    const c = connectionOf(call);
    const ok = use.engine.pools.testConnection(serverOf(call), c.pool, c.adapter, c.id);
    if (!ok) poolLog(call, use, c.pool).write('Warning', 'Connector', `Connection ${c.id} of pool ${c.pool} failed its test: the outbound activity of ${c.adapter} is suspended.`);
    return returns(ok);
  }),
];
