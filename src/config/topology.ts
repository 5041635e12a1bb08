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

/** Some items of a collection only (named, so that their index is kept apart). */
export interface ItemKind {
  name: string;
  accept: (item: NamedBean) => boolean;
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
  private readonly placements = new Map<string, { groups: PlacementGroup[]; byServer: Map<string, NamedBean[]>; byGroups: Map<string, NamedBean[]> }>();
  private readonly partitionPlaces = new Map<string, readonly string[]>();
  private readonly groupPlaces = new Map<string, readonly string[]>();
  private partitionsByServer?: Map<string, NamedBean[]>;

  private readonly config: WithDynamicServers;

  /** `retained`: dynamic servers a shrunk cluster dropped that are still listed while they stop. */
  constructor(config: TreeSource, retained: readonly string[] = []) {
    this.config = withDynamicServers(config, retained);
  }

  /**
   * Takes over from the topology of the previous configuration version what the changes between
   * them cannot have moved: the lists of the top-level collections where no item came or went
   * (their records are the same objects, but for the items changed, read again), their indexes by
   * name, and how their items group by target list (the items changed moved to the group of their
   * new targets); the servers those targets stand for are computed again (cluster members may have
   * moved). The servers' own list is taken over only when nothing their dynamic servers are made
   * from changed (clusters' dynamic servers, server templates, machines, the domain itself), and
   * clusters' members too when no changed server moved to another cluster.
   */
  carry(previous: Topology, changes: readonly { operation: string; identity: readonly string[] }[]): this {
    // Taken over once (the runtime carries as soon as it is told of the activation, and again when it follows it).
    if (this.carried === previous) return this;
    this.carried = previous;
    const cameOrWent = new Set<string>();
    const changed = new Map<string, Set<string>>();
    for (const c of changes) {
      const [collection, name] = c.identity;
      if (collection === undefined) continue;
      if (name === undefined || (c.identity.length === 2 && c.operation !== 'modify')) cameOrWent.add(collection);
      else if (c.identity.length === 2) changed.set(collection, (changed.get(collection) ?? new Set()).add(name));
    }
    const servers = this.config.adopt(previous.config, changes);
    const keep = (collection: string) => !collection.includes('/') && (collection !== 'servers' || servers) && !cameOrWent.has(collection);
    /** Where the items changed stand in each list taken over (the same place in both versions). */
    const positions = new Map<string, number[]>();
    for (const [key, list] of previous.lists) {
      if (!keep(key) || this.lists.has(key)) continue;
      const names = changed.get(key);
      if (!names) {
        this.lists.set(key, list);
        continue;
      }
      const at: number[] = [];
      for (let i = 0; i < list.length; i++) if (names.has(list[i]!.name)) at.push(i);
      const fresh = list.slice();
      let gone = false;
      for (const i of at) {
        const b = this.reread(key, list[i]!);
        if (b) fresh[i] = b;
        else gone = true;
      }
      if (gone) continue;
      this.lists.set(key, fresh);
      positions.set(key, at);
    }
    for (const [key, index] of previous.named) {
      if (!keep(key) || this.named.has(key)) continue;
      const names = changed.get(key);
      const list = this.lists.get(key);
      if (!names) this.named.set(key, index);
      else if (list) {
        const updated = new Map(index);
        for (const b of list) if (names.has(b.name)) updated.set(b.name, b);
        this.named.set(key, updated);
      }
    }
    if (servers && previous.members && this.lists.has('servers')) {
      const names = changed.get('servers') ?? new Set<string>();
      const cluster = (t: Topology, name: string) => JSON.stringify(t.server(name)?.values.cluster ?? null);
      if ([...names].every((n) => cluster(previous, n) === cluster(this, n))) this.members = previous.members;
    }
    for (const [key, index] of previous.placements) {
      const [collection, kind] = key.split('\0') as [string, string | undefined];
      if (!keep(collection) || this.placements.has(key)) continue;
      const names = changed.get(collection);
      // An index of some items only is made again when any item changed (one may have become of the kind).
      if (kind !== undefined && names) continue;
      const groups = names ? this.regroup(key, index.groups, previous.lists.get(key), positions.get(key)) : index.groups.map((g) => ({ targets: g.targets, items: g.items }));
      if (groups) this.placements.set(key, { groups, byServer: new Map(), byGroups: new Map() });
    }
    this.carriedFrom = servers ? previous : undefined;
    return this;
  }

  private carried: Topology | undefined;

  /** The topology this one took the servers' list over from (the same servers, with the same states' meaning). */
  carriedFrom: Topology | undefined;

  /**
   * The previous grouping of a collection by target list, with the items changed (at `moved` in
   * both versions' lists) moved from the group of their targets before to the group of their
   * targets now (undefined when there are too many to move one by one: grouped afresh).
   */
  private regroup(collection: string, previous: readonly PlacementGroup[], was: readonly NamedBean[] | undefined, moved: readonly number[] | undefined): PlacementGroup[] | undefined {
    const list = this.lists.get(collection);
    if (!list || !was || !moved || moved.length > 64) return undefined;
    const groups = new Map<string, PlacementGroup>();
    for (const g of previous) groups.set(targetsKey(g.targets), { targets: g.targets, items: g.items });
    const keyOf = (item: NamedBean) => {
      const targets = item.values.targets;
      return Array.isArray(targets) && targets.length > 0 ? targetsKey(targets) : undefined;
    };
    const leaving = new Set(moved);
    for (const position of moved) {
      const key = keyOf(was[position]!);
      const group = key === undefined ? undefined : groups.get(key);
      if (!group) continue;
      const items = group.items.filter((entry) => !leaving.has(entry[0]));
      if (items.length > 0) groups.set(key!, { targets: group.targets, items });
      else groups.delete(key!);
    }
    for (const position of moved) {
      const item = list[position]!;
      const key = keyOf(item);
      if (key === undefined) continue;
      const group = groups.get(key);
      if (!group) {
        groups.set(key, { targets: item.values.targets as unknown[], items: [[position, item]] });
        continue;
      }
      // In the collection's order, as grouping afresh would have it.
      const items = [...group.items];
      let at = items.length;
      while (at > 0 && items[at - 1]![0] > position) at--;
      items.splice(at, 0, [position, item]);
      groups.set(key, { targets: group.targets, items });
    }
    return [...groups.values()];
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
    const names = this.config.itemNames(cKey);
    const records = this.config.itemRecords(cKey);
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      const record = records !== undefined ? records[i] : this.config.bean(itemKey(cKey, name));
      if (record) out.push({ name, identity: parent.length === 0 ? [collection, name] : [...parent, collection, name], values: record.values, type: record.type });
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
  placedOn(collection: string, server: string, only?: ItemKind): readonly NamedBean[] {
    const indexKey = only ? `${collection}\0${only.name}` : collection;
    let index = this.placements.get(indexKey);
    if (!index) {
      index = { groups: this.groupByTargets(collection, only?.accept), byServer: new Map(), byGroups: new Map() };
      this.placements.set(indexKey, index);
    }
    let placed = index.byServer.get(server);
    if (!placed) {
      const matched: number[] = [];
      index.groups.forEach((g, i) => {
        if ((g.servers ??= new Set(this.serversOfTargets(g.targets))).has(server)) matched.push(i);
      });
      // Servers in the same groups (a cluster's members) share one list.
      const key = matched.join(',');
      placed = index.byGroups.get(key);
      if (!placed) {
        const groups = matched.map((i) => index!.groups[i]!);
        placed = groups.length === 1 ? groups[0]!.items.map((entry) => entry[1]) : groups.flatMap((g) => g.items).sort((a, b) => a[0] - b[0]).map((entry) => entry[1]);
        index.byGroups.set(key, placed);
      }
      index.byServer.set(server, placed);
    }
    return placed;
  }

  /** The items of a collection, grouped by the servers their targets stand for. */
  private groupByTargets(collection: string, accept?: (item: NamedBean) => boolean): PlacementGroup[] {
    const groups = new Map<string, PlacementGroup>();
    this.items([], collection).forEach((item, position) => {
      if (accept !== undefined && !accept(item)) return;
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

  /** The partitions targeted to the server named, in the partitions' order (one pass over them per topology). */
  partitionsOn(server: string): readonly NamedBean[] {
    if (!this.partitionsByServer) {
      this.partitionsByServer = new Map();
      for (const p of this.partitions()) {
        for (const s of this.partitionServers(p)) {
          const list = this.partitionsByServer.get(s);
          if (list) list.push(p);
          else this.partitionsByServer.set(s, [p]);
        }
      }
    }
    return this.partitionsByServer.get(server) ?? [];
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

/**
 * A target list as text, the same for equal lists only. A list of references (each a list of names)
 * is written as every name preceded by its length, each reference closed by ';': no two different
 * lists give the same text, and it costs a fraction of JSON (a start groups 50,000 applications by
 * it). Anything else is written as JSON, which begins with '[' where the other never does.
 */
function targetsKey(targets: unknown[]): string {
  let key = '';
  for (const target of targets) {
    if (!Array.isArray(target)) return JSON.stringify(targets);
    for (const segment of target) {
      if (typeof segment !== 'string') return JSON.stringify(targets);
      key += `${segment.length}:${segment}`;
    }
    key += ';';
  }
  return key;
}

function unique(list: string[]): string[] {
  return [...new Set(list)];
}
