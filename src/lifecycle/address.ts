// Where a Lifecycle Manager runtime lives: its host name, port and protocol, checked whenever they
// are set, and the origin this server calls, built only from checked parts.
import { badRequest } from '../core/problems.js';
import { hostNameProblem, normalHostName, urlHost } from '../core/host-name.js';
import type { RuntimeType } from './model.js';

export { hostNameProblem, MAX_HOST_NAME, normalHostName, urlHost } from '../core/host-name.js';

/** Protocols a runtime may name; a `wls` runtime is called over the first two only. */
export const PROTOCOLS = ['http', 'https', 'tcp', 'tcps'];
export const CALLED_PROTOCOLS = ['http', 'https'];

/** A value as quoted in a message: JSON-escaped, cut to 80 characters. */
export function shown(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}...` : text);
}

/** Why a protocol cannot be used by a runtime of this type (a phrase after "The protocol ..."), or undefined. */
export function protocolProblem(type: RuntimeType, protocol: string): string | undefined {
  const allowed = type === 'wls' ? CALLED_PROTOCOLS : PROTOCOLS;
  if (allowed.includes(protocol)) return undefined;
  return `of a '${type}' runtime must be ${allowed.join(', ').replace(/, ([^,]*)$/, ' or $1')}`;
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
