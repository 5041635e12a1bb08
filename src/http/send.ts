// The one rendering tail: every JSON body leaves through here, printed the way the real product
// prints it (4-space indent, '/' escaped), which some clients compare as text.
import type { FastifyReply } from 'fastify';
import type { Problem } from '../core/problems.js';
import { problemBody, problemHeaders, statusOf } from './errors.js';

export function serialize(body: unknown): string {
  // '/' can only occur inside JSON strings, so escaping it everywhere is safe.
  return JSON.stringify(body, null, 4).replaceAll('/', '\\/');
}

export function sendJson(reply: FastifyReply, status: number, body: unknown, headers: Record<string, string> = {}): FastifyReply {
  reply.code(status);
  for (const [k, v] of Object.entries(headers)) reply.header(k, v);
  reply.header('content-type', 'application/json');
  return reply.send(serialize(body));
}

/** A problem as its HTTP answer: status, headers and the JSON envelope. */
export function sendProblem(reply: FastifyReply, problem: Problem): FastifyReply {
  return sendJson(reply, statusOf(problem), problemBody(problem), problemHeaders(problem));
}
