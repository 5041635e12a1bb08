// Audit of a request that changes something: who (the authenticated user), from where (the TCP
// peer's address), what, on which bean, and how it ended, stored before the answer leaves.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type AuditLog, type AuditNote, redact, secretValues } from '../security/audit.js';
import { ApiError } from './errors.js';

/**
 * The client's address: the TCP peer, never a forwarded header (which a client can write itself).
 * IPv4 peers are shown without the IPv6 mapping prefix.
 */
export function clientAddress(request: FastifyRequest): string {
  const a = request.raw.socket?.remoteAddress ?? '';
  return a.startsWith('::ffff:') && a.includes('.') ? a.slice(7) : a;
}

/** Runs `run`, then records what it did; a refusal or failure is recorded too, then rethrown. */
export async function audited<T>(
  audit: AuditLog,
  request: FastifyRequest,
  reply: FastifyReply,
  action: string,
  bean: string,
  run: (note: AuditNote) => Promise<T>,
): Promise<T> {
  const note: AuditNote = {};
  const entry = { user: request.principal?.user ?? null, address: clientAddress(request), action, bean };
  // Values sent under secret names (passwords...) never reach the record, even inside a message.
  const secrets = secretValues(request.body);
  try {
    const result = await run(note);
    await audit.record({ ...entry, outcome: reply.statusCode === 202 ? 'accepted' : 'success', detail: redact(note.detail ?? '', secrets) });
    return result;
  } catch (err) {
    const status = err instanceof ApiError ? err.status : 500;
    const message = err instanceof Error ? err.message : String(err);
    await audit.record({ ...entry, outcome: status === 403 ? 'refused' : 'failure', detail: redact(`${status}: ${message}`, secrets) });
    throw err;
  }
}

/** Aborts when the client goes away before its answer is sent (for requests that wait). */
export function clientGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const res = reply.raw;
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}
