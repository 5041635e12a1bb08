// Where a Lifecycle Manager runtime lives: its host name, port and protocol, checked whenever they
// are set, and the origin this server calls, built only from checked parts.
import { badRequest } from '../core/problems.js';
import { isIPv4, isIPv6 } from 'node:net';
import type { RuntimeType } from './model.js';

/** Longest DNS name (RFC 1035), without a trailing dot. */
export const MAX_HOST_NAME = 253;

/** Protocols a runtime may name; a `wls` runtime is called over the first two only. */
export const PROTOCOLS = ['http', 'https', 'tcp', 'tcps'];
export const CALLED_PROTOCOLS = ['http', 'https'];

/** One label of a DNS name: letters, digits, hyphens (not at either end) and underscores, 1 to 63 long. */
const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/i;
/** A last label a URL parser would read as a number, making the whole name an IPv4 address. */
const NUMERIC = /^(?:\d+|0x[0-9a-f]*)$/i;

/** A value as quoted in a message: JSON-escaped, cut to 80 characters. */
export function shown(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}...` : text);
}

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

/** Why a protocol cannot be used by a runtime of this type (a phrase after "The protocol ..."), or undefined. */
export function protocolProblem(type: RuntimeType, protocol: string): string | undefined {
  const allowed = type === 'wls' ? CALLED_PROTOCOLS : PROTOCOLS;
  if (allowed.includes(protocol)) return undefined;
  return `of a '${type}' runtime must be ${allowed.join(', ').replace(/, ([^,]*)$/, ' or $1')}`;
}

/** The host as written in a URL: IPv6 addresses in brackets. */
export function urlHost(host: string): string {
  return isIPv6(host) ? `[${host}]` : host;
}

/**
 * The origin (`protocol://host:port`) of a runtime this server calls. Records stored before these
 * checks existed are checked again here: a bad one is a 400 naming the runtime and the property.
 */
export function runtimeOrigin(rt: { name: string; type: RuntimeType; hostName: string; port: number; protocol: string }): string {
  const fix = `correct it with POST runtimes/${rt.name}`;
  const hostProblem = typeof rt.hostName === 'string' ? hostNameProblem(rt.hostName) : 'must be a string';
  if (hostProblem) throw badRequest(`Runtime '${rt.name}' has the host name ${shown(rt.hostName)}, which ${hostProblem.replace(/^must/, 'should')}; ${fix}.`, 'hostName');
  if (!Number.isInteger(rt.port) || rt.port < 1 || rt.port > 65535) throw badRequest(`Runtime '${rt.name}' has the port ${shown(rt.port)}, which is not an integer from 1 to 65535; ${fix}.`, 'port');
  const protocol = protocolProblem('wls', rt.protocol);
  if (protocol) throw badRequest(`Runtime '${rt.name}' has the protocol ${shown(rt.protocol)}; the protocol ${protocol}; ${fix}.`, 'protocol');
  return `${rt.protocol}://${urlHost(normalHostName(rt.hostName))}:${rt.port}`;
}
