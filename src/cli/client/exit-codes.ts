// Exit codes of the client commands, for scripts: one per kind of outcome, documented in docs/cli.md.
import { AppserverError, type ErrorKind } from '../../client/index.js';

export const EXIT = {
  ok: 0,
  /** The server failed (5xx) or answered something unexpected. */
  server: 1,
  /** Bad flags or arguments, an unsafe configuration file: nothing was sent. */
  usage: 2,
  /** 401 or 403. */
  auth: 3,
  /** 404: no such bean, collection or action. */
  notFound: 4,
  /** Refused (400, edit lock held, validation) or a task that failed. */
  conflict: 5,
  /** Connection refused, unknown host, no answer. */
  unreachable: 6,
  /** A task did not finish within --timeout. */
  timeout: 7,
} as const;

const BY_KIND: Record<ErrorKind, number> = {
  usage: EXIT.usage,
  auth: EXIT.auth,
  notFound: EXIT.notFound,
  rejected: EXIT.conflict,
  failed: EXIT.conflict,
  unreachable: EXIT.unreachable,
  timeout: EXIT.timeout,
  server: EXIT.server,
};

/** A mistake in how the command was called. */
export class UsageError extends AppserverError {
  constructor(message: string) {
    super('usage', message);
  }
}

export function exitCodeOf(err: unknown): number {
  return err instanceof AppserverError ? BY_KIND[err.kind] : EXIT.server;
}
