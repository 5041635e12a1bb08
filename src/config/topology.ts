// Questions the runtime asks of the configuration: which servers exist (the configured ones and
// the dynamic clusters' servers), which servers a target stands for, what a partition, resource
// group or application is targeted to.
import { type BeanRecord, type TreeSource } from '../tree/records.js';
import { childKey, itemKey, keyOfIdentity } from '../core/identity.js';
import { type WithDynamicServers, withDynamicServers } from './dynamic-servers.js';
import type { PlacementView } from '../behaviour/runtime-effects.js';

export type Identity = readonly string[];

export interface NamedBean {
  name: string;
  identity: string[];
  values: Record<string, unknown>;
  type: string;
}

/** Items of a collection targeted alike: the servers their targets stand for, and the items with their positions. */
interface PlacementGroup {
  targets: unknown[];
  /** The servers the targets stand for in this topology (computed when first needed). */
  servers?: ReadonlySet<string>;
  items: [number, NamedBean][];
}

export class Topology implements PlacementView {
  // A topology stands for one configuration version and is read many times per rebuild: what it
  // computes (lists, cluster members, the servers of each target, what is placed on each server)
  // is computed once, so building every server's runtime costs O(domain), not O(servers × domain).
  private readonly lists = new Map<string, NamedBean[]>();
  private readonly named = new Map<string, Map<string, NamedBean>>();
  private members?: Map<string, string[]>;
  private readonly targetServers = new Map<string, readonly string[]>();
  private readonly placements = new Map<string, { groups: PlacementGroup[]; byServer: Map<string, NamedBean[]> }>();
  private readonly partitionPlaces = new Map<string, readonly string[]>();
  private readonly groupPlaces = new Map<string, readonly string[]>();

  private readonly config: WithDynamicServers;

  /** `retained`: dynamic servers a shrunk cluster dropped that are still listed while they stop. */
  constructor(config: TreeSource, retained: readonly string[] = []) {
    this.config = withDynamicServers(config, retained);
  }

  /**
   * Takes over from the topology of the previous configuration version what the changes between
   * them cannot have moved: the lists of the top-level collections where no item came or went
   * (their records are the same objects, but for the items changed, read again) and how their
   * items group by target list; the servers those targets stand for are computed again (cluster
   * members may have moved). The servers' own list is never taken over: dynamic servers follow
   * clusters and templates.
   */
  carry(previous: Topology, changes: readonly { operation: string; identity: readonly string[] }[]): this {
    const cameOrWent = new Set<string>();
    const changed = new Map<string, Set<string>>();
    for (const c of changes) {
      const [collection, name] = c.identity;
      if (collection === undefined) continue;
      if (name === undefined || (c.identity.length === 2 && c.operation !== 'modify')) cameOrWent.add(collection);
      else if (c.identity.length === 2) changed.set(collection, (changed.get(collection) ?? new Set()).add(name));
    }
    const keep = (collection: string) => !collection.includes('/') && collection !== 'servers' && !cameOrWent.has(collection);
    for (const [key, list] of previous.lists) {
      if (!keep(key) || this.lists.has(key)) continue;
      const names = changed.get(key);
      const fresh = names ? list.map((b) => (names.has(b.name) ? this.reread(key, b) : b)) : list;
      if (fresh.every((b) => b !== undefined)) this.lists.set(key, fresh as NamedBean[]);
    }
    for (const [key, index] of previous.named) if (keep(key) && !changed.has(key) && !this.named.has(key)) this.named.set(key, index);
    for (const [key, index] of previous.placements) {
      if (!keep(key) || changed.has(key) || this.placements.has(key)) continue;
      this.placements.set(key, { groups: index.groups.map((g) => ({ targets: g.targets, items: g.items })), byServer: new Map() });
    }
    return this;
  }

  /** A top-level item as this version holds it (undefined when it is gone). */
  private reread(collection: string, item: NamedBean): NamedBean | undefined {
    const record = this.config.bean(itemKey(collection, item.name));
    return record ? { name: item.name, identity: item.identity, values: record.values, type: record.type } : undefined;
  }

  /** The configuration with its dynamic servers. */
  get source(): TreeSource {
    return this.config;
  }

  /** The same configuration, keeping exactly the dropped dynamic servers named. */
  retaining(names: readonly string[]): Topology {
    // Keeping none where none is kept is this very topology, with what it has computed already (a
    // large domain's activation otherwise lists its every server once more).
    if (names.length === 0 && this.config.retained.length === 0) return this;
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

  /** Items of a child collection of the bean with identity `parent` (the same list each time: do not change it). */
  items(parent: Identity, collection: string): NamedBean[] {
    const cKey = childKey(keyOfIdentity(parent), collection);
    let out = this.lists.get(cKey);
    if (out) return out;
    out = [];
    for (const name of this.config.itemNames(cKey)) {
      const record = this.config.bean(itemKey(cKey, name));
      if (record) out.push({ name, identity: [...parent, collection, name], values: record.values, type: record.type });
    }
    this.lists.set(cKey, out);
    return out;
  }

  bean(identity: Identity): BeanRecord | undefined {
    return this.config.bean(keyOfIdentity(identity));
  }

  servers(): NamedBean[] {
    return this.items([], 'servers');
  }

  /** The configured (or dynamic) server named, if any. */
  server(name: string): NamedBean | undefined {
    return this.byName('servers', name);
  }

  /** The item named of a top-level collection, if any. */
  byName(collection: string, name: string): NamedBean | undefined {
    let index = this.named.get(collection);
    if (!index) {
      index = new Map(this.items([], collection).map((b) => [b.name, b]));
      this.named.set(collection, index);
    }
    return index.get(name);
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
  serversOf(target: Identity): string[] {
    return [...this.targetOnce(target)];
  }

  /** The servers of one target, computed once per topology. */
  private targetOnce(target: Identity): readonly string[] {
    const id = JSON.stringify(target);
    let servers = this.targetServers.get(id);
    if (!servers) {
      servers = this.expand(target, new Set());
      this.targetServers.set(id, servers);
    }
    return servers;
  }

  private expand(target: Identity, seen: Set<string>): string[] {
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
        return Array.isArray(targets) ? unique(targets.flatMap((t) => (Array.isArray(t) ? this.expand(t as string[], seen) : []))) : [];
      }
    }
  }

  /** Servers a list of target references stands for. */
  serversOfTargets(targets: unknown): string[] {
    if (!Array.isArray(targets)) return [];
    if (targets.length === 1) return Array.isArray(targets[0]) ? [...this.targetOnce(targets[0] as string[])] : [];
    return unique(targets.flatMap((t) => (Array.isArray(t) ? this.targetOnce(t as string[]) : [])));
  }

  /**
   * The items of a top-level collection whose targets include `server`, in the collection's order.
   * The collection is indexed once per topology by target list (thousands of applications share a
   * few), so each server's list costs what it holds.
   */
  placedOn(collection: string, server: string): readonly NamedBean[] {
    let index = this.placements.get(collection);
    if (!index) {
      index = { groups: this.groupByTargets(collection), byServer: new Map() };
      this.placements.set(collection, index);
    }
    let placed = index.byServer.get(server);
    if (!placed) {
      const groups = index.groups.filter((g) => (g.servers ??= new Set(this.serversOfTargets(g.targets))).has(server));
      placed = groups.length === 1 ? groups[0]!.items.map(([, item]) => item) : groups.flatMap((g) => g.items).sort(([a], [b]) => a - b).map(([, item]) => item);
      index.byServer.set(server, placed);
    }
    return placed;
  }

  /** The items of a collection, grouped by the servers their targets stand for. */
  private groupByTargets(collection: string): PlacementGroup[] {
    const groups = new Map<string, PlacementGroup>();
    this.items([], collection).forEach((item, position) => {
      const targets = item.values.targets;
      if (!Array.isArray(targets) || targets.length === 0) return;
      const key = targetsKey(targets);
      let group = groups.get(key);
      if (!group) {
        group = { targets, items: [] };
        groups.set(key, group);
      }
      group.items.push([position, item]);
    });
    return [...groups.values()];
  }

  partitions(): NamedBean[] {
    return this.items([], 'partitions');
  }

  resourceGroups(partition: NamedBean): NamedBean[] {
    return this.items(partition.identity, 'resourceGroups');
  }

  /** Servers a resource group of a partition runs on (its own targets, or the partition's defaults). */
  resourceGroupServers(partition: NamedBean | undefined, rg: NamedBean): readonly string[] {
    const key = JSON.stringify([partition?.name ?? null, rg.name]);
    let servers = this.groupPlaces.get(key);
    if (!servers) {
      const useDefault = rg.values.useDefaultTarget !== false && (!Array.isArray(rg.values.targets) || rg.values.targets.length === 0);
      servers = this.serversOfTargets(useDefault && partition ? partition.values.defaultTargets : rg.values.targets);
      this.groupPlaces.set(key, servers);
    }
    return servers;
  }

  /** Every server a partition is targeted to through its resource groups. */
  partitionServers(partition: NamedBean): readonly string[] {
    let servers = this.partitionPlaces.get(partition.name);
    if (!servers) {
      const rgs = this.resourceGroups(partition);
      const fromGroups = rgs.flatMap((rg) => this.resourceGroupServers(partition, rg));
      servers = unique(rgs.length > 0 ? fromGroups : this.serversOfTargets(partition.values.defaultTargets));
      this.partitionPlaces.set(partition.name, servers);
    }
    return servers;
  }

  /** The servers the partition named is targeted to (none when there is no such partition). */
  partitionServersOf(name: string): readonly string[] {
    const partition = this.byName('partitions', name);
    return partition ? this.partitionServers(partition) : [];
  }

  appDeployments(): NamedBean[] {
    return this.items([], 'appDeployments');
  }
}

/** Target lists by their text, kept with the list itself (a record not changed keeps its list). */
const TARGETS_KEYS = new WeakMap<unknown[], string>();

function targetsKey(targets: unknown[]): string {
  let key = TARGETS_KEYS.get(targets);
  if (key === undefined) {
    key = JSON.stringify(targets);
    TARGETS_KEYS.set(targets, key);
  }
  return key;
}

function unique(list: string[]): string[] {
  return [...new Set(list)];
}
