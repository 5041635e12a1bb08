// User and group management through the default authentication provider, and role checks:
// the way administrators manage the realm over HTTP. Changes take effect on the next request.
import { badRequest } from '../core/problems.js';
import type { Role } from '../catalog/overlay-format.js';
import { ROLE_GROUPS, type SecurityService } from '../security/service.js';
import { nameProblem } from '../config/validate.js';
import type { ActionCall, ActionRegistry } from './invoke.js';

const AUTHN = 'appserver.management.security.authentication.';
const done = { value: undefined };

/** Minimum password rules of the realm's password validator. */
export function passwordProblem(password: unknown): string | undefined {
  if (typeof password !== 'string' || password.length < 8) return 'must be at least 8 characters long';
  if (!/[^A-Za-z]/.test(password)) return 'must contain at least one character that is not a letter';
  return undefined;
}

/** `*` matches any run of characters; everything else literally. */
function wildcard(pattern: unknown): (name: string) => boolean {
  const text = typeof pattern === 'string' && pattern !== '' ? pattern : '*';
  const re = new RegExp(`^${text.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  return (name) => re.test(name);
}

function limit<T>(list: T[], max: unknown): T[] {
  return typeof max === 'number' && max > 0 ? list.slice(0, max) : list;
}

export function registerSecurityActions(actions: ActionRegistry, security: SecurityService): void {
  const str = (call: ActionCall, name: string): string => {
    const v = call.args[name];
    if (typeof v !== 'string' || v === '') throw badRequest(`The argument '${name}' of '${call.op.name}' must be a non-empty string.`, name);
    return v;
  };
  const user = (call: ActionCall, arg = 'userName'): string => {
    const name = str(call, arg);
    if (!security.hasUser(name)) throw badRequest(`There is no user '${name}'.`, arg);
    return name;
  };
  const group = (call: ActionCall, arg = 'groupName'): string => {
    const name = str(call, arg);
    if (!security.hasGroup(name)) throw badRequest(`There is no group '${name}'.`, arg);
    return name;
  };
  const member = (call: ActionCall): string => {
    const name = str(call, 'memberUserOrGroupName');
    if (!security.hasUser(name) && !security.hasGroup(name)) throw badRequest(`There is no user or group '${name}'.`, 'memberUserOrGroupName');
    return name;
  };
  const newPassword = (call: ActionCall, arg: string): string => {
    const password = str(call, arg);
    const problem = passwordProblem(password);
    if (problem) throw badRequest(`The password ${problem}.`, arg);
    return password;
  };
  const on = (type: string, op: string, fn: (call: ActionCall) => Promise<{ value: unknown }> | { value: unknown }) =>
    actions.register(AUTHN + type, op, fn);

  on('UserEditorMBean', 'createUser', async (call) => {
    const name = str(call, 'userName');
    const problem = nameProblem(name);
    if (problem) throw badRequest(`The user name ${problem}.`, 'userName');
    if (security.hasUser(name) || security.hasGroup(name)) throw badRequest(`A user or group named '${name}' already exists.`, 'userName');
    if (!(await security.createUser(name, newPassword(call, 'password'), String(call.args.description ?? '')))) {
      throw badRequest(`A user named '${name}' already exists.`, 'userName');
    }
    return done;
  });
  /** Refuses a change that would leave the domain without any user holding the Admin role. */
  const keepAnAdmin = (change: Parameters<SecurityService['adminsAfter']>[0], what: string, arg: string) => {
    if (security.adminsAfter(change).length === 0) {
      throw badRequest(`${what} would leave the domain without an administrator (no user would remain in the group '${ROLE_GROUPS.Admin}'); give another user that role first.`, arg);
    }
  };
  on('UserRemoverMBean', 'removeUser', async (call) => {
    const name = user(call);
    if (name === call.principal.user) throw badRequest('You cannot remove the user you are logged in as.', 'userName');
    keepAnAdmin({ user: name }, `Removing the user '${name}'`, 'userName');
    await security.removeUser(name);
    return done;
  });
  on('UserPasswordEditorMBean', 'changeUserPassword', async (call) => {
    const name = user(call);
    if (!(await security.verify(name, String(call.args.oldPassword ?? '')))) throw badRequest(`The old password of '${name}' is wrong.`, 'oldPassword');
    await security.setPassword(name, newPassword(call, 'newPassword'));
    return done;
  });
  on('UserEditorMBean', 'resetUserPassword', async (call) => {
    await security.setPassword(user(call), newPassword(call, 'newPassword'));
    return done;
  });
  on('UserEditorMBean', 'setUserDescription', async (call) => {
    await security.setUserDescription(user(call), String(call.args.description ?? ''));
    return done;
  });
  on('UserReaderMBean', 'userExists', (call) => ({ value: security.hasUser(str(call, 'userName')) }));
  on('UserReaderMBean', 'getUserDescription', (call) => ({ value: security.user(user(call))?.description ?? '' }));
  on('UserReaderMBean', 'listUsers', (call) => ({
    value: limit(security.userNames().filter(wildcard(call.args.nameWildcard)).sort(), call.args.maximumToReturn),
  }));

  on('GroupEditorMBean', 'createGroup', async (call) => {
    const name = str(call, 'groupName');
    const problem = nameProblem(name);
    if (problem) throw badRequest(`The group name ${problem}.`, 'groupName');
    if (security.hasGroup(name) || security.hasUser(name)) throw badRequest(`A user or group named '${name}' already exists.`, 'groupName');
    if (!(await security.createGroup(name, String(call.args.description ?? '')))) {
      throw badRequest(`A group named '${name}' already exists.`, 'groupName');
    }
    return done;
  });
  on('GroupRemoverMBean', 'removeGroup', async (call) => {
    const name = group(call);
    keepAnAdmin({ group: name }, `Removing the group '${name}'`, 'groupName');
    await security.removeGroup(name);
    return done;
  });
  on('GroupEditorMBean', 'setGroupDescription', async (call) => {
    await security.setGroupDescription(group(call), String(call.args.description ?? ''));
    return done;
  });
  on('GroupEditorMBean', 'addMemberToGroup', async (call) => {
    const g = group(call);
    const m = member(call);
    if (m === g || security.groupsOf(g).has(m)) throw badRequest(`Adding '${m}' to '${g}' would make a group contain itself.`, 'memberUserOrGroupName');
    await security.addMember(g, m);
    return done;
  });
  on('GroupEditorMBean', 'removeMemberFromGroup', async (call) => {
    const g = group(call);
    const m = member(call);
    keepAnAdmin({ member: [g, m] }, `Removing '${m}' from the group '${g}'`, 'memberUserOrGroupName');
    await security.removeMember(g, m);
    return done;
  });
  on('GroupReaderMBean', 'groupExists', (call) => ({ value: security.hasGroup(str(call, 'groupName')) }));
  on('GroupReaderMBean', 'getGroupDescription', (call) => ({ value: security.group(group(call))?.description ?? '' }));
  on('GroupReaderMBean', 'listGroups', (call) => ({
    value: limit(security.groupNames().filter(wildcard(call.args.groupNameWildcard)).sort(), call.args.maximumToReturn),
  }));
  on('GroupReaderMBean', 'isMember', (call) => {
    const g = group(call, 'parentGroupName');
    const m = str(call, 'memberUserOrGroupName');
    const direct = security.group(g)?.members.includes(m) ?? false;
    return { value: direct || (call.args.recursive === true && security.groupsOf(m).has(g)) };
  });
  on('MemberGroupListerMBean', 'listMemberGroups', (call) => ({ value: [...security.groupsOf(member(call))].filter((g) => security.group(g)?.members.includes(call.args.memberUserOrGroupName as string)).sort() }));
  on('GroupMemberListerMBean', 'listGroupMembers', (call) => ({
    value: limit((security.group(group(call))?.members ?? []).filter(wildcard(call.args.memberUserOrGroupNameWildcard)).sort(), call.args.maximumToReturn),
  }));

  actions.register('appserver.management.runtime.ServerSecurityRuntimeMBean', 'checkRole', (call) => ({
    value: call.principal.roles.has(str(call, 'roleName') as Role),
  }));

  // The user lockout manager of the realm's runtime: lockouts are the domain's, whatever server shows them.
  const lockout = (op: string, fn: (call: ActionCall, name: string) => Promise<{ value: unknown }> | { value: unknown }) =>
    actions.register('appserver.management.runtime.UserLockoutManagerRuntimeMBean', op, (call) => fn(call, str(call, 'userName')));
  lockout('isLockedOut', (_call, name) => ({ value: security.lockouts.isLocked('user', name) }));
  lockout('getLoginFailureCount', async (_call, name) => ({ value: await security.lockouts.failureCount(name) }));
  lockout('getLastLoginFailure', async (_call, name) => ({ value: await security.lockouts.lastFailure(name) }));
  lockout('clearLockout', async (call, name) => {
    const was = await security.lockouts.clear(name);
    call.audit.detail = was ? `The lockout of '${name}' was cleared.` : `'${name}' was not locked out; its failed logins were forgotten.`;
    return done;
  });
}
