// What the workload model costs a monitoring exporter: its query of every running server (JVM,
// thread pool, channels, applications -> components -> servlets, work managers, JMS, stores, JTA,
// data sources) over a domain of 20 running servers (20 applications), answered with the model's figures, against
// the same query in the same process with the model answering nothing (the figures computed when
// read are all the difference).
import type { WorkloadModel } from '../src/runtime/figures.js';
import { load, report } from './harness.js';
import { AUTH, benchServer } from './reads.js';
import type { BenchStore } from './stores.js';

const level = (fields: string[], children?: Record<string, unknown>) => ({ links: [], fields, ...(children ? { children } : {}) });

const EXPORTER = level([], {
  serverRuntimes: level(['name', 'state', 'overallHealthState'], {
    JVMRuntime: level(['heapFreeCurrent', 'heapSizeCurrent', 'heapSizeMax', 'uptime', 'processCpuLoad']),
    threadPoolRuntime: level(['completedRequestCount', 'executeThreadTotalCount', 'executeThreadIdleCount', 'hoggingThreadCount', 'queueLength', 'throughput']),
    serverChannelRuntimes: level(['name', 'messagesReceivedCount', 'bytesReceivedCount', 'connectionsCount']),
    applicationRuntimes: level(['name'], {
      componentRuntimes: level(['name', 'openSessionsCurrentCount', 'sessionsOpenedTotalCount'], { servlets: level(['servletName', 'invocationTotalCount', 'executionTimeTotal']) }),
      workManagerRuntimes: level(['name', 'completedRequests', 'pendingRequests']),
    }),
    JMSRuntime: level(['name'], { JMSServers: level(['name', 'messagesCurrentCount'], { destinations: level(['name', 'messagesCurrentCount', 'messagesReceivedCount']) }) }),
    persistentStoreRuntimes: level(['name', 'createCount', 'objectCount']),
    JTARuntime: level(['transactionTotalCount', 'activeTransactionsTotalCount']),
    JDBCServiceRuntime: level([], { JDBCDataSourceRuntimeMBeans: level(['name', 'activeConnectionsCurrentCount', 'currCapacity']) }),
  }),
});

/** Figure methods of the model, answered by nothing in the baseline. */
const FIGURES = new Set(['server', 'jvm', 'threadPool', 'channel', 'webModule', 'servlet', 'ejb', 'workManager', 'persistentStore', 'transactions', 'dataSource', 'destination']);

export async function benchWorkload(store: BenchStore): Promise<string> {
  const big = await benchServer(store, { servers: 20, clusters: 2, partitions: 2, applications: 20, running: true });
  try {
    const url = `${big.base}/domainRuntime/search`;
    const headers = { ...AUTH, 'content-type': 'application/json', 'x-requested-by': 'bench' };
    const body = JSON.stringify(EXPORTER);
    const engine = big.server.domain.runtime as unknown as { workload: WorkloadModel };
    const model = engine.workload;
    const sample = await (await fetch(url, { method: 'POST', headers, body })).text();
    const nothing = new Proxy(model, { get: (target, prop, receiver) => (FIGURES.has(String(prop)) ? () => undefined : Reflect.get(target, prop, receiver)) });
    engine.workload = nothing;
    const without = await (await fetch(url, { method: 'POST', headers, body })).text();
    const base = await load('the same search, the model answering nothing', { url, method: 'POST', headers, body, connections: 1 });
    engine.workload = model;
    const subject = await load(`exporter search of 20 servers with the model on ${store.label}`, { url, method: 'POST', headers, body, connections: 1 });
    console.log(`answer: ${(sample.length / 1024).toFixed(0)} KiB with the model, ${(without.length / 1024).toFixed(0)} KiB without`);
    return report(subject, base, 'exporter search, workload model vs none (20 servers)', store.label);
  } finally {
    await big.close();
  }
}
