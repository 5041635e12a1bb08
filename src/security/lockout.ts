// Failed logins and lockouts. Failures are counted per user name (known or not, so that a lockout
// tells nothing about who exists) and per client address, in the store: servers sharing a store
// share the counts, and a lockout survives a restart. The policy is the default realm's
// `userLockoutManager` configuration, read when it is needed, so an activation applies at once.
import type { FailureCount, LoginFailureKind, LoginFailures, Store } from '../store/store.js';

export interface LockoutPolicy {
  enabled: boolean;
  /** Failures within `resetMs` that lock a user name out. */
  threshold: number;
  durationMs: number;
  resetMs: number;
  /** Records kept before the ones that no longer count are purged. */
  gcThreshold: number;
}

const MINUTE = 60_000;

/** The product's defaults: 5 failures within 5 minutes lock the user out for 30 minutes. */
export const DEFAULT_LOCKOUT: LockoutPolicy = { enabled: true, threshold: 5, durationMs: 30 * MINUTE, resetMs: 5 * MINUTE, gcThreshold: 400 };

/** Failures from one client address (all user names together) that lock the address out, per user threshold. */
export const ADDRESS_FACTOR = 10;

/** The runtime figures of the user lockout manager, since this server started. */
export interface LockoutFigures {
  invalidLoginAttemptsTotalCount: number;
  invalidLoginUsersHighCount: number;
  lockedUsersCurrentCount: number;
  loginAttemptsWhileLockedTotalCount: number;
  unlockedUsersTotalCount: number;
  userLockoutTotalCount: number;
}

export interface FailureOutcome {
  /** This failure locked the user name out. */
  userLocked: boolean;
  /** This failure locked the client address out. */
  addressLocked: boolean;
  /** Failures of the user name that count now. */
  count: number;
}

export class Lockouts {
  /** `kind:key` -> end of the lockout (epoch ms), as last read or made here. */
  private locks = new Map<string, number>();
  private figures = { invalid: 0, usersHigh: 0, whileLocked: 0, unlocked: 0, lockouts: 0 };
  private sinceGc = 0;

  constructor(
    private readonly store: Store,
    readonly now: () => number,
    /** The policy in force (the realm's configuration). */
    public policy: () => LockoutPolicy = () => DEFAULT_LOCKOUT,
  ) {}

  /** (Re)reads the lockouts in force from the store. */
  async load(): Promise<void> {
    const rows = await this.store.lockouts(this.now());
    this.locks = new Map(rows.map((r) => [`${r.kind}:${r.key}`, r.until]));
  }

  /** Whether logins of this user name (or from this address) are refused now. */
  isLocked(kind: LoginFailureKind, key: string): boolean {
    if (!this.policy().enabled) return false;
    const until = this.locks.get(`${kind}:${key}`);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.locks.delete(`${kind}:${key}`);
    return false;
  }

  /** Notes a login refused because of a lockout. */
  refusedWhileLocked(): void {
    this.figures.whileLocked++;
  }

  /** Counts a failed login of `user` from `address`. */
  async failure(user: string, address: string): Promise<FailureOutcome> {
    this.figures.invalid++;
    const policy = this.policy();
    if (!policy.enabled) return { userLocked: false, addressLocked: false, count: 0 };
    const entries: FailureCount[] = [{ kind: 'user', key: user, threshold: policy.threshold }];
    if (address !== '') entries.push({ kind: 'address', key: address, threshold: policy.threshold * ADDRESS_FACTOR });
    const now = this.now();
    const [u, a] = await this.store.countLoginFailure(entries, now, policy.resetMs, policy.durationMs);
    const outcome = {
      userLocked: this.noteLock('user', user, u!, now, entries[0]!.threshold),
      addressLocked: a ? this.noteLock('address', address, a, now, entries[1]!.threshold) : false,
      count: u!.count,
    };
    if (outcome.userLocked) this.figures.lockouts++;
    const failing = await this.store.countFailingUsers(now - policy.resetMs, now);
    this.figures.usersHigh = Math.max(this.figures.usersHigh, failing);
    // Records that no longer count are purged once there are more than the configured threshold.
    if (failing >= policy.gcThreshold && ++this.sinceGc >= Math.max(1, Math.floor(policy.gcThreshold / 10))) {
      this.sinceGc = 0;
      await this.store.purgeLoginFailures(now - policy.resetMs, now);
    }
    return outcome;
  }

  /**
   * Records a lockout the store holds; true when it began with this failure. That is read from the
   * store's count (the lock begins at the failure that reaches the threshold), not from what this
   * server knew: a shared store's notice of the new lock may arrive before this answer does.
   */
  private noteLock(kind: LoginFailureKind, key: string, state: LoginFailures, now: number, threshold: number): boolean {
    if (state.lockedUntil <= now) return false;
    this.locks.set(`${kind}:${key}`, state.lockedUntil);
    return state.count === threshold;
  }

  /**
   * A right password: the user's earlier failures no longer count, unless the user name or the
   * address is locked out in the store (through another server, just now). True when locked out.
   */
  async success(user: string, address: string): Promise<boolean> {
    if (!this.policy().enabled) return false;
    const now = this.now();
    const locks = await this.store.loginSucceeded(user, address, now);
    for (const l of locks) this.locks.set(`${l.kind}:${l.key}`, l.until);
    return locks.length > 0;
  }

  /**
   * Ends the lockout of a user name, and of a client address of that spelling (an administrator's
   * clearLockout); true when there was one.
   */
  async clear(name: string): Promise<boolean> {
    const wasLocked = this.lockedNow('user', name);
    await this.store.clearLoginFailures('user', name);
    await this.store.clearLoginFailures('address', name);
    this.locks.delete(`user:${name}`);
    this.locks.delete(`address:${name}`);
    if (wasLocked) this.figures.unlocked++;
    return wasLocked;
  }

  private lockedNow(kind: LoginFailureKind, key: string): boolean {
    return (this.locks.get(`${kind}:${key}`) ?? 0) > this.now();
  }

  /** Failures of a user name that still count (0 once they are older than the reset duration). */
  async failureCount(user: string): Promise<number> {
    const row = await this.store.loginFailures('user', user);
    if (!row) return 0;
    const now = this.now();
    if (row.lockedUntil > now) return row.count;
    const lapsed = row.lockedUntil > 0 || row.last < now - this.policy().resetMs;
    return lapsed ? 0 : row.count;
  }

  /** Time of the user name's last failed login (epoch ms), 0 if none is recorded. */
  async lastFailure(user: string): Promise<number> {
    return (await this.store.loginFailures('user', user))?.last ?? 0;
  }

  current(): LockoutFigures {
    const now = this.now();
    let locked = 0;
    for (const [k, until] of this.locks) if (k.startsWith('user:') && until > now) locked++;
    return {
      invalidLoginAttemptsTotalCount: this.figures.invalid,
      invalidLoginUsersHighCount: this.figures.usersHigh,
      lockedUsersCurrentCount: this.policy().enabled ? locked : 0,
      loginAttemptsWhileLockedTotalCount: this.figures.whileLocked,
      unlockedUsersTotalCount: this.figures.unlocked,
      userLockoutTotalCount: this.figures.lockouts,
    };
  }
}
