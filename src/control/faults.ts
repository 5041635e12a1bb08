// Injected faults: what each one is scoped to, how often it fires (a count, a probability) and
// until when (an expiry on the domain's clock). The runtime asks through FaultHooks; the HTTP
// adapter asks `forRequest` for requests that match a URL pattern.
import { badRequest, notFound } from '../core/problems.js';
import type { FaultHooks } from '../core/faults.js';
import type { Scheduler } from '../core/clock.js';
import { globMatch } from './glob.js';

export const FAULT_KINDS = ['startFailure', 'crash', 'slow', 'hang', 'status', 'drop', 'dataSourceDown', 'deploymentFailure', 'jmsServerDown'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** What each kind acts on: the scopes it takes (one of them is required). */
const SCOPES: Record<FaultKind, readonly ScopeName[]> = {
  startFailure: ['server'],
  crash: ['server'],
  slow: ['server', 'urlPattern'],
  hang: ['server', 'urlPattern'],
  status: ['urlPattern'],
  drop: ['urlPattern'],
  dataSourceDown: ['dataSource'],
  deploymentFailure: ['application'],
  jmsServerDown: ['jmsServer'],
};
const SCOPE_NAMES = ['server', 'application', 'dataSource', 'jmsServer', 'urlPattern'] as const;
type ScopeName = (typeof SCOPE_NAMES)[number];

/** Bounds: every wait a fault causes ends. */
export const MAX_LATENCY_MS = 60_000;
export const MAX_HANG_SECONDS = 3600;
export const DEFAULT_HANG_SECONDS = 60;
const MAX_EXPIRY_SECONDS = 7 * 24 * 3600;
const MAX_FAULTS = 1000;
const MAX_TEXT = 1000;

export interface Fault {
  name: string;
  kind: FaultKind;
  scope: Partial<Record<ScopeName, string>>;
  /** With `application`: the server or cluster whose deployments fail (all when absent); with `dataSource`: the server. */
  target?: string;
  /** With `urlPattern`: only this method. */
  method?: string;
  message: string;
  status?: number;
  latencyMs?: number;
  /** Uses left (undefined: no limit). */
  remaining?: number;
  probability: number;
  /** Scheduler epoch ms (undefined: never). */
  expiresAt?: number;
  created: number;
  /** Times it fired. */
  hits: number;
}

/** What a request matching a fault's pattern meets. */
export type RequestFault =
  | { kind: 'status'; status: number; message: string; fault: string }
  | { kind: 'drop'; fault: string }
  | { kind: 'slow'; latencyMs: number; fault: string }
  | { kind: 'hang'; fault: string; until: () => boolean; boundMs: number };

/** What the faults need of the domain: names that exist, and a server crash. */
export interface FaultTargets {
  has(scope: ScopeName, name: string): boolean;
  /** Servers a deployment target stands for (a cluster's members, or the server itself). */
  serversOf(target: string): string[];
  crash(server: string, message: string): void;
}

function text(body: Record<string, unknown>, key: string, max = MAX_TEXT): string | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || v.trim() === '') throw badRequest(`The property '${key}' must be a non-empty string; it is ${JSON.stringify(v)}.`, key);
  if (v.length > max) throw badRequest(`The property '${key}' is longer than ${max} characters.`, key);
  return v;
}

function number(body: Record<string, unknown>, key: string, min: number, max: number, integer: boolean): number | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || (integer && !Number.isInteger(v)) || v < min || v > max) {
    throw badRequest(`The property '${key}' must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}; it is ${JSON.stringify(v)}.`, key);
  }
  return v;
}

export class Faults implements FaultHooks {
  private readonly faults = new Map<string, Fault>();
  private seq = 0;

  constructor(
    private readonly scheduler: Scheduler,
    private readonly targets: FaultTargets,
    private readonly random: () => number = Math.random,
  ) {}

  /** Checks a fault's description completely, then adds it (a crash happens at once). */
  add(body: unknown): Fault {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('A fault is a JSON object: {"kind": ..., "server"|"application"|"dataSource"|"jmsServer"|"urlPattern": ...}.');
    const b = body as Record<string, unknown>;
    const known = new Set(['name', 'kind', ...SCOPE_NAMES, 'target', 'method', 'message', 'status', 'latencyMs', 'count', 'probability', 'expiresInSeconds']);
    for (const key of Object.keys(b)) if (!known.has(key)) throw badRequest(`A fault has no property '${key}'; it takes ${[...known].join(', ')}.`, key);
    const kind = b.kind;
    if (typeof kind !== 'string' || !(FAULT_KINDS as readonly string[]).includes(kind)) {
      throw badRequest(`The property 'kind' must be one of ${FAULT_KINDS.join(', ')}; it is ${JSON.stringify(kind)}.`, 'kind');
    }
    const k = kind as FaultKind;
    const scope: Fault['scope'] = {};
    for (const s of SCOPE_NAMES) {
      const v = text(b, s, s === 'urlPattern' ? 500 : 256);
      if (v === undefined) continue;
      if (!SCOPES[k].includes(s)) throw badRequest(`A '${k}' fault is scoped to ${SCOPES[k].join(' or ')}, not to '${s}'.`, s);
      if (s !== 'urlPattern' && !this.targets.has(s, v)) throw badRequest(`There is no ${s === 'dataSource' ? 'data source' : s === 'jmsServer' ? 'JMS server' : s} named '${v}'.`, s);
      if (s === 'urlPattern' && !v.startsWith('/')) throw badRequest(`The property 'urlPattern' must be a path starting with '/' ('*' matches any characters); it is '${v}'.`, s);
      scope[s] = v;
    }
    const scopes = Object.keys(scope);
    if (scopes.length !== 1) throw badRequest(`A '${k}' fault needs exactly one of ${SCOPES[k].join(', ')}.`, SCOPES[k][0]);
    const name = text(b, 'name', 64) ?? `fault-${++this.seq}`;
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) throw badRequest(`The property 'name' may hold letters, digits, '.', '_' and '-' only; it is '${name}'.`, 'name');
    if (this.faults.has(name)) throw badRequest(`A fault named '${name}' exists already.`, 'name');
    if (this.faults.size >= MAX_FAULTS) throw badRequest(`There are ${MAX_FAULTS} faults already; delete some first.`);
    const target = text(b, 'target', 256);
    if (target !== undefined) {
      if (k !== 'deploymentFailure' && k !== 'dataSourceDown') throw badRequest(`Only deploymentFailure and dataSourceDown faults take a 'target'.`, 'target');
      if (!this.targets.has('server', target) && this.targets.serversOf(target).length === 0) throw badRequest(`There is no server or cluster named '${target}'.`, 'target');
    }
    const method = text(b, 'method', 16)?.toUpperCase();
    if (method !== undefined) {
      if (!scope.urlPattern) throw badRequest(`Only faults with a 'urlPattern' take a 'method'.`, 'method');
      if (!['GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS'].includes(method)) throw badRequest(`The property 'method' must be an HTTP method; it is '${method}'.`, 'method');
    }
    const status = number(b, 'status', 400, 599, true);
    if (status !== undefined && k !== 'status') throw badRequest(`Only 'status' faults take a 'status'.`, 'status');
    const latencyMs = number(b, 'latencyMs', 1, MAX_LATENCY_MS, true);
    if (k === 'slow' && latencyMs === undefined) throw badRequest(`A 'slow' fault needs 'latencyMs' (1 to ${MAX_LATENCY_MS}).`, 'latencyMs');
    if (latencyMs !== undefined && k !== 'slow') throw badRequest(`Only 'slow' faults take 'latencyMs'.`, 'latencyMs');
    const count = number(b, 'count', 1, 1_000_000, true);
    const probability = number(b, 'probability', 0, 1, false) ?? 1;
    if (probability === 0) throw badRequest(`The property 'probability' must be above 0 (a fault that never fires is no fault); it is 0.`, 'probability');
    let expires = number(b, 'expiresInSeconds', 0.001, k === 'hang' ? MAX_HANG_SECONDS : MAX_EXPIRY_SECONDS, false);
    // A hang always ends.
    if (k === 'hang') expires ??= DEFAULT_HANG_SECONDS;
    const message = text(b, 'message') ?? defaultMessage(k, scope);
    const now = this.scheduler.now();
    const fault: Fault = {
      name,
      kind: k,
      scope,
      ...(target !== undefined ? { target } : {}),
      ...(method !== undefined ? { method } : {}),
      message,
      ...(k === 'status' ? { status: status ?? 503 } : {}),
      ...(latencyMs !== undefined ? { latencyMs } : {}),
      // A start failure fails the next start only, unless told otherwise; a crash happens once.
      ...(count !== undefined ? { remaining: count } : k === 'startFailure' || k === 'crash' ? { remaining: 1 } : {}),
      probability,
      ...(expires !== undefined ? { expiresAt: now + Math.round(expires * 1000) } : {}),
      created: now,
      hits: 0,
    };
    if (k === 'crash') {
      // Checked and done before the fault is listed: a crash that cannot happen leaves nothing.
      this.targets.crash(scope.server!, message);
      fault.hits = 1;
      fault.remaining = 0;
    }
    this.faults.set(name, fault);
    return fault;
  }

  list(): Fault[] {
    return [...this.faults.values()];
  }

  get(name: string): Fault {
    const f = this.faults.get(name);
    if (!f) throw notFound(name);
    return f;
  }

  remove(name: string): void {
    if (!this.faults.delete(name)) throw notFound(name);
  }

  clear(): number {
    const n = this.faults.size;
    this.faults.clear();
    return n;
  }

  /** True while a fault can still fire (uses left, not expired). */
  active(f: Fault): boolean {
    return (f.remaining === undefined || f.remaining > 0) && (f.expiresAt === undefined || this.scheduler.now() < f.expiresAt);
  }

  /** The first active fault of these kinds that matches, and fires now (one use, by its probability). */
  private fire(kinds: readonly FaultKind[], matches: (f: Fault) => boolean): Fault | undefined {
    for (const f of this.faults.values()) {
      if (!kinds.includes(f.kind) || !this.active(f) || !matches(f)) continue;
      if (f.probability < 1 && this.random() >= f.probability) continue;
      if (f.remaining !== undefined) f.remaining--;
      f.hits++;
      return f;
    }
    return undefined;
  }

  // ---- what the runtime asks ----

  startFailure(server: string): string | undefined {
    return this.fire(['startFailure'], (f) => f.scope.server === server)?.message;
  }

  lifecycleDelay(server: string): number {
    return this.fire(['slow'], (f) => f.scope.server === server)?.latencyMs ?? 0;
  }

  /** Milliseconds a request to the server's own ports waits (a slow server; each request is one use). */
  serverLatency(server: string): number {
    return this.lifecycleDelay(server);
  }

  hungUntil(server: string): number | undefined {
    // Not a use: a hang holds every step until it ends.
    for (const f of this.faults.values()) if (f.kind === 'hang' && f.scope.server === server && this.active(f)) return f.expiresAt;
    return undefined;
  }

  deploymentFailure(application: string, targets: readonly string[]): string | undefined {
    return this.fire(['deploymentFailure'], (f) => {
      if (f.scope.application !== application) return false;
      if (f.target === undefined) return true;
      const wanted = new Set([f.target, ...this.targets.serversOf(f.target)]);
      return targets.some((t) => wanted.has(t) || this.targets.serversOf(t).some((s) => wanted.has(s)));
    })?.message;
  }

  dataSourceDown(dataSource: string, server: string): string | undefined {
    // A lost database stays lost while the fault is active; reading the state is no use of it.
    for (const f of this.faults.values()) {
      if (f.kind === 'dataSourceDown' && f.scope.dataSource === dataSource && (f.target === undefined || f.target === server) && this.active(f)) return f.message;
    }
    return undefined;
  }

  jmsServerDown(jmsServer: string): string | undefined {
    for (const f of this.faults.values()) if (f.kind === 'jmsServerDown' && f.scope.jmsServer === jmsServer && this.active(f)) return f.message;
    return undefined;
  }

  /** What a request meets: the first active fault whose pattern matches its path (and method). */
  forRequest(method: string, path: string): RequestFault | undefined {
    const f = this.fire(['status', 'drop', 'slow', 'hang'], (x) => x.scope.urlPattern !== undefined && (x.method === undefined || x.method === method) && globMatch(x.scope.urlPattern, path));
    if (!f) return undefined;
    switch (f.kind) {
      case 'status':
        return { kind: 'status', status: f.status ?? 503, message: f.message, fault: f.name };
      case 'drop':
        return { kind: 'drop', fault: f.name };
      case 'slow':
        return { kind: 'slow', latencyMs: f.latencyMs ?? 0, fault: f.name };
      default: {
        // Held until the fault is removed or expires, and never longer than its bound in real time.
        const boundMs = Math.max(0, Math.min((f.expiresAt ?? 0) - this.scheduler.now(), MAX_HANG_SECONDS * 1000));
        return { kind: 'hang', fault: f.name, until: () => !this.faults.has(f.name) || !this.active(f), boundMs };
      }
    }
  }
}

function defaultMessage(kind: FaultKind, scope: Fault['scope']): string {
  const what = scope.server ?? scope.application ?? scope.dataSource ?? scope.jmsServer ?? scope.urlPattern ?? '';
  switch (kind) {
    case 'startFailure':
      return `Server '${what}' failed to start (a fault injected through the control interface).`;
    case 'crash':
      return `Server '${what}' crashed (a fault injected through the control interface).`;
    case 'status':
      return 'The server is restarting; retry shortly (a fault injected through the control interface).';
    case 'dataSourceDown':
      return `the database of data source '${what}' does not answer (a fault injected through the control interface).`;
    case 'deploymentFailure':
      return `The deployment of '${what}' failed (a fault injected through the control interface).`;
    case 'jmsServerDown':
      return `JMS server '${what}' is down (a fault injected through the control interface).`;
    default:
      return `A '${kind}' fault injected through the control interface.`;
  }
}
