// Following the domain's watch stream (Server-Sent Events) with this tab's credentials. EventSource
// cannot send an Authorization header, so the stream is read with fetch and parsed here.
import { BASE, callHeaders } from './lib.js';

/** Past this much text without an event's end the stream is not what it should be: start again. */
const MAX_PENDING = 1 << 20;
const RETRY_MS = 5000;

/**
 * Watches `query` (e.g. `kinds=runtime,activation`) until the returned function is called: each
 * event goes to onEvent(kind, data); onEvent('open') is called on each (re)connection, as events
 * may have been missed before it, and onEvent('lost') when the stream could not be had or ended
 * (a watcher may then read for itself meanwhile). A lost stream is opened again after a pause,
 * resuming after the last event seen; a refused one (401, 403, 400) is not retried.
 */
export function watchDomain(query, onEvent) {
  const controller = new AbortController();
  let lastId;
  const pause = () => new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  const run = async () => {
    while (!controller.signal.aborted) {
      try {
        const headers = { ...callHeaders(), Accept: 'text/event-stream', ...(lastId ? { 'Last-Event-ID': lastId } : {}) };
        const response = await fetch(`${BASE}/watch?${query}`, { headers, signal: controller.signal, credentials: 'omit' });
        if ([400, 401, 403].includes(response.status)) return;
        if (!response.ok || !response.body) throw new Error(`watch: HTTP ${response.status}`);
        onEvent('open', undefined);
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let pending = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          pending += value.replace(/\r\n?/g, '\n');
          let end;
          while ((end = pending.indexOf('\n\n')) >= 0) {
            const block = pending.slice(0, end);
            pending = pending.slice(end + 2);
            dispatch(block);
          }
          if (pending.length > MAX_PENDING) throw new Error('watch: an event too large');
        }
      } catch {
        // Lost, refused for a while (429), or aborted: the loop's condition decides.
      }
      if (controller.signal.aborted) return;
      onEvent('lost', undefined);
      await pause();
    }
  };
  const dispatch = (block) => {
    let kind = 'message';
    const data = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('id:')) lastId = line.slice(3).trim();
      else if (line.startsWith('event:')) kind = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (data.length === 0) return;
    let parsed;
    try {
      parsed = JSON.parse(data.join('\n'));
    } catch {
      return;
    }
    onEvent(kind, parsed);
  };
  run();
  return () => controller.abort();
}
