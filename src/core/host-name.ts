// Host names this server connects to (Lifecycle Manager runtimes, the databases of data sources):
// a DNS name, an IPv4 address in dotted decimal, or an IPv6 address. Anything else (a port, a path,
// credentials, a zone, a number a URL parser would read as an address) is refused, so nothing can
// be smuggled into an address through a host name.
import { isIPv4, isIPv6 } from 'node:net';

/** Longest DNS name (RFC 1035), without a trailing dot. */
export const MAX_HOST_NAME = 253;

/** One label of a DNS name: letters, digits, hyphens (not at either end) and underscores, 1 to 63 long. */
const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/i;
/** A last label a URL parser would read as a number, making the whole name an IPv4 address. */
const NUMERIC = /^(?:\d+|0x[0-9a-f]*)$/i;

/**
 * Why a host name cannot be used (a phrase that follows "The host name ..."), or undefined. A host
 * name is a DNS name, an IPv4 address in dotted decimal, or an IPv6 address, with or without brackets.
 */
export function hostNameProblem(host: string): string | undefined {
  if (host === '') return 'must not be empty';
  if (host.length > MAX_HOST_NAME + 2) return `must be at most ${MAX_HOST_NAME} characters long`;
  if (host.startsWith('[') || host.endsWith(']')) {
    const inner = host.slice(1, -1);
    return host.startsWith('[') && host.endsWith(']') && isIPv6(inner) && !inner.includes('%') ? undefined : 'in brackets must be an IPv6 address';
  }
  if (host.includes(':')) {
    if (!isIPv6(host)) return 'must be a DNS name or an IP address, without a port (the port is its own property)';
    return host.includes('%') ? 'must be an IPv6 address without a zone (%...)' : undefined;
  }
  if (host.length > MAX_HOST_NAME) return `must be at most ${MAX_HOST_NAME} characters long`;
  const labels = host.split('.');
  if (!labels.every((l) => LABEL.test(l))) {
    return 'must be a DNS name (labels of 1 to 63 letters, digits, hyphens or underscores, separated by dots) or an IP address';
  }
  if (NUMERIC.test(labels[labels.length - 1]!) && !isIPv4(host)) return 'must be an IPv4 address in the form a.b.c.d (each part 0 to 255, no leading zeros)';
  return undefined;
}

/** A host name as stored: an IPv6 address without its brackets, anything else as given. */
export function normalHostName(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** The host as written in a URL: IPv6 addresses in brackets. */
export function urlHost(host: string): string {
  return isIPv6(host) ? `[${host}]` : host;
}
