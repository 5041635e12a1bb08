// The beans of a running server's tree that the workload model gives figures to: its network
// channels, the modules of its applications (web modules with their servlets, EJB modules with
// their beans), the applications' work managers and the persistent stores it hosts. Only names and
// configuration go into the tree; the figures are computed when read (figures.ts).
import os from 'node:os';
import type { NamedBean, Topology } from '../config/topology.js';
import type { BeanRef, TreeBuilder } from '../tree/builder.js';
import type { EjbKind, Module } from './archives/modules.js';
import { okHealth } from './health.js';

const R = 'appserver.management.runtime.';

export interface ChannelPorts {
  host: string;
  /** The plain listen port, unless it is disabled. */
  port: number | undefined;
  /** The SSL listen port when the server's SSL channel is open. */
  sslPort: number | undefined;
  /** The administration port when the domain enables it. */
  adminPort: number | undefined;
  /** Added to the ports of network access points (the process's port offset). */
  offset: number;
}

/** Addresses a listen address stands for: every address of this host when none is given. */
export function listenAddresses(listenAddress: string): string[] {
  const a = listenAddress.trim();
  if (a === 'localhost') return ['127.0.0.1', '::1'];
  if (a !== '' && a !== '0.0.0.0' && a !== '::') return [a];
  const all = Object.values(os.networkInterfaces())
    .flatMap((list) => list ?? [])
    .filter((i) => !i.address.startsWith('fe80:'))
    .map((i) => i.address);
  return all.length > 0 ? all : ['127.0.0.1'];
}

const url = (protocol: string, address: string, port: number) => `${protocol}://${address.includes(':') ? `[${address}]` : address}:${port}`;

/**
 * The server's channels: one per protocol of its default, secure and administration channels on
 * each address it listens on (`Default[http]`, `Default[http][1]`...), and one per protocol of each
 * network access point. Returns the channel real requests arrive on.
 */
export function channelBeans(b: TreeBuilder, root: BeanRef, t: Topology, server: NamedBean, ports: ChannelPorts): string {
  const clustered = Array.isArray(server.values.cluster);
  const addresses = listenAddresses(String(server.values.listenAddress ?? ''));
  const families: [string, number | undefined, string[]][] = [
    ['Default', ports.port, ['t3', 'http', 'iiop', 'ldap', 'snmp', ...(clustered ? ['CLUSTER-BROADCAST'] : [])]],
    ['DefaultSecure', ports.sslPort, ['t3s', 'https', 'iiops', 'ldaps', ...(clustered ? ['CLUSTER-BROADCAST-SECURE'] : [])]],
    // The administration port serves HTTPS (the listener's), and t3s as the product's does.
    ['DefaultAdministration', ports.adminPort, ['https', 't3s']],
  ];
  const add = (name: string, publicURL: string, virtualTarget: string | null = null) =>
    b.item(root, 'serverChannelRuntimes', name, { channelName: name, publicURL, associatedVirtualTargetName: virtualTarget });
  for (const [family, port, protocols] of families) {
    if (port === undefined) continue;
    addresses.forEach((address, i) => {
      for (const protocol of protocols) {
        const scheme = protocol.startsWith('CLUSTER-BROADCAST') ? (protocol.endsWith('SECURE') ? 't3s' : 't3') : protocol;
        // The first address is named as the configuration names it; the others by their address.
        add(`${family}[${protocol}]${i > 0 ? `[${i}]` : ''}`, url(scheme, i === 0 ? ports.host : address, port));
      }
    });
  }
  for (const nap of t.items(server.identity, 'networkAccessPoints')) {
    if (nap.values.enabled === false) continue;
    const protocol = String(nap.values.protocol ?? 't3').toLowerCase();
    const address = String(nap.values.publicAddress || nap.values.listenAddress || ports.host);
    const configured = Number(nap.values.publicPort || nap.values.listenPort || 0);
    const port = configured > 0 ? configured + ports.offset : (ports.port ?? ports.sslPort);
    if (port === undefined) continue;
    add(`${nap.name}[${protocol}]`, url(protocol, address, port));
    const httpToo = nap.values.httpEnabledForThisProtocol !== false && (protocol === 't3' || protocol === 't3s');
    if (httpToo) add(`${nap.name}[${protocol === 't3s' ? 'https' : 'http'}]`, url(protocol === 't3s' ? 'https' : 'http', address, port));
  }
  return servedChannelOf(ports.port);
}

/** The channel a server's own listener serves requests on: the plain port's, else the SSL port's. */
export function servedChannelOf(plainPort: number | undefined): string {
  return plainPort !== undefined ? 'Default[http]' : 'DefaultSecure[https]';
}

const EJB_TYPE: Record<EjbKind, string> = {
  Stateless: 'StatelessEJBRuntime',
  Stateful: 'StatefulEJBRuntime',
  Singleton: 'SingletonEJBRuntime',
  Entity: 'EntityEJBRuntime',
  MessageDriven: 'MessageDrivenEJBRuntime',
};

/**
 * The component runtimes of an application's modules and its work manager. A standalone module is
 * named after the application; a module of an enterprise archive by its file.
 */
export function moduleBeans(b: TreeBuilder, app: BeanRef, server: string, appName: string, modules: readonly Module[], opts: { admin: boolean; standalone: boolean; baseURL: string }): void {
  const deploymentState = opts.admin ? 5 : 2;
  for (const m of modules) {
    const moduleId = opts.standalone ? appName : m.uri;
    const common = { moduleId, deploymentState };
    if (m.kind === 'web') {
      const componentName = `${server}_${m.contextRoot}`;
      const component = b.item(app, 'componentRuntimes', componentName, {
        name: componentName,
        moduleId,
        deploymentState,
        componentName: moduleId,
        applicationIdentifier: appName,
        contextRoot: m.contextRoot,
        moduleURI: m.uri,
        sourceInfo: m.uri,
        status: 'DEPLOYED',
        sessionTimeoutSecs: m.sessionTimeoutSecs,
        sessionMonitoringEnabled: true,
      }, `${R}WebAppComponentRuntimeMBean`);
      for (const s of m.servlets) {
        const path = s.urlPatterns.find((p) => p.startsWith('/')) ?? '';
        b.item(component, 'servlets', s.name, {
          name: s.name,
          servletName: s.name,
          servletClassName: s.className,
          URLPatterns: s.urlPatterns,
          contextPath: m.contextRoot,
          servletPath: path.replace(/\/\*$/, ''),
          URL: `${opts.baseURL}${m.contextRoot === '/' ? '' : m.contextRoot}${path.replace(/\/\*$/, '')}`,
          poolMaxCapacity: 0,
        });
      }
    } else {
      const component = b.item(app, 'componentRuntimes', m.uri, common, `${R}EJBComponentRuntimeMBean`);
      for (const e of m.ejbs) b.item(component, 'EJBRuntimes', e.name, { EJBName: e.name }, EJB_TYPE[e.kind]);
    }
  }
  b.item(app, 'workManagerRuntimes', 'default', { name: 'default', applicationName: appName, moduleName: null, partitionName: null, healthState: okHealth('workmanager') });
}

/** The persistent stores the server hosts: its default store and the file and JDBC stores targeted to it. */
export function storeBeans(b: TreeBuilder, root: BeanRef, t: Topology, server: string): void {
  b.item(root, 'persistentStoreRuntimes', `_APPSERVER_${server}`, { healthState: okHealth('PersistentStore') });
  for (const collection of ['fileStores', 'JDBCStores']) {
    for (const store of t.placedOn(collection, server)) b.item(root, 'persistentStoreRuntimes', store.name, { healthState: okHealth('PersistentStore') });
  }
}
