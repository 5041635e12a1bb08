// Users, groups, roles and authentication. Stateless per request: a credential is checked against
// the stored hash once, then remembered (bounded) until a user or group changes. Failed logins are
// counted (throttling with back-off), audited, and cost the same whether the user exists or not.
import { Mutex } from '../core/mutex.js';
import * as crypto from 'node:crypto';
import type { Role } from '../catalog/overlay-format.js';
import { type Store, StoreConflict, type StoredGroup, type StoredUser } from '../store/store.js';
import { AuditLog } from './audit.js';
import { type BasicCredentials, decodeBasic, isBasic } from './basic.js';
import { ADDRESS_FACTOR, type FailureOutcome, Lockouts, type Throttled } from './lockout.js';
import { hashPassword, isPasswordHash, unmatchableHash, verifyPassword } from './passwords.js';

export interface Principal {
  user: string;
  roles: ReadonlySet<Role>;
}

/**
 * The result of authenticating a request: who it is, or why it is refused (the 401's detail); with
 * `retryAfterSeconds` when the login was not even tried because it must wait (a 429).
 */
export type Authentication = { principal: Principal; problem?: undefined } | { principal?: undefined; problem: string; retryAfterSeconds?: number };

/** The one answer for a wrong password and an unknown user alike. */
const FAILED = 'Authentication failed: the user name or password is wrong.';

/** The answer for a login that must wait: the same for known and unknown user names. */
function waitAnswer(t: Throttled): Authentication {
  const seconds = Math.max(1, Math.ceil(t.retryAfterMs / 1000));
  const why =
    t.kind === 'address'
      ? 'Too many failed logins from this address'
      : 'Too many failed logins for this user name, this address among them';
  return { problem: `${why}: the login was not tried. Retry in ${seconds} second${seconds === 1 ? '' : 's'}.`, retryAfterSeconds: seconds };
}

const isThrottled = (r: Principal | Throttled | undefined): r is Throttled => r !== undefined && 'retryAfterMs' in r;

/** The groups that grant each role, as in the product's default security realm. */
export const ROLE_GROUPS: Record<Role, string> = {
  Admin: 'Administrators',
  Deployer: 'Deployers',
  Operator: 'Operators',
  Monitor: 'Monitors',
};

const DEFAULT_GROUPS: StoredGroup[] = [
  { name: 'Administrators', description: 'Administrators can view and modify all resource attributes and start and stop servers.', members: [] },
  { name: 'Deployers', description: 'Deployers can view all resource attributes and deploy applications.', members: [] },
  { name: 'Operators', description: 'Operators can view and modify all resource attributes and perform server lifecycle operations.', members: [] },
  { name: 'Monitors', description: 'Monitors can view and modify all resource attributes and perform operations not restricted by roles.', members: [] },
  { name: 'AppTesters', description: 'Application testers may call applications in admin mode.', members: [] },
];

const CACHE_LIMIT = 1024;

/** A text's SHA-256 (base64), in one call where Node has one (20.12 and later). */
const digest: (text: string) => string =
  typeof crypto.hash === 'function' ? (text) => crypto.hash('sha256', text, 'base64') : (text) => crypto.createHash('sha256').update(text).digest('base64');
/** Password checks run at once for one client address. */
const ADDRESS_CHECKS = 4;

/** Runs tasks with at most `limit` at once per key, in arrival order. */
class KeyedLimiter {
  private readonly slots = new Map<string, { running: number; queue: (() => void)[] }>();

  async run<T>(key: string, limit: number, fn: () => Promise<T>): Promise<T> {
    let slot = this.slots.get(key);
    if (!slot) this.slots.set(key, (slot = { running: 0, queue: [] }));
    if (slot.running >= limit) await new Promise<void>((resolve) => slot!.queue.push(resolve));
    else slot.running++;
    try {
      return await fn();
    } finally {
      const next = slot.queue.shift();
      if (next) next();
      else if (--slot.running === 0) this.slots.delete(key);
    }
  }
}

export class SecurityService {
  private users = new Map<string, StoredUser>();
  private groups = new Map<string, StoredGroup>();
  /** sha256(credential) -> principal; emptied whenever users or groups change. */
  private verified = new Map<string, Principal>();
  /**
   * sha256(Authorization header as sent) -> principal, for headers whose credential was verified:
   * a request sending one again is neither decoded nor hashed twice. Emptied with `verified`; only
   * digests are kept, never a password.
   */
  private headers = new Map<string, Principal>();
  /** Checks under way, so concurrent requests with one credential share a single hash computation. */
  private pending = new Map<string, Promise<Principal | Throttled | undefined>>();
  private readonly userChecks = new KeyedLimiter();
  private readonly addressChecks = new KeyedLimiter();
  private generation = 0;
  /** Checked for user names nobody has, so that they cost what a real user's check costs. */
  private readonly unknownUserHash = unmatchableHash();
  /** Called after a user is removed (the edit locks it held are released). */
  onUserRemoved: (name: string) => Promise<void> = async () => {};
  /** Called when a failure could not be recorded (the login is refused all the same). */
  onError: (err: unknown) => void = () => {};

  /** This server's writes of users and groups, one at a time, and reloads between them. */
  private readonly writes = new Mutex();

  constructor(
    private readonly store: Store,
    readonly lockouts: Lockouts = new Lockouts(store, Date.now),
    readonly audit: AuditLog = new AuditLog(store, Date.now),
  ) {}

  /**
   * Reads users and groups again (another server changed them). Waits for this server's own writes
   * in progress, so a reload never replaces what one of them is about to add.
   */
  load(): Promise<void> {
    return this.writes.run(() => this.reload());
  }

  private async reload(): Promise<void> {
    this.users = new Map((await this.store.users()).map((u) => [u.name, u]));
    this.groups = new Map((await this.store.groups()).map((g) => [g.name, g]));
    await this.lockouts.load();
    this.changed();
  }

  /** Creates the default groups and the first administrator of a new domain. */
  async bootstrap(adminUser: string, adminPassword: string): Promise<void> {
    for (const g of DEFAULT_GROUPS) if (!this.groups.has(g.name)) await this.createGroup(g.name, g.description);
    await this.createUser(adminUser, adminPassword, 'The domain administrator.');
    await this.addMember(ROLE_GROUPS.Admin, adminUser);
  }

  /**
   * Authenticates an `Authorization` header value from a client address. Refused when the header
   * is missing or malformed or the password is wrong (alike, and at the same cost, whether the user
   * exists or not), and not even tried while the address, or the user name from an address that
   * failed recently, must wait (with the seconds to wait).
   */
  async authenticate(header: string | undefined, address = '', where = ''): Promise<Authentication> {
    if (!header) return { problem: 'Authentication required: send HTTP basic credentials (Authorization: Basic ...).' };
    // A header checked before is known by its digest: no decoding, no second look at the password.
    const sent = digest(header);
    const known = this.headers.get(sent);
    if (known) {
      const wait = this.waiting(known.user, address);
      return wait ? waitAnswer(wait) : { principal: known };
    }
    if (!isBasic(header)) return { problem: 'Authentication failed: only HTTP basic credentials are accepted (Authorization: Basic ...).' };
    const credentials = decodeBasic(header);
    if ('problem' in credentials) return { problem: `Authentication failed: ${credentials.problem}.` };
    const generation = this.generation;
    const principal = await this.check(credentials, address, where);
    if (isThrottled(principal)) return waitAnswer(principal);
    if (!principal) return { problem: FAILED };
    // Remembered only if users and groups stayed as they were while it was checked.
    if (generation === this.generation) {
      if (this.headers.size >= CACHE_LIMIT) this.headers.delete(this.headers.keys().next().value!);
      this.headers.set(sent, principal);
    }
    return { principal };
  }

  /**
   * The principal of a header verified before, when its login need not wait (undefined otherwise:
   * `authenticate` then says why, and counts what it must).
   */
  known(header: string, address: string): Principal | undefined {
    const principal = this.headers.get(digest(header));
    if (!principal || this.lockouts.throttled(principal.user, address)) return undefined;
    return principal;
  }

  private async check(credentials: BasicCredentials, address: string, where: string): Promise<Principal | Throttled | undefined> {
    const { user } = credentials;
    // A login that must wait is not tried, right password or not.
    const wait = this.waiting(user, address);
    if (wait) return wait;
    // Keyed by the decoded credentials: however the header is spelt, one credential is one entry.
    const cacheKey = digest(`${user}:${credentials.password}`);
    const known = this.verified.get(cacheKey);
    if (known) return known;
    for (;;) {
      const generation = this.generation;
      // Requests join a check only if it began under the same users and groups.
      const pendingKey = `${generation}:${cacheKey}`;
      let check: Promise<Principal | Throttled | undefined> | undefined = this.pending.get(pendingKey);
      if (!check) {
        // One check at a time per user name (and a few per address), each looking at the lockouts
        // first: a burst of guesses sent at once gets no more tries than guesses sent in turn.
        check = this.userChecks
          .run(user, 1, () => this.addressChecks.run(address, ADDRESS_CHECKS, () => this.verifyLogin(credentials, address, where)))
          .finally(() => this.pending.delete(pendingKey));
        this.pending.set(pendingKey, check);
      }
      const principal = await check;
      // A change that happened while hashing makes the result stale: check again under the new state.
      if (generation !== this.generation) continue;
      if (principal && !isThrottled(principal)) {
        if (this.verified.size >= CACHE_LIMIT) this.verified.delete(this.verified.keys().next().value!);
        this.verified.set(cacheKey, principal);
      }
      return principal;
    }
  }

  /** Whether the login must wait, from what this server knows; counted when it must. */
  private waiting(user: string, address: string): Throttled | undefined {
    const wait = this.lockouts.throttled(user, address);
    if (wait) this.lockouts.refusedWhileLocked();
    return wait;
  }

  /**
   * One password check: a known user's hash, or one nobody matches for an unknown name (same cost).
   * The store has the first word: failures recorded just now through another server count.
   */
  private async verifyLogin({ user, password }: BasicCredentials, address: string, where: string): Promise<Principal | Throttled | undefined> {
    const stored = await this.lockouts.throttledInStore(user, address).catch((err) => (this.onError(err), undefined));
    if (stored) {
      this.lockouts.refusedWhileLocked();
      return stored;
    }
    const known = this.users.get(user);
    const ok = await verifyPassword(password, known?.hash ?? this.unknownUserHash);
    if (ok && known) {
      await this.lockouts.success(user).catch((err) => this.onError(err));
      return { user, roles: this.rolesOf(user) };
    }
    await this.loginFailed(user, address, where);
    return undefined;
  }

  /** Counts, audits and logs a failed login (the same steps for known and unknown user names). */
  private async loginFailed(user: string, address: string, where: string): Promise<void> {
    let outcome: FailureOutcome | undefined;
    try {
      outcome = await this.lockouts.failure(user, address);
    } catch (err) {
      this.onError(err);
    }
    await this.audit.record({ user, address, action: 'login', bean: where, outcome: 'failure', detail: 'The user name or password is wrong.' });
    const policy = this.lockouts.policy();
    const minutes = (ms: number) => `${Math.round(ms / 60_000)} minute${Math.round(ms / 60_000) === 1 ? '' : 's'}`;
    if (outcome?.userLocked) {
      await this.audit.record({
        user,
        address,
        action: 'lockout',
        bean: where,
        outcome: 'locked out',
        detail: `${outcome.count} failed logins, none more than ${minutes(policy.resetMs)} apart: logins as '${user}' from addresses that failed recently wait 1 second, doubling with each further failure up to ${minutes(policy.durationMs)}; other addresses are not held up.`,
      });
    }
    if (outcome?.addressLocked) {
      await this.audit.record({
        user,
        address,
        action: 'lockout',
        bean: where,
        outcome: 'address locked out',
        detail: `${policy.threshold * ADDRESS_FACTOR} failed logins from ${address}, none more than ${minutes(policy.resetMs)} apart: logins from it wait 1 second, doubling with each further failure up to ${minutes(policy.durationMs)}.`,
      });
    }
  }

  rolesOf(user: string): Set<Role> {
    const roles = new Set<Role>();
    const groups = this.groupsOf(user);
    for (const [role, group] of Object.entries(ROLE_GROUPS) as [Role, string][]) if (groups.has(group)) roles.add(role);
    return roles;
  }

  /** Every group the user or group belongs to, directly or through nested groups. */
  groupsOf(member: string): Set<string> {
    const found = new Set<string>();
    const visit = (m: string) => {
      for (const g of this.groups.values()) {
        if (g.members.includes(m) && !found.has(g.name)) {
          found.add(g.name);
          visit(g.name);
        }
      }
    };
    visit(member);
    return found;
  }

  hasUser(name: string): boolean {
    return this.users.has(name);
  }

  hasGroup(name: string): boolean {
    return this.groups.has(name);
  }

  userNames(): string[] {
    return [...this.users.keys()];
  }

  groupNames(): string[] {
    return [...this.groups.keys()];
  }

  /** Adds a user; false when the name is taken (perhaps just now, through another server). */
  async createUser(name: string, password: string, description: string): Promise<boolean> {
    return this.insertUser({ name, hash: await hashPassword(password), description });
  }

  /** Adds a user whose password hash was made elsewhere (a realm import); false when the name is taken. */
  async importUser(name: string, hash: string, description: string): Promise<boolean> {
    if (!isPasswordHash(hash)) throw new Error(`not a password hash of this server: ${name}`);
    return this.insertUser({ name, hash, description });
  }

  /** Forgets every verified credential, so that each user's next request checks its password again; returns how many. */
  refreshCache(): number {
    const count = this.verified.size;
    this.changed();
    return count;
  }

  private insertUser(user: StoredUser): Promise<boolean> {
    return this.writes.run(async () => {
      try {
        await this.store.insertUser(user);
      } catch (err) {
        if (err instanceof StoreConflict) {
          await this.reload();
          return false;
        }
        throw err;
      }
      this.users.set(user.name, user);
      this.changed();
      return true;
    });
  }

  user(name: string): StoredUser | undefined {
    return this.users.get(name);
  }

  group(name: string): StoredGroup | undefined {
    return this.groups.get(name);
  }

  async verify(name: string, password: string): Promise<boolean> {
    const user = this.users.get(name);
    return user !== undefined && verifyPassword(password, user.hash);
  }

  async setPassword(name: string, password: string): Promise<void> {
    const user = this.users.get(name);
    if (!user) throw new Error(`no user ${name}`);
    await this.saveUser({ ...user, hash: await hashPassword(password) });
  }

  async setUserDescription(name: string, description: string): Promise<void> {
    const user = this.users.get(name);
    if (!user) throw new Error(`no user ${name}`);
    await this.saveUser({ ...user, description });
  }

  async removeUser(name: string): Promise<void> {
    await this.writes.run(async () => {
      await this.store.deleteUser(name);
      this.users.delete(name);
      for (const g of this.groups.values()) g.members = g.members.filter((m) => m !== name);
      this.changed();
    });
    await this.onUserRemoved(name);
  }

  /**
   * The users who would hold the Admin role (directly or through nested groups) once a user or a
   * group is removed, or a member is taken out of a group.
   */
  adminsAfter(change: { user?: string; group?: string; member?: [group: string, member: string] }): string[] {
    const members = new Map<string, string[]>();
    for (const g of this.groups.values()) {
      if (g.name === change.group) continue;
      members.set(
        g.name,
        g.members.filter((m) => m !== change.user && m !== change.group && !(change.member && g.name === change.member[0] && m === change.member[1])),
      );
    }
    const admins: string[] = [];
    for (const user of this.users.keys()) {
      if (user === change.user) continue;
      // Walk up from the user through the groups that contain it.
      const seen = new Set<string>();
      const queue = [user];
      while (queue.length > 0) {
        const m = queue.pop()!;
        for (const [g, list] of members) {
          if (!list.includes(m) || seen.has(g)) continue;
          seen.add(g);
          queue.push(g);
        }
      }
      if (seen.has(ROLE_GROUPS.Admin)) admins.push(user);
    }
    return admins;
  }

  /** Adds a group; false when the name is taken. */
  createGroup(name: string, description: string): Promise<boolean> {
    const group = { name, description, members: [] };
    return this.writes.run(async () => {
      try {
        await this.store.insertGroup(group);
      } catch (err) {
        if (err instanceof StoreConflict) {
          await this.reload();
          return false;
        }
        throw err;
      }
      this.groups.set(name, group);
      this.changed();
      return true;
    });
  }

  setGroupDescription(name: string, description: string): Promise<void> {
    return this.writes.run(async () => {
      const g = this.groups.get(name);
      if (!g) throw new Error(`no group ${name}`);
      await this.store.putGroup({ ...g, description });
      g.description = description;
      this.changed();
    });
  }

  removeGroup(name: string): Promise<void> {
    return this.writes.run(async () => {
      await this.store.deleteGroup(name);
      this.groups.delete(name);
      for (const g of this.groups.values()) g.members = g.members.filter((m) => m !== name);
      this.changed();
    });
  }

  removeMember(group: string, member: string): Promise<void> {
    return this.writes.run(async () => {
      const g = this.groups.get(group);
      if (!g) throw new Error(`no group ${group}`);
      await this.store.removeGroupMember(group, member);
      g.members = g.members.filter((m) => m !== member);
      this.changed();
    });
  }

  private saveUser(user: StoredUser): Promise<void> {
    return this.writes.run(async () => {
      await this.store.putUser(user);
      this.users.set(user.name, user);
      this.changed();
    });
  }

  addMember(group: string, member: string): Promise<void> {
    return this.writes.run(async () => {
      const g = this.groups.get(group);
      if (!g) throw new Error(`no group ${group}`);
      if (g.members.includes(member)) return;
      await this.store.addGroupMember(group, member);
      g.members = [...g.members, member];
      this.changed();
    });
  }


  private changed(): void {
    this.generation++;
    this.verified.clear();
    this.headers.clear();
  }
}
