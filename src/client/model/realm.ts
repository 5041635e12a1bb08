// The security realm's users and groups, as far as the management interface shows them: the
// default authenticator's actions (listUsers, listGroups, listGroupMembers, get*Description) read
// them; createUser, createGroup, addMemberToGroup, removeMemberFromGroup, set*Description,
// removeUser and removeGroup change them. A password is never read (the interface has no way to);
// a model carries it as a @@SECRET:<user>:password@@ token, used only when a user is created.
// These actions act at once, outside edit sessions: apply runs them after the session's changes
// are sent and before it activates, and takes them back when anything fails.
import type { AppserverClient } from '../client.js';
import { AppserverError } from '../errors.js';
import { isA } from './format.js';
import { type Node, type Place, type Realm, newRealm } from './tree.js';

export const AUTHENTICATOR_TYPE = 'appserver.security.providers.authentication.DefaultAuthenticatorMBean';

/** The default realm's first authenticator that keeps users (the default authenticator), as a serverConfig path. */
export function authenticatorPath(live: Node): string | undefined {
  const sec = live.singletons.get('securityConfiguration');
  const realms = sec?.collections.get('realms');
  if (!sec || !realms) return undefined;
  const wanted = sec.values.get('defaultRealm');
  const realm = (typeof wanted === 'string' ? realms.get(wanted) : undefined) ?? realms.values().next().value;
  if (!realm) return undefined;
  const providers = [...(realm.collections.get('authenticationProviders') ?? new Map<string, Node>())];
  // By its type; a server that does not show providers' types: by the default authenticator's usual name.
  const found = providers.find(([, p]) => isA(p.type, AUTHENTICATOR_TYPE)) ?? providers.find(([name]) => name === 'DefaultAuthenticator');
  if (!found) return undefined;
  return `serverConfig/securityConfiguration/realms/${encodeURIComponent(realm.name ?? '')}/authenticationProviders/${encodeURIComponent(found[0])}`;
}

/** Runs `work` over `items`, at most `width` at a time. */
async function eachLimited<T, R>(items: readonly T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
  return out;
}

/**
 * The names a list action returns: this server answers with the names; the product answers with a
 * cursor to walk (haveCurrent, getCurrentName, advance, close).
 */
async function names(client: AppserverClient, path: string, action: string, args: Record<string, unknown>): Promise<string[]> {
  const r = await client.invoke(path, action, args);
  if (Array.isArray(r)) return r.map(String);
  if (typeof r !== 'string' || r === '') return [];
  const cursor = { cursor: r };
  const out: string[] = [];
  try {
    while ((await client.invoke(path, 'haveCurrent', cursor)) === true) {
      out.push(String(await client.invoke(path, 'getCurrentName', cursor)));
      await client.invoke(path, 'advance', cursor);
    }
  } finally {
    await client.invoke(path, 'close', cursor).catch(() => undefined);
  }
  return out;
}

/**
 * Reads the users and groups of the domain's default authenticator; undefined when the domain has
 * none the interface shows, or (with `ifAllowed`) when the user may not list them (403).
 */
export async function readRealm(client: AppserverClient, live: Node, ifAllowed = false): Promise<Realm | undefined> {
  const path = authenticatorPath(live);
  if (path === undefined) return undefined;
  const realm: Realm = { ...newRealm(), path };
  let users: string[];
  let groups: string[];
  try {
    users = await names(client, path, 'listUsers', { nameWildcard: '*', maximumToReturn: 0 });
    groups = await names(client, path, 'listGroups', { groupNameWildcard: '*', maximumToReturn: 0 });
  } catch (err) {
    if (err instanceof AppserverError && err.kind === 'auth' && err.status === 403) {
      if (ifAllowed) return undefined;
      throw new AppserverError('auth', `${client.options.user ?? 'this user'} may not list the realm's users and groups (the Admin role): ${err.message}`, err.status);
    }
    throw err;
  }
  const memberOf = new Map<string, string[]>();
  const members = await eachLimited(groups, 8, (g) => names(client, path, 'listGroupMembers', { groupName: g, memberUserOrGroupNameWildcard: '*', maximumToReturn: 0 }));
  groups.forEach((g, i) => {
    for (const m of members[i]!) memberOf.set(m, [...(memberOf.get(m) ?? []), g]);
  });
  const describe = async (action: string, arg: string, name: string) => {
    const d = await client.invoke(path, action, { [arg]: name });
    return typeof d === 'string' ? d : '';
  };
  const userDescriptions = await eachLimited(users, 8, (u) => describe('getUserDescription', 'userName', u));
  const groupDescriptions = await eachLimited(groups, 8, (g) => describe('getGroupDescription', 'groupName', g));
  users.forEach((u, i) => realm.users.set(u, { name: u, description: userDescriptions[i]!, memberOf: (memberOf.get(u) ?? []).sort() }));
  groups.forEach((g, i) => realm.groups.set(g, { name: g, description: groupDescriptions[i]!, memberOf: (memberOf.get(g) ?? []).sort() }));
  return realm;
}

/** One action of the authenticator, with the action that takes it back. */
interface Step {
  what: string;
  run: () => Promise<unknown>;
  undo?: () => Promise<unknown>;
  change: RealmChange;
}

/** What plan says of a user or group (plan.ts's Change, as far as the realm needs it). */
export interface RealmChange {
  op: 'create' | 'update' | 'delete';
  realm?: 'user' | 'group';
  path: string[];
  at?: Place;
  props: { name: string; old: unknown; new: unknown }[];
}

/**
 * The steps that make the realm match the plan: creates (groups, then users), descriptions,
 * memberships added, memberships removed. Deletes are apart (`deleteSteps`): a removed user's
 * password cannot be given back, so they run only once everything else is done.
 */
export function realmSteps(client: AppserverClient, path: string, changes: readonly RealmChange[]): Step[] {
  const steps: Step[] = [];
  const call = (action: string, args: Record<string, unknown>) => () => client.invoke(path, action, args);
  const ordered = [...changes.filter((c) => c.realm === 'group'), ...changes.filter((c) => c.realm === 'user')];
  const prop = (c: RealmChange, name: string) => c.props.find((p) => p.name === name);
  for (const c of ordered) {
    if (c.op !== 'create') continue;
    const name = c.path[c.path.length - 1]!;
    const description = String(prop(c, 'description')?.new ?? '');
    if (c.realm === 'group') steps.push({ what: `creating the group ${name}`, run: call('createGroup', { groupName: name, description }), undo: call('removeGroup', { groupName: name }), change: c });
    else steps.push({ what: `creating the user ${name}`, run: call('createUser', { userName: name, password: String(prop(c, 'password')?.new ?? ''), description }), undo: call('removeUser', { userName: name }), change: c });
  }
  for (const c of ordered) {
    const d = prop(c, 'description');
    if (c.op !== 'update' || !d) continue;
    const name = c.path[c.path.length - 1]!;
    const [action, arg] = c.realm === 'group' ? ['setGroupDescription', 'groupName'] : ['setUserDescription', 'userName'];
    steps.push({ what: `describing ${name}`, run: call(action, { [arg]: name, description: d.new }), undo: call(action, { [arg]: name, description: d.old }), change: c });
  }
  const membership = (c: RealmChange) => {
    const m = prop(c, 'memberOf');
    const had = new Set((m?.old as string[] | undefined) ?? []);
    const wants = new Set((m?.new as string[] | undefined) ?? []);
    return { added: [...wants].filter((g) => !had.has(g)), removed: [...had].filter((g) => !wants.has(g)) };
  };
  for (const c of ordered) {
    if (c.op === 'delete') continue;
    const name = c.path[c.path.length - 1]!;
    for (const g of membership(c).added) {
      const args = { groupName: g, memberUserOrGroupName: name };
      steps.push({ what: `adding ${name} to the group ${g}`, run: call('addMemberToGroup', args), undo: call('removeMemberFromGroup', args), change: c });
    }
  }
  for (const c of ordered) {
    if (c.op !== 'update') continue;
    const name = c.path[c.path.length - 1]!;
    for (const g of membership(c).removed) {
      const args = { groupName: g, memberUserOrGroupName: name };
      steps.push({ what: `removing ${name} from the group ${g}`, run: call('removeMemberFromGroup', args), undo: call('addMemberToGroup', args), change: c });
    }
  }
  return steps;
}

/** The steps of --prune in the realm: users first, then groups. */
export function deleteSteps(client: AppserverClient, path: string, changes: readonly RealmChange[]): Step[] {
  const deletes = changes.filter((c) => c.op === 'delete' && c.realm !== undefined);
  return [...deletes.filter((c) => c.realm === 'user'), ...deletes.filter((c) => c.realm === 'group')].map((c) => {
    const name = c.path[c.path.length - 1]!;
    return c.realm === 'user'
      ? { what: `removing the user ${name}`, run: () => client.invoke(path, 'removeUser', { userName: name }), change: c }
      : { what: `removing the group ${name}`, run: () => client.invoke(path, 'removeGroup', { groupName: name }), change: c };
  });
}

/**
 * Runs steps in order until one is refused: returns that step and its error, having taken back
 * (in reverse order) every step done before it; or undefined when all were done, with `done` kept
 * for a later `takeBack`.
 */
export async function runSteps(steps: readonly Step[], done: Step[]): Promise<{ step: Step; error: unknown; notUndone: string[] } | undefined> {
  for (const step of steps) {
    try {
      await step.run();
      done.push(step);
    } catch (error) {
      return { step, error, notUndone: await takeBack(done) };
    }
  }
  return undefined;
}

/** Takes back steps done, last first; one that cannot be taken back does not stop the others. */
export async function takeBack(done: Step[]): Promise<string[]> {
  const failed: string[] = [];
  while (done.length > 0) {
    const step = done.pop()!;
    if (!step.undo) continue;
    try {
      await step.undo();
    } catch (err) {
      failed.push(`${step.what}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return failed;
}

export type { Step as RealmStep };
