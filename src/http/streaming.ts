// Large answers (a search over many servers, a collection of thousands of beans) written as they are
// printed: the client takes the body piece by piece, other requests run between the pieces, the
// printing waits while the client's socket is full and stops when the client goes away, and one
// user may have only a few such answers under way at once.
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { tooMany } from '../core/problems.js';
import type { StreamedJson } from '../render/streamed.js';

/** An answer that stays below this many characters is sent whole, with its length; a larger one is streamed. */
export const LARGE_ANSWER_CHARS = 256 * 1024;

/** Streamed answers one user may have under way at once; one more is refused with 429. */
export const LARGE_ANSWERS_PER_USER = 4;

/**
 * Printing time of all streamed answers together between two turns of the event loop (ms): each
 * answer under way prints for its share of it, so small reads wait about this long, however many
 * large answers are streaming.
 */
const TURN_MS = 2;

/** Answers printing now (each gets its share of a turn). */
let printing = 0;

/** How long one answer prints before it lets the event loop turn. */
function slice(): number {
  return TURN_MS / Math.max(1, printing);
}

/** Text handed to the socket at once. */
const CHUNK_CHARS = 64 * 1024;

/** How long a streamed answer waits for a client that stopped reading before it is cut (ms). */
const STALLED_CLIENT_MS = 30_000;

/** Counts each user's streamed answers under way. */
export class LargeAnswers {
  private readonly held = new Map<string, number>();

  constructor(readonly perUser = LARGE_ANSWERS_PER_USER) {}

  /** Takes one of the user's places (undefined when all are taken); the function gives it back (once). */
  take(user: string): (() => void) | undefined {
    const n = this.held.get(user) ?? 0;
    if (n >= this.perUser) return undefined;
    this.held.set(user, n + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.held.get(user) ?? 1) - 1;
      if (left <= 0) this.held.delete(user);
      else this.held.set(user, left);
    };
  }

  /** The user's streamed answers under way. */
  underWay(user: string): number {
    return this.held.get(user) ?? 0;
  }
}

/** What became of a streamed body: small, sent by the caller as one text; 304; or handled here. */
export type StreamedOutcome = { text: string; headers: Record<string, string> } | { notModified: Record<string, string> } | { tooLarge: true; judged?: { items: number } } | undefined;

/** Bytes of each streamed body sent so far, by response (its length is known only at its end). */
const streamed = new WeakMap<object, number>();

/** The bytes a streamed answer has sent (0 for any other). */
export function streamedBytes(res: object): number {
  return streamed.get(res) ?? 0;
}

/** The process's count: every listener of the process serves from the same memory. */
export const largeAnswers = new LargeAnswers();

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A collection's page is refused without printing it to the size when its first items show it
 * would pass it by far: what is printed plus the smallest item printed so far times the items left
 * passing `judgedChars` settles it (the first item is not among those compared: its piece carries
 * what comes before the list). A collection within the size is refused this way only
 * when its first items are each much larger than the others on the whole; any other is printed
 * until it ends or passes the size.
 */
export const SAMPLED_ITEMS = 4;

/** The estimate that refuses a page once `sampled` items are printed: 2 MiB after one item, 1 MiB after two, 512 KiB from four on. */
export function judgedChars(sampled: number): number {
  return 2 * LARGE_ANSWER_CHARS * Math.max(1, SAMPLED_ITEMS / sampled);
}

/**
 * Sends a body printed piece by piece. Its first pieces are printed a slice of time at a time, other
 * requests running between the slices; a body that ends within `LARGE_ANSWER_CHARS` (or must be
 * whole) is sent as one, like any other answer. A larger one takes one of the user's places (429
 * when none is free), has its entity tag finished first when it carries one (304 when the request's
 * condition says so), then is streamed. Returns the body as one text when it was small, for the
 * caller to send; `tooLarge` when only a small one was wanted; undefined when it was handled here.
 */
export async function sendStreamed(
  reply: FastifyReply,
  status: number,
  body: StreamedJson,
  headers: Record<string, string>,
  user: string,
  places: LargeAnswers,
  /**
   * Only a small answer is wanted (a page is made of it): a larger one is not printed further, and
   * a collection whose first items show it will be larger is not printed to the size either.
   */
  smallOnly = false,
): Promise<StreamedOutcome> {
  const { pieces } = body;
  const { whole, tag, items } = body.options;
  const res = reply.raw;
  let gone = false;
  const onClose = () => (gone = true);
  res.once('close', onClose);
  let first = '';
  let ended = false;
  let judged: { items: number } | undefined;
  // A pause between two slices of printing, for other requests; false when the client went away
  // meanwhile (the answer is then dropped and its connection closed).
  const pauses = () => {
    let start = performance.now();
    return async (): Promise<boolean> => {
      if (performance.now() - start < slice()) return true;
      await turn();
      start = performance.now();
      if (!gone) return true;
      pieces.return();
      res.destroy();
      return false;
    };
  };
  printing++;
  try {
    const pause = pauses();
    // Pieces printed, and the smallest item of them (the first piece carries what comes before the list).
    let count = 0;
    let smallest = Infinity;
    while ((whole && !smallOnly) || first.length < LARGE_ANSWER_CHARS) {
      const next = pieces.next();
      if (next.done) {
        ended = true;
        break;
      }
      first += next.value;
      count++;
      if (smallOnly && items !== undefined) {
        if (count > 1) smallest = Math.min(smallest, next.value.length);
        if (count > 1 && first.length + smallest * (items - count) > judgedChars(count - 1)) {
          judged = { items };
          break;
        }
      }
      if (!(await pause())) return undefined;
    }
  } catch (err) {
    pieces.return();
    throw err;
  } finally {
    printing--;
    res.off('close', onClose);
  }
  if (ended) {
    if (!tag) return { text: first, headers };
    const etag = tag.value();
    const tagged = { ...headers, etag };
    return body.notModified?.(etag) ? { notModified: tagged } : { text: first, headers: tagged };
  }
  if (smallOnly) {
    pieces.return();
    return judged ? { tooLarge: true, judged } : { tooLarge: true };
  }
  const release = places.take(user);
  if (!release) {
    pieces.return();
    throw tooMany(
      `The user '${user}' has ${places.perUser} large answers (over ${LARGE_ANSWER_CHARS / 1024} KiB) under way, the most one user may have at once; retry when one of them has been read.`,
      1,
    );
  }
  res.once('close', () => {
    gone = true;
    release();
  });
  try {
    const out = { ...headers };
    if (tag) {
      // The tag goes in the headers: the items not printed yet are digested first.
      const pause = pauses();
      for (const _ of tag.rest()) if (!(await pause())) return undefined;
      out.etag = tag.value();
      if (body.notModified?.(out.etag)) {
        pieces.return();
        release();
        return { notModified: out };
      }
    }
    reply.code(status);
    for (const [k, v] of Object.entries(out)) reply.header(k, v);
    reply.header('content-type', 'application/json');
    reply.header('vary', 'Accept-Encoding');
    reply.send(new PiecesStream(first, pieces, release, reply));
    return undefined;
  } catch (err) {
    pieces.return();
    release();
    throw err;
  }
}

/** The rest of a body as a readable stream: printed as the socket takes it, a slice of time at a time. */
class PiecesStream extends Readable {
  private pending: string;
  private pumping = false;
  private stalled: NodeJS.Timeout | undefined;

  constructor(
    first: string,
    private readonly pieces: Generator<string, void, undefined>,
    private readonly release: () => void,
    private readonly reply: FastifyReply,
  ) {
    // Room for a few chunks ahead of the socket, so printing does not wait on every write.
    super({ highWaterMark: 4 * CHUNK_CHARS });
    this.pending = first;
    printing++;
  }

  override _read(): void {
    if (this.stalled) clearTimeout(this.stalled);
    this.stalled = undefined;
    if (!this.pumping) this.pump();
  }

  private pump(): void {
    this.pumping = true;
    const start = performance.now();
    try {
      for (;;) {
        if (this.destroyed) return;
        if (this.pending.length >= CHUNK_CHARS) {
          const more = this.send(this.pending);
          this.pending = '';
          if (!more) {
            // The client reads slower than we print: wait for it, but not for ever.
            this.pumping = false;
            this.stalled = setTimeout(() => this.destroy(new Error('the client stopped reading a streamed answer')), STALLED_CLIENT_MS);
            this.stalled.unref();
            return;
          }
        }
        const next = this.pieces.next();
        if (next.done) {
          if (this.pending !== '') this.send(this.pending);
          this.pending = '';
          this.push(null);
          return;
        }
        this.pending += next.value;
        if (performance.now() - start >= slice()) {
          // Other requests get their turn between two slices.
          setImmediate(() => this.pump());
          return;
        }
      }
    } catch (err) {
      // Headers are out: the client sees the connection cut rather than a body that lies.
      this.reply.log.error({ err }, 'a streamed answer failed while printing');
      this.destroy(err as Error);
    }
  }

  /** Hands text to the socket, counting its bytes. */
  private send(text: string): boolean {
    const bytes = Buffer.from(text, 'utf8');
    const res = this.reply.raw;
    streamed.set(res, (streamed.get(res) ?? 0) + bytes.length);
    return this.push(bytes);
  }

  override _destroy(err: Error | null, done: (error?: Error | null) => void): void {
    printing--;
    if (this.stalled) clearTimeout(this.stalled);
    this.pieces.return();
    this.release();
    done(err);
  }
}
