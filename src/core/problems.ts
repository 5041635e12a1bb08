// The problems any layer may raise. They say what went wrong in the caller's terms (a kind and
// details naming path, property and value); the HTTP adapter alone turns a kind into a status code
// and a JSON body.

export type ProblemKind =
  /** The request is wrong: bad arguments, values, state or order (400). */
  | 'invalid'
  /** A path segment names nothing (404). */
  | 'not-found'
  /** The caller is known but may not do this (403). */
  | 'forbidden'
  /** No valid credentials (401). */
  | 'unauthenticated'
  /** The resource exists but not with this method (405). */
  | 'method-not-allowed'
  /** No representation the caller accepts (406). */
  | 'not-acceptable'
  /** The request body's media type is not taken here (415). */
  | 'unsupported-media-type'
  /** The request (or one of its parts) is larger than accepted (413). */
  | 'too-large'
  /** The request took too long to arrive (408). */
  | 'timeout'
  /** The caller holds as many of a bounded resource as it may (429). */
  | 'too-many'
  /** A condition of the request (If-Match, If-None-Match) does not hold (412). */
  | 'precondition-failed'
  /** The server cannot take the request now; retry later (503). */
  | 'unavailable'
  /**
   * The store (the database holding the domain) cannot be reached or ended the connection; nothing
   * was changed, or the detail says what is known of it. Retry later (503).
   */
  | 'store-unavailable'
  /** The store's file system is full (or cannot be written): nothing was changed (507). */
  | 'insufficient-storage'
  /** A remote server this one called failed or answered wrongly (502). */
  | 'bad-gateway'
  /** A remote server this one called did not answer in time (504). */
  | 'gateway-timeout'
  /** A fault of this server (500). */
  | 'internal';

export interface ProblemDetail {
  detail: string;
  /** Name of the offending property or argument, for field-scoped problems. */
  path?: string;
}

export interface ProblemHints {
  /** Methods the resource takes (method-not-allowed). */
  allow?: readonly string[];
  /** Seconds after which a retry may succeed (unavailable). */
  retryAfterSeconds?: number;
  /** The entity tag the resource has now (precondition-failed). */
  etag?: string;
}

/** Most problems one error lists; past this it says how many there were in all. */
export const MAX_LISTED_PROBLEMS = 100;

/** Most characters of one listed problem's detail, and of the path it names (see ProblemList). */
export const MAX_DETAIL_CHARS = 2000;
export const MAX_PATH_CHARS = 300;

/** `text` cut to `max` characters (never inside a surrogate pair), saying how long it was. */
function clipped(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max;
  return `${text.slice(0, end)}… (${text.length} characters in all)`;
}

export class Problem extends Error {
  /** The details as the error shows them: at most MAX_LISTED_PROBLEMS, then one saying how many in all. */
  readonly details: readonly ProblemDetail[];
  /** How many problems were found (at least the number listed). */
  readonly total: number;

  constructor(
    readonly kind: ProblemKind,
    details: readonly ProblemDetail[],
    readonly hints: ProblemHints = {},
    /** How many problems were found, when more were counted than `details` holds. */
    total = details.length,
  ) {
    const count = Math.max(total, details.length);
    const listed = details.length > MAX_LISTED_PROBLEMS ? details.slice(0, MAX_LISTED_PROBLEMS) : details;
    const shown = count > listed.length ? [...listed, { detail: `${count} problems in all; the first ${listed.length} are listed.` }] : listed;
    super(shown.map((p) => (p.path ? `${p.path}: ${p.detail}` : p.detail)).join('; '));
    this.name = 'Problem';
    this.details = shown;
    this.total = count;
  }
}

/**
 * Problems found while checking one request: every one is counted, the first MAX_LISTED_PROBLEMS are
 * kept with their words (made only for those), so a body with 100,000 faults costs a count, not
 * 100,000 messages.
 */
export class ProblemList {
  private readonly kept: ProblemDetail[] = [];
  private count = 0;

  /**
   * Adds a problem; `detail` is called only while the list has room. What a client sent is shown
   * in part when it is long (a key of 60,000 characters): the detail is kept to
   * MAX_DETAIL_CHARS and the path to MAX_PATH_CHARS, each saying how long it was.
   */
  add(path: string | undefined, detail: string | (() => string)): void {
    this.count++;
    if (this.kept.length >= MAX_LISTED_PROBLEMS) return;
    const text = clipped(typeof detail === 'function' ? detail() : detail, MAX_DETAIL_CHARS);
    this.kept.push({ detail: text, ...(path !== undefined ? { path: clipped(path, MAX_PATH_CHARS) } : {}) });
  }

  /** True once the list holds as many problems as an error lists (later ones are only counted). */
  get full(): boolean {
    return this.kept.length >= MAX_LISTED_PROBLEMS;
  }

  get size(): number {
    return this.count;
  }

  /** Throws the problems found as one 400, if any. */
  throwIfAny(): void {
    if (this.count > 0) throw new Problem('invalid', this.kept, {}, this.count);
  }
}

const one = (detail: string, path?: string): ProblemDetail[] => [{ detail, ...(path ? { path } : {}) }];

/** A wrong request; `path` names the property or argument at fault. */
export const badRequest = (detail: string, path?: string) => new Problem('invalid', one(detail, path));
/** Several problems with a request, reported together. */
export const invalid = (details: ProblemDetail[]) => new Problem('invalid', details);
/** A change that clashes with the current state (the product answers these with 400 too). */
export const conflict = (detail: string, path?: string) => badRequest(detail, path);
export const notFound = (segment: string) => new Problem('not-found', one(`'${segment}' was not found.`));
export const forbidden = (detail: string) => new Problem('forbidden', one(detail));
export const unauthenticated = (detail: string) => new Problem('unauthenticated', one(detail));
export const methodNotAllowed = (method: string, allowed: readonly string[]) =>
  new Problem('method-not-allowed', one(`Method not allowed. ${method} is not supported here; use ${allowed.join(' or ')}.`), { allow: allowed });
export const notAcceptable = (detail: string) => new Problem('not-acceptable', one(detail));
export const unsupportedMediaType = (detail: string) => new Problem('unsupported-media-type', one(detail));
export const tooLarge = (detail: string) => new Problem('too-large', one(detail));
export const unavailable = (detail: string, retryAfterSeconds: number) => new Problem('unavailable', one(detail), { retryAfterSeconds });
/** Seconds a client is told to wait before it retries a write the store could not take. */
export const STORE_RETRY_SECONDS = 5;
export const storeUnavailable = (detail: string, retryAfterSeconds = STORE_RETRY_SECONDS) => new Problem('store-unavailable', one(detail), { retryAfterSeconds });
export const insufficientStorage = (detail: string) => new Problem('insufficient-storage', one(detail));
/** The request took too long to arrive (its body stopped coming). */
export const timedOut = (detail: string) => new Problem('timeout', one(detail));
export const tooMany = (detail: string, retryAfterSeconds: number) => new Problem('too-many', one(detail), { retryAfterSeconds });
export const badGateway = (detail: string) => new Problem('bad-gateway', one(detail));
export const gatewayTimeout = (detail: string) => new Problem('gateway-timeout', one(detail));
export const internal = (detail: string) => new Problem('internal', one(detail));

/** Whether an error says the store could not take a write or answer a read (unreachable, or out of space). */
export function isStoreFailure(err: unknown): err is Problem {
  return err instanceof Problem && (err.kind === 'store-unavailable' || err.kind === 'insufficient-storage');
}

export function isProblem(err: unknown, kind?: ProblemKind): err is Problem {
  return err instanceof Problem && (kind === undefined || err.kind === kind);
}
