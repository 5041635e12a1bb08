// Runtime figures of the beans of a running server that the workload model computes at read time
// (JVM, thread pool, execute queues, channels, web modules and servlets, EJBs, work managers, persistent stores,
// transactions). Each type says which figures it shows and where its names sit in its identity; the
// model behind `WorkloadFigures` lives in the runtime, so this module stays below it.
import { type BeanView, itemName } from './bean.js';
import { BehaviourKind, type BehaviourRegistry } from './registry.js';

type Figures = Record<string, unknown> | undefined;

/** The workload model as derived values read it: figures of one bean of a server, by its names. */
export interface WorkloadFigures {
  /** Health and socket figures of the server itself. */
  server(server: string): Figures;
  jvm(server: string): Figures;
  threadPool(server: string): Figures;
  /** An execute queue of the server (its socket muxer's). */
  executeQueue(server: string, queue: string): Figures;
  channel(server: string, channel: string): Figures;
  webModule(server: string, app: string, component: string): Figures;
  servlet(server: string, app: string, component: string, servlet: string): Figures;
  /** An EJB's transactions, or the pool of its instances. */
  ejb(server: string, app: string, component: string, ejb: string, part: 'transactions' | 'pool'): Figures;
  /** `app` undefined: a work manager of the server itself. */
  workManager(server: string, app: string | undefined, workManager: string): Figures;
  persistentStore(server: string, store: string): Figures;
  transactions(server: string): Figures;
}

/** What the derived values of a type read from the model, given the bean and the server it is on. */
type Read = (model: WorkloadFigures, bean: BeanView, server: string) => Figures;

/**
 * A type's figures: the properties they give values to, and how they are read. A read that asks
 * for none of those properties (a search's or a `fields` list) computes no figures at all.
 */
interface TypeFigures {
  props: ReadonlySet<string>;
  read: Read;
}

const WORKLOAD = new BehaviourKind<TypeFigures>('workload figures');

const R = 'appserver.management.runtime.';

/** The name that follows `collection` in the bean's identity (its application, its component...). */
function nameAfter(bean: BeanView, collection: string): string | undefined {
  const i = bean.identity.lastIndexOf(collection);
  return i >= 0 ? bean.identity[i + 1] : undefined;
}

const JVM = ['heapSizeMax', 'heapSizeCurrent', 'heapFreeCurrent', 'heapFreePercent', 'uptime', 'javaVersion', 'javaVendor', 'javaVMVendor', 'OSName', 'OSVersion', 'processCpuLoad', 'threadStackDump'];
const THREAD_POOL = ['executeThreadTotalCount', 'executeThreadIdleCount', 'hoggingThreadCount', 'standbyThreadCount', 'stuckThreadCount', 'pendingUserRequestCount', 'queueLength', 'completedRequestCount', 'throughput', 'healthState', 'suspended'];
const JTA = [
  'transactionTotalCount',
  'transactionCommittedTotalCount',
  'transactionRolledBackTotalCount',
  'transactionRolledBackAppTotalCount',
  'transactionRolledBackTimeoutTotalCount',
  'transactionAbandonedTotalCount',
  'transactionHeuristicsTotalCount',
  'activeTransactionsTotalCount',
  'secondsActiveTotalCount',
  'healthState',
];

/** Each type names the properties its figures give values to (test/runtime/workload.test.ts checks them against the model). */
export function registerWorkloadValues(registry: BehaviourRegistry): void {
  const figures = (type: string, props: readonly string[], read: Read) => registry.register(WORKLOAD, `${R}${type}`, { props: new Set(props), read });
  figures('ServerRuntimeMBean', ['openSocketsCurrentCount', 'healthState', 'overallHealthState'], (m, bean, server) => (bean.key === '' ? m.server(server) : undefined));
  figures('JVMRuntimeMBean', JVM, (m, _bean, server) => m.jvm(server));
  figures('ThreadPoolRuntimeMBean', THREAD_POOL, (m, _bean, server) => m.threadPool(server));
  figures('ExecuteQueueRuntimeMBean', ['executeThreadTotalCount', 'executeThreadCurrentIdleCount', 'pendingRequestCurrentCount', 'pendingRequestOldestTime', 'servicedRequestTotalCount'], (m, bean, server) => m.executeQueue(server, itemName(bean)));
  figures('ServerChannelRuntimeMBean', ['acceptCount', 'connectionsCount', 'messagesReceivedCount', 'messagesSentCount', 'bytesReceivedCount', 'bytesSentCount'], (m, bean, server) => m.channel(server, itemName(bean)));
  figures('WebAppComponentRuntimeMBean', ['openSessionsCurrentCount', 'openSessionsHighCount', 'sessionsOpenedTotalCount'], (m, bean, server) => {
    const app = nameAfter(bean, 'applicationRuntimes');
    return app === undefined ? undefined : m.webModule(server, app, itemName(bean));
  });
  figures('ServletRuntimeMBean', ['invocationTotalCount', 'executionTimeTotal', 'executionTimeAverage', 'executionTimeHigh', 'executionTimeLow', 'reloadTotalCount'], (m, bean, server) => {
    const app = nameAfter(bean, 'applicationRuntimes');
    const component = nameAfter(bean, 'componentRuntimes');
    return app === undefined || component === undefined ? undefined : m.servlet(server, app, component, itemName(bean));
  });
  const ejb = (part: 'transactions' | 'pool'): Read => (m, bean, server) => {
    const app = nameAfter(bean, 'applicationRuntimes');
    const component = nameAfter(bean, 'componentRuntimes');
    const name = nameAfter(bean, 'EJBRuntimes');
    return app === undefined || component === undefined || name === undefined ? undefined : m.ejb(server, app, component, name, part);
  };
  figures('EJBTransactionRuntimeMBean', ['transactionsCommittedTotalCount', 'transactionsRolledBackTotalCount', 'transactionsTimedOutTotalCount'], ejb('transactions'));
  figures('EJBPoolRuntimeMBean', ['accessTotalCount', 'beansInUseCurrentCount', 'pooledBeansCurrentCount', 'missTotalCount', 'destroyedTotalCount', 'timeoutTotalCount', 'waiterCurrentCount'], ejb('pool'));
  figures('WorkManagerRuntimeMBean', ['completedRequests', 'pendingRequests', 'completedDaemonRequests', 'pendingDaemonRequests', 'stuckThreadCount', 'healthState'], (m, bean, server) => m.workManager(server, nameAfter(bean, 'applicationRuntimes'), itemName(bean)));
  figures('PersistentStoreRuntimeMBean', ['objectCount', 'createCount', 'readCount', 'updateCount', 'deleteCount', 'physicalWriteCount', 'healthState'], (m, bean, server) => m.persistentStore(server, itemName(bean)));
  figures('JTARuntimeMBean', JTA, (m, _bean, server) => m.transactions(server));
}

/**
 * The model's figures of a bean (undefined when its type has none, or it is on no server, or
 * `wanted` names none of the properties they give values to).
 */
export function workloadValues(registry: BehaviourRegistry, model: WorkloadFigures | undefined, bean: BeanView, wanted?: readonly { name: string }[]): Figures {
  const server = bean.scope.server;
  if (!model || server === undefined) return undefined;
  const figures = registry.find(WORKLOAD, bean.type);
  if (!figures || (wanted && !wanted.some((p) => figures.props.has(p.name)))) return undefined;
  return figures.read(model, bean, server);
}
