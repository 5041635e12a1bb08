// Failed logins, throttled. Failures are counted per user name (known or not, so that throttling
// tells nothing about who exists) and per client address, in the store: servers sharing a store
// share the counts, and they outlive a restart until they expire. Nothing here is a lock a stranger
// controls: once a key has failed often enough it must wait before its next try (a back-off that
// doubles with each further failure, up to a bound), and a user name's wait applies only to
// addresses that failed recently themselves, so the right password from a clean address always gets
// its check. The policy is the default realm's `userLockoutManager` configuration, read when it is
// needed, so an activation applies at once.
import type { FailureCount, LoginFailureKind, LoginFailures, Store } from '../store/store.js';

export interface LockoutPolicy {
  enabled: boolean;
  /** Failures of a user name after which its back-off begins (`lockoutThreshold`). */
  threshold: number;
  /** The longest back-off (`lockoutDuration`). */
  durationMs: number;
  /** Quiet time (no failure, no back-off running) after which a key's failures are forgotten (`lockoutResetDuration`). */
  resetMs: number;
  /** Records kept before the ones that no longer count are purged. */
  gcThreshold: number;
}

const MINUTE = 60_000;

/** The product's defaults: back-off after 5 failures, at most 30 minutes, failures forgotten after 5 quiet minutes. */
export const DEFAULT_LOCKOUT: LockoutPolicy = { enabled: true, threshold: 5, durationMs: 30 * MINUTE, resetMs: 5 * MINUTE, gcThreshold: 400 };

/** Failures from one client address (all user names together) after which the address backs off, per user threshold. */
export const ADDRESS_FACTOR = 10;

/** The first back-off; each further failure doubles it, up to the policy's duration. */
export const FIRST_BACKOFF_MS = 1000;

/** Keys (user names and addresses) whose state this server keeps in memory at most. */
const REMEMBERED = 10_000;

/** The back-off a key's `count`-th failure begins (0: none yet). */
export function backoffMs(count: number, free: number, capMs: number): number {
  if (count < free || capMs <= 0) return 0;
  return Math.min(capMs, FIRST_BACKOFF_MS * 2 ** Math.min(count - free, 40));
}

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
  /** This failure began the user name's back-off. */
  userLocked: boolean;
  /** This failure began the client address's back-off. */
  addressLocked: boolean;
  /** Failures of the user name that count now. */
  count: number;
  /** The user name's back-off now (ms; 0: none). */
  userWaitMs: number;
}

/** Why a login is not tried now, and for how long. */
export interface Throttled {
  kind: LoginFailureKind;
  retryAfterMs: number;
}

export class Lockouts {
  /** `kind:key` -> its failures as last read or made here. */
  private state = new Map<string, LoginFailures>();
  private figures = { invalid: 0, usersHigh: 0, whileLocked: 0, unlocked: 0, lockouts: 0 };
  private sinceGc = 0;

  constructor(
    private readonly store: Store,
    readonly now: () => number,
    /** The policy in force (the realm's configuration). */
    public policy: () => LockoutPolicy = () => DEFAULT_LOCKOUT,
  ) {}

  /** (Re)reads the back-offs in force from the store. */
  async load(): Promise<void> {
    const now = this.now();
    const rows = await this.store.lockouts(now);
    // Recent failures seen here stay known; the back-offs come from the store.
    for (const [k, v] of this.state) if (v.lockedUntil > now) this.state.delete(k);
    for (const r of rows) this.remember(r.kind, r.key, { count: r.count, last: r.last, lockedUntil: r.until });
  }

  private remember(kind: LoginFailureKind, key: string, value: LoginFailures): void {
    const k = `${kind}:${key}`;
    this.state.delete(k);
    this.state.set(k, value);
    if (this.state.size > REMEMBERED) this.state.delete(this.state.keys().next().value!);
  }

  /** Whether a key's failures still count at `now` (a back-off running, or its last failure within the reset duration). */
  private counts(f: LoginFailures | undefined, now: number): f is LoginFailures {
    return f !== undefined && f.count > 0 && Math.max(f.last, f.lockedUntil) >= now - this.policy().resetMs;
  }

  /**
   * Whether a login of `user` from `address` must wait, from what this server knows (no store
   * read): the address backs off, or the user name does and the address failed recently.
   */
  throttled(user: string, address: string): Throttled | undefined {
    if (!this.policy().enabled) return undefined;
    const now = this.now();
    return this.judge(this.state.get(`user:${user}`), this.state.get(`address:${address}`), now);
  }

  /** The same judgement from the store's counts (what every server sharing it recorded). */
  async throttledInStore(user: string, address: string): Promise<Throttled | undefined> {
    if (!this.policy().enabled) return undefined;
    const [u, a] = await Promise.all([this.store.loginFailures('user', user), address === '' ? undefined : this.store.loginFailures('address', address)]);
    if (u) this.remember('user', user, u);
    if (a) this.remember('address', address, a);
    return this.judge(u, a, this.now());
  }

  private judge(u: LoginFailures | undefined, a: LoginFailures | undefined, now: number): Throttled | undefined {
    if (a && a.lockedUntil > now) return { kind: 'address', retryAfterMs: a.lockedUntil - now };
    if (u && u.lockedUntil > now && this.counts(a, now)) return { kind: 'user', retryAfterMs: u.lockedUntil - now };
    return undefined;
  }

  /** Notes a login refused because it had to wait. */
  refusedWhileLocked(): void {
    this.figures.whileLocked++;
  }

  /** Counts a failed login of `user` from `address`. */
  async failure(user: string, address: string): Promise<FailureOutcome> {
    this.figures.invalid++;
    const policy = this.policy();
    if (!policy.enabled) return { userLocked: false, addressLocked: false, count: 0, userWaitMs: 0 };
    const entry = (kind: LoginFailureKind, key: string, threshold: number): FailureCount => ({
      kind,
      key,
      threshold,
      capMs: policy.durationMs,
      wait: (count) => backoffMs(count, threshold, policy.durationMs),
    });
    const entries = [entry('user', user, policy.threshold)];
    if (address !== '') entries.push(entry('address', address, policy.threshold * ADDRESS_FACTOR));
    const now = this.now();
    const [u, a] = await this.store.countLoginFailure(entries, now, policy.resetMs);
    this.remember('user', user, u!);
    if (a) this.remember('address', address, a);
    const outcome: FailureOutcome = {
      userLocked: u!.count === policy.threshold && u!.lockedUntil > now,
      addressLocked: a !== undefined && a.count === entries[1]!.threshold && a.lockedUntil > now,
      count: u!.count,
      userWaitMs: Math.max(0, u!.lockedUntil - now),
    };
    if (outcome.userLocked) this.figures.lockouts++;
    const failing = await this.store.countFailingUsers(now - policy.resetMs, now);
    this.figures.usersHigh = Math.max(this.figures.usersHigh, failing);
    // Records that no longer count are purged once there are more than the configured threshold.
    if (failing >= policy.gcThreshold && ++this.sinceGc >= Math.max(1, Math.floor(policy.gcThreshold / 10))) {
      this.sinceGc = 0;
      await this.store.purgeLoginFailures(now - policy.resetMs, now - policy.resetMs);
    }
    return outcome;
  }

  /**
   * A right password: a few failures of the user name (fewer than the threshold: typing errors) no
   * longer count; the address's still do. Once the threshold was reached they stay until they go
   * quiet: a login of the name's owner does not buy someone guessing it a fresh set of tries.
   */
  async success(user: string): Promise<void> {
    if (!this.policy().enabled) return;
    const known = this.state.get(`user:${user}`);
    if (!known || known.count >= this.policy().threshold) return;
    await this.store.clearLoginFailures('user', user);
    this.state.delete(`user:${user}`);
  }

  /**
   * Forgets the failures and back-off of a user name, and of a client address of that spelling
   * (an administrator's clearLockout); true when the user name had a back-off running.
   */
  async clear(name: string): Promise<boolean> {
    const wasLocked = this.isLocked('user', name);
    await this.store.clearLoginFailures('user', name);
    await this.store.clearLoginFailures('address', name);
    this.state.delete(`user:${name}`);
    this.state.delete(`address:${name}`);
    if (wasLocked) this.figures.unlocked++;
    return wasLocked;
  }

  /** Whether the user name (or address) has a back-off running now. */
  isLocked(kind: LoginFailureKind, key: string): boolean {
    if (!this.policy().enabled) return false;
    return (this.state.get(`${kind}:${key}`)?.lockedUntil ?? 0) > this.now();
  }

  /** Failures of a user name that still count (0 once they are forgotten). */
  async failureCount(user: string): Promise<number> {
    const row = await this.store.loginFailures('user', user);
    return this.counts(row, this.now()) ? row.count : 0;
  }

  /** Time of the user name's last failed login (epoch ms), 0 if none is recorded. */
  async lastFailure(user: string): Promise<number> {
    return (await this.store.loginFailures('user', user))?.last ?? 0;
  }

  current(): LockoutFigures {
    const now = this.now();
    let locked = 0;
    for (const [k, v] of this.state) if (k.startsWith('user:') && v.lockedUntil > now) locked++;
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
