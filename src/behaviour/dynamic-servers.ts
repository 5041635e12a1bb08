// Dynamic clusters: a cluster whose `dynamicServers` names a server template and a size has that
// many servers computed from the configuration, never stored. The n-th (from 1) is named by the
// prefix and n; its listen ports are calculated from the template's (its port + n, or 7100 + n and
// 8100 + n for SSL when the template leaves them at their defaults); machines are handed out in
// turn from those the match expression selects. Also the rule that keeps a dynamic cluster's
// servers valid (names, ports, no clash with a configured server) and their names as
// `dynamicServerNames` shows them.
import { invalid, type ProblemDetail } from '../core/problems.js';
import { childKey, itemKey, parseReference, upKey } from '../core/identity.js';
import { nameProblem } from '../core/text.js';
import type { BeanLookup, ConfigIndex } from './config-view.js';
import { type ConfigView, configRule } from './config-rules.js';
import type { BehaviourRegistry } from './registry.js';

/** The most servers a dynamic cluster may have (the product's limit on its size). */
export const DYNAMIC_SIZE_LIMIT = 800;
/** First calculated listen ports when the template keeps its default ports (the product's bases). */
export const LISTEN_PORT_BASE = 7100;
export const SSL_LISTEN_PORT_BASE = 8100;
const PORT_MAX = 65535;

const C = 'appserver.management.configuration.';

/** What a cluster's `dynamicServers` says, resolved with its defaults. */
export interface DynamicSettings {
  cluster: string;
  template: string;
  size: number;
  prefix: string;
  calculatedPorts: boolean;
  calculatedMachines: boolean;
  machineExpression: string | null;
  /** The template's listen port and SSL listen port when it sets them (undefined: its defaults). */
  templatePort: number | undefined;
  templateSslPort: number | undefined;
}

/** One dynamic server. */
export interface DynamicServer {
  name: string;
  index: number;
  cluster: string;
  template: string;
  /** Calculated ports (absent when ports are not calculated: the template's apply). */
  listenPort?: number;
  sslListenPort?: number;
  /** The machine it was given (absent when machines are not calculated). */
  machine?: string[];
}

// Values as stored, or as a request sends them (numbers and booleans may come as text, references
// as `{identity}`); anything else is left to the write's own validation.
const num = (v: unknown): number | undefined => {
  const n = typeof v === 'string' && /^-?\d{1,10}$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isSafeInteger(n) ? n : undefined;
};
const bool = (v: unknown, dflt: boolean): boolean => (typeof v === 'boolean' ? v : v === 'true' ? true : v === 'false' ? false : dflt);

/** The prefix a dynamic cluster names its servers with when it sets none: the cluster's name and a dash. */
export function defaultPrefix(cluster: string): string {
  return `${cluster}-`;
}

/** The settings of a cluster's dynamic servers, `changes` applied; undefined when it names no template. */
export function settingsOf(source: BeanLookup, cluster: string, changes: Record<string, unknown> = {}): DynamicSettings | undefined {
  const values: Record<string, unknown> = { ...source.bean(childKey(itemKey('clusters', cluster), 'dynamicServers'))?.values };
  // A change to null sets a property back to its default.
  for (const [k, v] of Object.entries(changes)) if (v === null) delete values[k];
  else values[k] = v;
  const template = parseReference(values.serverTemplate);
  if (!template || template.length !== 2 || template[0] !== 'serverTemplates') return undefined;
  const t = source.bean(itemKey('serverTemplates', template[1]!));
  if (!t) return undefined;
  const size = num(values.dynamicClusterSize) ?? 0;
  return {
    cluster,
    template: template[1]!,
    size: Math.max(0, Math.min(DYNAMIC_SIZE_LIMIT, size)),
    prefix: typeof values.serverNamePrefix === 'string' ? values.serverNamePrefix : defaultPrefix(cluster),
    calculatedPorts: bool(values.calculatedListenPorts, true),
    calculatedMachines: bool(values.calculatedMachineNames, false),
    machineExpression: typeof values.machineNameMatchExpression === 'string' ? values.machineNameMatchExpression : null,
    templatePort: num(t.values.listenPort),
    templateSslPort: num(source.bean(childKey(itemKey('serverTemplates', template[1]!), 'SSL'))?.values.listenPort),
  };
}

/** Calculated listen ports of the n-th server (undefined when ports are not calculated). */
export function portsOf(s: DynamicSettings, index: number): { listenPort: number; sslListenPort: number } | undefined {
  if (!s.calculatedPorts) return undefined;
  return { listenPort: (s.templatePort ?? LISTEN_PORT_BASE) + index, sslListenPort: (s.templateSslPort ?? SSL_LISTEN_PORT_BASE) + index };
}

/** Why the settings cannot make their servers (each problem naming the property at fault). */
export function settingsProblems(source: BeanLookup, s: DynamicSettings): ProblemDetail[] {
  const problems: ProblemDetail[] = [];
  if (s.size === 0) return problems;
  const nameIssue = nameProblem(`${s.prefix}1`) ?? nameProblem(`${s.prefix}${s.size}`);
  if (nameIssue !== undefined) {
    const names = s.size === 1 ? `'${s.prefix}1'` : `'${s.prefix}1' to '${s.prefix}${s.size}'`;
    problems.push({ path: 'serverNamePrefix', detail: `The dynamic servers of cluster '${s.cluster}' would be named ${names}, but a server name ${nameIssue}.` });
  }
  const last = portsOf(s, s.size);
  if (last && Math.max(last.listenPort, last.sslListenPort) > PORT_MAX) {
    problems.push({
      path: 'dynamicClusterSize',
      detail: `Cluster '${s.cluster}' cannot have ${s.size} dynamic servers: their calculated listen ports would reach ${Math.max(last.listenPort, last.sslListenPort)}, beyond ${PORT_MAX}.`,
    });
  }
  for (let i = 1; i <= s.size && problems.length === 0; i++) {
    const name = `${s.prefix}${i}`;
    if (source.bean(itemKey('servers', name))) {
      problems.push({ path: 'dynamicClusterSize', detail: `The dynamic server '${name}' of cluster '${s.cluster}' would have the name of the configured server '${name}'.` });
    }
  }
  return problems;
}

/** Whether the settings make valid servers (a server name, ports in range). */
function usable(s: DynamicSettings): boolean {
  const last = portsOf(s, s.size);
  return nameProblem(`${s.prefix}1`) === undefined && nameProblem(`${s.prefix}${s.size}`) === undefined && (!last || Math.max(last.listenPort, last.sslListenPort) <= PORT_MAX);
}

/** The machines a cluster's dynamic servers are handed, in the domain's order. */
function machinesFor(view: ConfigIndex, s: DynamicSettings): string[] {
  const all = view.once('machine-names', () => view.items([], 'machines').map((m) => m.name));
  if (s.machineExpression === null || s.machineExpression.trim() === '') return all;
  const patterns = s.machineExpression
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  return all.filter((m) => patterns.some((p) => (p.endsWith('*') ? m.startsWith(p.slice(0, -1)) : m === p)));
}

/** The n-th dynamic server of a cluster (n may lie beyond its size: a server being retired). */
export function dynamicServerAt(view: ConfigIndex, s: DynamicSettings, index: number): DynamicServer {
  const server: DynamicServer = { name: `${s.prefix}${index}`, index, cluster: s.cluster, template: s.template };
  const ports = portsOf(s, index);
  if (ports) Object.assign(server, ports);
  if (s.calculatedMachines) {
    const machines = machinesFor(view, s);
    if (machines.length > 0) server.machine = ['machines', machines[(index - 1) % machines.length]!];
  }
  return server;
}

/** Whether a configured server holds the name (the view may list dynamic servers too). */
function configured(view: ConfigIndex, name: string): boolean {
  const server = view.source.bean(itemKey('servers', name));
  return server !== undefined && server.values.dynamicallyCreated !== true;
}

/** Every cluster's dynamic servers, in cluster order (a name a configured server holds is left out). */
export function dynamicServers(view: ConfigIndex): DynamicServer[] {
  return view.once('dynamic-servers', () => {
    const out: DynamicServer[] = [];
    for (const cluster of view.items([], 'clusters')) {
      const s = settingsOf(view.source, cluster.name);
      if (!s || !usable(s)) continue;
      for (let i = 1; i <= s.size; i++) {
        const d = dynamicServerAt(view, s, i);
        if (!configured(view, d.name)) out.push(d);
      }
    }
    return out;
  });
}

/**
 * The dynamic server a cluster would have under `name` if it were large enough: how a server
 * that a shrunk cluster dropped is still known while it stops.
 */
export function formerDynamicServer(view: ConfigIndex, name: string): DynamicServer | undefined {
  if (configured(view, name)) return undefined;
  for (const cluster of view.items([], 'clusters')) {
    const s = settingsOf(view.source, cluster.name);
    if (!s || !name.startsWith(s.prefix)) continue;
    const digits = name.slice(s.prefix.length);
    if (!/^[1-9][0-9]{0,3}$/.test(digits)) continue;
    const index = Number(digits);
    if (index > DYNAMIC_SIZE_LIMIT || !usable({ ...s, size: index })) continue;
    return dynamicServerAt(view, s, index);
  }
  return undefined;
}

/** The rule: a change to a cluster's dynamic servers, or to the ports of a template, must leave them valid. */
function registerRules(registry: BehaviourRegistry): void {
  configRule(registry, `${C}DynamicServersMBean`, {
    update(view, key, body) {
      const clusterKey = upKey(key);
      if (upKey(clusterKey) !== 'clusters') return;
      const cluster = decodeURIComponent(clusterKey.slice('clusters/'.length));
      const s = settingsOf(view, cluster, body);
      if (s) {
        const problems = settingsProblems(view, s);
        if (problems.length > 0) throw invalid(problems);
      }
    },
  });
  // A template's listen ports move the calculated ports of the dynamic servers made from it.
  const portsRule = (templateKeyOf: (key: string) => string | undefined, changes: (body: Record<string, unknown>) => Record<string, unknown> | undefined) => ({
    update(view: ConfigView, key: string, body: Record<string, unknown>) {
      const templateKey = templateKeyOf(key);
      const port = changes(body);
      if (templateKey === undefined || port === undefined || !view.itemNames) return;
      const template = decodeURIComponent(templateKey.slice('serverTemplates/'.length));
      const problems: ProblemDetail[] = [];
      for (const cluster of view.itemNames('clusters')) {
        const s = settingsOf(view, cluster);
        if (!s || s.template !== template) continue;
        for (const p of settingsProblems(view, { ...s, ...port })) problems.push({ ...p, path: 'listenPort' });
      }
      if (problems.length > 0) throw invalid(problems);
    },
  });
  const templateOf = (key: string) => (upKey(key) === 'serverTemplates' ? key : undefined);
  configRule(
    registry,
    `${C}ServerTemplateMBean`,
    portsRule(templateOf, (body) => (num(body.listenPort) !== undefined ? { templatePort: num(body.listenPort) } : undefined)),
  );
  configRule(
    registry,
    `${C}SSLMBean`,
    portsRule(
      (key) => (key.endsWith('/SSL') ? templateOf(upKey(key)) : undefined),
      (body) => (num(body.listenPort) !== undefined ? { templateSslPort: num(body.listenPort) } : undefined),
    ),
  );
}

/** The names of a cluster's dynamic servers, as the view sees the configuration. */
export function dynamicServerNames(view: ConfigIndex, cluster: string): string[] {
  return dynamicServers(view)
    .filter((d) => d.cluster === cluster)
    .map((d) => d.name);
}

export function registerDynamicServers(registry: BehaviourRegistry): void {
  registerRules(registry);
}
