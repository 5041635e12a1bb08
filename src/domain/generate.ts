// Generated domains of any size, for benchmarks and load tests: the demo domain's shape, scaled.
import type { Catalog } from '../catalog/load.js';
import { BeanTree } from '../tree/records.js';
import { TreeBuilder } from '../tree/builder.js';
import { hostNameProblem } from '../core/host-name.js';

export interface DomainSize {
  servers: number;
  clusters: number;
  partitions: number;
  applications: number;
  /**
   * Managed servers that start RUNNING (for monitoring benchmarks): every one (`true`), or that many
   * taken cluster by cluster (cluster0's servers first, so 100 of 1,000 servers over 10 clusters
   * are exactly cluster0's).
   */
  running?: boolean | number;
  /** Where every managed server listens (default: 127.0.0.1, so that they start on this machine). */
  listenAddress?: string;
  /** The first managed server's listen port (default 8001); server i listens on firstPort + i. */
  firstPort?: number;
}

export const DEFAULT_LISTEN_ADDRESS = '127.0.0.1';
/** Above the administration server's 7001 and its neighbours, below the administration port 9002 for up to 1,000 servers. */
export const DEFAULT_FIRST_PORT = 8001;

/** A first port as given on the command line: a whole number from 1 to 65535. */
export function parseFirstPort(text: string): number {
  const n = /^\s*\d{1,5}\s*$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new Error(`--first-port takes a whole number from 1 to 65535, not '${text.slice(0, 40)}'`);
  return n;
}

/** Why the generated servers' addresses or ports cannot be used, if they cannot. */
export function generatedPortsProblem(size: DomainSize): string | undefined {
  const address = size.listenAddress ?? DEFAULT_LISTEN_ADDRESS;
  const bad = hostNameProblem(address);
  if (bad) return `--listen-address ${bad}`;
  const last = (size.firstPort ?? DEFAULT_FIRST_PORT) + Math.max(0, size.servers - 1);
  if (last > 65535) return `${size.servers} servers from port ${size.firstPort ?? DEFAULT_FIRST_PORT} would need ports up to ${last}, past 65535: give a lower --first-port or fewer --servers`;
  return undefined;
}

export const DEFAULT_SIZE: DomainSize = { servers: 1000, clusters: 10, partitions: 200, applications: 5000 };

const ref = (...identity: string[]) => identity;

/** A domain with an administration server plus `size.servers` managed servers spread over clusters. */
export function generateDomain(catalog: Catalog, size: DomainSize, listenPort = 7001): BeanTree {
  const b = new TreeBuilder(catalog, new BeanTree());
  const domain = b.root('appserver.management.configuration.DomainMBean', {
    name: 'generated_domain',
    domainVersion: catalog.productVersion,
    configurationVersion: catalog.productVersion,
    adminServerName: 'AdminServer',
    productionModeEnabled: false,
  });
  const clusters = Math.max(1, size.clusters);
  for (let c = 0; c < clusters; c++) b.item(domain, 'clusters', `cluster${c}`, { clusterMessagingMode: 'unicast' });
  const machines = Math.max(1, Math.ceil(size.servers / 50));
  for (let m = 0; m < machines; m++) {
    const machine = b.item(domain, 'machines', `machine${m}`);
    b.singleton(machine, 'nodeManager', { listenAddress: `host${m}.example.test`, listenPort: 5556 });
  }
  b.item(domain, 'servers', 'AdminServer', { listenAddress: '127.0.0.1', listenPort });
  for (let i = 0; i < size.servers; i++) {
    b.item(domain, 'servers', `ms${i}`, {
      listenAddress: size.listenAddress ?? DEFAULT_LISTEN_ADDRESS,
      listenPort: (size.firstPort ?? DEFAULT_FIRST_PORT) + i,
      cluster: ref('clusters', `cluster${i % clusters}`),
      machine: ref('machines', `machine${i % machines}`),
    });
  }
  for (let c = 0; c < clusters; c++) b.item(domain, 'virtualTargets', `vt${c}`, { targets: [ref('clusters', `cluster${c}`)], uriPrefix: `/vt${c}` });
  for (let p = 0; p < size.partitions; p++) {
    const vt = ref('virtualTargets', `vt${p % clusters}`);
    const partition = b.item(domain, 'partitions', `partition${p}`, { availableTargets: [vt], defaultTargets: [vt] });
    const rg = b.item(partition, 'resourceGroups', `rg${p}`, { useDefaultTarget: true });
    const ds = b.item(rg, 'JDBCSystemResources', `ds${p}`);
    b.singleton(ds, 'JDBCResource', { name: `ds${p}`, datasourceType: 'GENERIC' });
  }
  for (let a = 0; a < size.applications; a++) {
    b.item(domain, 'appDeployments', `app${a}`, { moduleType: 'war', targets: [ref('clusters', `cluster${a % clusters}`)] });
  }
  const security = b.singleton(domain, 'securityConfiguration', { name: 'generated_domain', defaultRealm: ['securityConfiguration', 'realms', 'myrealm'] });
  const realm = b.item(security, 'realms', 'myrealm');
  b.item(realm, 'authenticationProviders', 'DefaultAuthenticator', {}, 'appserver.security.providers.authentication.DefaultAuthenticatorMBean');
  return b.tree;
}

/** The managed servers of a generated domain that start RUNNING, as `size.running` says. */
export function runningServers(size: DomainSize): string[] {
  if (!size.running) return [];
  const all = size.running === true ? size.servers : Math.min(size.running, size.servers);
  const clusters = Math.max(1, size.clusters);
  const out: string[] = [];
  // Server i is in cluster i % clusters: walk cluster by cluster.
  for (let c = 0; c < clusters && out.length < all; c++) for (let i = c; i < size.servers && out.length < all; i += clusters) out.push(`ms${i}`);
  return out;
}
