// JMS servers and destinations on the running servers (rc JMSServerRuntime, JMSDestinationRuntime):
// pausing and resuming production, insertion and consumption (runtime/messaging.ts keeps the
// states), and the transaction branches of a JMS server. Admin only: the product names no role.
import { badRequest } from '../core/problems.js';
import { PAUSE_KINDS, type PauseKind } from '../runtime/messaging.js';
import { DONE, type Invocation, type OperationDefinition, type OperationServices, defineOperation } from './define.js';
import { RT, VOID, action, ov, str } from './declare.js';
import { serverOf } from './beans.js';

const JMS_SERVER = RT + 'JMSServerRuntimeMBean';
const DESTINATION = RT + 'JMSDestinationRuntimeMBean';

/** The JMS server a runtime bean belongs to, and the destination when it is one. */
function placeOf(call: Invocation): { jmsServer: string; destination: string | undefined } {
  const id = call.node.identity;
  const at = id.indexOf('JMSServers');
  return { jmsServer: id[at + 1]!, destination: id.includes('destinations') ? id[id.length - 1]! : undefined };
}

const CAPITAL: Record<PauseKind, string> = { production: 'Production', insertion: 'Insertion', consumption: 'Consumption' };

const pauseOrResume = (kind: PauseKind, pause: boolean) => (call: Invocation, use: OperationServices) => {
  const { jmsServer, destination } = placeOf(call);
  use.engine.messaging.setPaused(jmsServer, destination, kind, pause);
  const what = destination === undefined ? `JMS server ${jmsServer} (all its destinations)` : `destination ${destination} of ${jmsServer}`;
  const message = `${CAPITAL[kind]} ${pause ? 'paused' : 'resumed'} on ${what}.`;
  use.logs.bean(serverOf(call), [...call.node.identity.slice(0, call.node.identity.indexOf('JMSServers') + 2), 'logRuntime']).write('Info', 'JMS', message);
  call.audit.detail = message;
  return DONE;
};

function pausing(on: string): OperationDefinition[] {
  return PAUSE_KINDS.flatMap((kind) => [
    defineOperation(action(on, `pause${CAPITAL[kind]}`, [ov(VOID)]), pauseOrResume(kind, true)),
    defineOperation(action(on, `resume${CAPITAL[kind]}`, [ov(VOID)]), pauseOrResume(kind, false)),
  ]);
}

/** No JMS transaction is ever begun here: every transaction branch id is unknown. */
const noSuchBranch = (call: Invocation) => {
  const { jmsServer } = placeOf(call);
  const xid = call.args.xid;
  if (typeof xid !== 'string' || xid.trim() === '') throw badRequest(`The argument 'xid' of '${call.op.name}' must name a transaction branch.`, 'xid');
  throw badRequest(`JMS server ${jmsServer} has no transaction branch '${xid}': it has no pending transactions.`, 'xid');
};

export const messagingOperations: OperationDefinition[] = [
  ...pausing(JMS_SERVER),
  defineOperation(action(JMS_SERVER, 'forceCommit', [ov(VOID, str('xid'))]), noSuchBranch),
  defineOperation(action(JMS_SERVER, 'forceRollback', [ov(VOID, str('xid'))]), noSuchBranch),
  ...pausing(DESTINATION),
];
