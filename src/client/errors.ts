// What a call to the server can end in, sorted into the kinds a caller (and the CLI's exit codes)
// tells apart. The server's JSON error envelope is read into `details`.

export type ErrorKind =
  /** The caller asked for something malformed before anything was sent. */
  | 'usage'
  /** 401: no or wrong credentials. 403: the user may not do it. */
  | 'auth'
  /** 404: no such bean, collection or action. */
  | 'notFound'
  /** 400/405/406/409/415: the server refused the request (validation, edit lock, conflict). */
  | 'rejected'
  /** A task ended in failure, or an edit session could not be activated. */
  | 'failed'
  /** No answer: connection refused, name unknown, TLS failure, or the request took too long. */
  | 'unreachable'
  /** A task did not finish within the time given. */
  | 'timeout'
  /** The server failed (5xx) or answered something that is not this interface. */
  | 'server';

export class AppserverError extends Error {
  override readonly name = 'AppserverError';
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly status?: number,
    /** The details of the server's error envelope, each with its property path when it named one. */
    readonly details: string[] = [],
    /** The body the server answered, parsed (for callers that want more than the message). */
    readonly body?: unknown,
  ) {
    super(message);
  }
}

export function kindOfStatus(status: number): ErrorKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 404) return 'notFound';
  if (status >= 400 && status < 500) return 'rejected';
  return 'server';
}

/** The details of the error envelope: flat (`detail`) or a list (`ERRORS` with one entry per problem). */
export function detailsOf(body: unknown): string[] {
  if (!body || typeof body !== 'object') return [];
  const b = body as Record<string, unknown>;
  const list = Object.entries(b).find(([k, v]) => k.endsWith('errorsDetails') && Array.isArray(v))?.[1] as unknown[] | undefined;
  if (list) {
    return list.map((d) => {
      const item = (d ?? {}) as Record<string, unknown>;
      const path = item['o:errorPath'];
      const detail = typeof item.detail === 'string' ? item.detail : JSON.stringify(d);
      return typeof path === 'string' && path !== '' ? `${path}: ${detail}` : detail;
    });
  }
  return typeof b.detail === 'string' ? [b.detail] : [];
}
