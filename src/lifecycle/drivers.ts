// How the Lifecycle Manager acts on a runtime: this domain through its own configuration (an
// activated edit), another appserver-admin server through its REST interface, and databases and
// traffic directors through the partitions recorded for them (PDBs, routes).
import { randomUUID } from 'node:crypto';
import type { ConfigService, EditTransaction } from '../config/config-service.js';
import type { Secrets } from '../config/secrets.js';
import { isSealed } from '../config/secrets.js';
import type { Topology } from '../config/topology.js';
import { ApiError, badRequest } from '../http/errors.js';
import { type Property, type Runtime, type RuntimePartition, nested, propertyValue, propertyValues } from './model.js';

export interface RuntimeDriver {
  partitions(rt: Runtime): Promise<RuntimePartition[]>;
  /** Creates a partition on the runtime (or registers an existing one when `id` is given). */
  createPartition(rt: Runtime, name: string, id: string | undefined, properties: Property[], user: string): Promise<RuntimePartition>;
  deletePartition(rt: Runtime, name: string, user: string): Promise<void>;
  /** Points a JDBC system resource of a partition of this runtime at a database (associations). */
  pointDataSource?(rt: Runtime, partition: string, dataSource: string, url: string, override: boolean, user: string): Promise<void>;
}

/** Target references for names of servers, clusters or virtual targets of a configuration. */
function targetRefs(topology: Topology, names: string[] | undefined): string[][] | undefined {
  if (!names) return undefined;
  return names.map((name) => {
    for (const c of ['virtualTargets', 'servers', 'clusters']) if (topology.bean([c, name])) return [c, name];
    throw badRequest(`There is no server, cluster or virtual target named '${name}' in this domain.`, 'targets');
  });
}

/** Resource groups a partition's properties describe: `resourceGroups` -> {rgName: {targets, useDefaultTarget, ...}}. */
function resourceGroupsOf(properties: Property[]): { name: string; props: Property[] }[] {
  return (nested(properties, 'resourceGroups') ?? []).map((rg) => ({ name: rg.name, props: rg.properties ?? [] }));
}

/** This domain: partitions are configuration beans, made and removed by activated edits. */
export class LocalDriver implements RuntimeDriver {
  constructor(
    private readonly config: ConfigService,
    private readonly topology: () => Topology,
  ) {}

  async partitions(): Promise<RuntimePartition[]> {
    return this.topology()
      .partitions()
      .map((p) => ({ name: p.name, id: String(p.values.partitionID ?? p.name), properties: [] }));
  }

  async createPartition(_rt: Runtime, name: string, id: string | undefined, properties: Property[], user: string): Promise<RuntimePartition> {
    const t = this.topology();
    const existing = t.partitions().find((p) => p.name === name);
    if (id !== undefined) {
      // Registering: the partition must already exist with that id.
      if (!existing) throw badRequest(`There is no partition '${name}' in this domain to register.`, 'name');
      return { name, id: String(existing.values.partitionID ?? id), properties };
    }
    if (existing) throw badRequest(`Partition '${name}' already exists on this runtime.`, 'name');
    const partitionID = randomUUID();
    const available = targetRefs(t, propertyValues(properties, 'availableTargets') ?? propertyValues(properties, 'targets'));
    const defaults = targetRefs(t, propertyValues(properties, 'targets') ?? propertyValues(properties, 'availableTargets'));
    await this.config.transaction(user, 'default', (tx: EditTransaction) => {
      tx.create([], 'partitions', {
        name,
        partitionID,
        ...(available ? { availableTargets: available } : {}),
        ...(defaults ? { defaultTargets: defaults } : {}),
      });
      for (const rg of resourceGroupsOf(properties)) {
        const targets = targetRefs(t, propertyValues(rg.props, 'targets'));
        const template = propertyValue(rg.props, 'resourceGroupTemplate');
        const useDefault = propertyValue(rg.props, 'useDefaultTarget');
        tx.create(['partitions', name], 'resourceGroups', {
          name: rg.name,
          ...(targets ? { targets } : {}),
          ...(useDefault !== undefined ? { useDefaultTarget: useDefault === 'true' } : {}),
          ...(template ? { resourceGroupTemplate: ['resourceGroupTemplates', template] } : {}),
        });
      }
    });
    return { name, id: partitionID, properties };
  }

  async deletePartition(_rt: Runtime, name: string, user: string): Promise<void> {
    if (!this.topology().partitions().some((p) => p.name === name)) throw badRequest(`There is no partition '${name}' on this runtime.`, 'name');
    await this.config.transaction(user, 'default', (tx) => tx.delete(['partitions', name]));
  }

  async pointDataSource(_rt: Runtime, partition: string, dataSource: string, url: string, override: boolean, user: string): Promise<void> {
    const t = this.topology();
    const p = t.partitions().find((x) => x.name === partition);
    if (!p) throw badRequest(`There is no partition '${partition}' on this runtime.`);
    await this.config.transaction(user, 'default', (tx) => {
      if (override) {
        const id = ['partitions', partition, 'JDBCSystemResourceOverrides', dataSource];
        if (tx.exists(id)) tx.update(id, { URL: url });
        else tx.create(['partitions', partition], 'JDBCSystemResourceOverrides', { name: dataSource, URL: url });
        return;
      }
      const rg = t.resourceGroups(p).find((g) => t.bean([...g.identity, 'JDBCSystemResources', dataSource]));
      if (!rg) throw badRequest(`Partition '${partition}' has no JDBC system resource '${dataSource}' in any resource group.`, 'jdbcSystemResource');
      tx.update([...rg.identity, 'JDBCSystemResources', dataSource, 'JDBCResource', 'JDBCDriverParams'], { url });
    });
  }
}

/** Another appserver-admin server, driven through its management interface. */
export class RemoteDriver implements RuntimeDriver {
  constructor(private readonly secrets: Secrets) {}

  private base(rt: Runtime): string {
    return `${rt.protocol || 'http'}://${rt.hostName}:${rt.port}/management/appserver/latest`;
  }

  private async call(rt: Runtime, method: string, path: string, body?: unknown): Promise<unknown> {
    const user = propertyValue(rt.properties, 'username') ?? '';
    const secret = rt.properties.find((p) => p.name === 'password');
    const raw = secret?.confidentialValue ?? secret?.value ?? '';
    const password = isSealed(raw) ? this.secrets.open(raw) : String(raw);
    let res: Response;
    try {
      res = await fetch(`${this.base(rt)}${path}`, {
        method,
        headers: {
          authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
          accept: 'application/json',
          'content-type': 'application/json',
          'x-requested-by': 'appserver-lifecycle',
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(15_000),
      });
    } catch (err) {
      throw new ApiError(502, [{ detail: `Runtime '${rt.name}' at ${this.base(rt)} could not be reached: ${(err as Error).message}.` }]);
    }
    const text = await res.text();
    let json: Record<string, unknown> = {};
    try {
      json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      throw new ApiError(502, [{ detail: `Runtime '${rt.name}' at ${this.base(rt)} answered ${method} ${path} with ${res.status} and a body that is not JSON: is it an appserver administration server?` }]);
    }
    if (res.status >= 400) {
      const detail = typeof json.detail === 'string' ? json.detail : JSON.stringify(json);
      throw badRequest(`Runtime '${rt.name}' refused ${method} ${path} (${res.status}): ${detail}`);
    }
    return json;
  }

  async partitions(rt: Runtime): Promise<RuntimePartition[]> {
    const body = (await this.call(rt, 'GET', '/edit/partitions?links=none&fields=name,partitionID')) as { items?: { name: string; partitionID: string | null }[] };
    return (body.items ?? []).map((p) => ({ name: p.name, id: p.partitionID ?? p.name, properties: [] }));
  }

  async createPartition(rt: Runtime, name: string, id: string | undefined, properties: Property[]): Promise<RuntimePartition> {
    if (id !== undefined) {
      const found = (await this.partitions(rt)).find((p) => p.name === name);
      if (!found) throw badRequest(`Runtime '${rt.name}' has no partition '${name}' to register.`, 'name');
      return { ...found, properties };
    }
    const partitionID = randomUUID();
    const available = await this.targetRefs(rt, propertyValues(properties, 'availableTargets') ?? propertyValues(properties, 'targets'));
    const defaults = await this.targetRefs(rt, propertyValues(properties, 'targets') ?? propertyValues(properties, 'availableTargets'));
    await this.call(rt, 'POST', '/edit/partitions', {
      name,
      partitionID,
      ...(available ? { availableTargets: available.map((identity) => ({ identity })) } : {}),
      ...(defaults ? { defaultTargets: defaults.map((identity) => ({ identity })) } : {}),
    });
    try {
      for (const rg of resourceGroupsOf(properties)) {
        const targets = await this.targetRefs(rt, propertyValues(rg.props, 'targets'));
        const useDefault = propertyValue(rg.props, 'useDefaultTarget');
        const template = propertyValue(rg.props, 'resourceGroupTemplate');
        await this.call(rt, 'POST', `/edit/partitions/${encodeURIComponent(name)}/resourceGroups`, {
          name: rg.name,
          ...(targets ? { targets: targets.map((identity) => ({ identity })) } : {}),
          ...(useDefault !== undefined ? { useDefaultTarget: useDefault === 'true' } : {}),
          ...(template ? { resourceGroupTemplate: ['resourceGroupTemplates', template] } : {}),
        });
      }
    } catch (err) {
      await this.call(rt, 'DELETE', `/edit/partitions/${encodeURIComponent(name)}`).catch(() => undefined);
      throw err;
    }
    return { name, id: partitionID, properties };
  }

  async deletePartition(rt: Runtime, name: string): Promise<void> {
    await this.call(rt, 'DELETE', `/edit/partitions/${encodeURIComponent(name)}`);
  }

  /** Target references on the remote domain for names of its virtual targets, servers or clusters. */
  private async targetRefs(rt: Runtime, names: string[] | undefined): Promise<string[][] | undefined> {
    if (!names) return undefined;
    const out: string[][] = [];
    for (const name of names) {
      let found: string[] | undefined;
      for (const c of ['virtualTargets', 'servers', 'clusters']) {
        const ok = await this.call(rt, 'GET', `/edit/${c}/${encodeURIComponent(name)}?links=none&fields=name`).then(
          () => true,
          () => false,
        );
        if (ok) {
          found = [c, name];
          break;
        }
      }
      if (!found) throw badRequest(`Runtime '${rt.name}' has no server, cluster or virtual target named '${name}'.`, 'targets');
      out.push(found);
    }
    return out;
  }

  async pointDataSource(rt: Runtime, partition: string, dataSource: string, url: string, override: boolean): Promise<void> {
    const p = `/edit/partitions/${encodeURIComponent(partition)}`;
    const ds = encodeURIComponent(dataSource);
    if (override) {
      const exists = await this.call(rt, 'GET', `${p}/JDBCSystemResourceOverrides/${ds}?links=none&fields=name`).then(
        () => true,
        () => false,
      );
      if (exists) await this.call(rt, 'POST', `${p}/JDBCSystemResourceOverrides/${ds}`, { URL: url });
      else await this.call(rt, 'POST', `${p}/JDBCSystemResourceOverrides`, { name: dataSource, URL: url });
      return;
    }
    const groups = (await this.call(rt, 'GET', `${p}/resourceGroups?links=none&fields=name`)) as { items?: { name: string }[] };
    for (const g of groups.items ?? []) {
      const rg = `${p}/resourceGroups/${encodeURIComponent(g.name)}/JDBCSystemResources/${ds}`;
      const here = await this.call(rt, 'GET', `${rg}?links=none&fields=name`).then(
        () => true,
        () => false,
      );
      if (here) {
        await this.call(rt, 'POST', `${rg}/JDBCResource/JDBCDriverParams`, { url });
        return;
      }
    }
    throw badRequest(`Partition '${partition}' of runtime '${rt.name}' has no JDBC system resource '${dataSource}' in any resource group.`, 'jdbcSystemResource');
  }
}

/** Databases (PDBs) and traffic directors: their partitions are the records kept here. */
export class RecordedDriver implements RuntimeDriver {
  async partitions(rt: Runtime): Promise<RuntimePartition[]> {
    return rt.partitions;
  }

  async createPartition(rt: Runtime, name: string, id: string | undefined, properties: Property[]): Promise<RuntimePartition> {
    if (rt.partitions.some((p) => p.name === name)) throw badRequest(`Partition '${name}' already exists on runtime '${rt.name}'.`, 'name');
    const partition = { name, id: id ?? randomUUID(), properties };
    rt.partitions.push(partition);
    return partition;
  }

  async deletePartition(rt: Runtime, name: string): Promise<void> {
    rt.partitions = rt.partitions.filter((p) => p.name !== name);
  }
}
