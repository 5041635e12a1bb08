// Transactions of a server (rc JTARuntime). No global transaction is ever begun in this server (its
// JTA runtime counts none), so a transaction named by xid is always unknown: forcing its outcome
// is refused, naming it, and nothing changes.
import { badRequest } from '../core/problems.js';
import { type Invocation, type OperationDefinition, defineOperation } from './define.js';
import { RT, VOID, action, bool, ov, str } from './declare.js';
import { serverOf } from './beans.js';

const JTA = RT + 'JTARuntimeMBean';

const unknownTransaction = (call: Invocation) => {
  const xid = call.args.xid;
  if (typeof xid !== 'string' || xid.trim() === '') throw badRequest(`The argument 'xid' of '${call.op.name}' must name a transaction.`, 'xid');
  const where = call.args.global === true ? 'in the domain' : `on ${serverOf(call)}`;
  throw badRequest(`There is no transaction with xid '${xid}' ${where}: no transaction is in flight there.`, 'xid');
};

export const transactionOperations: OperationDefinition[] = [
  defineOperation(action(JTA, 'forceCommit', [ov(VOID, str('xid'), bool('global'))]), unknownTransaction),
  defineOperation(action(JTA, 'forceRollback', [ov(VOID, str('xid'), bool('global'))]), unknownTransaction),
];
