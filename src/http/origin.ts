// The origin (scheme://host[:port]) that hrefs and Location headers are built on. A client names
// the host it used in `Host`; a proxy may say what its own client used in X-Forwarded-Proto and
// X-Forwarded-Host, but only proxies the server was told to trust are believed, and only values
// that can be part of a URL are taken: anything else falls back to the address the request came in on.
import { isIP, isIPv6 } from 'node:net';
import type { FastifyRequest } from 'fastify';

/** A host name, an IPv4 address or a bracketed IPv6 address, then an optional port. */
const HOST = /^(?:\[([0-9A-Fa-f:.]+)\]|((?:[A-Za-z0-9](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9])?)*\.?))(?::(\d{1,5}))?$/;

/** The last value judged valid: clients send the same Host on every request. */
let lastValid: string | undefined;

/** The value when it is a valid `host[:port]` (port 1 to 65535), undefined otherwise. */
export function validHost(value: string | undefined): string | undefined {
  if (value === undefined || value.length > 261) return undefined;
  if (value === lastValid) return value;
  const valid = judgeHost(value);
  if (valid !== undefined) lastValid = valid;
  return valid;
}

function judgeHost(value: string): string | undefined {
  const m = HOST.exec(value);
  if (!m) return undefined;
  if (m[1] !== undefined && !isIPv6(m[1])) return undefined;
  if (m[2] !== undefined && (m[2].length > 254 || (/^[\d.]+$/.test(m[2]) && isIP(m[2].replace(/\.$/, '')) !== 4))) return undefined;
  if (m[3] !== undefined && (Number(m[3]) < 1 || Number(m[3]) > 65535)) return undefined;
  return value;
}

/** The address and port the request came in on, as `host:port` (IPv6 in brackets). */
function localAuthority(request: FastifyRequest): string {
  const socket = request.raw.socket;
  let address = socket.localAddress ?? '127.0.0.1';
  if (address.startsWith('::ffff:') && isIP(address.slice(7)) === 4) address = address.slice(7);
  const host = isIPv6(address) ? `[${address}]` : address;
  return socket.localPort ? `${host}:${socket.localPort}` : host;
}

/**
 * The origin a client used. Fastify reports the forwarded protocol and host only when the request
 * comes from a trusted proxy (the `trustProxy` option); either is taken only if it is valid.
 */
export function originOf(request: FastifyRequest): string {
  const own = (request.raw.socket as { encrypted?: boolean } | undefined)?.encrypted ? 'https' : 'http';
  const claimed = String(request.protocol ?? '').toLowerCase();
  const protocol = claimed === 'http' || claimed === 'https' ? claimed : own;
  const host = validHost(request.host) ?? validHost(request.headers.host) ?? localAuthority(request);
  return `${protocol}://${host}`;
}

/**
 * Parses the proxies whose forwarded headers are trusted: IP addresses and CIDR ranges, given as
 * a list or comma-separated. Throws an error naming an entry that is neither.
 */
export function parseTrustedProxies(entries: string | readonly string[]): string[] {
  const list = (typeof entries === 'string' ? [entries] : entries).flatMap((e) => e.split(',')).map((e) => e.trim()).filter((e) => e !== '');
  for (const entry of list) {
    const [address = '', prefix, ...rest] = entry.split('/');
    const family = isIP(address);
    const bits = family === 4 ? 32 : 128;
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits);
    if (family === 0 || !prefixOk || rest.length > 0) {
      throw new Error(`trusted proxy '${entry}' is not an IP address or a CIDR range (such as 10.0.0.5, 10.0.0.0/8 or fd00::/8)`);
    }
  }
  return list;
}
