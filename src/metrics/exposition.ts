// GET /metrics: the figures of the server answering (or of the servers a `server` parameter names),
// read through the management interface with the caller's own rights, plus the administration
// server's own figures, in the Prometheus text format.
// prom-client is loaded by the first /metrics (see admin.ts).
import type { Registry } from 'prom-client';
import { management } from '../api/address.js';
import type { Caller } from '../api/caller.js';
import type { ManagementApi } from '../api/management-api.js';
import { badRequest } from '../core/problems.js';
import type { AdminMetrics } from './admin.js';
import { SERVER_QUERY } from './queries.js';
import { type Sample, collectSamples, searchLevel, searchOf } from './runtime.js';

/** The Prometheus text format (version 0.0.4), as prom-client's registry names it. */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** The servers a `server` parameter names: a name, several separated by commas, or `*` for all running. */
export function serversParameter(value: unknown): string[] | '*' | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0 || value.length > 1024) {
    throw badRequest(`The parameter 'server' must name servers (a name, names separated by commas, or *), not ${JSON.stringify(String(value).slice(0, 60))}.`, 'server');
  }
  if (value === '*') return '*';
  return value.split(',').map((s) => s.trim()).filter((s) => s !== '');
}

/** A registry holding `samples`, one gauge per metric name. */
function registryOf(lib: typeof import('prom-client'), samples: readonly Sample[]): Registry {
  const { Gauge, Registry } = lib;
  const registry = new Registry();
  const byName = new Map<string, Sample[]>();
  for (const s of samples) byName.set(s.name, [...(byName.get(s.name) ?? []), s]);
  for (const [name, group] of byName) {
    const labelNames = [...new Set(group.flatMap((s) => Object.keys(s.labels)))];
    const gauge = new Gauge({ name, help: group[0]!.help, labelNames, registers: [registry] });
    for (const s of group) gauge.set(s.labels, s.value);
  }
  return registry;
}

/** The text of /metrics for `caller`: runtime figures of `servers` (default: this server), and `admin`'s own. */
export async function exposition(api: ManagementApi, caller: Caller, servers: string[] | '*' | undefined, admin?: AdminMetrics): Promise<string> {
  const samples: Sample[] = [];
  const view = { origin: '' };
  if (servers === undefined) {
    const answer = await api.search(caller, management('serverRuntime', 'search'), searchLevel(SERVER_QUERY), view);
    collectSamples(answer.body, SERVER_QUERY, {}, samples);
  } else {
    const answer = await api.search(caller, management('domainRuntime', 'search'), searchOf(SERVER_QUERY, servers === '*' ? undefined : servers), view);
    collectSamples((answer.body as Record<string, unknown>).serverRuntimes, SERVER_QUERY, {}, samples);
  }
  const lib = await import('prom-client');
  const registries = [registryOf(lib, samples)];
  if (admin) registries.unshift(await admin.registry());
  return lib.Registry.merge(registries).metrics();
}
