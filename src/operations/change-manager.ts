// The change manager (edit/changeManager): edit locks, activation and the resolution of merges.
// REST-only; argument names of startEdit and takeOverEdit as in the product's configuration manager.
import { CHANGE_MANAGER } from '../catalog/overlay/rest-only.js';
import { DONE, type Invocation, defineOperation, returns } from './define.js';
import { BOOL, DEPLOYER, INT, VOID, action, ov, p } from './declare.js';

const user = (call: Invocation) => call.principal.user;
const millis = (call: Invocation, name: string): number | undefined => {
  const v = call.args[name];
  return typeof v === 'number' ? v : undefined;
};
const OBJECT = 'java.lang.Object';
// Each action stores what it changes (sessions, the activation) in its own transaction.
const SELF_STORED = { storesItself: true };
const plural = (n: number) => `${n} unactivated change${n === 1 ? '' : 's'}`;

export const changeManagerOperations = [
  // startEdit(waitTime, timeOut): milliseconds to wait for a lock another user holds, and after
  // which the lock lapses (-1: never).
  defineOperation(action(CHANGE_MANAGER, 'startEdit', [ov(VOID), ov(VOID, p('waitTime', INT), p('timeOut', INT))], DEPLOYER), async (call, use) => {
    const waitTime = millis(call, 'waitTime');
    const timeOut = millis(call, 'timeOut');
    await use.config.startEdit(user(call), call.session, {
      ...(waitTime !== undefined ? { waitTime } : {}),
      ...(timeOut !== undefined ? { timeOut } : {}),
      ...(call.signal ? { signal: call.signal } : {}),
    });
    if (timeOut !== undefined && timeOut > 0) call.audit.detail = `Edit session '${call.session}', lock lapses after ${timeOut} ms.`;
    return DONE;
  }, SELF_STORED),
  // activate(dryRun) (REST-only, chosen): with dryRun true, everything is judged and the changes
  // that would be recorded are answered, and nothing is applied; either way the answer says what
  // the activation records (or would).
  defineOperation(action(CHANGE_MANAGER, 'activate', [ov(VOID), ov(OBJECT, p('dryRun', BOOL))], DEPLOYER), async (call, use) => {
    const dryRun = call.args.dryRun === true;
    const result = await use.config.activate(user(call), call.session, { dryRun, ...(call.precondition ? { precondition: call.precondition } : {}) });
    const changes = `${result.changes.length} change${result.changes.length === 1 ? '' : 's'}${result.restartRequired ? ', restart required' : ''}`;
    call.audit.detail = dryRun
      ? `Edit session '${call.session}': dry run, nothing applied; would make configuration version ${result.version} with ${changes}.`
      : `Edit session '${call.session}': configuration version ${result.version}, ${changes}.`;
    if (call.overload.params.length === 0) return DONE;
    return returns({
      dryRun,
      ...(result.id !== undefined ? { activation: String(result.id) } : {}),
      version: result.version,
      restartRequired: result.restartRequired,
      changes: result.changes,
    });
  }, SELF_STORED),
  defineOperation(action(CHANGE_MANAGER, 'cancelEdit', [ov(VOID)], DEPLOYER), async (call, use) => {
    await use.config.cancelEdit(user(call), call.session);
    return DONE;
  }, SELF_STORED),
  defineOperation(action(CHANGE_MANAGER, 'safeResolve', [ov(VOID)], DEPLOYER), async (call, use) => {
    await use.config.resolve(user(call), call.session, false);
    return DONE;
  }, SELF_STORED),
  defineOperation(action(CHANGE_MANAGER, 'forceResolve', [ov(VOID)], DEPLOYER), async (call, use) => {
    await use.config.resolve(user(call), call.session, true);
    return DONE;
  }, SELF_STORED),
  // Administrators only (REST-only): take over the lock another user holds, with its changes...
  defineOperation(action(CHANGE_MANAGER, 'takeOverEdit', [ov(VOID), ov(VOID, p('timeOut', INT))]), async (call, use) => {
    const timeOut = millis(call, 'timeOut');
    const { holder, changes } = await use.config.takeOverEdit(user(call), call.session, timeOut ?? -1);
    call.audit.detail =
      holder === null || holder === user(call)
        ? `Edit session '${call.session}': nobody else held the lock.`
        : `Edit session '${call.session}': took over the lock of '${holder}' with ${plural(changes)}.`;
    return DONE;
  }, SELF_STORED),
  // ... or release it and drop its changes.
  defineOperation(action(CHANGE_MANAGER, 'forceCancelEdit', [ov(VOID)]), async (call, use) => {
    const { holder, changes } = await use.config.forceCancelEdit(call.session);
    call.audit.detail =
      holder === null
        ? `Edit session '${call.session}': nobody held the lock; ${plural(changes)} dropped.`
        : `Edit session '${call.session}': released the lock of '${holder}' and dropped ${plural(changes)}.`;
    return DONE;
  }, SELF_STORED),
];
