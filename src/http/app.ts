// The Fastify application: authentication, the CSRF header, content negotiation, errors, and one
// catch-all route that hands every management and lifecycle URL to its handler.
import { wantsHtml } from '../browse/negotiate.js';
import { BROWSE_ASSETS, asksForJson, renderPage, tooLargeForHtml } from '../browse/page.js';
import { browseAsset } from '../browse/assets.js';
import { CONSOLE_PATH, consoleAsset, isConsoleUrl } from '../console/assets.js';
import { Problem, badRequest, forbidden, insufficientStorage, internal, isStoreFailure, notAcceptable, notFound, timedOut, tooLarge, tooMany, unauthenticated, unavailable, unsupportedMediaType } from '../core/problems.js';
import { Transform } from 'node:stream';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyServerOptions, type FastifyInstance, type FastifyReply, type FastifyRequest, type RequestPayload } from 'fastify';
import type { Admission, ManagementApi } from '../api/management-api.js';
import type { Principal, RequestStats } from '../api/caller.js';
import multipart from '@fastify/multipart';
import { MAX_BODY_BYTES, bodyKindOf, parseLenient } from './body.js';
import { AppEndpoints } from './app-endpoints.js';
import { DEFAULT_UPLOAD_LIMITS, type UploadLimits, Uploads } from './deploy-requests.js';
import { ManagementRoutes, clientAddress, tooLargeHeaders } from './management.js';
import { isDocument, registerDocuments } from './documents.js';
import { parseTrustedProxies } from './origin.js';
import { processLag } from './lag.js';
import { isControlUrl, registerControlHooks, registerControlRoutes } from './control.js';
import type { Control } from '../control/control.js';
import { parseRequestPath } from './request-path.js';
import { errorBody, statusOf } from './errors.js';
import { sendJson, sendProblem, serialize } from './send.js';
import type { AdminMetrics } from '../metrics/admin.js';
import type { WatchApi } from '../api/watch-api.js';
import { isWatch, registerWatch } from './watch.js';
import { isReady, readyRoute } from './ready.js';
import { isBackup, registerBackup } from './backup.js';
import type { BackupApi } from '../api/backup-api.js';
import { LARGE_ANSWER_CHARS, largeAnswers, streamedBytes } from './streaming.js';
import { lazySchemaCompilers } from './schema-compilers.js';
import { DEFAULT_SHARES, InFlightShares, Places } from './shares.js';
import { BodyProgress, type BodyProgressLimits, DEFAULT_BODY_PROGRESS } from './body-progress.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
    /** The write was judged before its body (see admitWrite). */
    admitted: boolean;
    /** A browser asked for this management URL: the JSON answer goes out as an HTML page. */
    wantsHtml: boolean;
    /** The application running here whose context root the URL names (looked up once, on arrival). */
    application: string | undefined;
    /** The request's places in the shares of the in-flight limit, given back when it ends. */
    places: Places;
  }
}

export interface AppDependencies {
  /** The management interface this application serves. */
  api: ManagementApi;
  /** Request counters this application feeds (the administration server's own figures). */
  stats: RequestStats;
  /** Where uploaded application archives are kept. */
  uploadDir: string;
  /** The server's own figures: fed with every answer, and served at /metrics with the runtime's. */
  metrics?: AdminMetrics;
  /** Watches of the domain's changes, served as Server-Sent Events (none when absent). */
  watch?: WatchApi;
  /** The control interface (faults, clock, snapshots, journal); absent unless the server was started with it. */
  control?: Control;
  /** Backups of the domain at /appserver/backup (none when absent: a managed server's own ports). */
  backup?: BackupApi;
  /** Told of every answer with the bytes received and sent (a managed server's served requests). */
  served?: (bytesReceived: number, bytesSent: number) => void;
}

export interface AppOptions {
  /** The server's logger (default: none). */
  logger?: FastifyBaseLogger;
  /** Largest request body accepted (uploads aside), in bytes (default 1 MiB). */
  bodyLimit?: number;
  /** Limits of application uploads (default: files up to 512 MiB, 1 GiB staged at once). */
  uploads?: Partial<UploadLimits>;
  /** Requests in progress beyond which new ones get 503 (default 1000). */
  maxInFlight?: number;
  /** Parts of `maxInFlight` one user and one client address may hold (default 0.25 and 0.5); past them, 429. */
  shares?: { user?: number; address?: number };
  /** When a body that stops arriving is cut (default: 10 s without a byte, or under 1 KiB/s after 5 s). */
  bodyProgress?: Partial<BodyProgressLimits>;
  /** Event-loop delay (ms) beyond which new requests get 503 (default 1000). */
  maxEventLoopDelay?: number;
  /**
   * Addresses and CIDR ranges of the proxies whose X-Forwarded-Proto and X-Forwarded-Host are
   * believed (default: none, so hrefs follow the Host header alone).
   */
  trustProxy?: readonly string[];
  /** Serve HTTPS with this key and certificate (PEM) instead of plain HTTP. */
  https?: { key: string; cert: string };
  /** Closing ends every connection at once, requests in progress included (a managed server that stops). */
  forceClose?: boolean;
  /**
   * Where management requests go instead of this port: set on a server's plain and SSL ports, it
   * gives the address of the server's administration port while that port is open (undefined
   * otherwise). Management requests, the console, the readiness probe and the metrics are then
   * refused here (403); applications' own traffic is not.
   */
  managementElsewhere?: () => string | undefined;
  /**
   * This port serves the process's watch beside its main port (the administration port, opened and
   * closed as the domain says while the process runs): closing it ends the streams opened through it
   * and leaves the watch itself running for the other port.
   */
  secondPort?: boolean;
}

/** How long a client may take to send a request, and how long an idle connection stays open. */
const REQUEST_TIMEOUT_MS = 120_000;
const KEEP_ALIVE_MS = 72_000;

const WRITE_METHODS = new Set(['POST', 'DELETE', 'PUT', 'PATCH']);
/** Methods whose bodies Fastify never reads. */
const BODYLESS = new Set(['GET', 'HEAD', 'TRACE']);

/** True when a request says it carries a body (a length above zero, or a transfer coding). */
function declaresBody(headers: FastifyRequest['headers']): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length.trim() !== '0');
}

function isMultipart(headers: FastifyRequest['headers']): boolean {
  return /^\s*multipart\/form-data\b/i.test(headers['content-type'] ?? '');
}

/**
 * The vendor's media type for action requests (`application/vnd.<vendor>.adf.action+json`): a type
 * clients send as a request's Content-Type, which the product never answers in (asked for alone, it
 * is a 406). Matched by shape so the vendor's name is not written here.
 */
const ACTION_TYPE = /^application\/vnd\.[a-z0-9-]+\.adf\.action\+json$/;

/** True when an Accept header admits a JSON answer (absent, JSON, another `+json` type, or a wildcard such as Java's default). */
export function acceptsJson(accept: string | undefined): boolean {
  if (!accept) return true;
  return accept.split(',').some((part) => {
    const [range = '', ...params] = part.trim().toLowerCase().split(';');
    if (params.some((p) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(p))) return false;
    const type = range.trim();
    return type === '*/*' || type === 'application/*' || type === 'application/json' || (type.endsWith('+json') && !ACTION_TYPE.test(type));
  });
}

/** An Accept header as a refusal may repeat it: its first 200 characters, a vendor's media type named by its kind only (no brand word leaves the server). */
export function acceptShown(accept: string | undefined): string {
  return String(accept ?? '')
    .slice(0, 200)
    .replace(/application\/vnd\.[a-z0-9-]+\.adf\.([a-z]+)\+json/gi, "the vendor's $1+json type");
}

export async function buildApp(deps: AppDependencies, opts: AppOptions = {}): Promise<FastifyInstance> {
  const trusted = parseTrustedProxies(opts.trustProxy ?? []);
  const app = Fastify({
    ...(opts.logger ? { loggerInstance: opts.logger } : { logger: false }),
    ...(opts.https ? { https: opts.https } : {}),
    ...(opts.forceClose ? { forceCloseConnections: true } : {}),
    // One line per request is for debugging (see the onResponse hook), not the default log.
    logController: new LogController({ disableRequestLogging: true }),
    schemaController: lazySchemaCompilers() as FastifyServerOptions['schemaController'],
    bodyLimit: opts.bodyLimit ?? MAX_BODY_BYTES,
    requestTimeout: REQUEST_TIMEOUT_MS,
    keepAliveTimeout: KEEP_ALIVE_MS,
    trustProxy: trusted.length > 0 ? trusted : false,
    // The routes below decode paths themselves; Fastify must not reject odd but valid names.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 2048 },
    // Requests Node's parser refuses (headers too large, malformed) still get the JSON envelope.
    clientErrorHandler: (err: Error & { code?: string }, socket) => {
      const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
      const detail =
        status === 431 ? 'The request line or headers are larger than the server accepts (16 KiB).' : status === 408 ? 'The request took too long to arrive.' : `The request is not valid HTTP: ${err.message}.`;
      const body = serialize(errorBody(status, [{ detail }]));
      if (socket.writable) {
        socket.end(`HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
      } else {
        socket.destroy();
      }
    },
    // Errors the router raises before any hook runs (a path that is not valid percent-encoding).
    frameworkErrors: (error, _request, reply) => {
      sendProblem(reply, badRequest(`The request path is not valid: ${error.message}.`));
    },
  });
  // An overloaded server says so at once (503, Retry-After) instead of queueing without bound.
  const overloaded = (what: string) =>
    unavailable(`The server is overloaded (${what}); retry in a few seconds.`, 2);
  const maxInFlight = opts.maxInFlight ?? 1000;
  const maxLag = opts.maxEventLoopDelay ?? 1000;
  // Measured from when the server listens until it closes.
  const lag = processLag;
  let measuring = false;
  app.addHook('onListen', async () => {
    if (!measuring) lag.start();
    measuring = true;
  });
  app.addHook('onClose', async () => {
    if (measuring) lag.stop();
    measuring = false;
  });

  const apps = new AppEndpoints(deps.api);
  const shares = new InFlightShares({ maxInFlight, userShare: opts.shares?.user ?? DEFAULT_SHARES.userShare, addressShare: opts.shares?.address ?? DEFAULT_SHARES.addressShare });
  const progress = new BodyProgress({ ...DEFAULT_BODY_PROGRESS, ...opts.bodyProgress });
  app.addHook('onClose', async () => progress.close());
  /** Requests whose body stopped arriving and that were answered 408 for it. */
  const stalled = new WeakSet<object>();
  /** Answers a request whose body stopped arriving with 408, and closes its connection. */
  const cutBody = (request: FastifyRequest, reply: FastifyReply, why: string) => {
    stalled.add(request);
    const socket = request.raw.socket;
    if (reply.sent || reply.raw.headersSent) {
      socket?.destroy();
      return;
    }
    reply.header('connection', 'close');
    // The answer closes the connection; one that lingers after it is dropped.
    reply.raw.once('finish', () => setTimeout(() => socket?.destroy(), 1000).unref());
    sendProblem(reply, timedOut(`The request body stopped arriving (${why}); the connection is closed. Send the whole body without pausing.`));
  };
  // Requests in progress: counted first thing, and counted off exactly once when the response
  // closes, whether it was sent or the client went away before. Each holds a place in its client
  // address's share too (and in its user's share, once the user is known).
  app.addHook('onRequest', (request, reply, done) => {
    deps.stats.pending++;
    request.application = apps.application(request.url);
    let open = true;
    const places = (request.places = new Places());
    reply.raw.once('close', () => {
      if (open) deps.stats.pending--;
      open = false;
      places.end();
      // Also when the client went away before its answer: what the request did stays done.
      if (mayHaveChanged(request, reply.raw.headersSent ? reply.raw.statusCode : undefined)) deps.api.changing();
    });
    if (deps.stats.pending > maxInFlight) {
      done(overloaded(`${deps.stats.pending - 1} requests in progress`));
      return;
    }
    const late = lag.lagMs;
    if (late > maxLag) {
      done(overloaded(`the event loop runs ${Math.round(late)} ms late`));
      return;
    }
    try {
      shares.enterAddress(clientAddress(request), (release) => places.add(release));
    } catch (err) {
      done(err as Error);
      return;
    }
    if (declaresBody(request.headers) && !BODYLESS.has(request.method)) progress.watch(request.raw, (why) => cutBody(request, reply, why));
    done();
  });

  // Injected faults act on a request before anything else looks at it, as a failing server would.
  const control = deps.control;
  if (control) registerControlHooks(app, control);
  /** Control URLs are judged by their own routes, not as management writes. */
  const controlled = (url: string) => control !== undefined && isControlUrl(url);

  const management = new ManagementRoutes(deps.api, new Uploads(deps.uploadDir, { ...DEFAULT_UPLOAD_LIMITS, ...opts.uploads }), largeAnswers);
  // Uploads are read part by part in deploy-requests.ts, with limits of their own.
  await app.register(multipart, { limits: { fileSize: DEFAULT_UPLOAD_LIMITS.fileBytes, files: 3, fields: 2, parts: 4 } });

  // Bodies, by content type: JSON (strict, or relaxed when small), and plain text holding JSON or
  // `key=value` pairs. Each is read whole (up to the body limit), then parsed in linear time.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  const byKind = (request: FastifyRequest, body: string, done: (err: Error | null, value?: unknown) => void) => {
    try {
      done(null, parseLenient(body, 'request body', bodyKindOf(request.headers['content-type'] ?? '') ?? 'json'));
    } catch (err) {
      done(err as Error);
    }
  };
  app.addContentTypeParser(['application/json', 'text/plain'], { parseAs: 'string' }, byKind);
  app.addContentTypeParser(/^application\/.*\+json$/, { parseAs: 'string' }, byKind);

  app.decorateRequest('principal', null as unknown as Principal);
  app.decorateRequest('admitted', false);
  app.decorateRequest('wantsHtml', false);
  app.decorateRequest('application', undefined);
  app.decorateRequest('places', null as unknown as Places);

  /** Takes a place in the user's share of the in-flight limit (429 when the user holds all of it). */
  const holdUserShare = (request: FastifyRequest) => {
    shares.enterUser(request.principal.user, (release) => request.places.add(release));
  };
  /** What every request meets on arrival; a promise only when the caller must be authenticated at length. */
  const arrive = (request: FastifyRequest, reply: FastifyReply): Promise<void> | undefined => {
    reply.header('x-content-type-options', 'nosniff');
    reply.header('cache-control', 'no-store');
    // Applications answer at their own context roots, outside the management interface's security:
    // they take no body, so none is ever read from an anonymous client.
    const application = request.application;
    if (application) {
      if (declaresBody(request.headers)) {
        throw tooLarge(`The application '${application}' takes no request body; send the request without one.`);
      }
      // Its description is open to all; a unit of work holds a connection of a pool for minutes,
      // so only a signed-in user with a role may start one (a stranger gets a 401 and holds nothing).
      return apps.holdsResources(request.url) ? signIn(request) : undefined;
    }
    // With the administration port open, management traffic goes there alone: refused here before
    // anything else is looked at, credentials included. The control interface is this server's
    // test harness, not the product's: it answers wherever the server does.
    const elsewhere = opts.managementElsewhere?.();
    if (elsewhere !== undefined && !controlled(request.url)) {
      throw forbidden(`Management requests, the console and the server's probes are served only on the administration port (${elsewhere}) while the domain's administration port is enabled; this port takes application requests only.`);
    }
    // Probes ask without credentials whether the server takes work.
    if (isReady(request.url) && (request.method === 'GET' || request.method === 'HEAD')) return undefined;
    // The console's files hold no data: the page signs in by itself and sends credentials on its calls.
    if (isConsoleUrl(request.url) && (request.method === 'GET' || request.method === 'HEAD')) return undefined;
    // A person at a browser gets the same answer laid out as a page (see the onSend hook below);
    // the OpenAPI documents and the reference page are what they are, and negotiate for themselves.
    const document = isDocument(request.url);
    request.wantsHtml = !document && request.url.startsWith('/management/') && !isWatch(request.url) && !asksForJson(request.url) && wantsHtml(request.method, request.headers.accept, request.headers['user-agent']);
    if (!isMetrics(request.url) && !isWatch(request.url) && !isBackup(request.url) && !document && !request.wantsHtml && !acceptsJson(request.headers.accept)) throw notAcceptable(`Only application/json can be produced; the request's Accept header is '${acceptShown(request.headers.accept)}'.`);
    // A caller whose credentials were verified before is known at once (on a store of its own).
    return signIn(request);
  };

  /** Authenticates the caller, who must hold a role; a promise only when its credentials are checked at length. */
  const signIn = (request: FastifyRequest): Promise<void> | undefined => {
    const known = deps.api.knownCaller(request.headers.authorization, clientAddress(request));
    if (known) {
      request.principal = known;
      deps.api.mayRead({ principal: known });
      holdUserShare(request);
      return undefined;
    }
    // Servers sharing a store catch up with each other's changes (users included) before they answer.
    const reading = request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS';
    return deps.api.authenticate(request.headers.authorization, clientAddress(request), request.url.split('?')[0]!, reading).then((auth) => {
      if (!auth.principal) throw auth.retryAfterSeconds !== undefined ? tooMany(auth.problem, auth.retryAfterSeconds) : unauthenticated(auth.problem);
      const principal = (request.principal = auth.principal);
      deps.api.mayRead({ principal });
      holdUserShare(request);
    });
  };
  app.addHook('onRequest', (request, reply, done) => {
    let pending: Promise<void> | undefined;
    try {
      pending = arrive(request, reply);
    } catch (err) {
      return done(err as Error);
    }
    if (pending) pending.then(() => done(), done);
    else done();
  });

  /**
   * Judges a write before its body is read, in the product's order: the path (404), the method
   * (405), the caller's right (403), the media type (415), then the `X-Requested-By` header (400).
   */
  const admitWrite = async (request: FastifyRequest): Promise<Admission> => {
    const accepts = await management.admit(request, parseRequestPath(request.raw.url ?? '/'));
    if (declaresBody(request.headers)) {
      const type = request.headers['content-type'] ?? '';
      if (isMultipart(request.headers)) {
        if (!accepts.upload) throw unsupportedMediaType('Unsupported Media Type: multipart/form-data is taken only by uploads of applications and libraries (edit/appDeployments, edit/libraries); send application/json here.');
      } else if (bodyKindOf(type) === undefined) {
        throw unsupportedMediaType(`Unsupported Media Type: '${type.slice(0, 100)}' is not read here. Send application/json (or text/plain holding JSON).`);
      }
    }
    const csrf = request.headers['x-requested-by'];
    if (typeof csrf !== 'string' || csrf.trim() === '') {
      throw badRequest(`The header 'X-Requested-By' is required on ${request.method} requests (any non-empty value, for example 'X-Requested-By: MyClient').`);
    }
    request.admitted = true;
    return accepts;
  };

  // A write without a body is judged before it is handled.
  // Hooks with nothing to wait for in the common case answer at once (no promise per request).
  app.addHook('preHandler', (request, _reply, done) => {
    if (!WRITE_METHODS.has(request.method) || request.admitted || request.application || controlled(request.url) || (deps.watch && isWatch(request.url))) return done();
    admitWrite(request).then(() => done(), done);
  });

  // Before a body is read: the caller must be allowed to send one to this URL (write, invoke, upload).
  const judgeBody = async (request: FastifyRequest, payload: RequestPayload): Promise<RequestPayload> => {
    if (controlled(request.url)) {
      const type = request.headers['content-type'] ?? '';
      if (bodyKindOf(type) === undefined) throw unsupportedMediaType(`Unsupported Media Type: '${type.slice(0, 100)}' is not read here. Send application/json.`);
      return payload;
    }
    const accepts = await admitWrite(request);
    // Searches and actions take less than configuration does.
    const limit = accepts.limit;
    if (limit === undefined) return payload;
    const overLimit = () => tooLarge(`The request body is larger than ${accepts.limitFor === 'search query' ? 'a search query' : "an action's arguments"} may be (${limit / 1024} KiB).`);
    if (request.headers['content-length'] !== undefined) {
      if (Number(request.headers['content-length']) > limit) throw overLimit();
      return payload;
    }
    // Chunked: counted as it arrives.
    let received = 0;
    return payload.pipe(
      new Transform({
        transform(chunk: Buffer, _enc, done) {
          received += chunk.length;
          done(received > limit ? overLimit() : null, chunk);
        },
      }),
    );
  };
  app.addHook('preParsing', (request, _reply, payload, done) => {
    if (!declaresBody(request.headers) || BODYLESS.has(request.method) || request.application || (deps.watch && isWatch(request.url))) return done(null, payload);
    judgeBody(request, payload).then(
      (judged) => done(null, judged),
      (err: Error) => done(err),
    );
  });

  app.addHook('onResponse', (request, reply, done) => {
    deps.stats.completed++;
    if (deps.served) deps.served(Number(request.headers['content-length']) || 0, Number(reply.getHeader('content-length')) || streamedBytes(reply.raw));
    deps.metrics?.observeRequest(treeOf(request.url, request.application !== undefined), request.method, reply.statusCode, reply.elapsedTime / 1000);
    // One line per request at the debug level only (at the default level it costs nothing).
    if (request.log.level === 'debug' || request.log.level === 'trace') {
      request.log.debug({ method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10, user: request.principal?.user }, 'request');
    }
    done();
  });

  // Every answer, as it leaves. A change is told before its answer goes: a read that starts once
  // the client has it sees it. A script with its own sign-in form (the console) asks not to be
  // challenged, so a wrong password shows in its form instead of a browser dialog. And the HTML
  // view: every JSON answer to a browser's GET, errors included, becomes a page showing it.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (mayHaveChanged(request, reply.statusCode)) deps.api.changing();
    if (reply.statusCode === 401 && request.headers['x-requested-with'] === 'XMLHttpRequest') reply.removeHeader('www-authenticate');
    if (!request.wantsHtml) return done(null, payload);
    let page: unknown;
    try {
      page = asPage(request, reply, payload);
    } catch (err) {
      return done(err as Error);
    }
    done(null, page);
  });

  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
    // A body refused before it was read whole is not drained either: the connection closes after the answer.
    if (declaresBody(request.headers) && !request.raw.complete) reply.header('connection', 'close');
    if (error instanceof Problem) {
      // A store out of reach or full is the store's trouble, said once per request without a stack.
      if (isStoreFailure(error)) request.log.warn({ method: request.method, url: request.url, detail: error.message }, 'request refused: the store could not take it');
      else if (statusOf(error) >= 500) request.log.error({ err: error }, 'request failed');
      return sendProblem(reply, error);
    }
    // A file the server writes itself (an upload, a staged archive) on a full file system.
    if (error.code === 'ENOSPC' || error.code === 'EDQUOT') {
      request.log.warn({ method: request.method, url: request.url, detail: error.message }, 'request refused: no space left');
      return sendProblem(reply, insufficientStorage(`The server's file system is full (${error.code}); nothing was changed. Free space on it and retry: no restart is needed.`));
    }
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) {
      request.log.error({ err: error, method: request.method, url: request.url }, 'unexpected failure');
      return sendProblem(reply, internal(`Internal error while handling ${request.method} ${request.url}: ${error.message}`));
    }
    return sendJson(reply, status, errorBody(status, [{ detail: clientErrorText(error) }]));
  });

  app.setNotFoundHandler((request, reply) => sendProblem(reply, notFound(request.url)));

  const handle = async (request: FastifyRequest, reply: FastifyReply) => {
    const app = request.application;
    if (app) return apps.handle(request, reply, app);
    try {
      return await management.handle(request, reply, parseRequestPath(request.raw.url ?? '/'));
    } catch (err) {
      // An upload cut for stalling was answered already (408): what failed after it is its consequence.
      if (stalled.has(request)) return undefined;
      throw err;
    }
  };
  // Prometheus figures: this server's runtime (or the servers `server` names), and its own.
  app.get('/metrics', async (request, reply) => {
    // Loaded by the first scrape: a server nobody scrapes does not load the exposition.
    const { METRICS_CONTENT_TYPE, exposition, serversParameter } = await import('../metrics/exposition.js');
    const servers = serversParameter((request.query as Record<string, unknown>).server);
    const text = await exposition(deps.api, { principal: request.principal, address: clientAddress(request) }, servers, deps.metrics);
    return reply.header('content-type', METRICS_CONTENT_TYPE).send(text);
  });
  if (deps.watch) {
    const streams = registerWatch(app, deps.watch, opts.managementElsewhere);
    // Streams end before the server waits for its connections to close.
    const watch = deps.watch;
    app.addHook('preClose', async () => (opts.secondPort ? streams.endAll() : watch.closeAll()));
  }
  if (control) registerControlRoutes(app, control);
  readyRoute(app, deps.api);
  if (deps.backup) registerBackup(app, deps.backup);
  // The console: a page, its script and style sheet, and the UI library it is written with.
  const serveConsole = async (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0]!.slice(CONSOLE_PATH.length);
    // The page's relative URLs need the trailing slash.
    if (path === '') return reply.redirect(`${CONSOLE_PATH}/`, 302);
    const asset = consoleAsset(path);
    if (!asset) throw notFound(request.url);
    return reply
      .header('content-type', asset.type)
      .header('cache-control', 'no-cache')
      .header('content-security-policy', "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
      .send(asset.body);
  };
  app.get(CONSOLE_PATH, serveConsole);
  app.get(`${CONSOLE_PATH}/*`, serveConsole);
  // The OpenAPI documents and the API reference page.
  registerDocuments(app, deps.api);
  // The browsable view's script and style sheet.
  app.get(`${BROWSE_ASSETS}/:file`, async (request, reply) => {
    const asset = browseAsset((request.params as { file: string }).file);
    if (!asset) throw notFound(request.url);
    return reply.header('content-type', asset.type).header('cache-control', 'no-cache').send(asset.body);
  });
  app.all('/*', handle);
  return app;
}

/**
 * Whether a request may change the domain: any method but GET, HEAD and OPTIONS, except searches
 * (they only read). The read cache forgets its answers when one is answered.
 */
function changesState(request: FastifyRequest): boolean {
  const method = request.method;
  if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return false;
  if (method !== 'POST' || request.application !== undefined) return true;
  const q = request.url.indexOf('?');
  return !(q < 0 ? request.url : request.url.slice(0, q)).endsWith('/search');
}

/**
 * Whether a request's end must tell the read cache that the domain may have changed: only a request
 * that may change state and got past authentication and authorization (a management write admitted
 * with its role and header, or a control request of a signed-in caller, which its routes judge), and
 * then not when its answer is a client error (refused or invalid input changes nothing). `status` is
 * undefined when the client went away before an answer was sent. Applications' work shows only in
 * figures the cache never keeps, so their requests tell nothing: an anonymous caller cannot empty it.
 */
function mayHaveChanged(request: FastifyRequest, status: number | undefined): boolean {
  if (!changesState(request) || request.application !== undefined) return false;
  const passed = request.admitted || (isControlUrl(request.url) && Boolean(request.principal));
  if (!passed) return false;
  return status === undefined || status < 400 || status >= 500;
}

/** A JSON answer laid out as an HTML page (the answer as it is when it is no JSON). */
function asPage(request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  if (!String(reply.getHeader('content-type') ?? '').startsWith('application/json')) return payload;
  // An answer too large to lay out without holding the event loop gets a page linking to its JSON form.
  const size = Buffer.isBuffer(payload) ? payload.length : typeof payload === 'string' ? payload.length : 0;
  if (size > LARGE_ANSWER_CHARS) {
    tooLargeHeaders(reply);
    return tooLargeForHtml(request.raw.url ?? request.url, LARGE_ANSWER_CHARS);
  }
  const text = Buffer.isBuffer(payload) ? payload.toString('utf8') : typeof payload === 'string' ? payload : undefined;
  if (text === undefined) return payload;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return payload;
  }
  reply.header('content-type', 'text/html; charset=utf-8');
  reply.header('vary', 'Accept, Accept-Encoding');
  // Bean values are anyone's text: the page runs no script but its own.
  reply.header('content-security-policy', "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
  return renderPage({ path: request.url.split('?')[0]!, status: reply.statusCode, body });
}

function isMetrics(url: string): boolean {
  return url === '/metrics' || url.startsWith('/metrics?');
}

/** The part of the interface a URL goes to, as the request figures are labelled (a few values only). */
export function treeOf(url: string, application: boolean): string {
  if (application) return 'application';
  if (isMetrics(url)) return 'metrics';
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const m = path.indexOf('/management/');
  if (m < 0) return 'other';
  const [api, , tree] = path.slice(m + 12).split('/', 3);
  if (api === 'lifecycle') return 'lifecycle';
  if (api !== 'appserver') return 'other';
  return tree !== undefined && LABELLED_TREES.has(tree) ? tree : tree === undefined || tree === '' ? 'versions' : 'other';
}

/** The trees the request figures name (any other path is `other`). */
const LABELLED_TREES: ReadonlySet<string> = new Set(['edit', 'serverConfig', 'domainConfig', 'serverRuntime', 'domainRuntime', 'currentUser', 'watch']);

/** Words for the client errors Fastify itself raises (body parsing, media type, size). */
function clientErrorText(error: Error & { statusCode?: number; code?: string }): string {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return `Unsupported Media Type: ${error.message}. Send application/json (or multipart/form-data for uploads).`;
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return `The request body is larger than the server accepts: ${error.message}.`;
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'The request body is empty; send a JSON object (at least {}).';
    default:
      return error.message;
  }
}
