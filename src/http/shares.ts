// Shares of the in-flight limit: no one user and no one client address may hold more than a part
// of the requests the server takes at once, so that one caller (slow bodies, a loop of expensive
// reads) cannot fill the limit and leave everyone else with 503. A caller over its share gets 429
// with Retry-After; the others keep being served. Addresses are counted on arrival (before any
// credential is checked), users once they are known.
import { tooMany } from '../core/problems.js';

export interface ShareLimits {
  /** Requests the server takes at once (the in-flight limit the shares are parts of). */
  maxInFlight: number;
  /** Part of the limit one user may hold (0 to 1). */
  userShare: number;
  /** Part of the limit one client address may hold (0 to 1); larger than a user's, as several users may share an address. */
  addressShare: number;
}

export const DEFAULT_SHARES = { userShare: 0.25, addressShare: 0.5 } as const;

/** Seconds a caller over its share is told to wait. */
const RETRY_SECONDS = 2;

/** Requests in flight per key, with a ceiling; a key that holds none is forgotten. */
class Counter {
  private readonly held = new Map<string, number>();
  constructor(readonly ceiling: number) {}

  /** Takes one for `key`, or returns false when `key` holds its ceiling already. */
  take(key: string): boolean {
    const n = this.held.get(key) ?? 0;
    if (n >= this.ceiling) return false;
    this.held.set(key, n + 1);
    return true;
  }

  give(key: string): void {
    const n = (this.held.get(key) ?? 0) - 1;
    if (n > 0) this.held.set(key, n);
    else this.held.delete(key);
  }

  of(key: string): number {
    return this.held.get(key) ?? 0;
  }
}

export class InFlightShares {
  private readonly users: Counter;
  private readonly addresses: Counter;

  constructor(limits: ShareLimits) {
    const part = (share: number) => Math.max(1, Math.floor(limits.maxInFlight * Math.min(1, Math.max(0, share))));
    this.users = new Counter(part(limits.userShare));
    this.addresses = new Counter(part(limits.addressShare));
  }

  get perUser(): number {
    return this.users.ceiling;
  }

  get perAddress(): number {
    return this.addresses.ceiling;
  }

  /**
   * Counts a request of `address` until `done` fires (once); throws 429 when the address holds its
   * share already.
   */
  enterAddress(address: string, done: (release: () => void) => void): void {
    if (!this.addresses.take(address)) {
      throw tooMany(`Too many requests from ${address} are in progress (${this.addresses.ceiling}, the most one client address may have at once); retry when some have finished.`, RETRY_SECONDS);
    }
    done(() => this.addresses.give(address));
  }

  /** As enterAddress, for an authenticated user. */
  enterUser(user: string, done: (release: () => void) => void): void {
    if (!this.users.take(user)) {
      throw tooMany(`The user '${user}' has too many requests in progress (${this.users.ceiling}, the most one user may have at once); retry when some have finished.`, RETRY_SECONDS);
    }
    done(() => this.users.give(user));
  }

  /** Requests in progress of a user (for tests and figures). */
  ofUser(user: string): number {
    return this.users.of(user);
  }
}

/** The places one request holds in the shares, given back once when it ends (at once if it already has). */
export class Places {
  private readonly held: (() => void)[] = [];
  private ended = false;

  add(release: () => void): void {
    if (this.ended) release();
    else this.held.push(release);
  }

  end(): void {
    this.ended = true;
    for (const release of this.held.splice(0)) release();
  }
}
