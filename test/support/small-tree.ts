// Small bean trees held in memory, built with the TreeBuilder against the real catalog, for unit
// tests of resolution and rendering: no server, no store, no socket.
import assert from 'node:assert/strict';
import { standardBehaviours } from '../../src/behaviour/index.js';
import { catalogWithOperations } from '../../src/operations/catalog.js';
import type { ApiVersion } from '../../src/catalog/model.js';
import { Renderer, type RenderContext } from '../../src/render/entity.js';
import { Urls } from '../../src/render/links.js';
import type { Shape } from '../../src/render/query.js';
import { Searcher } from '../../src/render/search.js';
import { type BeanRef, TreeBuilder } from '../../src/tree/builder.js';
import { BeanTree } from '../../src/tree/records.js';
import { type BeanNode, Resolver, type Target, type TreeRoot } from '../../src/tree/resolve.js';

export const catalog = catalogWithOperations();
export const CFG = 'appserver.management.configuration.';
export const RT = 'appserver.management.runtime.';
export const DEFAULT_AUTHENTICATOR = 'appserver.security.providers.authentication.DefaultAuthenticatorMBean';

/** What the types do beyond their data, as the server registers it. */
export const behaviours = standardBehaviours(catalog);

export const resolver = new Resolver(catalog, behaviours);
export const renderer = new Renderer(resolver);
export const searcher = new Searcher(resolver, renderer);

/** Where hrefs of these tests point. */
export const ORIGIN = 'http://admin.test:7001';
export const VERSION_ROOT = '/management/appserver/latest';
export const href = (...segments: string[]) => `${ORIGIN}${VERSION_ROOT}/${segments.map(encodeURIComponent).join('/')}`;

export function context(shape: Shape = {}, version: ApiVersion = 'current'): RenderContext {
  return { urls: new Urls(ORIGIN, VERSION_ROOT), version, shape, productionMode: false };
}

export interface SmallDomain {
  tree: BeanTree;
  builder: TreeBuilder;
  domain: BeanRef;
}

/**
 * A domain `d1`: servers AdminServer, ms2, ms1 (in that order; ms1 in cluster c1 on machine m1),
 * cluster c1, UNIX machine m1 with its node manager, partitions p1 and p2 with a resource group
 * each, and the realm myrealm (under an unconfigured security configuration) with one
 * authenticator and no adjudicator.
 */
export function smallDomain(): SmallDomain {
  const builder = new TreeBuilder(catalog, new BeanTree());
  const domain = builder.root(`${CFG}DomainMBean`, { name: 'd1', adminServerName: 'AdminServer' });
  const machine = builder.item(domain, 'machines', 'm1', {}, 'UnixMachine');
  builder.singleton(machine, 'nodeManager', { listenPort: 5556 });
  builder.item(domain, 'clusters', 'c1', {});
  builder.item(domain, 'servers', 'AdminServer', { listenPort: 7001 });
  builder.item(domain, 'servers', 'ms2', { listenPort: 7005 });
  builder.item(domain, 'servers', 'ms1', { listenPort: 7003, cluster: ['clusters', 'c1'], machine: ['machines', 'm1'], candidateMachines: [['machines', 'm1']] });
  for (const p of ['p1', 'p2']) {
    const partition = builder.item(domain, 'partitions', p, {});
    builder.item(partition, 'resourceGroups', `${p}-rg`, {});
  }
  // The security configuration itself is not stored: every value of it is a default.
  const realm = catalog.type('appserver.management.security.RealmMBean');
  const key = builder.tree.putItem('securityConfiguration', 'realms', 'myrealm', { type: realm.name, values: { name: 'myrealm' } });
  const realmRef: BeanRef = { key, type: realm, identity: ['securityConfiguration', 'realms', 'myrealm'] };
  builder.item(realmRef, 'authenticationProviders', 'DefaultAuthenticator', {}, DEFAULT_AUTHENTICATOR);
  return { tree: builder.tree, builder, domain };
}

/** The edit tree (editable) or a read-only configuration tree over `tree`. */
export function configRoot(tree: BeanTree, name: 'edit' | 'serverConfig' | 'domainConfig' = 'edit', extra: Partial<TreeRoot> = {}): TreeRoot {
  return {
    name,
    source: tree,
    type: catalog.type(`${CFG}DomainMBean`),
    base: [name],
    editable: name === 'edit',
    ...extra,
  };
}

/** A server's runtime tree: its root, one application and the thread pool. */
export function serverRuntimeTree(server: string): BeanTree {
  const builder = new TreeBuilder(catalog, new BeanTree());
  const root = builder.root(`${RT}ServerRuntimeMBean`, { name: server, state: 'RUNNING' });
  builder.singleton(root, 'threadPoolRuntime', {});
  builder.item(root, 'applicationRuntimes', 'benefits', {});
  return builder.tree;
}

/** A domain runtime tree with server life cycles, and the running servers' trees mounted under `serverRuntimes`. */
export function domainRuntimeRoot(running: Record<string, BeanTree>, extra: Partial<TreeRoot> = {}): TreeRoot {
  const builder = new TreeBuilder(catalog, new BeanTree());
  const root = builder.root(`${RT}DomainRuntimeMBean`, { name: 'd1' });
  for (const server of Object.keys(running)) builder.item(root, 'serverLifeCycleRuntimes', server, { state: 'RUNNING' });
  const serverRoot = (server: string): TreeRoot | undefined => {
    const tree = running[server];
    if (!tree || !Object.hasOwn(running, server)) return undefined;
    return {
      name: 'serverRuntime',
      source: tree,
      type: catalog.type(`${RT}ServerRuntimeMBean`),
      base: ['domainRuntime', 'serverRuntimes', server],
      editable: false,
    };
  };
  return {
    name: 'domainRuntime',
    source: builder.tree,
    type: catalog.type(`${RT}DomainRuntimeMBean`),
    base: ['domainRuntime'],
    mounts: new Map([['serverRuntimes', { names: () => Object.keys(running), root: serverRoot }]]),
    editable: false,
    ...extra,
  };
}

/** Resolves a path that must name a bean. */
export function beanAt(root: TreeRoot, segments: readonly string[], version: ApiVersion = 'current'): BeanNode {
  const target = resolver.resolve(root, segments, version);
  assert.equal(target.kind, 'bean', `${segments.join('/')} names a ${target.kind}`);
  return (target as Extract<Target, { kind: 'bean' }>).node;
}

/** Resolves a path that must name something of the kind given. */
export function targetAt<K extends Target['kind']>(root: TreeRoot, segments: readonly string[], kind: K, version: ApiVersion = 'current'): Extract<Target, { kind: K }> {
  const target = resolver.resolve(root, segments, version);
  assert.equal(target.kind, kind, `${segments.join('/')} names a ${target.kind}`);
  return target as Extract<Target, { kind: K }>;
}

export interface JsonLink {
  rel: string;
  href: string;
  title?: string;
}

/** The relations of a rendered body's links, in order. */
export const rels = (body: Record<string, unknown>): string[] => (body.links as JsonLink[]).map((l) => l.rel);

/** The href of the one link of a relation. */
export function linkOf(body: Record<string, unknown>, rel: string): string | undefined {
  const found = (body.links as JsonLink[]).filter((l) => l.rel === rel);
  assert.ok(found.length <= 1, `${found.length} links '${rel}'`);
  return found[0]?.href;
}
