// The one error factory: every failure leaves the server as the same JSON envelope.

/** Constant `type` URL the real product puts in every error body, whatever the status. */
export const ERROR_TYPE = 'http://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html#sec10.4.1';

export interface ProblemDetail {
  detail: string;
  /** Name of the offending property, for field-scoped problems. */
  path?: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problems: ProblemDetail[],
    readonly headers: Record<string, string> = {},
  ) {
    super(problems.map((p) => (p.path ? `${p.path}: ${p.detail}` : p.detail)).join('; '));
  }

  /** The JSON body: flat for one problem without a field, `ERRORS` with a list otherwise. */
  body(): Record<string, unknown> {
    const only = this.problems[0];
    if (this.problems.length === 1 && only && !only.path) {
      return { status: this.status, type: ERROR_TYPE, title: 'FAILURE', detail: only.detail };
    }
    return {
      status: this.status,
      type: ERROR_TYPE,
      title: 'ERRORS',
      'appserver:errorsDetails': this.problems.map((p) => ({
        ...(p.path ? { 'o:errorPath': p.path } : {}),
        type: ERROR_TYPE,
        title: 'FAILURE',
        detail: p.detail,
      })),
    };
  }
}

export const badRequest = (detail: string, path?: string) => new ApiError(400, [{ detail, ...(path ? { path } : {}) }]);
export const invalid = (problems: ProblemDetail[]) => new ApiError(400, problems);
export const notFound = (segment: string) => new ApiError(404, [{ detail: `'${segment}' was not found.` }]);
export const forbidden = (detail: string) => new ApiError(403, [{ detail }]);
export const methodNotAllowed = (method: string, allowed: string[]) =>
  new ApiError(405, [{ detail: `Method not allowed. ${method} is not supported here; use ${allowed.join(' or ')}.` }], {
    allow: allowed.join(', '),
  });
export const unauthorized = (detail: string) =>
  new ApiError(401, [{ detail }], { 'www-authenticate': 'Basic realm="appserver"' });
export const conflict = (detail: string, path?: string) => badRequest(detail, path);
