// A typed client of the Domain Administration REST Interface. It speaks HTTP only (fetch), so it
// works against any server of this interface, in this process or elsewhere; the bean types come from
// the generated catalog interfaces. Every request is bounded by a time limit, credentials are sent
// to the configured origin only, and errors arrive as AppserverError with a kind a caller can act on.
import { BackgroundError, fetchInBackground } from './background.js';
import { AppserverError, detailsOf, kindOfStatus } from './errors.js';
import type { ActionArgs, BeanActions, BeanBase, BeanTypeName, BeanTypes, Link } from './generated/beans.js';

export interface ClientOptions {
  /** The server: `http://host:port` (a path prefix before `/management` is kept, for proxies). */
  url: string;
  user?: string;
  password?: string;
  /** Version segment of the management trees (default `latest`). */
  version?: string;
  /** The `X-Requested-By` value (default `appserver-admin-client`). */
  requestedBy?: string;
  /** Time limit of one request in milliseconds (default 30 s). */
  requestTimeoutMs?: number;
  /** Work in this named edit session instead of the default one. */
  editSession?: string;
  /** Largest answer read, in bytes (default 64 MiB): a server cannot make the client hold more. */
  maxResponseBytes?: number;
}

/** A bean body as the server sends it: fields, `identity`, `links`. */
export type Bean = BeanBase & Record<string, unknown>;

export interface Collection<T = Bean> {
  items: (T & BeanBase)[];
  links?: Link[];
}

export interface ReadOptions {
  /** Only these fields. */
  fields?: string[];
  /** Only links with these rels; `[]` for none. */
  links?: string[];
}

/** A lifecycle task or a deployment progress object. */
export interface Task extends BeanBase {
  name?: string;
  type?: string;
  progress?: string;
  completed?: boolean;
  taskStatus?: string;
  state?: string;
  description?: string;
  operation?: string;
  serverName?: string;
  taskError?: { message?: string } | null;
  rootExceptions?: { message?: string }[];
  deploymentMessages?: string[];
  subTasks?: unknown;
  intervalToPoll?: number;
  [field: string]: unknown;
}

export interface WaitOptions {
  /** Give up after this long (default 5 minutes); the error kind is `timeout`. */
  timeoutMs?: number;
  /** Pause between polls (default 250 ms, never longer than the task's `intervalToPoll`). */
  pollMs?: number;
  /** Called with every state read while waiting. */
  onProgress?: (task: Task, elapsedMs: number) => void;
  /** A task that failed is returned instead of thrown. */
  allowFailure?: boolean;
}

export interface ChangeManagerState {
  locked: boolean;
  lockOwner?: string;
  hasChanges?: boolean;
  mergeNeeded?: boolean;
  editSession?: string;
}

export interface Reply {
  status: number;
  headers: Headers;
  body: unknown;
}

export interface DeployRequest {
  /** Application name. */
  name: string;
  /** Server or cluster names; each is looked up as a server first, then as a cluster. */
  targets: { type: 'servers' | 'clusters'; name: string }[];
  /** The archive to upload: its bytes and file name. */
  upload?: { bytes: Uint8Array; fileName: string };
  /** A path on the server's machine, when nothing is uploaded. */
  sourcePath?: string;
  /** Deploys a shared library (`edit/libraries`) rather than an application. */
  library?: boolean;
}

const DEFAULT_TIMEOUT = 30_000;
const DEFAULT_MAX_RESPONSE = 64 * 1024 * 1024;
const TREE_ROOTS = ['edit', 'serverConfig', 'domainConfig', 'serverRuntime', 'domainRuntime'] as const;
export type TreeRoot = (typeof TREE_ROOTS)[number];

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

export class AppserverClient {
  /** Scheme, host, port and any path prefix, without a trailing slash. */
  readonly base: string;
  readonly origin: string;
  readonly version: string;
  private readonly auth: string | undefined;
  private readonly headers: Record<string, string>;
  private readonly timeout: number;
  private readonly maxResponse: number;

  constructor(readonly options: ClientOptions) {
    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      throw new AppserverError('usage', `the server URL '${options.url}' is not a URL (expected http://host:port)`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new AppserverError('usage', `the server URL '${options.url}' is not http or https`);
    if (url.username || url.password) throw new AppserverError('usage', 'the server URL must not carry credentials: give a user and password instead');
    // A URL pointing into the management tree is cut back to what stands before `/management`.
    const path = url.pathname.replace(/\/management(\/.*)?$/, '').replace(/\/+$/, '');
    this.origin = url.origin;
    this.base = `${url.origin}${path}`;
    this.version = options.version ?? 'latest';
    if (!/^[A-Za-z0-9._-]+$/.test(this.version)) throw new AppserverError('usage', `the version '${this.version}' is not a version segment`);
    this.auth = options.user !== undefined ? `Basic ${Buffer.from(`${options.user}:${options.password ?? ''}`).toString('base64')}` : undefined;
    this.timeout = options.requestTimeoutMs ?? DEFAULT_TIMEOUT;
    this.maxResponse = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE;
    this.headers = {
      accept: 'application/json',
      'x-requested-by': options.requestedBy ?? 'appserver-admin-client',
      ...(options.editSession !== undefined ? { 'appserver.edit.session': options.editSession } : {}),
    };
  }

  /** The management root of this version: `<base>/management/appserver/<version>`. */
  get root(): string {
    return `${this.base}/management/appserver/${this.version}`;
  }

  /**
   * The URL of a path: `edit/servers/s1` is below the management root of the version, `/management/...`
   * below the server, and an absolute URL (a task's `job` link) is taken as is if it is on this server.
   * Each segment is percent-encoded; a `?query` is kept.
   */
  url(path: string): string {
    if (/^https?:\/\//i.test(path)) {
      let target: URL;
      try {
        target = new URL(path);
      } catch {
        throw new AppserverError('usage', `'${path}' is not a URL`);
      }
      // Credentials never leave for another server, whatever a link says.
      if (target.origin !== this.origin) throw new AppserverError('server', `the server pointed to ${target.origin}, which is not ${this.origin}`);
      return target.href;
    }
    const q = path.indexOf('?');
    const [p, query] = q >= 0 ? [path.slice(0, q), path.slice(q)] : [path, ''];
    const segments = p.split('/').filter((s) => s !== '');
    for (const s of segments) if (s === '.' || s === '..') throw new AppserverError('usage', `the path '${path}' has a '${s}' segment`);
    const encoded = segments.map((s) => encodeURIComponent(safeDecode(s))).join('/');
    return p.startsWith('/') ? `${this.base}/${encoded}${query}` : `${this.root}${encoded ? `/${encoded}` : ''}${query}`;
  }

  /** One request; the answer's JSON body, or AppserverError for anything but 2xx. */
  async request(method: string, path: string, init: { body?: unknown; form?: FormData; prefer?: string; headers?: Record<string, string>; background?: boolean; signal?: AbortSignal } = {}): Promise<Reply> {
    const url = this.url(path);
    const headers: Record<string, string> = { ...this.headers, ...init.headers };
    if (this.auth) headers.authorization = this.auth;
    if (init.prefer) headers.prefer = init.prefer;
    let body: string | FormData | undefined;
    if (init.form) body = init.form;
    else if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      headers['content-type'] = 'application/json';
    }
    let res: Response;
    try {
      // A large answer the caller does not wait on at once is read by a worker thread (background.ts).
      res =
        init.background && !(body instanceof FormData)
          ? await fetchInBackground({ url, method, headers, ...(body !== undefined ? { body } : {}), timeoutMs: this.timeout, maxBytes: this.maxResponse }, init.signal ? { signal: init.signal } : {})
          : await fetch(url, { method, headers, redirect: 'manual', signal: AbortSignal.timeout(this.timeout), ...(body !== undefined ? { body } : {}) });
    } catch (err) {
      if (err instanceof BackgroundError && err.tooLarge !== undefined) throw new AppserverError('server', `the server answered ${err.tooLarge} bytes, more than the ${this.maxResponse} this client reads`);
      throw unreachable(url, err, this.timeout);
    }
    let text: string;
    try {
      text = await readLimited(res, this.maxResponse);
    } catch (err) {
      if (err instanceof AppserverError) throw err;
      throw unreachable(url, err, this.timeout);
    }
    let parsed: unknown = undefined;
    if (text !== '') {
      try {
        parsed = JSON.parse(text);
      } catch {
        if (res.ok) throw new AppserverError('server', `${method} ${url} answered ${res.status} with a body that is not JSON`, res.status);
      }
    }
    if (res.status >= 200 && res.status < 300) return { status: res.status, headers: res.headers, body: parsed ?? {} };
    const details = detailsOf(parsed);
    const what = details.length > 0 ? details.join('; ') : (text.slice(0, 200) || res.statusText);
    throw new AppserverError(kindOfStatus(res.status), `${method} ${shortPath(url, this.base)}: ${res.status} ${what}`, res.status, details, parsed);
  }

  /**
   * A GET whose answer is streamed to the caller rather than read here (a backup): the request's
   * time limit covers the wait for the answer's headers; `idleMs` then bounds each pause between
   * pieces. A status other than 2xx is an AppserverError as for any request.
   */
  async download(path: string, options: { idleMs?: number } = {}): Promise<{ headers: Headers; body: AsyncIterable<Uint8Array> }> {
    const url = this.url(path);
    const headers: Record<string, string> = { ...this.headers, accept: '*/*' };
    if (this.auth) headers.authorization = this.auth;
    const abort = new AbortController();
    let timer = setTimeout(() => abort.abort(new DOMException('timeout', 'TimeoutError')), this.timeout);
    let res: Response;
    try {
      res = await fetch(url, { method: 'GET', headers, redirect: 'manual', signal: abort.signal });
    } catch (err) {
      clearTimeout(timer);
      throw unreachable(url, err, this.timeout);
    }
    clearTimeout(timer);
    if (res.status < 200 || res.status >= 300) {
      const text = await readLimited(res, 1024 * 1024).catch(() => '');
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      const details = detailsOf(parsed);
      throw new AppserverError(kindOfStatus(res.status), `GET ${shortPath(url, this.base)}: ${res.status} ${details.join('; ') || text.slice(0, 200) || res.statusText}`, res.status, details, parsed);
    }
    const idle = options.idleMs ?? this.timeout;
    const reader = res.body!.getReader();
    async function* pieces(): AsyncGenerator<Uint8Array> {
      try {
        for (;;) {
          timer = setTimeout(() => abort.abort(new DOMException('timeout', 'TimeoutError')), idle);
          let step;
          try {
            step = await reader.read();
          } catch (err) {
            throw unreachable(url, err, idle);
          } finally {
            clearTimeout(timer);
          }
          if (step.done) return;
          yield step.value;
        }
      } finally {
        await reader.cancel().catch(() => undefined);
      }
    }
    return { headers: res.headers, body: pieces() };
  }

  /** Reads a bean (or any entity). Give the bean's interface as `T` for typed fields. */
  async get<T = Bean>(path: string, options: ReadOptions = {}): Promise<T & BeanBase> {
    const r = await this.request('GET', withQuery(path, options));
    return r.body as T & BeanBase;
  }

  /** Reads a collection's items. */
  async list<T = Bean>(path: string, options: ReadOptions = {}): Promise<(T & BeanBase)[]> {
    const r = await this.request('GET', withQuery(path, options));
    const items = (r.body as Collection<T>).items;
    if (!Array.isArray(items)) throw new AppserverError('usage', `${path} is not a collection`);
    return items;
  }

  /** A typed handle on one bean of a known type. */
  bean<N extends BeanTypeName>(type: N, path: string): BeanHandle<N> {
    return new BeanHandle(this, type, path);
  }

  /** Creates an item in a collection (or an optional singleton); returns the new bean's URL. */
  async create(collection: string, values: Record<string, unknown>): Promise<string> {
    const r = await this.request('POST', collection, { body: values });
    return r.headers.get('location') ?? this.url(`${collection}/${String(values.name ?? '')}`);
  }

  /** Changes properties of a bean; only the ones given. */
  async update(path: string, values: Record<string, unknown>): Promise<void> {
    await this.request('POST', path, { body: values });
  }

  async delete(path: string): Promise<void> {
    await this.request('DELETE', path);
  }

  /**
   * Invokes an action. Returns the `return` value of a query, `undefined` for a void action, or the
   * task of a lifecycle operation (asked for with `respond-async`: use waitForTask).
   */
  async invoke(path: string, action: string, args: Record<string, unknown> = {}, options: { async?: boolean } = {}): Promise<unknown> {
    const r = await this.request('POST', `${path.replace(/\/+$/, '')}/${action}`, { body: args, ...(options.async ? { prefer: 'respond-async' } : {}) });
    const body = r.body as Record<string, unknown>;
    if (isTask(body)) return body as Task;
    return 'return' in body ? body.return : undefined;
  }

  /** A lifecycle action that answers with a task (without waiting for it). */
  async startTask(path: string, action: string, args: Record<string, unknown> = {}): Promise<Task> {
    const result = await this.invoke(path, action, args, { async: true });
    if (!isTask(result)) throw new AppserverError('server', `${action} on ${path} did not answer with a task`);
    return result;
  }

  /** Searches a tree (`POST <tree>/search`) with a query of fields, links, children and names. */
  /** A search; with `background`, its answer is read by a worker thread while this one may be busy. */
  async search(tree: TreeRoot | string, query: Record<string, unknown>, options: { background?: boolean; signal?: AbortSignal } = {}): Promise<Bean> {
    const r = await this.request('POST', `${tree.replace(/\/+$/, '')}/search`, { body: query, ...(options.background ? { background: true } : {}), ...(options.signal ? { signal: options.signal } : {}) });
    return r.body as Bean;
  }

  /** Polls a task until it completes; throws `failed` for a failed task and `timeout` past the limit. */
  async waitForTask(task: Task, options: WaitOptions = {}): Promise<Task> {
    const href = jobHref(task);
    const limit = options.timeoutMs ?? 300_000;
    const started = Date.now();
    let current = task;
    for (;;) {
      options.onProgress?.(current, Date.now() - started);
      if (current.completed === true) break;
      const elapsed = Date.now() - started;
      if (elapsed >= limit) throw new AppserverError('timeout', `${describeTask(current)} did not finish within ${Math.round(limit / 1000)} s`);
      const interval = Math.min(options.pollMs ?? 250, typeof current.intervalToPoll === 'number' && current.intervalToPoll > 0 ? current.intervalToPoll : 1000);
      await sleep(Math.min(interval, limit - elapsed));
      if (href === undefined) throw new AppserverError('server', `${describeTask(current)} has no link to follow`);
      current = (await this.request('GET', href)).body as Task;
    }
    const failure = taskFailure(current);
    if (failure !== undefined && !options.allowFailure) throw new AppserverError('failed', `${describeTask(current)} failed: ${failure}`, undefined, [failure], current);
    return current;
  }

  // ---- edit sessions ----

  async changeManager(): Promise<ChangeManagerState> {
    return (await this.get('edit/changeManager', { links: [] })) as unknown as ChangeManagerState;
  }

  /** Takes the edit lock; with `lapseMs`, the lock lapses by itself after that long (a client that dies leaves no lock behind). */
  async startEdit(lapseMs?: number): Promise<void> {
    await this.request('POST', 'edit/changeManager/startEdit', { body: lapseMs !== undefined ? { waitTime: 0, timeOut: lapseMs } : {} });
  }

  async activate(): Promise<void> {
    await this.request('POST', 'edit/changeManager/activate', { body: {} });
  }

  async cancelEdit(): Promise<void> {
    await this.request('POST', 'edit/changeManager/cancelEdit', { body: {} });
  }

  /**
   * Runs `change` in an edit session of its own and activates it: all of it lands, or nothing (a
   * failed change or activation cancels the session). A session the caller already holds with
   * changes in it is not touched: those changes are someone's unfinished work.
   */
  async inEditSession<T>(change: (client: AppserverClient) => Promise<T>, options: { lockLapseMs?: number } = {}): Promise<T> {
    const before = await this.changeManager();
    if (before.locked && before.lockOwner !== undefined && before.lockOwner !== this.options.user) {
      throw new AppserverError('rejected', `the edit lock is held by ${before.lockOwner}: nothing was changed`);
    }
    if (before.locked && before.hasChanges) {
      throw new AppserverError('rejected', 'you hold an edit session with unactivated changes: activate or cancel it first (nothing was changed)');
    }
    await this.startEdit(options.lockLapseMs);
    try {
      const result = await change(this);
      await this.activate();
      return result;
    } catch (err) {
      await this.cancelEdit().catch(() => undefined);
      if (err instanceof AppserverError && err.kind === 'rejected') {
        throw new AppserverError('rejected', `${err.message} (the edit session was cancelled: nothing was changed)`, err.status, err.details, err.body);
      }
      throw err;
    }
  }

  // ---- deployments ----

  /** Deploys an application or a library (uploading its archive, or naming a path on the server); returns its progress object. */
  async deploy(req: DeployRequest): Promise<Task> {
    const collection = req.library ? 'edit/libraries' : 'edit/appDeployments';
    const model = {
      name: req.name,
      targets: req.targets.map((t) => ({ identity: [t.type, t.name] })),
      ...(req.sourcePath !== undefined ? { sourcePath: req.sourcePath } : {}),
    };
    const r = req.upload
      ? await this.request('POST', collection, { form: uploadForm(model, req.upload), prefer: 'respond-async' })
      : await this.request('POST', collection, { body: model, prefer: 'respond-async' });
    if (isTask(r.body)) return r.body;
    // Completed at once (201 without a body): the progress object is where the deployment manager keeps it.
    return (await this.request('GET', `domainRuntime/deploymentManager/deploymentProgressObjects/${encodeURIComponent(req.name)}`)).body as Task;
  }
}

/** A bean of a known type: reads and changes it with the fields and actions of its interface. */
export class BeanHandle<N extends BeanTypeName> {
  constructor(
    readonly client: AppserverClient,
    readonly type: N,
    readonly path: string,
  ) {}

  read(options: ReadOptions = {}): Promise<BeanTypes[N]> {
    return this.client.get<BeanTypes[N]>(this.path, options);
  }

  update(values: Partial<BeanTypes[N]>): Promise<void> {
    return this.client.update(this.path, values as Record<string, unknown>);
  }

  invoke<A extends N extends keyof BeanActions ? keyof BeanActions[N] & string : never>(
    action: A,
    args: N extends keyof BeanActions ? (A extends keyof BeanActions[N] ? ActionArgs<N, A> : never) : never,
  ): Promise<unknown> {
    return this.client.invoke(this.path, action, args as Record<string, unknown>);
  }
}

export function isTask(body: unknown): body is Task {
  if (!body || typeof body !== 'object') return false;
  const b = body as Task;
  return typeof b.completed === 'boolean' && typeof b.progress === 'string';
}

export function jobHref(task: Task): string | undefined {
  const links = task.links ?? [];
  return (links.find((l) => l.rel === 'job') ?? links.find((l) => l.rel === 'self'))?.href;
}

/** Why a completed task failed, or undefined when it succeeded. */
export function taskFailure(task: Task): string | undefined {
  if (task.progress !== 'failed' && task.state !== 'STATE_FAILED' && !task.taskError) return undefined;
  const root = task.taskError?.message ?? task.rootExceptions?.[0]?.message;
  return root ?? task.taskStatus ?? task.state ?? 'failed';
}

export function describeTask(task: Task): string {
  const what = task.description ?? task.operation ?? task.name ?? 'the task';
  return String(what).replace(/\s*\.\.\.$/, '');
}

function uploadForm(model: Record<string, unknown>, upload: { bytes: Uint8Array; fileName: string }): FormData {
  const form = new FormData();
  form.append('model', JSON.stringify(model));
  form.append('sourcePath', new Blob([new Uint8Array(upload.bytes)]), upload.fileName);
  return form;
}

/** The body as text, refusing one longer than `max` bytes without reading the rest. */
async function readLimited(res: Response, max: number): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? Number.NaN);
  if (declared > max) {
    await res.body?.cancel().catch(() => undefined);
    throw new AppserverError('server', `the server answered ${declared} bytes, more than the ${max} this client reads`);
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      throw new AppserverError('server', `the server's answer is longer than the ${max} bytes this client reads`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function withQuery(path: string, options: ReadOptions): string {
  const params: string[] = [];
  if (options.fields) params.push(`fields=${options.fields.map(encodeURIComponent).join(',')}`);
  if (options.links) params.push(options.links.length === 0 ? 'links=none' : `links=${options.links.map(encodeURIComponent).join(',')}`);
  if (params.length === 0) return path;
  return `${path}${path.includes('?') ? '&' : '?'}${params.join('&')}`;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function shortPath(url: string, base: string): string {
  return url.startsWith(base) ? url.slice(base.length) || '/' : url;
}

function unreachable(url: string, err: unknown, timeout: number): AppserverError {
  const e = err as { name?: string; cause?: { code?: string; message?: string }; message?: string };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return new AppserverError('unreachable', `${url}: no answer within ${Math.round(timeout / 1000)} s`);
  const reason = e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
  return new AppserverError('unreachable', `cannot reach ${new URL(url).origin}: ${reason}`);
}
