// Who makes a request of the API and how: the principal, where the request comes from (for the
// audit), the edit session it works in, how long it is willing to wait for a task, and a signal
// that says when it is no longer waiting.
import type { Principal } from '../security/service.js';
import type { Conditions } from '../core/preconditions.js';

export type { Principal } from '../security/service.js';
export type { RequestStats } from '../runtime/live.js';

export interface Caller {
  principal: Principal;
  /** The client's address, as the audit trail records it ('' for calls made in-process). */
  address: string;
  /** The edit session the request works in (`default` when absent). */
  session?: string;
  /** The `Prefer` header: `respond-async`, `wait=N` (how long to wait for a task). */
  prefer?: string;
  /** Aborts when the caller goes away before its answer. */
  signal?: AbortSignal;
  /** `If-Match` and `If-None-Match`: what the target's entity tag must (not) be. */
  conditions?: Conditions;
}

/** How an answer's body is shaped and its links written. */
export interface View {
  /** Scheme, host and port the links name (`http://admin.example:7001`). */
  origin: string;
  /** The query parameters: `fields`, `excludeFields`, `links`, `excludeLinks`, and `before` for audit pages. */
  query?: Record<string, unknown>;
  /**
   * The caller takes a large body printed piece by piece: searches and collection reads answer with
   * a `StreamedJson` body (its pieces make the same text the object would print).
   */
  stream?: boolean;
  /**
   * The URL as sent (path and query) when the caller sends answers as printed bytes: a read is then
   * answered with `Answer.bytes` (and no `body` when it comes from the read cache).
   */
  url?: string;
  /**
   * The caller lays a read out as a page and takes only a small one: a collection it found too
   * large (`StreamedJson.refused`) is answered `Answer.tooLarge` for the same read until the domain
   * changes, without being printed again.
   */
  page?: boolean;
}

/**
 * An answer of the API: a status of the REST interface, a JSON body (none with 304; a `StreamedJson`
 * when the view asks for streams), and headers (`Location`, `ETag`).
 */
export interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** The body printed as the wire shows it (a read for a caller that gave `View.url`). */
  bytes?: Buffer;
  /** A read the caller found too large for a page before (see `View.page`): `items`, the collection's count when its first items showed it. */
  tooLarge?: PageRefusal;
}

/** Why a read was too large for a page: judged from a collection's first items (of `items`), or printed past the size. */
export interface PageRefusal {
  items?: number;
}
