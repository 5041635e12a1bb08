// Entity tags and the conditional request headers (If-Match, If-None-Match), judged as RFC 9110
// section 13 says: If-Match compares strongly and fails with 412; If-None-Match compares weakly and
// answers a read with 304, a change with 412. The tags themselves are digests made by the renderer.
import { createHash } from 'node:crypto';
import { Problem, badRequest } from './problems.js';

/** The conditions a request carries (the raw header values). */
export interface Conditions {
  ifMatch?: string;
  ifNoneMatch?: string;
}

/** The request headers this server evaluates, and the answer header it sets (for descriptions of the interface). */
export const CONDITIONAL_HEADERS = {
  etag: 'ETag',
  ifMatch: 'If-Match',
  ifNoneMatch: 'If-None-Match',
} as const;

/** Longest header value looked at: a list of a few dozen tags. */
const MAX_HEADER_CHARS = 4096;
const TAG = /^\s*(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"\s*(?:,|$)/;

/** A strong tag: a digest of `text` (base64url of SHA-256, 22 characters: 132 bits). */
export function digestTag(text: string): string {
  return `"${createHash('sha256').update(text).digest('base64url').slice(0, 22)}"`;
}

/**
 * The tag `digestTag(JSON.stringify([name, [s0, s1, ...]]))` gives, taken one string at a time: a
 * collection of thousands of items is digested without holding their list.
 */
export class ListDigest {
  private readonly hash = createHash('sha256');
  private first = true;

  constructor(name: string) {
    this.hash.update(`[${JSON.stringify(name)},[`);
  }

  /** One element of the list (undefined as JSON writes it in an array: null). */
  add(s: string | undefined): void {
    const text = JSON.stringify(s) ?? 'null';
    this.hash.update(this.first ? text : `,${text}`);
    this.first = false;
  }

  tag(): string {
    this.hash.update(']]');
    return `"${this.hash.digest('base64url').slice(0, 22)}"`;
  }
}

/** Whether a request carries any condition. */
export function hasConditions(c: Conditions | undefined): c is Conditions {
  return c !== undefined && (c.ifMatch !== undefined || c.ifNoneMatch !== undefined);
}

type TagList = '*' | { weak: boolean; opaque: string }[];

/** Reads an If-Match or If-None-Match value: `*`, or a comma-separated list of entity tags. */
export function parseTagList(value: string, header: string): TagList {
  if (value.length > MAX_HEADER_CHARS) throw badRequest(`The ${header} header is longer than ${MAX_HEADER_CHARS} characters.`, header);
  if (value.trim() === '*') return '*';
  const out: { weak: boolean; opaque: string }[] = [];
  let rest = value;
  while (rest.trim() !== '') {
    const m = TAG.exec(rest);
    if (!m) {
      throw badRequest(`The ${header} header must be * or a list of entity tags such as "abc" or W/"abc" (as an ETag header gives them), not ${JSON.stringify(value.slice(0, 100))}.`, header);
    }
    out.push({ weak: m[1] !== undefined, opaque: m[2]! });
    rest = rest.slice(m[0].length);
  }
  if (out.length === 0) throw badRequest(`The ${header} header is empty; send * or a list of entity tags.`, header);
  return out;
}

/** 412: a condition of the request does not hold. `current` is the tag the resource has now (absent: it does not exist). */
export function preconditionFailed(detail: string, current?: string): Problem {
  return new Problem('precondition-failed', [{ detail }], current !== undefined ? { etag: current } : {});
}

/**
 * Judges a request's conditions against the current tag of its target (undefined when the target
 * has no current representation). Returns 'not-modified' for a read whose If-None-Match matches;
 * throws 412 when a condition fails; returns 'proceed' otherwise.
 */
export function evaluate(c: Conditions | undefined, current: string | undefined, read: boolean, what: string): 'proceed' | 'not-modified' {
  if (!hasConditions(c)) return 'proceed';
  if (c.ifMatch !== undefined) {
    const list = parseTagList(c.ifMatch, 'If-Match');
    const ok = current !== undefined && (list === '*' || list.some((t) => !t.weak && `"${t.opaque}"` === current && !current.startsWith('W/')));
    if (!ok) {
      throw preconditionFailed(
        current === undefined
          ? `If-Match: ${what} does not exist.`
          : `If-Match: ${what} changed since the entity tag you sent was read; it is now ${current}. Read it again, then retry with that tag.`,
        current,
      );
    }
  }
  if (c.ifNoneMatch !== undefined) {
    const list = parseTagList(c.ifNoneMatch, 'If-None-Match');
    const opaque = current === undefined ? undefined : current.replace(/^W\//, '');
    const matches = current !== undefined && (list === '*' || list.some((t) => `"${t.opaque}"` === opaque));
    if (matches) {
      if (read) return 'not-modified';
      throw preconditionFailed(`If-None-Match: ${what} ${list === '*' ? 'exists' : `still has the entity tag ${current}`}.`, current);
    }
  }
  return 'proceed';
}
