// Where the bean an operation is invoked on is: its server and partition (the typed scope the
// resolver gives every bean), and its name.
import { internal } from '../core/problems.js';
import type { Invocation } from './define.js';

/** The server whose runtime tree the bean is in. */
export function serverOf(call: Invocation): string {
  const server = call.node.scope.server;
  if (server === undefined) throw internal(`'${call.op.name}' of ${call.node.type.short} needs a bean of a server's runtime tree.`);
  return server;
}

/** The partition the bean belongs to; '' for the domain's own beans. */
export function partitionOf(call: Invocation): string {
  return call.node.scope.partition ?? '';
}

/** The bean's name: its `name` value, else the last segment of its identity. */
export function beanName(call: Invocation): string {
  return String(call.node.record?.values.name ?? call.node.identity[call.node.identity.length - 1]);
}
