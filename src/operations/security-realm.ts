// Users and groups of the default authentication provider, the role probe and the user lockout
// manager: how administrators manage the realm over HTTP. Changes take effect on the next request.
// Admin only where no role is named (brief item 5). The product's list* methods return a cursor to
// walk; here they return the matching names as a string array (chosen).
import { badRequest } from '../core/problems.js';
import type { Role } from '../catalog/overlay-format.js';
import { nameProblem } from '../config/validate.js';
import { ROLE_GROUPS, type SecurityService } from '../security/service.js';
import { DONE, type Invocation, type Outcome, type OperationDefinition, type OperationServices, defineOperation, returns } from './define.js';
import { AUTHN, BOOL, INT, LONG, RT, STRING, VOID, action, adminQuery, ov, ovArray, p, query, str } from './declare.js';

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

function str1(call: Invocation, name: string): string {
  const v = call.args[name];
  if (typeof v !== 'string' || v === '') throw badRequest(`The argument '${name}' of '${call.op.name}' must be a non-empty string.`, name);
  return v;
}
function user(call: Invocation, security: SecurityService, arg = 'userName'): string {
  const name = str1(call, arg);
  if (!security.hasUser(name)) throw badRequest(`There is no user '${name}'.`, arg);
  return name;
}
function group(call: Invocation, security: SecurityService, arg = 'groupName'): string {
  const name = str1(call, arg);
  if (!security.hasGroup(name)) throw badRequest(`There is no group '${name}'.`, arg);
  return name;
}
function member(call: Invocation, security: SecurityService): string {
  const name = str1(call, 'memberUserOrGroupName');
  if (!security.hasUser(name) && !security.hasGroup(name)) throw badRequest(`There is no user or group '${name}'.`, 'memberUserOrGroupName');
  return name;
}
function newPassword(call: Invocation, arg: string): string {
  const password = str1(call, arg);
  const problem = passwordProblem(password);
  if (problem) throw badRequest(`The password ${problem}.`, arg);
  return password;
}
/** Refuses a change that would leave the domain without any user holding the Admin role. */
function keepAnAdmin(security: SecurityService, change: Parameters<SecurityService['adminsAfter']>[0], what: string, arg: string): void {
  if (security.adminsAfter(change).length === 0) {
    throw badRequest(`${what} would leave the domain without an administrator (no user would remain in the group '${ROLE_GROUPS.Admin}'); give another user that role first.`, arg);
  }
}

type Handler = (call: Invocation, security: SecurityService) => Outcome | Promise<Outcome>;
/** A handler that needs the security service only. */
const realm = (fn: Handler) => (call: Invocation, use: OperationServices) => fn(call, use.security);

const LOCKOUT = RT + 'UserLockoutManagerRuntimeMBean';
const lockoutUser = [ov(VOID, str('userName')), ov(VOID, str('userName'), str('identityDomain'))];
const lockoutQuery = (returns: string) => [ov(returns, str('userName')), ov(returns, str('userName'), str('identityDomain'))];

export const securityRealmOperations: OperationDefinition[] = [
  // ---- users ----
  defineOperation(adminQuery(AUTHN + 'UserReaderMBean', 'userExists', [ov(BOOL, str('userName'))]), realm((call, security) => returns(security.hasUser(str1(call, 'userName'))))),
  defineOperation(
    adminQuery(AUTHN + 'UserReaderMBean', 'listUsers', [ovArray(STRING, str('nameWildcard'), p('maximumToReturn', INT))]),
    realm((call, security) => returns(limit(security.userNames().filter(wildcard(call.args.nameWildcard)).sort(), call.args.maximumToReturn))),
  ),
  defineOperation(adminQuery(AUTHN + 'UserReaderMBean', 'getUserDescription', [ov(STRING, str('userName'))]), realm((call, security) => returns(security.user(user(call, security))?.description ?? ''))),
  defineOperation(
    action(AUTHN + 'UserPasswordEditorMBean', 'changeUserPassword', [ov(VOID, str('userName'), str('oldPassword'), str('newPassword'))]),
    realm(async (call, security) => {
      const name = user(call, security);
      if (!(await security.verify(name, String(call.args.oldPassword ?? '')))) throw badRequest(`The old password of '${name}' is wrong.`, 'oldPassword');
      await security.setPassword(name, newPassword(call, 'newPassword'));
      return DONE;
    }),
  ),
  defineOperation(
    action(AUTHN + 'UserRemoverMBean', 'removeUser', [ov(VOID, str('userName'))]),
    realm(async (call, security) => {
      const name = user(call, security);
      if (name === call.principal.user) throw badRequest('You cannot remove the user you are logged in as.', 'userName');
      keepAnAdmin(security, { user: name }, `Removing the user '${name}'`, 'userName');
      await security.removeUser(name);
      return DONE;
    }),
  ),
  defineOperation(
    action(AUTHN + 'UserEditorMBean', 'createUser', [ov(VOID, str('userName'), str('password'), str('description'))]),
    realm(async (call, security) => {
      const name = str1(call, 'userName');
      const problem = nameProblem(name);
      if (problem) throw badRequest(`The user name ${problem}.`, 'userName');
      if (security.hasUser(name) || security.hasGroup(name)) throw badRequest(`A user or group named '${name}' already exists.`, 'userName');
      if (!(await security.createUser(name, newPassword(call, 'password'), String(call.args.description ?? '')))) {
        throw badRequest(`A user named '${name}' already exists.`, 'userName');
      }
      return DONE;
    }),
  ),
  defineOperation(
    action(AUTHN + 'UserEditorMBean', 'resetUserPassword', [ov(VOID, str('userName'), str('newPassword'))]),
    realm(async (call, security) => {
      await security.setPassword(user(call, security), newPassword(call, 'newPassword'));
      return DONE;
    }),
  ),
  defineOperation(
    action(AUTHN + 'UserEditorMBean', 'setUserDescription', [ov(VOID, str('userName'), str('description'))]),
    realm(async (call, security) => {
      await security.setUserDescription(user(call, security), String(call.args.description ?? ''));
      return DONE;
    }),
  ),

  // ---- groups ----
  defineOperation(adminQuery(AUTHN + 'GroupReaderMBean', 'groupExists', [ov(BOOL, str('groupName'))]), realm((call, security) => returns(security.hasGroup(str1(call, 'groupName'))))),
  defineOperation(
    adminQuery(AUTHN + 'GroupReaderMBean', 'listGroups', [ovArray(STRING, str('groupNameWildcard'), p('maximumToReturn', INT))]),
    realm((call, security) => returns(limit(security.groupNames().filter(wildcard(call.args.groupNameWildcard)).sort(), call.args.maximumToReturn))),
  ),
  defineOperation(
    adminQuery(AUTHN + 'GroupReaderMBean', 'isMember', [ov(BOOL, str('parentGroupName'), str('memberUserOrGroupName'), p('recursive', BOOL))]),
    realm((call, security) => {
      const g = group(call, security, 'parentGroupName');
      const m = str1(call, 'memberUserOrGroupName');
      const direct = security.group(g)?.members.includes(m) ?? false;
      return returns(direct || (call.args.recursive === true && security.groupsOf(m).has(g)));
    }),
  ),
  defineOperation(adminQuery(AUTHN + 'GroupReaderMBean', 'getGroupDescription', [ov(STRING, str('groupName'))]), realm((call, security) => returns(security.group(group(call, security))?.description ?? ''))),
  defineOperation(
    action(AUTHN + 'GroupRemoverMBean', 'removeGroup', [ov(VOID, str('groupName'))]),
    realm(async (call, security) => {
      const name = group(call, security);
      keepAnAdmin(security, { group: name }, `Removing the group '${name}'`, 'groupName');
      await security.removeGroup(name);
      return DONE;
    }),
  ),
  defineOperation(
    action(AUTHN + 'GroupEditorMBean', 'createGroup', [ov(VOID, str('groupName'), str('description'))]),
    realm(async (call, security) => {
      const name = str1(call, 'groupName');
      const problem = nameProblem(name);
      if (problem) throw badRequest(`The group name ${problem}.`, 'groupName');
      if (security.hasGroup(name) || security.hasUser(name)) throw badRequest(`A user or group named '${name}' already exists.`, 'groupName');
      if (!(await security.createGroup(name, String(call.args.description ?? '')))) {
        throw badRequest(`A group named '${name}' already exists.`, 'groupName');
      }
      return DONE;
    }),
  ),
  defineOperation(
    action(AUTHN + 'GroupEditorMBean', 'addMemberToGroup', [ov(VOID, str('groupName'), str('memberUserOrGroupName'))]),
    realm(async (call, security) => {
      const g = group(call, security);
      const m = member(call, security);
      if (m === g || security.groupsOf(g).has(m)) throw badRequest(`Adding '${m}' to '${g}' would make a group contain itself.`, 'memberUserOrGroupName');
      await security.addMember(g, m);
      return DONE;
    }),
  ),
  defineOperation(
    action(AUTHN + 'GroupEditorMBean', 'removeMemberFromGroup', [ov(VOID, str('groupName'), str('memberUserOrGroupName'))]),
    realm(async (call, security) => {
      const g = group(call, security);
      const m = member(call, security);
      keepAnAdmin(security, { member: [g, m] }, `Removing '${m}' from the group '${g}'`, 'memberUserOrGroupName');
      await security.removeMember(g, m);
      return DONE;
    }),
  ),
  defineOperation(
    action(AUTHN + 'GroupEditorMBean', 'setGroupDescription', [ov(VOID, str('groupName'), str('description'))]),
    realm(async (call, security) => {
      await security.setGroupDescription(group(call, security), String(call.args.description ?? ''));
      return DONE;
    }),
  ),
  defineOperation(
    adminQuery(AUTHN + 'MemberGroupListerMBean', 'listMemberGroups', [ovArray(STRING, str('memberUserOrGroupName'))]),
    realm((call, security) =>
      returns([...security.groupsOf(member(call, security))].filter((g) => security.group(g)?.members.includes(call.args.memberUserOrGroupName as string)).sort()),
    ),
  ),
  defineOperation(
    adminQuery(AUTHN + 'GroupMemberListerMBean', 'listGroupMembers', [ovArray(STRING, str('groupName'), str('memberUserOrGroupNameWildcard'), p('maximumToReturn', INT))]),
    realm((call, security) =>
      returns(limit((security.group(group(call, security))?.members ?? []).filter(wildcard(call.args.memberUserOrGroupNameWildcard)).sort(), call.args.maximumToReturn)),
    ),
  ),

  // ---- role probe (rb §6, §9) ----
  defineOperation(query(RT + 'ServerSecurityRuntimeMBean', 'checkRole', [ov(BOOL, str('roleName'))]), (call) => returns(call.principal.roles.has(str1(call, 'roleName') as Role))),

  // ---- the realm's user lockout manager (api). Lockouts are the domain's, whatever server shows
  // them. Admin only: they tell about user names. identityDomain is accepted and ignored. ----
  defineOperation(
    action(LOCKOUT, 'clearLockout', lockoutUser),
    realm(async (call, security) => {
      const name = str1(call, 'userName');
      const was = await security.lockouts.clear(name);
      call.audit.detail = was ? `The lockout of '${name}' was cleared.` : `'${name}' was not locked out; its failed logins were forgotten.`;
      return DONE;
    }),
  ),
  defineOperation(adminQuery(LOCKOUT, 'isLockedOut', lockoutQuery(BOOL)), realm((call, security) => returns(security.lockouts.isLocked('user', str1(call, 'userName'))))),
  defineOperation(adminQuery(LOCKOUT, 'getLoginFailureCount', lockoutQuery(LONG)), realm(async (call, security) => returns(await security.lockouts.failureCount(str1(call, 'userName'))))),
  defineOperation(adminQuery(LOCKOUT, 'getLastLoginFailure', lockoutQuery(LONG)), realm(async (call, security) => returns(await security.lockouts.lastFailure(str1(call, 'userName'))))),
];
