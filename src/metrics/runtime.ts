// A server's runtime figures as Prometheus samples: the query (queries.ts) becomes one search of
// the domain runtime tree, and its answer is walked level by level, each level's key becoming a
// label of everything below it, as the monitoring exporter does. Names: the level's prefix and the
// property in snake case (`invocationTotalCount` → `appserver_servlet_invocation_total_count`).
import type { MetricQuery } from './queries.js';

type Json = Record<string, unknown>;

export interface Sample {
  name: string;
  help: string;
  labels: Record<string, string>;
  value: number;
}

/** `invocationTotalCount` → `invocation_total_count`; `JDBCConnectionsTotal` → `jdbc_connections_total`. */
export function snakeCase(property: string): string {
  return property
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9_]/g, '_')
    .toLowerCase();
}

/** The search body asking exactly for what `query` exports (and the keys that label it). */
export function searchLevel(query: MetricQuery): Json {
  const level: Json = { links: [] };
  if (query.values) {
    const fields = new Set<string>([query.key ?? 'name', ...query.values, ...Object.keys(query.stringValues ?? {})]);
    if (query.type) fields.add('type');
    level.fields = [...fields];
  }
  if (query.children) level.children = Object.fromEntries(Object.entries(query.children).map(([child, q]) => [child, searchLevel(q)]));
  return level;
}

/** The search of the domain runtime tree for the servers named (all running ones when none is). */
export function searchOf(query: MetricQuery, servers?: readonly string[]): Json {
  const level = searchLevel(query);
  if (servers) level.name = [...servers];
  return { links: [], fields: [], children: { serverRuntimes: level } };
}

/** Properties that identify a bean rather than measure it. */
const NOT_FIGURES = new Set(['identity', 'type', 'links']);

/** Walks a search answer's level (an item list or one bean) and adds its samples to `out`. */
export function collectSamples(level: unknown, query: MetricQuery, labels: Record<string, string>, out: Sample[]): void {
  if (level === null || typeof level !== 'object') return;
  const items = Array.isArray((level as Json).items) ? ((level as Json).items as unknown[]) : [level];
  for (const raw of items) {
    if (raw === null || typeof raw !== 'object') continue;
    const item = raw as Json;
    if (query.type && item.type !== query.type) continue;
    const key = query.key ?? 'name';
    const here = { ...labels };
    if (item[key] !== undefined && item[key] !== null) here[query.keyName ?? key] = String(item[key]);
    if (query.prefix) {
      for (const [property, value] of Object.entries(item)) {
        if (NOT_FIGURES.has(property) || property === key || (query.values && !query.values.includes(property))) continue;
        if (typeof value !== 'number' || !Number.isFinite(value)) continue;
        out.push({ name: `${query.prefix}${snakeCase(property)}`, help: `${property} of the runtime bean`, labels: here, value });
      }
      for (const [property, states] of Object.entries(query.stringValues ?? {})) {
        if (item[property] === undefined) continue;
        out.push({
          name: `${query.prefix}${snakeCase(property)}_val`,
          help: `${property} as its position in: ${states.join(', ')} (-1: another value)`,
          labels: here,
          value: states.indexOf(String(item[property])),
        });
      }
    }
    for (const [child, below] of Object.entries(query.children ?? {})) collectSamples(item[child], below, here, out);
  }
}
