// Audit of a request that changes something: who (the authenticated user), from where (the TCP
// peer's address), what, on which bean, and how it ended. The record is stored before the answer
// leaves (an onSend hook), whatever way the request ends.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Problem, isProblem } from '../core/problems.js';
import { statusOf } from './errors.js';
import { type AuditEntry, type AuditLog, type AuditNote, redact, secretValues } from '../security/audit.js';

interface PendingAudit {
  entry: Omit<AuditEntry, 'outcome' | 'detail'>;
  note: AuditNote;
  /** Values sent under secret names (passwords...): they never reach the record, even inside a message. */
  secrets: string[];
  error?: { status: number; message: string };
}

declare module 'fastify' {
  interface FastifyRequest {
    pendingAudit: PendingAudit | null;
  }
}

/**
 * The client's address: the TCP peer, never a forwarded header (which a client can write itself).
 * IPv4 peers are shown without the IPv6 mapping prefix.
 */
export function clientAddress(request: FastifyRequest): string {
  const a = request.raw.socket?.remoteAddress ?? '';
  return a.startsWith('::ffff:') && a.includes('.') ? a.slice(7) : a;
}

/** Stores the audit record of a request marked by `audited` before its answer is sent. */
export function registerAudit(app: FastifyInstance, audit: AuditLog): void {
  app.decorateRequest('pendingAudit', null);
  app.addHook('onSend', async (request, reply, payload) => {
    const pending = request.pendingAudit;
    if (!pending) return payload;
    request.pendingAudit = null;
    const status = reply.statusCode;
    const outcome = status < 400 ? (status === 202 ? 'accepted' : 'success') : status === 403 ? 'refused' : 'failure';
    const text = pending.error ? `${pending.error.status}: ${pending.error.message}` : status < 400 ? (pending.note.detail ?? '') : `${status}`;
    await audit.record({ ...pending.entry, outcome, detail: redact(text, pending.secrets) });
    return payload;
  });
}

/** Marks the request as audited (`action` on `bean`), then runs it; a failure is noted for the record and rethrown. */
export async function audited<T>(request: FastifyRequest, action: string, bean: string, run: (note: AuditNote) => Promise<T>): Promise<T> {
  const pending: PendingAudit = {
    entry: { user: request.principal?.user ?? null, address: clientAddress(request), action, bean },
    note: {},
    secrets: secretValues(request.body),
  };
  request.pendingAudit = pending;
  try {
    return await run(pending.note);
  } catch (err) {
    pending.error = { status: err instanceof Problem ? statusOf(err) : 500, message: err instanceof Error ? err.message : String(err) };
    throw err;
  }
}

/**
 * Runs a check made before the body is read; a refusal (403) is audited like one made later, as
 * `action` on `bean`, without looking at the body (it was never read).
 */
export function auditRefusal(request: FastifyRequest, action: string, bean: string, check: () => void): void {
  try {
    check();
  } catch (err) {
    if (isProblem(err, 'forbidden')) {
      request.pendingAudit = {
        entry: { user: request.principal?.user ?? null, address: clientAddress(request), action, bean },
        note: {},
        secrets: [],
        error: { status: 403, message: err.message },
      };
    }
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
