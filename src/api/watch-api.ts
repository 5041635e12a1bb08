// Watching the domain: what a watch request may ask (a path prefix, event kinds, where to resume),
// judged before anything is opened, and what each watcher is shown of each event.
import { managementVersion } from '../catalog/versions.js';
import { badRequest, notFound } from '../core/problems.js';
import { authorize } from '../security/authorize.js';
import type { StoredWatchEvent } from '../store/store.js';
import { type ChangedBean, RESTORED, WATCH_KINDS, type WatchEvent, type WatchKind, isWatchKind, under } from '../watch/events.js';
import type { WatchHub, WatchSink } from '../watch/hub.js';
import type { Caller } from './caller.js';

/** What a watcher follows. */
export interface WatchFilter {
  /** Path prefix below the version (`domainRuntime/serverLifeCycleRuntimes/ms1`); '' for everything. */
  path: string;
  kinds: ReadonlySet<WatchKind>;
  /** The last event the client saw. */
  lastEventId?: number;
}

/** The trees a prefix may start with; the configuration trees name the same beans. */
const CONFIG_TREES = new Set(['edit', 'domainConfig', 'serverConfig']);
const TREES = new Set([...CONFIG_TREES, 'domainRuntime']);
const PARAMETERS = new Set(['path', 'kinds']);
const MAX_PATH = 2048;
/** Largest id a client may send back: beyond it, JavaScript numbers are no longer exact. */
const MAX_ID = Number.MAX_SAFE_INTEGER;

export class WatchApi {
  /** `productVersion`: the domain's, which decides the version segments that name a version. */
  constructor(
    private readonly hub: WatchHub,
    private readonly productVersion: string,
  ) {}

  /**
   * Reads a watch request: the version segment, the query (`path`, `kinds`) and the Last-Event-ID
   * header. Throws 404 for a version that names none, 400 naming the parameter and value at fault.
   */
  filter(version: string, query: Record<string, unknown>, lastEventId: string | undefined): WatchFilter {
    if (!managementVersion(version, this.productVersion)) throw notFound(version);
    for (const name of Object.keys(query)) {
      if (!PARAMETERS.has(name)) throw badRequest(`The query parameter '${name}' is not taken by a watch; use path and kinds.`, name);
    }
    return { path: prefixOf(query.path), kinds: kindsOf(query.kinds), ...(lastEventId !== undefined ? { lastEventId: eventIdOf(lastEventId) } : {}) };
  }

  /** Ends every watch (the server stops). */
  closeAll(): void {
    this.hub.close();
  }

  /** Opens a watch for a caller who may read (403 otherwise); 429 beyond the limits. */
  async watch(caller: Caller, filter: WatchFilter, sink: WatchSink): Promise<{ close(): void }> {
    authorize(caller.principal, { kind: 'read' });
    return this.hub.watch({
      user: caller.principal.user,
      sink,
      view: (e) => view(e, filter),
      ...(filter.lastEventId !== undefined ? { lastEventId: filter.lastEventId } : {}),
    });
  }
}

function single(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw badRequest(`The query parameter '${name}' is given more than once; give it once.`, name);
  return value;
}

function prefixOf(value: unknown): string {
  const raw = single(value, 'path');
  if (raw === undefined) return '';
  if (raw.length > MAX_PATH) throw badRequest(`The query parameter 'path' is longer than ${MAX_PATH} characters.`, 'path');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(raw)) throw badRequest(`The query parameter 'path' holds a control character: ${JSON.stringify(raw.slice(0, 100))}.`, 'path');
  const segments = raw.replace(/^\/+|\/+$/g, '').split('/');
  if (segments.length === 1 && segments[0] === '') return '';
  if (segments.some((s) => s === '' || s === '.' || s === '..')) throw badRequest(`The query parameter 'path' has an empty or relative segment: '${raw}'.`, 'path');
  if (!TREES.has(segments[0]!)) {
    throw badRequest(`The query parameter 'path' is '${raw}', which does not start with a tree events are told of; start it with ${[...TREES].join(', ')}.`, 'path');
  }
  // The configuration trees show the same beans: an activation names them in `edit`.
  if (CONFIG_TREES.has(segments[0]!)) segments[0] = 'edit';
  return segments.join('/');
}

function kindsOf(value: unknown): Set<WatchKind> {
  const raw = single(value, 'kinds');
  if (raw === undefined) return new Set(WATCH_KINDS);
  const out = new Set<WatchKind>();
  for (const part of raw.split(',')) {
    const kind = part.trim();
    if (!isWatchKind(kind)) throw badRequest(`The query parameter 'kinds' names '${kind.slice(0, 100)}', which is not a kind of event; use ${WATCH_KINDS.join(', ')}.`, 'kinds');
    out.add(kind);
  }
  return out;
}

function eventIdOf(value: string): number {
  const text = value.trim();
  if (!/^[0-9]{1,16}$/.test(text) || Number(text) > MAX_ID) {
    throw badRequest(`The header 'Last-Event-ID' is '${value.slice(0, 100)}', which is not an event id (a whole number this server sent).`, 'Last-Event-ID');
  }
  return Number(text);
}

/** What a watcher is shown of an event: nothing when it is not of its kinds or not below its path. */
export function view(e: StoredWatchEvent, filter: WatchFilter): WatchEvent | undefined {
  // Whatever a watcher follows may have changed: every one of them is told.
  if (e.kind === RESTORED) {
    return {
      id: e.id,
      kind: 'reset',
      time: e.time,
      reason: 'restored',
      resumeFrom: e.id,
      detail: 'The domain was restored from a snapshot: read the resources again, then follow the events after this one.',
    };
  }
  if (!isWatchKind(e.kind) || !filter.kinds.has(e.kind)) return undefined;
  const head = { id: e.id, kind: e.kind, time: e.time };
  if (e.kind === 'activation') {
    const beans = Array.isArray(e.data.beans) ? (e.data.beans as ChangedBean[]) : [];
    const shown = beans.filter((b) => under(b.path, filter.path));
    if (filter.path !== '' && shown.length === 0) return undefined;
    return { ...head, ...e.data, beans: shown };
  }
  if (typeof e.data.path !== 'string' || !under(e.data.path, filter.path)) return undefined;
  return { ...head, ...e.data };
}
