// The one rendering tail: every JSON body leaves through here, printed the way the real product
// prints it (see render/json-text.ts), which some clients compare as text.
import type { FastifyReply } from 'fastify';
import { printJson } from '../render/json-text.js';
import type { Problem } from '../core/problems.js';
import { problemBody, problemHeaders, statusOf } from './errors.js';

export const serialize = printJson;

/** `printed`: the body printed already (a read the API answered as bytes, perhaps from its cache). */
export function sendJson(reply: FastifyReply, status: number, body: unknown, headers: Record<string, string> = {}, printed?: Buffer): FastifyReply {
  return sendBytes(reply, status, printed ?? Buffer.from(serialize(body), 'utf8'), headers);
}

/** A body already printed in the product's layout (see json-text.ts). */
export function sendText(reply: FastifyReply, status: number, text: string, headers: Record<string, string> = {}): FastifyReply {
  return sendBytes(reply, status, Buffer.from(text, 'utf8'), headers);
}

/** A body as its bytes. */
export function sendBytes(reply: FastifyReply, status: number, bytes: Buffer, headers: Record<string, string> = {}): FastifyReply {
  reply.code(status);
  for (const [k, v] of Object.entries(headers)) reply.header(k, v);
  // `application/json` as the product sends it, without a charset (Fastify adds one to text it is
  // given; bytes it leaves alone).
  reply.header('content-type', 'application/json');
  // The product says that its answers vary with the encoding asked for.
  reply.header('vary', 'Accept-Encoding');
  return reply.send(bytes);
}

/** A problem as its HTTP answer: status, headers and the JSON envelope. */
export function sendProblem(reply: FastifyReply, problem: Problem): FastifyReply {
  return sendJson(reply, statusOf(problem), problemBody(problem), problemHeaders(problem));
}
