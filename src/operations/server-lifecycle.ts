// Server lifecycle: the administration server's view of every server (serverLifeCycleRuntimes,
// tasks honouring `Prefer`; ops C.2, rc ServerLifeCycleRuntime), a running server's own lifecycle
// (serverRuntime, synchronous and void; ops C.4, rb §6), its URLs and SSL channels, and the JVM of
// this process.
import vm from 'node:vm';
import v8 from 'node:v8';
import { badRequest } from '../core/problems.js';
import { itemKey } from '../core/identity.js';
import type { RuntimeEngine } from '../runtime/engine.js';
import { beanName, serverOf } from './beans.js';
import { DONE, type Invocation, type OperationDefinition, type OperationServices, defineOperation, returns, runs } from './define.js';
import { OPERATOR, RT, SERVER_TASK, STRING, VOID, action, bool, int, ov, query, str, task } from './declare.js';

const LIFECYCLE = RT + 'ServerLifeCycleRuntimeMBean';
const SERVER = RT + 'ServerRuntimeMBean';


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

const shutdownOverloads = (returns: string) => [
  ov(returns),
  ov(returns, int('timeout'), bool('ignoreSessions')),
  ov(returns, int('timeout'), bool('ignoreSessions'), bool('waitForAllSessions')),
];

/** A lifecycle operation of the server a lifecycle runtime stands for: a task in the domain runtime. */
const lifecycleTask = (op: string) => (call: Invocation, use: OperationServices) => runs(use.lifecycles.server(beanName(call), op));
/** A server's own lifecycle operation: the same task, answered as the product's void method. */
const ownLifecycle = (op: string) => (call: Invocation, use: OperationServices) => runs(use.lifecycles.server(serverOf(call), op));

export const serverLifecycleOperations: OperationDefinition[] = [
  // ---- domainRuntime/serverLifeCycleRuntimes/{s} ----
  defineOperation(task(LIFECYCLE, 'start', [ov(SERVER_TASK), ov(SERVER_TASK, bool('disableMsiMode'))], OPERATOR), lifecycleTask('start')),
  defineOperation(task(LIFECYCLE, 'startInAdmin', [ov(SERVER_TASK)], OPERATOR), lifecycleTask('startInAdmin')),
  defineOperation(task(LIFECYCLE, 'startInStandby', [ov(SERVER_TASK)], OPERATOR), lifecycleTask('startInStandby')),
  defineOperation(task(LIFECYCLE, 'resume', [ov(SERVER_TASK)], OPERATOR), lifecycleTask('resume')),
  defineOperation(task(LIFECYCLE, 'suspend', [ov(SERVER_TASK), ov(SERVER_TASK, int('timeout'), bool('ignoreSessions'))], OPERATOR), lifecycleTask('suspend')),
  defineOperation(task(LIFECYCLE, 'forceSuspend', [ov(SERVER_TASK)], OPERATOR), lifecycleTask('forceSuspend')),
  defineOperation(task(LIFECYCLE, 'shutdown', shutdownOverloads(SERVER_TASK), OPERATOR), lifecycleTask('shutdown')),
  defineOperation(task(LIFECYCLE, 'forceShutdown', [ov(SERVER_TASK)], OPERATOR), lifecycleTask('forceShutdown')),
  // Completed tasks older than half an hour go.
  defineOperation(action(LIFECYCLE, 'clearOldServerLifeCycleTaskRuntimes', [ov(VOID)], OPERATOR), (call, use) => {
    use.tasks.purge(itemKey('serverLifeCycleRuntimes', beanName(call)), use.scheduler.now() - 30 * 60_000);
    return DONE;
  }),
  defineOperation(query(LIFECYCLE, 'getIPv4URL', [ov(STRING, str('protocol'))]), (call, use) => returns(urlOf(use.engine, beanName(call), call.args.protocol))),
  defineOperation(query(LIFECYCLE, 'getIPv6URL', [ov(STRING, str('protocol'))]), (call, use) => returns(urlOf(use.engine, beanName(call), call.args.protocol))),

  // ---- serverRuntime, domainRuntime/serverRuntimes/{s} ----
  defineOperation(action(SERVER, 'suspend', [ov(VOID), ov(VOID, int('timeout'), bool('ignoreSessions'))], OPERATOR), ownLifecycle('suspend')),
  defineOperation(action(SERVER, 'forceSuspend', [ov(VOID)], OPERATOR), ownLifecycle('forceSuspend')),
  defineOperation(action(SERVER, 'resume', [ov(VOID)], OPERATOR), ownLifecycle('resume')),
  defineOperation(action(SERVER, 'shutdown', shutdownOverloads(VOID), OPERATOR), ownLifecycle('shutdown')),
  defineOperation(action(SERVER, 'forceShutdown', [ov(VOID)], OPERATOR), ownLifecycle('forceShutdown')),
  // The SSL channels take up the server's SSL configuration as it is now (rc restartSSLChannels).
  defineOperation(action(SERVER, 'restartSSLChannels', [ov(VOID)]), (call, use) => {
    const server = serverOf(call);
    if (server === use.engine.adminServerName) {
      throw badRequest(`'${server}' is this administration server, which listens on plain HTTP only (TLS belongs to a proxy in front of it): it has no SSL channel to restart.`);
    }
    const port = use.engine.restartSslChannels(server);
    const message = port === undefined ? 'SSL channels restarted: SSL is not enabled, so no SSL channel is open.' : `SSL channels restarted: listening for SSL on port ${port}.`;
    use.logs.server(server).write('Notice', 'Server', message);
    call.audit.detail = `${server}: ${message}`;
    return DONE;
  }),
  defineOperation(query(SERVER, 'getURL', [ov(STRING, str('protocol'))]), (call, use) => returns(urlOf(use.engine, serverOf(call), call.args.protocol))),
  defineOperation(query(SERVER, 'getIPv4URL', [ov(STRING, str('protocol'))]), (call, use) => returns(urlOf(use.engine, serverOf(call), call.args.protocol))),
  defineOperation(query(SERVER, 'getIPv6URL', [ov(STRING, str('protocol'))]), (call, use) => returns(urlOf(use.engine, serverOf(call), call.args.protocol))),

  // ---- the JVM: this process's for the administration server (brief; ops C.5; rc JVMRuntime) ----
  defineOperation(action(RT + 'JVMRuntimeMBean', 'runGC', [ov(VOID)]), (call, use) => {
    if (serverOf(call) === use.engine.adminServerName) runGc();
    return DONE;
  }),
];
