// A small Server-Sent Events client for the watch tests: opens a stream with fetch, parses events
// and comments as they arrive, and waits (bounded) for the ones a test expects.
import assert from 'node:assert/strict';

export interface SseEvent {
  id?: string;
  event: string;
  data: any;
  raw: string;
}

export interface SseStream {
  status: number;
  headers: Headers;
  /** Events received so far, in order. */
  events: SseEvent[];
  /** Comments received so far (`: ...` lines), in order. */
  comments: string[];
  /** Everything received, as text. */
  text(): string;
  /** Waits until an event matching `match` arrives (looking at those received already too); fails after `ms`. */
  next(match: (e: SseEvent) => boolean, what: string, ms?: number): Promise<SseEvent>;
  /** Waits until a comment matching `match` arrives. */
  comment(match: RegExp, ms?: number): Promise<string>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

export async function openStream(url: string, auth: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { authorization: auth, accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const events: SseEvent[] = [];
  const comments: string[] = [];
  let all = '';
  let buffer = '';
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const w of [...waiters]) w();
  };
  const ended = (async () => {
    if (!res.body) return;
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body) {
        const text = decoder.decode(chunk as Uint8Array, { stream: true });
        all += text;
        buffer += text;
        let at: number;
        while ((at = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          const e: SseEvent = { event: 'message', data: undefined, raw: block };
          let data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else if (line.startsWith('id: ')) e.id = line.slice(4);
            else if (line.startsWith('event: ')) e.event = line.slice(7);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
          }
          if (data.length > 0) {
            e.data = JSON.parse(data.join('\n'));
            events.push(e);
          }
          data = [];
        }
        notify();
      }
    } catch {
      // Aborted by close(), or the server dropped the connection.
    } finally {
      notify();
    }
  })();
  let done = false;
  void ended.then(() => (done = true));
  const wait = <T>(find: () => T | undefined, what: string, ms: number): Promise<T> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const found = find();
        if (found !== undefined) {
          cleanup();
          resolve(found);
        } else if (done) {
          cleanup();
          reject(new Error(`the stream ended without ${what}; received:\n${all.slice(-3000)}`));
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`no ${what} within ${ms} ms; received:\n${all.slice(-3000)}`));
      }, ms);
      const cleanup = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
      void ended.then(check);
    });
  return {
    status: res.status,
    headers: res.headers,
    events,
    comments,
    text: () => all,
    next: (match, what, ms = 20_000) => wait(() => events.find(match), what, ms),
    comment: (match, ms = 20_000) => wait(() => comments.find((c) => match.test(c)), `a comment ${match}`, ms),
    ended,
    close: () => abort.abort(),
  };
}

/** Opens a watch and waits until it is live (the server's `watching` comment). */
export async function watch(url: string, auth: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const s = await openStream(url, auth, headers);
  assert.equal(s.status, 200, `watch ${url}: ${s.status} ${s.text()}`);
  await s.comment(/^watching$/);
  return s;
}

/** The ids of events, as numbers, checking that they grow. */
export function increasingIds(events: SseEvent[]): number[] {
  const ids = events.map((e) => Number(e.id));
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i]! > ids[i - 1]!, `ids grow: ${ids.join(', ')}`);
  return ids;
}
