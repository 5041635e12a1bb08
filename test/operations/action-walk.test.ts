// The action walk: on a fresh demo domain with ms1 started (manual clock), every tree is crawled
// from its root by following links, every `action` link is collected, and each is invoked once
// with arguments built from its declared parameters (the first overload), by an administrator,
// with `Prefer: respond-async`. No action may answer "not supported", none a 5xx, every answer is
// JSON. Every action's bean must still be there when its turn comes (the order below keeps what an
// action removes from being needed afterwards: deeper beans first, a pool's connections before
// the pool, the configuration trees before the runtime ones); a 404 may still name an argument's
// referent.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { OverlayParam } from '../../src/catalog/overlay-format.js';
import { type ManagementTreeName, Trees } from '../../src/api/trees.js';
import type { OperationDef } from '../../src/catalog/model.js';
import { catalogWithOperations } from '../../src/operations/catalog.js';
import { RequestStats } from '../../src/runtime/live.js';
import { Resolver } from '../../src/tree/resolve.js';
import { ASYNC, type Reply, type RuntimeServer, pollUntil, startRuntimeServer } from '../support/runtime-server.js';

const TREES = ['edit', 'serverConfig', 'domainConfig', 'serverRuntime', 'domainRuntime'];
/** Rels that are not resources to GET. */
const NOT_FOLLOWED = new Set(['action', 'search', 'create', 'parent']);
const CONCURRENCY = 4;

interface ActionLink {
  href: string;
  /** The action's name (the link's title). */
  name: string;
  /** The bean's path below the version root. */
  path: string[];
}

let srv: RuntimeServer;

before(async () => {
  srv = await startRuntimeServer();
  const started = await srv.admin.post('domainRuntime/serverLifeCycleRuntimes/ms1/start', {}, ASYNC);
  assert.equal(started.status, 202, started.text);
  srv.advance(60_000);
  await pollUntil(() => srv.admin.get('domainRuntime/serverLifeCycleRuntimes/ms1?fields=state&links=none'), (r) => r.json?.state === 'RUNNING', 'ms1 running');
});

after(async () => {
  await srv.stop(true);
});

/** Every bean reachable from the tree roots by links, and the action links on them. */
async function crawl(): Promise<ActionLink[]> {
  const base = `${srv.latest}/`;
  const seen = new Set<string>();
  const queue = TREES.map((t) => srv.admin.url(t));
  const actions = new Map<string, ActionLink>();
  const visit = async (url: string) => {
    const r = await srv.admin.get(url);
    assert.equal(r.status, 200, `GET ${url}: ${r.text.slice(0, 300)}`);
    for (const body of [r.json, ...(Array.isArray(r.json.items) ? r.json.items : [])]) {
      for (const link of (body.links ?? []) as { rel: string; href: string; title?: string }[]) {
        if (!link.href.startsWith(base)) continue;
        if (link.rel === 'action') {
          const path = link.href.slice(base.length).split('/').slice(0, -1).map(decodeURIComponent);
          actions.set(link.href, { href: link.href, name: String(link.title), path });
        } else if (!NOT_FOLLOWED.has(link.rel) && !seen.has(link.href)) {
          seen.add(link.href);
          queue.push(link.href);
        }
      }
    }
  };
  for (const root of queue) seen.add(root);
  while (queue.length > 0) await Promise.all(queue.splice(0, CONCURRENCY).map(visit));
  return [...actions.values()];
}

const RT = 'appserver.management.runtime.';
const CFG = 'appserver.management.configuration.';

/** Plausible values for parameters that name things of the demo domain. */
const NAMED: Record<string, unknown> = {
  serverName: 'ms1',
  partitionName: 'partition1',
  resourceGroupName: 'partition1-rg',
  appid: 'benefits',
  moduleid: 'benefits',
  target: 'ms1',
  targetNames: ['ms1'],
  userName: 'admin',
  roleName: 'Admin',
  protocol: 'http',
  poolName: 'eis/demo-adapter',
};

/** An existing bean of the type a reference parameter takes. */
function referenceTo(type: string): string[] {
  if (type === `${CFG}PartitionMBean`) return ['partitions', 'partition1'];
  if (type === `${CFG}SystemResourceMBean`) return ['partitions', 'partition1', 'resourceGroups', 'partition1-rg', 'JDBCSystemResources', 'partition1-ds'];
  if (type === `${RT}EditSessionConfigurationRuntimeMBean`) return ['editSessionConfigurationManager', 'editSessionConfigurations', 'walk'];
  return ['servers', 'ms1'];
}

function argument(p: OverlayParam): unknown {
  if (Object.hasOwn(NAMED, p.name)) return NAMED[p.name];
  const catalog = catalogWithOperations();
  if (catalog.types.has(p.type)) return p.array ? [referenceTo(p.type)] : referenceTo(p.type);
  if (p.array) return [];
  switch (p.type) {
    case 'int':
    case 'long':
    case 'double':
    case 'java.lang.Integer':
    case 'java.lang.Long':
      return 0;
    case 'boolean':
    case 'java.lang.Boolean':
      return false;
    case 'java.util.Properties':
    case 'java.util.Map':
      return {};
    default:
      return '';
  }
}

/** The tree an action's bean is in, for ordering: configuration first, then each runtime tree. */
function phase(a: ActionLink): number {
  const [tree, collection] = a.path;
  if (tree === 'edit' || tree === 'serverConfig' || tree === 'domainConfig') return 0;
  if (tree === 'serverRuntime' || (tree === 'domainRuntime' && collection === 'serverRuntimes')) return 1;
  return 2;
}

/** The operation an action link names, found as the server finds it (the same resolver, in process). */
function operationOf(a: ActionLink): OperationDef {
  const catalog = catalogWithOperations();
  const trees = new Trees(catalog, srv.server.domain, new RequestStats());
  const [tree, ...segments] = [...a.path, a.name];
  const target = new Resolver(catalog, srv.server.domain.behaviours).resolve(trees.root(tree as ManagementTreeName, {}), segments, 'current');
  assert.equal(target.kind, 'action', `${a.href} does not name an action`);
  return (target as { op: OperationDef }).op;
}

/** How deep a bean is in its tree (a running server's tree counts from that server's root, however reached). */
function depth(a: ActionLink): number {
  return a.path[0] === 'domainRuntime' && a.path[1] === 'serverRuntimes' ? a.path.length - 2 : a.path.length;
}

test('every action link of every tree can be invoked: none is unsupported, none fails with a 5xx, every answer is JSON', { timeout: 300_000 }, async () => {
  const actions = await crawl();
  // Deeper beans first, so that an action removing or stopping a bean runs after the actions of
  // the beans below it; the configuration trees first (an edit lock taken there is given back
  // there), the running servers' trees next, the domain runtime last.
  // A pool's connections are listed under several paths: their actions come before the pools'
  // (a reset replaces them), deleting them after every other action on them.
  const connections = (a: ActionLink) => (!a.path.includes('connections') ? 2 : a.name === 'delete' ? 1 : 0);
  actions.sort((a, b) => phase(a) - phase(b) || connections(a) - connections(b) || depth(b) - depth(a) || a.href.localeCompare(b.href));
  const byStatus = new Map<number, number>();
  const problems: string[] = [];
  const types = new Set<string>();
  let deletedElsewhere = 0;
  const notFound: string[] = [];
  for (const a of actions) {
    let op: OperationDef;
    try {
      op = operationOf(a);
    } catch (err) {
      // One connection is listed under several paths: deleted through one, it is gone from all.
      if (a.name === 'delete') {
        deletedElsewhere++;
        continue;
      }
      problems.push(`bean gone before its action ran: ${a.href}: ${(err as Error).message}`);
      continue;
    }
    types.add(`${op.declaredBy}#${op.name}`);
    const body = Object.fromEntries(op.overloads[0]!.params.map((p) => [p.name, argument(p)]));
    const r: Reply = await srv.admin.post(a.href, body, ASYNC);
    byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
    const what = `${a.href} ${JSON.stringify(body)} -> ${r.status} ${r.text.slice(0, 300)}`;
    if (!/^application\/json\b/.test(r.headers.get('content-type') ?? '') || r.json === undefined) problems.push(`not JSON: ${what}`);
    if (r.status >= 500) problems.push(`server error: ${what}`);
    if (/not supported/i.test(JSON.stringify(r.json ?? {}))) problems.push(`not supported: ${what}`);
    // An administrator is never refused; a 404 names an argument's referent (the bean was resolved above).
    if (![200, 202, 400, 404].includes(r.status) && r.status < 500) problems.push(`unexpected status: ${what}`);
    if (r.status === 404) notFound.push(`${a.name}: ${String(r.json?.detail)}`);
  }
  const statuses = [...byStatus].sort(([x], [y]) => x - y).map(([status, n]) => `${status} ×${n}`).join(', ');
  console.log(`action walk: ${actions.length} action links (${types.size} operations); ${statuses}; ${deletedElsewhere} deletions of beans already deleted through another path`);
  if (notFound.length > 0) console.log(`404s, each for an argument naming nothing: ${[...new Set(notFound)].join('; ')}`);
  assert.deepEqual(problems, []);
  // The walk reached what it should: the server lifecycle, a data source, the JMS server of ms1,
  // the default authenticator, a log.
  for (const expected of [
    `${RT}ServerLifeCycleRuntimeMBean#shutdown`,
    `${RT}JDBCDataSourceRuntimeMBean#asyncSuspend`,
    `${RT}JMSServerRuntimeMBean#pauseProduction`,
    'appserver.security.providers.authentication.DefaultAuthenticatorMBean#exportData',
    `${RT}LogRuntimeMBean#forceLogRotation`,
  ]) {
    assert.ok(types.has(expected), `the walk did not invoke ${expected}`);
  }
});
