// Runtime figures of the beans of a running server that the workload model computes at read time
// (JVM, thread pool, channels, web modules and servlets, EJBs, work managers, persistent stores,
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

const WORKLOAD = new BehaviourKind<Read>('workload figures');

const R = 'appserver.management.runtime.';

/** The name that follows `collection` in the bean's identity (its application, its component...). */
function nameAfter(bean: BeanView, collection: string): string | undefined {
  const i = bean.identity.lastIndexOf(collection);
  return i >= 0 ? bean.identity[i + 1] : undefined;
}

export function registerWorkloadValues(registry: BehaviourRegistry): void {
  const figures = (type: string, read: Read) => registry.register(WORKLOAD, `${R}${type}`, read);
  figures('ServerRuntimeMBean', (m, bean, server) => (bean.key === '' ? m.server(server) : undefined));
  figures('JVMRuntimeMBean', (m, _bean, server) => m.jvm(server));
  figures('ThreadPoolRuntimeMBean', (m, _bean, server) => m.threadPool(server));
  figures('ServerChannelRuntimeMBean', (m, bean, server) => m.channel(server, itemName(bean)));
  figures('WebAppComponentRuntimeMBean', (m, bean, server) => {
    const app = nameAfter(bean, 'applicationRuntimes');
    return app === undefined ? undefined : m.webModule(server, app, itemName(bean));
  });
  figures('ServletRuntimeMBean', (m, bean, server) => {
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
  figures('EJBTransactionRuntimeMBean', ejb('transactions'));
  figures('EJBPoolRuntimeMBean', ejb('pool'));
  figures('WorkManagerRuntimeMBean', (m, bean, server) => m.workManager(server, nameAfter(bean, 'applicationRuntimes'), itemName(bean)));
  figures('PersistentStoreRuntimeMBean', (m, bean, server) => m.persistentStore(server, itemName(bean)));
  figures('JTARuntimeMBean', (m, _bean, server) => m.transactions(server));
}

/** The model's figures of a bean (undefined when its type has none, or it is on no server). */
export function workloadValues(registry: BehaviourRegistry, model: WorkloadFigures | undefined, bean: BeanView): Figures {
  const server = bean.scope.server;
  if (!model || server === undefined) return undefined;
  return registry.find(WORKLOAD, bean.type)?.(model, bean, server);
}
