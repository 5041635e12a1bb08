// Where a managed server listens: its listen address, its plain port (unless disabled), its SSL
// port when SSL is on, and its administration port when the domain enables one, every port shifted
// by the process's port offset (so several domains or test runs share one host). Pure functions of
// the configuration: the runtime tree's URLs and the listeners both read them from here.
import type { Topology } from '../config/topology.js';

/** Default ports of the product when the configuration sets none. */
export const DEFAULT_LISTEN_PORT = 7001;
export const DEFAULT_SSL_PORT = 7002;
export const DEFAULT_ADMINISTRATION_PORT = 9002;

/** Largest port offset accepted (`serve --port-offset`). */
export const MAX_PORT_OFFSET = 65535;

export type EndpointKind = 'default' | 'ssl' | 'administration';

export interface Endpoint {
  kind: EndpointKind;
  protocol: 'http' | 'https';
  /** The effective port (configured port + offset). */
  port: number;
}

export interface ServerEndpoints {
  server: string;
  /** The host URLs name (`localhost` when the configuration sets no listen address). */
  host: string;
  /** The address to bind: the listen address, or every interface when none is set. */
  bindAddress: string;
  endpoints: Endpoint[];
}

/** A configured port (a whole number), else the fallback. */
function port(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isInteger(value) ? value : fallback;
}

/**
 * The administration port server `name` is configured to open (before any offset): none unless the
 * domain enables its administration port; then the server's own when it sets one, else the domain's.
 */
export function configuredAdministrationPort(topology: Topology, name: string): number | undefined {
  const domain = topology.root?.values ?? {};
  if (domain.administrationPortEnabled !== true) return undefined;
  const own = port(topology.server(name)?.values.administrationPort, 0);
  return own > 0 ? own : port(domain.administrationPort, DEFAULT_ADMINISTRATION_PORT);
}

/**
 * The endpoints of server `name` as the configuration, `sslPort` (the SSL channel open, if any) and
 * `adminPort` (the administration channel open: a port, `null` for none, or left out to take the
 * configuration's) say.
 */
export function serverEndpoints(topology: Topology, name: string, offset: number, sslPort?: number, adminPort?: number | null): ServerEndpoints {
  const server = topology.server(name);
  const values = server?.values ?? {};
  const address = typeof values.listenAddress === 'string' ? values.listenAddress.trim() : '';
  const endpoints: Endpoint[] = [];
  if (values.listenPortEnabled !== false) endpoints.push({ kind: 'default', protocol: 'http', port: port(values.listenPort, DEFAULT_LISTEN_PORT) + offset });
  if (sslPort !== undefined) endpoints.push({ kind: 'ssl', protocol: 'https', port: sslPort + offset });
  const administration = adminPort === undefined ? configuredAdministrationPort(topology, name) : (adminPort ?? undefined);
  if (administration !== undefined) endpoints.push({ kind: 'administration', protocol: 'https', port: administration + offset });
  return { server: name, host: address || 'localhost', bindAddress: address || '0.0.0.0', endpoints };
}

/** True for an address that stands for every interface. */
export function isWildcard(address: string): boolean {
  const a = address.trim().replace(/^\[|\]$/g, '');
  return a === '' || a === '0.0.0.0' || a === '::' || a === '*' || /^0+(:0+)*::?$/.test(a) || a === '::0';
}

/**
 * The address a managed server's listener binds: never wider than `limit` (the process's
 * `--managed-host`, else its `--host`). A server with no listen address, or a wildcard one, binds
 * `limit`; a specific listen address set by an administrator is bound as it is.
 */
export function boundedBindAddress(endpoints: ServerEndpoints, limit: string): string {
  return isWildcard(endpoints.bindAddress) ? limit : endpoints.bindAddress;
}

/** The endpoint of a kind, if the server has it. */
export function endpointOf(endpoints: ServerEndpoints, kind: EndpointKind): Endpoint | undefined {
  return endpoints.endpoints.find((e) => e.kind === kind);
}

/** A port offset as given on the command line: a whole number from 0 to MAX_PORT_OFFSET. */
export function parsePortOffset(text: string): number {
  const n = /^\s*\d{1,5}\s*$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(n) || n < 0 || n > MAX_PORT_OFFSET) throw new Error(`--port-offset takes a whole number from 0 to ${MAX_PORT_OFFSET}, not '${text.slice(0, 40)}'`);
  return n;
}
