// Issue 26 item 6: the runtime figures a monitoring tool reads hold their invariants over a
// simulated day on the control clock. A property test draws the moments a dashboard samples
// (between 8 and 30 of them, spread over 24 hours of the clock), starts ms1, reads the figures of
// ms1 and of the administration server at each moment over HTTP, and checks every server,
// application and store bean that has figures: totals never go down and are never below their
// current counts, high-water marks never below the current values, a store's deletes never above
// its creates plus the records it opened with, and every server shows its execute queue.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { ASYNC, pollUntil } from '../support/runtime-server.js';
import { type ControlServer, startControlServer } from '../support/control.js';

const LC = 'domainRuntime/serverLifeCycleRuntimes';
const DAY_MS = 24 * 3600_000;

let srv: ControlServer;

async function ok(path: string, body: unknown = {}): Promise<any> {
  const r = await srv.admin.post(path, body);
  assert.ok(r.status === 200 || r.status === 201, `${path}: ${r.status} ${r.text}`);
  return r.json;
}

async function advance(ms: number): Promise<void> {
  const r = await srv.ctl.post('clock/advance', { ms });
  assert.equal(r.status, 200, r.text);
}

async function lifecycle(op: string, state: string): Promise<void> {
  const r = await srv.admin.post(`${LC}/ms1/${op}`, {}, ASYNC);
  assert.ok(r.status === 202 || r.status === 200, `${op} ms1: ${r.text}`);
  await pollUntil(
    async () => {
      await advance(1);
      return srv.admin.get(`${LC}/ms1?links=none&fields=state`);
    },
    (x) => x.json?.state === state,
    `ms1 ${state}`,
  );
}

before(async () => {
  srv = await startControlServer({ timings: { serverStart: 0, serverShutdown: 0 } });
  // A queue on JMSServer1 (which runs on ms1), so that a destination has figures too.
  await ok('edit/changeManager/startEdit');
  await ok('edit/JMSSystemResources', { name: 'orders', targets: [{ identity: ['servers', 'ms1'] }] });
  await ok('edit/JMSSystemResources/orders/subDeployments', { name: 'sd1', targets: [{ identity: ['JMSServers', 'JMSServer1'] }] });
  await ok('edit/JMSSystemResources/orders/JMSResource/queues', { name: 'OrderQueue', subDeploymentName: 'sd1' });
  await ok('edit/changeManager/activate');
});

after(async () => {
  await srv?.stop();
});

const level = (fields: string[], children?: Record<string, unknown>) => ({ links: [], fields, ...(children ? { children } : {}) });

/** Every bean with figures that a dashboard reads, as one search of a server's runtime. */
const DASHBOARD = level(['name', 'state', 'openSocketsCurrentCount'], {
  threadPoolRuntime: level(['completedRequestCount', 'executeThreadTotalCount', 'executeThreadIdleCount', 'hoggingThreadCount', 'standbyThreadCount']),
  executeQueueRuntimes: level(['name', 'executeThreadTotalCount', 'executeThreadCurrentIdleCount', 'pendingRequestCurrentCount', 'servicedRequestTotalCount']),
  serverChannelRuntimes: level(['channelName', 'acceptCount', 'connectionsCount', 'messagesReceivedCount', 'messagesSentCount', 'bytesReceivedCount', 'bytesSentCount']),
  applicationRuntimes: level(['name'], {
    componentRuntimes: level(['name', 'openSessionsCurrentCount', 'openSessionsHighCount', 'sessionsOpenedTotalCount'], {
      servlets: level(['servletName', 'invocationTotalCount', 'executionTimeTotal', 'reloadTotalCount']),
      EJBRuntimes: level(['name'], {
        poolRuntime: level(['accessTotalCount', 'beansInUseCurrentCount', 'pooledBeansCurrentCount', 'missTotalCount', 'destroyedTotalCount']),
        transactionRuntime: level(['transactionsCommittedTotalCount', 'transactionsRolledBackTotalCount', 'transactionsTimedOutTotalCount']),
      }),
    }),
    workManagerRuntimes: level(['name', 'completedRequests', 'completedDaemonRequests']),
  }),
  workManagerRuntimes: level(['name', 'completedRequests', 'completedDaemonRequests']),
  JMSRuntime: level(['name'], {
    JMSServers: level(['name', 'messagesReceivedCount', 'messagesCurrentCount', 'messagesHighCount'], {
      destinations: level(['name', 'messagesReceivedCount', 'messagesCurrentCount', 'messagesHighCount', 'consumersCurrentCount', 'consumersHighCount', 'consumersTotalCount']),
    }),
  }),
  persistentStoreRuntimes: level(['name', 'objectCount', 'createCount', 'readCount', 'updateCount', 'deleteCount', 'physicalWriteCount']),
  JTARuntime: level(['transactionTotalCount', 'transactionCommittedTotalCount', 'transactionRolledBackTotalCount', 'transactionRolledBackAppTotalCount', 'transactionRolledBackTimeoutTotalCount', 'activeTransactionsTotalCount']),
});

type Beans = Map<string, Record<string, number>>;

/** The beans of a search answer by their path (`persistentStoreRuntimes/FileStore1`), numbers only. */
function flatten(node: any, path: string, into: Beans): Beans {
  const numbers: Record<string, number> = {};
  for (const [k, v] of Object.entries(node)) {
    if (typeof v === 'number') numbers[k] = v;
    else if (v && typeof v === 'object' && Array.isArray((v as any).items)) {
      for (const item of (v as any).items) flatten(item, `${path}/${k}/${item.name ?? item.channelName ?? item.servletName}`, into);
    } else if (v && typeof v === 'object' && !Array.isArray(v)) flatten(v, `${path}/${k}`, into);
  }
  if (Object.keys(numbers).length > 0) into.set(path, numbers);
  return into;
}

async function sample(server: string): Promise<{ beans: Beans; raw: any }> {
  const r = await srv.admin.post(`domainRuntime/serverRuntimes/${server}/search`, DASHBOARD);
  assert.equal(r.status, 200, r.text);
  return { beans: flatten(r.json, server, new Map()), raw: r.json };
}

/** Figures named like totals that are gauges: threads in a pool, transactions active now. */
const GAUGES = new Set(['executeThreadTotalCount', 'activeTransactionsTotalCount']);

/** Totals and counters: they only grow while the server runs. */
const GROWING = /(TotalCount|HighCount|^completedRequests|^completedDaemonRequests|^completedRequestCount|^acceptCount|^messages(Received|Sent)Count|^bytes(Received|Sent)Count|^(create|read|update|delete|physicalWrite)Count|^executionTimeTotal)$/;

/** [total, current]: what was counted in is never less than what is there now. */
const TOTAL_OVER_CURRENT: [string, string][] = [
  ['sessionsOpenedTotalCount', 'openSessionsCurrentCount'],
  ['acceptCount', 'connectionsCount'],
  ['messagesReceivedCount', 'messagesCurrentCount'],
  ['consumersTotalCount', 'consumersCurrentCount'],
  ['accessTotalCount', 'beansInUseCurrentCount'],
];

/** [high, current]: a high-water mark is never below the value now. */
const HIGH_OVER_CURRENT: [string, string][] = [
  ['openSessionsHighCount', 'openSessionsCurrentCount'],
  ['messagesHighCount', 'messagesCurrentCount'],
  ['consumersHighCount', 'consumersCurrentCount'],
];

/** The invariants of one sample on its own. */
function checkSample(beans: Beans, at: string): void {
  for (const [path, f] of beans) {
    const where = `${path} ${at}: ${JSON.stringify(f)}`;
    for (const [k, v] of Object.entries(f)) assert.ok(Number.isInteger(v) && v >= 0, `${where}: ${k}`);
    for (const [total, current] of TOTAL_OVER_CURRENT) if (total in f && current in f) assert.ok(f[total]! >= f[current]!, `${where}: ${total} < ${current}`);
    for (const [high, current] of HIGH_OVER_CURRENT) if (high in f && current in f) assert.ok(f[high]! >= f[current]!, `${where}: ${high} < ${current}`);
    if ('executeThreadTotalCount' in f) {
      const idle = f.executeThreadIdleCount ?? f.executeThreadCurrentIdleCount;
      assert.ok(idle !== undefined && idle <= f.executeThreadTotalCount!, `${where}: idle above total`);
    }
    if ('beansInUseCurrentCount' in f) assert.ok(f.beansInUseCurrentCount! <= f.pooledBeansCurrentCount!, `${where}: in use above pooled`);
    if ('transactionTotalCount' in f) {
      assert.equal(f.transactionTotalCount, f.transactionCommittedTotalCount! + f.transactionRolledBackTotalCount!, where);
      assert.equal(f.transactionRolledBackTotalCount, f.transactionRolledBackAppTotalCount! + f.transactionRolledBackTimeoutTotalCount!, where);
    }
  }
}

/** Between two samples of the same run of a server: nothing that counts goes down. */
function checkGrowth(before: Beans, now: Beans, at: string): void {
  for (const [path, f] of now) {
    const was = before.get(path);
    assert.ok(was, `${path} appeared ${at}`);
    for (const [k, v] of Object.entries(f)) if (GROWING.test(k) && !GAUGES.has(k)) assert.ok(v >= was[k]!, `${path}.${k} went down ${at}: ${was[k]} -> ${v}`);
  }
  for (const path of before.keys()) assert.ok(now.has(path), `${path} vanished ${at}`);
}

/** A store's objects are those it opened with plus creates minus deletes, so deletes stay within creates plus those. */
function checkStores(start: Beans, now: Beans, at: string): void {
  for (const [path, f] of now) {
    if (!('deleteCount' in f)) continue;
    const initial = start.get(path)!;
    assert.equal(initial.createCount, 0, `${path}: a just-started store has created nothing`);
    assert.equal(initial.deleteCount, 0, `${path}: a just-started store has deleted nothing`);
    assert.ok(f.deleteCount! <= f.createCount! + initial.objectCount!, `${path} ${at}: ${f.deleteCount} deletes > ${f.createCount} creates + ${initial.objectCount}`);
    assert.equal(f.objectCount, initial.objectCount! + f.createCount! - f.deleteCount!, `${path} ${at}: objects are not initial + creates - deletes`);
  }
}

function checkQueues(raw: any, server: string): void {
  const queues = raw.executeQueueRuntimes?.items ?? [];
  assert.deepEqual(queues.map((q: any) => q.name), ['appserver.socket.Muxer'], `${server}: execute queues`);
  assert.ok(queues[0].executeThreadTotalCount > 0, `${server}: the muxer has threads`);
}

test('item 6: runtime figures hold their invariants over a simulated day, sampled at any moments', async () => {
  let admin = await sample('AdminServer');
  checkQueues(admin.raw, 'AdminServer');
  checkSample(admin.beans, 'at the first look');
  let samples = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 1000 }), { minLength: 8, maxLength: 30 }), async (weights) => {
      await lifecycle('start', 'RUNNING');
      // The moments: the server just started, then gaps in proportion to the weights up to 24 hours.
      const sum = weights.reduce((a, b) => a + b, 0);
      const start = await sample('ms1');
      checkQueues(start.raw, 'ms1');
      checkSample(start.beans, 'just started');
      checkStores(start.beans, start.beans, 'just started');
      assert.ok([...start.beans.keys()].some((p) => p.includes('/componentRuntimes/')), 'ms1 shows a web module');
      assert.ok([...start.beans.keys()].some((p) => p.includes('/destinations/')), 'ms1 shows a destination');
      let last = start.beans;
      let elapsed = 0;
      for (const w of weights) {
        const gap = Math.max(1, Math.floor((w / sum) * DAY_MS));
        await advance(gap);
        elapsed += gap;
        const at = `after ${elapsed} ms`;
        const now = await sample('ms1');
        checkSample(now.beans, at);
        checkGrowth(last, now.beans, at);
        checkStores(start.beans, now.beans, at);
        last = now.beans;
        // The administration server keeps running across the runs: its figures only grow too.
        const nextAdmin = await sample('AdminServer');
        checkSample(nextAdmin.beans, `admin ${at}`);
        checkGrowth(admin.beans, nextAdmin.beans, `admin ${at}`);
        admin = nextAdmin;
        samples++;
      }
      await lifecycle('shutdown', 'SHUTDOWN');
    }),
    { numRuns: 4, endOnFailure: true, includeErrorInReport: true },
  );
  assert.ok(samples >= 32, `${samples} samples`);
});
