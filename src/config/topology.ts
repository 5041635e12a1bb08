// Questions the runtime asks of the configuration: which servers exist (the configured ones and
// the dynamic clusters' servers), which servers a target stands for, what a partition, resource
// group or application is targeted to.
import { type BeanRecord, type TreeSource } from '../tree/records.js';
import { childKey, itemKey, keyOfIdentity } from '../core/identity.js';
import { type WithDynamicServers, withDynamicServers } from './dynamic-servers.js';

export type Identity = readonly string[];

export interface NamedBean {
  name: string;
  identity: string[];
  values: Record<string, unknown>;
  type: string;
}

export class Topology {
  /** Memo of the server list and cluster memberships: a topology is read many times per rebuild. */
  private serverList?: NamedBean[];
  private members?: Map<string, string[]>;

  private readonly config: WithDynamicServers;

  /** `retained`: dynamic servers a shrunk cluster dropped that are still listed while they stop. */
  constructor(config: TreeSource, retained: readonly string[] = []) {
    this.config = withDynamicServers(config, retained);
  }

  /** The configuration with its dynamic servers. */
  get source(): TreeSource {
    return this.config;
  }

  /** The same configuration, keeping exactly the dropped dynamic servers named. */
  retaining(names: readonly string[]): Topology {
    return new Topology(this.config.inner, names);
  }

  /** Dropped dynamic servers listed while they stop. */
  get retained(): readonly string[] {
    return this.config.retained;
  }

  /** Whether `name` is, or would be in a cluster grown large enough, a dynamic server. */
  couldBeDynamic(name: string): boolean {
    return this.config.couldBeDynamic(name);
  }

  get root(): BeanRecord | undefined {
    return this.config.bean('');
  }

  get domainName(): string {
    return String(this.root?.values.name ?? 'domain');
  }

  get adminServerName(): string {
    return String(this.root?.values.adminServerName ?? 'AdminServer');
  }

  get productionMode(): boolean {
    return this.root?.values.productionModeEnabled === true;
  }

  /** Items of a child collection of the bean with identity `parent`. */
  items(parent: Identity, collection: string): NamedBean[] {
    const cKey = childKey(keyOfIdentity(parent), collection);
    const out: NamedBean[] = [];
    for (const name of this.config.itemNames(cKey)) {
      const record = this.config.bean(itemKey(cKey, name));
      if (record) out.push({ name, identity: [...parent, collection, name], values: record.values, type: record.type });
    }
    return out;
  }

  bean(identity: Identity): BeanRecord | undefined {
    return this.config.bean(keyOfIdentity(identity));
  }

  servers(): NamedBean[] {
    return (this.serverList ??= this.items([], 'servers'));
  }

  private clusterMembers(cluster: string): string[] {
    if (!this.members) {
      this.members = new Map();
      for (const s of this.servers()) {
        const c = s.values.cluster;
        if (Array.isArray(c) && c[0] === 'clusters') {
          const list = this.members.get(String(c[1])) ?? [];
          list.push(s.name);
          this.members.set(String(c[1]), list);
        }
      }
    }
    return this.members.get(cluster) ?? [];
  }

  /** Names of the servers a target (server, cluster, virtual target, migratable target) stands for. */
  serversOf(target: Identity, seen = new Set<string>()): string[] {
    const id = target.join('/');
    if (seen.has(id)) return [];
    seen.add(id);
    const [collection, name] = target;
    switch (collection) {
      case 'servers':
        return this.bean(target) ? [name!] : [];
      case 'clusters':
        return target.length === 2 ? this.clusterMembers(name!) : [];
      default: {
        const targets = this.bean(target)?.values.targets;
        return Array.isArray(targets) ? unique(targets.flatMap((t) => this.serversOf(t as string[], seen))) : [];
      }
    }
  }

  /** Servers a list of target references stands for. */
  serversOfTargets(targets: unknown): string[] {
    return Array.isArray(targets) ? unique(targets.flatMap((t) => this.serversOf(t as string[]))) : [];
  }

  partitions(): NamedBean[] {
    return this.items([], 'partitions');
  }

  resourceGroups(partition: NamedBean): NamedBean[] {
    return this.items(partition.identity, 'resourceGroups');
  }

  /** Servers a resource group of a partition runs on (its own targets, or the partition's defaults). */
  resourceGroupServers(partition: NamedBean | undefined, rg: NamedBean): string[] {
    const useDefault = rg.values.useDefaultTarget !== false && (!Array.isArray(rg.values.targets) || rg.values.targets.length === 0);
    return this.serversOfTargets(useDefault && partition ? partition.values.defaultTargets : rg.values.targets);
  }

  /** Every server a partition is targeted to through its resource groups. */
  partitionServers(partition: NamedBean): string[] {
    const rgs = this.resourceGroups(partition);
    const fromGroups = rgs.flatMap((rg) => this.resourceGroupServers(partition, rg));
    return unique(rgs.length > 0 ? fromGroups : this.serversOfTargets(partition.values.defaultTargets));
  }

  appDeployments(): NamedBean[] {
    return this.items([], 'appDeployments');
  }
}

function unique(list: string[]): string[] {
  return [...new Set(list)];
}
