// How the Lifecycle Manager acts on a runtime: this domain through its own configuration (an
// activated edit), another appserver-admin server through its REST interface, and databases and
// traffic directors through the partitions recorded for them (PDBs, routes).
import { LONE_SURROGATE } from '../core/text.js';
import { badGateway, badRequest, gatewayTimeout } from '../core/problems.js';
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { ConfigService, EditTransaction } from '../config/config-service.js';
import type { Secrets } from '../config/secrets.js';
import { isSealed } from '../config/secrets.js';
import type { Topology } from '../config/topology.js';
import { runtimeOrigin, shown } from './address.js';
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

/** Runs `fn` after `ms` milliseconds (a scheduler's clock); the call can be cancelled. */
export type Timer = (ms: number, fn: () => void) => { cancel(): void };

const realTimer: Timer = (ms, fn) => {
  const t = setTimeout(fn, ms);
  t.unref?.();
  return { cancel: () => clearTimeout(t) };
};

/** How long one call to a remote runtime may take, answer included. */
export const CALL_TIMEOUT_MS = 15_000;
/** The most of a remote runtime's answer that is read; a longer one is refused unread. */
export const MAX_ANSWER_BYTES = 1024 * 1024;

const API = '/management/appserver/latest';

/** A name as one segment of a remote path: never empty, `.` or `..` (which would move up the path). */
function segment(name: string, what: string): string {
  if (name === '' || name === '.' || name === '..' || LONE_SURROGATE.test(name)) throw badRequest(`The ${what} ${shown(name)} cannot name anything on a runtime.`);
  return encodeURIComponent(name);
}

/** Why a call failed at the network level, in a word the system gives (never what the remote sent). */
function networkReason(err: unknown): string {
  const code = (err as { cause?: { code?: unknown } })?.cause?.code;
  return typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,40}$/.test(code) ? code : 'network error';
}

/** The answer body, read up to MAX_ANSWER_BYTES; undefined if it is longer. */
async function readCapped(res: Response): Promise<string | undefined> {
  const declared = Number(res.headers.get('content-length') ?? '0');
  if (declared > MAX_ANSWER_BYTES) return undefined;
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Marks a runtime's 404, which some calls read as "not there". */
class Missing extends Error {}

/**
 * Another appserver-admin server, driven through its management interface. Calls go only to the
 * runtime's checked origin, never follow redirects, are bounded in time and in what is read, and
 * report the runtime's failures by status: what a runtime answers is never repeated to the client.
 */
export class RemoteDriver implements RuntimeDriver {
  constructor(
    private readonly secrets: Secrets,
    private readonly after: Timer = realTimer,
  ) {}

  private async call(rt: Runtime, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    const origin = runtimeOrigin(rt);
    const who = `Runtime '${rt.name}' at ${origin}`;
    const what = `${method} ${path}`;
    const user = propertyValue(rt.properties, 'username') ?? '';
    const secret = rt.properties.find((p) => p.name === 'password');
    const raw = secret?.confidentialValue ?? secret?.value ?? '';
    const password = isSealed(raw) ? this.secrets.open(raw) : String(raw);
    const abort = new AbortController();
    let timedOut = false;
    const timer = this.after(CALL_TIMEOUT_MS, () => {
      timedOut = true;
      abort.abort();
    });
    const late = () => gatewayTimeout(`${who} did not answer ${what} within ${CALL_TIMEOUT_MS / 1000} s.`);
    try {
      let res: Response;
      try {
        res = await fetch(`${origin}${API}${path}`, {
          method,
          headers: {
            authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
            accept: 'application/json',
            'accept-encoding': 'identity',
            'content-type': 'application/json',
            'x-requested-by': 'appserver-lifecycle',
          },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
          redirect: 'manual',
          signal: abort.signal,
        });
      } catch (err) {
        if (timedOut) throw late();
        throw badGateway(`${who} could not be reached (${networkReason(err)}).`);
      }
      const status = `${res.status}${STATUS_CODES[res.status] ? ` ${STATUS_CODES[res.status]}` : ''}`;
      if (res.status >= 300 && res.status < 400) {
        throw badGateway(`${who} answered ${what} with a redirect (${status}), which is not followed: give the runtime the host name, port and protocol of the administration server itself.`);
      }
      if (res.status === 404) throw new Missing();
      if (res.status === 401) throw badRequest(`${who} refused the user name and password of runtime '${rt.name}' (${status}) for ${what}.`);
      if (res.status === 403) throw badRequest(`${who} does not allow user '${user}' to ${what} (${status}).`);
      if (res.status >= 500) throw badGateway(`${who} failed ${what} (${status}); its own log tells why.`);
      if (res.status >= 400) throw badRequest(`${who} refused ${what} (${status}).`);
      let text: string | undefined;
      try {
        text = await readCapped(res);
      } catch (err) {
        if (timedOut) throw late();
        throw badGateway(`${who} broke off its answer to ${what} (${networkReason(err)}).`);
      }
      if (text === undefined) throw badGateway(`${who} answered ${what} with more than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB, which is not an answer of an appserver administration server.`);
      let json: unknown = {};
      try {
        json = text ? JSON.parse(text) : {};
      } catch {
        json = undefined;
      }
      if (json === null || typeof json !== 'object' || Array.isArray(json)) {
        throw badGateway(`${who} answered ${what} with ${status} and a body that is not a JSON object: is it an appserver administration server?`);
      }
      return json as Record<string, unknown>;
    } finally {
      timer.cancel();
      // Whatever was not read is dropped with the connection.
      abort.abort();
    }
  }

  /** A resource of the runtime: its JSON, or undefined when the runtime answers 404. */
  private async find(rt: Runtime, path: string): Promise<Record<string, unknown> | undefined> {
    try {
      return await this.call(rt, 'GET', path);
    } catch (err) {
      if (err instanceof Missing) return undefined;
      throw err;
    }
  }

  /** A call whose 404 is an error like any other refusal. */
  private async send(rt: Runtime, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    try {
      return await this.call(rt, method, path, body);
    } catch (err) {
      if (err instanceof Missing) throw badRequest(`Runtime '${rt.name}' at ${runtimeOrigin(rt)} has nothing at ${path} (404 Not Found) for ${method}: is it an appserver administration server?`);
      throw err;
    }
  }

  /** The names (and a field) of a collection the runtime lists; a malformed list is the runtime's error. */
  private items(rt: Runtime, path: string, body: Record<string, unknown>): Record<string, unknown>[] {
    const items = body.items ?? [];
    const ok = Array.isArray(items) && items.every((i) => i !== null && typeof i === 'object' && typeof (i as { name?: unknown }).name === 'string');
    if (!ok) throw badGateway(`Runtime '${rt.name}' at ${runtimeOrigin(rt)} answered GET ${path} with something that is not a collection of named items.`);
    return items as Record<string, unknown>[];
  }

  async partitions(rt: Runtime): Promise<RuntimePartition[]> {
    const path = '/edit/partitions?links=none&fields=name,partitionID';
    return this.items(rt, path, await this.send(rt, 'GET', path)).map((p) => ({
      name: p.name as string,
      id: typeof p.partitionID === 'string' ? p.partitionID : (p.name as string),
      properties: [],
    }));
  }

  async createPartition(rt: Runtime, name: string, id: string | undefined, properties: Property[]): Promise<RuntimePartition> {
    const partitionPath = `/edit/partitions/${segment(name, 'partition name')}`;
    if (id !== undefined) {
      const found = (await this.partitions(rt)).find((p) => p.name === name);
      if (!found) throw badRequest(`Runtime '${rt.name}' has no partition '${name}' to register.`, 'name');
      return { ...found, properties };
    }
    const partitionID = randomUUID();
    const available = await this.targetRefs(rt, propertyValues(properties, 'availableTargets') ?? propertyValues(properties, 'targets'));
    const defaults = await this.targetRefs(rt, propertyValues(properties, 'targets') ?? propertyValues(properties, 'availableTargets'));
    const groups = resourceGroupsOf(properties).map((rg) => ({ ...rg, segment: segment(rg.name, 'resource group name') }));
    await this.send(rt, 'POST', '/edit/partitions', {
      name,
      partitionID,
      ...(available ? { availableTargets: available.map((identity) => ({ identity })) } : {}),
      ...(defaults ? { defaultTargets: defaults.map((identity) => ({ identity })) } : {}),
    });
    try {
      for (const rg of groups) {
        const targets = await this.targetRefs(rt, propertyValues(rg.props, 'targets'));
        const useDefault = propertyValue(rg.props, 'useDefaultTarget');
        const template = propertyValue(rg.props, 'resourceGroupTemplate');
        await this.send(rt, 'POST', `${partitionPath}/resourceGroups`, {
          name: rg.name,
          ...(targets ? { targets: targets.map((identity) => ({ identity })) } : {}),
          ...(useDefault !== undefined ? { useDefaultTarget: useDefault === 'true' } : {}),
          ...(template ? { resourceGroupTemplate: ['resourceGroupTemplates', template] } : {}),
        });
      }
    } catch (err) {
      await this.send(rt, 'DELETE', partitionPath).catch(() => undefined);
      throw err;
    }
    return { name, id: partitionID, properties };
  }

  async deletePartition(rt: Runtime, name: string): Promise<void> {
    await this.send(rt, 'DELETE', `/edit/partitions/${segment(name, 'partition name')}`);
  }

  /** Target references on the remote domain for names of its virtual targets, servers or clusters. */
  private async targetRefs(rt: Runtime, names: string[] | undefined): Promise<string[][] | undefined> {
    if (!names) return undefined;
    const out: string[][] = [];
    for (const name of names) {
      const target = segment(name, 'target name');
      let found: string[] | undefined;
      for (const c of ['virtualTargets', 'servers', 'clusters']) {
        if (await this.find(rt, `/edit/${c}/${target}?links=none&fields=name`)) {
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
    const p = `/edit/partitions/${segment(partition, 'partition name')}`;
    const ds = segment(dataSource, 'data source name');
    if (override) {
      const exists = await this.find(rt, `${p}/JDBCSystemResourceOverrides/${ds}?links=none&fields=name`);
      if (exists) await this.send(rt, 'POST', `${p}/JDBCSystemResourceOverrides/${ds}`, { URL: url });
      else await this.send(rt, 'POST', `${p}/JDBCSystemResourceOverrides`, { name: dataSource, URL: url });
      return;
    }
    const path = `${p}/resourceGroups?links=none&fields=name`;
    for (const g of this.items(rt, path, await this.send(rt, 'GET', path))) {
      const rg = `${p}/resourceGroups/${segment(g.name as string, 'resource group name')}/JDBCSystemResources/${ds}`;
      if (await this.find(rt, `${rg}?links=none&fields=name`)) {
        await this.send(rt, 'POST', `${rg}/JDBCResource/JDBCDriverParams`, { url });
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
