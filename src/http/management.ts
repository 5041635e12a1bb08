// Requests under /management/appserver and /management/lifecycle, adapted to the management API:
// who calls (the authenticated principal, the client's address, the edit session header, `Prefer`,
// a signal for a client that goes away), where (the URL's address), with what (the parsed body, or
// an application upload read part by part), and the API's answer sent as JSON.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Address } from '../api/address.js';
import type { Answer, Caller, View } from '../api/caller.js';
import type { Conditions } from '../core/preconditions.js';
import type { Admission, ManagementApi } from '../api/management-api.js';
import type { Uploads } from './deploy-requests.js';
import { badRequest } from '../core/problems.js';
import { originOf } from './origin.js';
import { StreamedJson } from '../render/streamed.js';
import { sendJson, sendText } from './send.js';
import { LARGE_ANSWER_CHARS, type LargeAnswers, sendStreamed } from './streaming.js';
import { tooLargeForHtml } from '../browse/page.js';

/** Request header naming the edit session a request works in. */
export const SESSION_HEADER = 'appserver.edit.session';

export class ManagementRoutes {
  constructor(
    private readonly api: ManagementApi,
    private readonly uploads: Uploads,
    /** Streamed answers under way, by user. */
    private readonly large: LargeAnswers,
  ) {}

  async handle(request: FastifyRequest, reply: FastifyReply, at: Address): Promise<FastifyReply> {
    // (A browser's page is this server's own, not the product's protocol: it is shown.)
    if ((request.method === 'GET' || request.method === 'HEAD') && !request.wantsHtml && !hasRequestedBy(request) && this.api.fansOut(at)) {
      // The product's answer (its fan-out to the managed servers is refused by their CSRF check).
      throw badRequest("Bad Request: reading domainRuntime/serverRuntimes while a managed server runs asks each running server, which needs the header 'X-Requested-By' (any non-empty value, for example 'X-Requested-By: MyClient').");
    }
    const caller = callerOf(request, reply);
    // Searches and collection reads come printed item by item; a browser's page is made of a small one only.
    const stream = request.method === 'GET' || request.method === 'POST';
    const skip = skipsLinks(request);
    const url = request.raw.url ?? request.url;
    // Without links, as the query would say it (the URL also keys the read cache).
    const view: View = {
      origin: originOf(request),
      query: skip ? { ...(request.query as Record<string, unknown>), links: 'none' } : (request.query as Record<string, unknown>),
      url: skip ? `${url}${url.includes('?') ? '&' : '?'}links=none` : url,
      ...(stream ? { stream } : {}),
      ...(request.wantsHtml ? { page: true } : {}),
    };
    let answer: Answer;
    if (request.isMultipart()) {
      // Admitted only where uploads are taken (the body was judged before it was read).
      const upload = this.uploads.begin(request);
      try {
        answer = await this.api.request(request.method, caller, at, { upload: upload.read }, view);
      } finally {
        upload.end();
      }
    } else {
      answer = await this.api.request(request.method, caller, at, { body: request.body }, view);
    }
    if (answer.tooLarge) return sendTooLargePage(request, reply, answer.tooLarge.items !== undefined ? { items: answer.tooLarge.items } : undefined);
    if (answer.body instanceof StreamedJson) {
      const outcome = await sendStreamed(reply, answer.status, answer.body, answer.headers ?? {}, request.principal.user, this.large, request.wantsHtml);
      if (outcome === undefined) return reply;
      if ('notModified' in outcome) return notModified(reply, outcome.notModified);
      if ('tooLarge' in outcome) {
        // The same read is refused at once until the domain changes.
        answer.body.refused?.(outcome.judged ?? {});
        return sendTooLargePage(request, reply, outcome.judged);
      }
      return sendText(reply, answer.status, outcome.text, outcome.headers);
    }
    if (answer.status === 304) return notModified(reply, answer.headers ?? {});
    return sendJson(reply, answer.status, answer.body, answer.headers ?? {}, answer.bytes);
  }

  /** Judges a request before its body is read (see ManagementApi.admit). */
  admit(request: FastifyRequest, at: Address): Promise<Admission> {
    return this.api.admit(request.method, callerOf(request), at);
  }
}

/**
 * A browser asked for an answer too large to lay out as a page (laying it out would hold the event
 * loop for seconds): 406 with a page linking to the JSON form of the same URL. `judged`: a collection
 * refused from its first items (of that many).
 */
export function sendTooLargePage(request: FastifyRequest, reply: FastifyReply, judged?: { items: number }): FastifyReply {
  tooLargeHeaders(reply);
  return reply.send(tooLargeForHtml(request.raw.url ?? request.url, LARGE_ANSWER_CHARS, judged));
}

/** The status and headers of the page refusing a large answer (its body is tooLargeForHtml's). */
export function tooLargeHeaders(reply: FastifyReply): void {
  reply
    .code(406)
    .header('content-type', 'text/html; charset=utf-8')
    .header('vary', 'Accept, Accept-Encoding')
    .header('content-security-policy', "default-src 'none'; style-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
}

/**
 * `X-Skip-Resource-Links: true` (the product's console sends it on every call) asks for no links:
 * as `links=none`, unless the query says which links it wants.
 */
function skipsLinks(request: FastifyRequest): boolean {
  const skip = request.headers['x-skip-resource-links'];
  return typeof skip === 'string' && skip.trim().toLowerCase() === 'true' && !Object.hasOwn(request.query as Record<string, unknown>, 'links');
}

function hasRequestedBy(request: FastifyRequest): boolean {
  const value = request.headers['x-requested-by'];
  return typeof value === 'string' && value.trim() !== '';
}

/** Not modified: the tag again, and no body. */
function notModified(reply: FastifyReply, headers: Record<string, string>): FastifyReply {
  for (const [k, v] of Object.entries(headers)) reply.header(k, v);
  return reply.code(304).send();
}

/** The caller of a request: its principal, address, edit session, `Prefer`, and its going away. */
function callerOf(request: FastifyRequest, reply?: FastifyReply): Caller {
  const prefer = request.headers.prefer;
  const session = sessionOf(request);
  const conditions = conditionsOf(request);
  return {
    principal: request.principal,
    address: clientAddress(request),
    ...(session !== undefined ? { session } : {}),
    ...(typeof prefer === 'string' ? { prefer } : {}),
    ...(conditions ? { conditions } : {}),
    // Reads do not wait: only other requests are told when their client goes away.
    ...(reply && request.method !== 'GET' && request.method !== 'HEAD' ? { signal: clientGone(reply) } : {}),
  };
}

/** `If-Match` and `If-None-Match`, when the request sends them (a header sent twice counts as one list). */
function conditionsOf(request: FastifyRequest): Conditions | undefined {
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(', ') : v);
  const ifMatch = one(request.headers['if-match']);
  const ifNoneMatch = one(request.headers['if-none-match']);
  if (ifMatch === undefined && ifNoneMatch === undefined) return undefined;
  return { ...(ifMatch !== undefined ? { ifMatch } : {}), ...(ifNoneMatch !== undefined ? { ifNoneMatch } : {}) };
}

/** The edit session the request names (the API's default session when it names none). */
function sessionOf(request: FastifyRequest): string | undefined {
  const header = request.headers[SESSION_HEADER];
  const value = Array.isArray(header) ? header[0] : header;
  return value && value.trim() !== '' ? value.trim() : undefined;
}

/**
 * The client's address: the TCP peer, never a forwarded header (which a client can write itself).
 * IPv4 peers are shown without the IPv6 mapping prefix.
 */
export function clientAddress(request: FastifyRequest): string {
  const a = request.raw.socket?.remoteAddress ?? '';
  return a.startsWith('::ffff:') && a.includes('.') ? a.slice(7) : a;
}

/** Aborts when the client goes away before its answer is sent (for requests that wait). */
function clientGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const res = reply.raw;
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}
