// Users, groups, roles and authentication. Stateless per request: a credential is checked against
// the stored hash once, then remembered (bounded) until a user or group changes.
import { createHash } from 'node:crypto';
import type { Role } from '../catalog/overlay-format.js';
import { type Store, StoreConflict, type StoredGroup, type StoredUser } from '../store/store.js';
import { hashPassword, verifyPassword } from './passwords.js';

export interface Principal {
  user: string;
  roles: ReadonlySet<Role>;
}

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

export class SecurityService {
  private users = new Map<string, StoredUser>();
  private groups = new Map<string, StoredGroup>();
  /** sha256(credential) -> principal; emptied whenever users or groups change. */
  private verified = new Map<string, Principal>();
  /** Checks under way, so concurrent requests with one credential share a single hash computation. */
  private pending = new Map<string, Promise<Principal | undefined>>();
  private generation = 0;

  constructor(private readonly store: Store) {}

  async load(): Promise<void> {
    this.users = new Map((await this.store.users()).map((u) => [u.name, u]));
    this.groups = new Map((await this.store.groups()).map((g) => [g.name, g]));
    this.changed();
  }

  /** Creates the default groups and the first administrator of a new domain. */
  async bootstrap(adminUser: string, adminPassword: string): Promise<void> {
    for (const g of DEFAULT_GROUPS) if (!this.groups.has(g.name)) await this.createGroup(g.name, g.description);
    await this.createUser(adminUser, adminPassword, 'The domain administrator.');
    await this.addMember(ROLE_GROUPS.Admin, adminUser);
  }

  /** Authenticates an `Authorization` header value; undefined when it is missing or wrong. */
  async authenticate(header: string | undefined): Promise<Principal | undefined> {
    if (!header || !header.toLowerCase().startsWith('basic ')) return undefined;
    const cacheKey = createHash('sha256').update(header).digest('base64');
    const known = this.verified.get(cacheKey);
    if (known) return known;
    const generation = this.generation;
    // Requests join a check only if it began under the same users and groups.
    const pendingKey = `${generation}:${cacheKey}`;
    let check = this.pending.get(pendingKey);
    if (!check) {
      check = this.check(header.slice(6).trim()).finally(() => this.pending.delete(pendingKey));
      this.pending.set(pendingKey, check);
    }
    const principal = await check;
    // A change that happened while hashing makes the result stale: check again under the new state.
    if (generation !== this.generation) return this.authenticate(header);
    if (principal) {
      if (this.verified.size >= CACHE_LIMIT) this.verified.delete(this.verified.keys().next().value!);
      this.verified.set(cacheKey, principal);
    }
    return principal;
  }

  private async check(encoded: string): Promise<Principal | undefined> {
    const decoded = Buffer.from(encoded, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return undefined;
    const name = decoded.slice(0, colon);
    const user = this.users.get(name);
    if (!user) return undefined;
    if (!(await verifyPassword(decoded.slice(colon + 1), user.hash))) return undefined;
    return { user: name, roles: this.rolesOf(name) };
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
    const user = { name, hash: await hashPassword(password), description };
    try {
      await this.store.insertUser(user);
    } catch (err) {
      if (err instanceof StoreConflict) {
        await this.load();
        return false;
      }
      throw err;
    }
    this.users.set(name, user);
    this.changed();
    return true;
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
    await this.store.deleteUser(name);
    this.users.delete(name);
    for (const g of this.groups.values()) g.members = g.members.filter((m) => m !== name);
    this.changed();
  }

  /** Adds a group; false when the name is taken. */
  async createGroup(name: string, description: string): Promise<boolean> {
    const group = { name, description, members: [] };
    try {
      await this.store.insertGroup(group);
    } catch (err) {
      if (err instanceof StoreConflict) {
        await this.load();
        return false;
      }
      throw err;
    }
    this.groups.set(name, group);
    this.changed();
    return true;
  }

  async setGroupDescription(name: string, description: string): Promise<void> {
    const g = this.groups.get(name);
    if (!g) throw new Error(`no group ${name}`);
    await this.store.putGroup({ ...g, description });
    g.description = description;
    this.changed();
  }

  async removeGroup(name: string): Promise<void> {
    await this.store.deleteGroup(name);
    this.groups.delete(name);
    for (const g of this.groups.values()) g.members = g.members.filter((m) => m !== name);
    this.changed();
  }

  async removeMember(group: string, member: string): Promise<void> {
    const g = this.groups.get(group);
    if (!g) throw new Error(`no group ${group}`);
    await this.store.removeGroupMember(group, member);
    g.members = g.members.filter((m) => m !== member);
    this.changed();
  }

  private async saveUser(user: StoredUser): Promise<void> {
    await this.store.putUser(user);
    this.users.set(user.name, user);
    this.changed();
  }

  async addMember(group: string, member: string): Promise<void> {
    const g = this.groups.get(group);
    if (!g) throw new Error(`no group ${group}`);
    if (g.members.includes(member)) return;
    await this.store.addGroupMember(group, member);
    g.members = [...g.members, member];
    this.changed();
  }


  private changed(): void {
    this.generation++;
    this.verified.clear();
  }
}
