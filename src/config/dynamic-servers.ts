// The configuration with its dynamic servers: a tree source over the activated configuration that
// lists each dynamic cluster's servers among the domain's `servers`, as beans made from their
// template (name, listen ports and machine calculated, marked `dynamicallyCreated`). Nothing of it
// is stored: the servers follow the configuration they are computed from. A server a shrunk
// cluster dropped can be kept while it stops (`retained`).
import { ConfigIndex } from '../behaviour/config-view.js';
import { type DynamicServer, dynamicServers, formerDynamicServer } from '../behaviour/dynamic-servers.js';
import { itemKey, segmentKey } from '../core/identity.js';
import type { BeanRecord, TreeSource } from '../tree/records.js';

const C = 'appserver.management.configuration.';
const SERVER = `${C}ServerMBean`;
const SSL = `${C}SSLMBean`;
const PREFIX = 'servers/';

export class WithDynamicServers implements TreeSource {
  private index?: Map<string, DynamicServer>;
  private names?: readonly string[];
  private roots = new Map<string, BeanRecord>();

  constructor(
    readonly inner: TreeSource,
    readonly retained: readonly string[] = [],
  ) {}

  /** The dynamic servers, by the key segment of their name. */
  private servers(): Map<string, DynamicServer> {
    if (!this.index) {
      const view = new ConfigIndex(this.inner);
      const all = [...dynamicServers(view)];
      for (const name of this.retained) {
        if (all.some((d) => d.name === name)) continue;
        const former = formerDynamicServer(view, name);
        if (former) all.push(former);
      }
      this.index = new Map(all.map((d) => [segmentKey(d.name), d]));
    }
    return this.index;
  }

  /** The dynamic server named (undefined for a configured server or none). */
  dynamic(name: string): DynamicServer | undefined {
    return this.servers().get(segmentKey(name));
  }

  /**
   * Takes over the dynamic servers `previous` computed when `changes` (made to the configuration
   * since) cannot have moved them: nothing changed of clusters but their own values, of server
   * templates, machines or the domain, and no server came or went. True when taken over (the
   * servers' list is then the same).
   */
  adopt(previous: WithDynamicServers, changes: readonly { operation: string; identity: readonly string[] }[]): boolean {
    if (previous === this) return true;
    if (previous.retained.length !== this.retained.length || previous.retained.some((n, i) => n !== this.retained[i])) return false;
    for (const c of changes) {
      const [collection, name] = c.identity;
      if (collection === undefined || collection === 'serverTemplates' || collection === 'machines') return false;
      const top = c.identity.length === 2 && c.operation === 'modify';
      if (collection === 'clusters' && !top) return false;
      if (collection === 'servers' && (name === undefined || (c.identity.length === 2 && !top))) return false;
    }
    this.index ??= previous.index;
    this.names ??= previous.names;
    if (this.roots.size === 0) this.roots = previous.roots;
    return true;
  }

  /** Whether `name` would be a dynamic server of a cluster grown large enough. */
  couldBeDynamic(name: string): boolean {
    return this.dynamic(name) !== undefined || formerDynamicServer(new ConfigIndex(this.inner), name) !== undefined;
  }

  bean(key: string): BeanRecord | undefined {
    if (!key.startsWith(PREFIX)) return this.inner.bean(key);
    const rest = key.slice(PREFIX.length);
    const slash = rest.indexOf('/');
    const d = this.servers().get(slash < 0 ? rest : rest.slice(0, slash));
    if (!d) return this.inner.bean(key);
    if (slash < 0) return this.root(d);
    const below = rest.slice(slash);
    const record = this.inner.bean(`${itemKey('serverTemplates', d.template)}${below}`);
    // The calculated SSL port is the dynamic server's own.
    if (below === '/SSL' && d.sslListenPort !== undefined) return { type: record?.type ?? SSL, values: { ...record?.values, listenPort: d.sslListenPort } };
    return record;
  }

  itemNames(collectionKey: string): readonly string[] {
    if (collectionKey === 'servers') {
      if (this.servers().size === 0) return this.inner.itemNames(collectionKey);
      return (this.names ??= [...this.inner.itemNames(collectionKey), ...[...this.servers().values()].map((d) => d.name)]);
    }
    if (collectionKey.startsWith(PREFIX)) {
      const rest = collectionKey.slice(PREFIX.length);
      const slash = rest.indexOf('/');
      const d = slash < 0 ? undefined : this.servers().get(rest.slice(0, slash));
      if (d) return this.inner.itemNames(`${itemKey('serverTemplates', d.template)}${rest.slice(slash)}`);
    }
    return this.inner.itemNames(collectionKey);
  }

  itemRecords(collectionKey: string): readonly BeanRecord[] | undefined {
    // Only lists that are the configuration's own: not the servers' (they hold dynamic servers)
    // nor any below a server (a dynamic server's are its template's).
    if (collectionKey === 'servers' ? this.servers().size > 0 : collectionKey.startsWith(PREFIX)) return undefined;
    return this.inner.itemRecords?.(collectionKey);
  }

  /** A dynamic server's own bean: its template's values, with what is calculated for it. */
  private root(d: DynamicServer): BeanRecord {
    let record = this.roots.get(d.name);
    if (!record) {
      const template = this.inner.bean(itemKey('serverTemplates', d.template))?.values ?? {};
      const values: Record<string, unknown> = {};
      const macros = this.macros(d);
      for (const [k, v] of Object.entries(template)) values[k] = typeof v === 'string' && v.includes('${') ? expand(v, macros) : v;
      Object.assign(values, { name: d.name, cluster: ['clusters', d.cluster], serverTemplate: ['serverTemplates', d.template], dynamicallyCreated: true });
      if (d.listenPort !== undefined) values.listenPort = d.listenPort;
      if (d.machine) values.machine = d.machine;
      record = { type: SERVER, values };
      this.roots.set(d.name, record);
    }
    return record;
  }

  /** The macros a template's text values may hold, as the product expands them for each server. */
  private macros(d: DynamicServer): Record<string, string> {
    return {
      id: String(d.index),
      serverName: d.name,
      clusterName: d.cluster,
      domainName: String(this.inner.bean('')?.values.name ?? ''),
      machineName: d.machine?.[1] ?? '',
    };
  }
}

function expand(text: string, macros: Record<string, string>): string {
  return text.replace(/\$\{(id|serverName|clusterName|domainName|machineName)\}/g, (_m, name: string) => macros[name] ?? '');
}

/** The configuration with its dynamic servers (the same source when it already has them). */
export function withDynamicServers(source: TreeSource, retained: readonly string[] = []): WithDynamicServers {
  if (source instanceof WithDynamicServers) return retained.length === 0 && source.retained.length === 0 ? source : new WithDynamicServers(source.inner, retained);
  return new WithDynamicServers(source, retained);
}
