// The one place where problems become HTTP: a status code per kind, the headers some kinds need,
// and the JSON envelope every error leaves in.
import { type Problem, type ProblemDetail, type ProblemKind } from '../core/problems.js';

/** Constant `type` URL the real product puts in every error body, whatever the status. */
export const ERROR_TYPE = 'http://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html#sec10.4.1';

const STATUS: Record<ProblemKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  'not-found': 404,
  'method-not-allowed': 405,
  'not-acceptable': 406,
  timeout: 408,
  'precondition-failed': 412,
  'too-large': 413,
  'unsupported-media-type': 415,
  'too-many': 429,
  internal: 500,
  'bad-gateway': 502,
  unavailable: 503,
  'store-unavailable': 503,
  'gateway-timeout': 504,
  // Insufficient Storage: the disk is full, which no retry mends until space is freed (unlike 503).
  'insufficient-storage': 507,
};

export function statusOf(problem: Problem): number {
  return STATUS[problem.kind];
}

/** Headers a kind of problem carries: the Basic challenge, the allowed methods, when to retry. */
export function problemHeaders(problem: Problem): Record<string, string> {
  const out: Record<string, string> = {};
  if (problem.kind === 'unauthenticated') out['www-authenticate'] = 'Basic realm="appserver"';
  if (problem.hints.allow) out.allow = problem.hints.allow.join(', ');
  if (problem.hints.retryAfterSeconds !== undefined) out['retry-after'] = String(problem.hints.retryAfterSeconds);
  if (problem.hints.etag !== undefined) out.etag = problem.hints.etag;
  return out;
}

/** The JSON body: flat for one problem without a field, `ERRORS` with a list otherwise. */
export function errorBody(status: number, problems: readonly ProblemDetail[]): Record<string, unknown> {
  const only = problems[0];
  if (problems.length === 1 && only && !only.path) {
    return { status, type: ERROR_TYPE, title: 'FAILURE', detail: only.detail };
  }
  return {
    status,
    type: ERROR_TYPE,
    title: 'ERRORS',
    'appserver:errorsDetails': problems.map((p) => ({
      ...(p.path ? { 'o:errorPath': p.path } : {}),
      type: ERROR_TYPE,
      title: 'FAILURE',
      detail: p.detail,
    })),
  };
}

export function problemBody(problem: Problem): Record<string, unknown> {
  return errorBody(statusOf(problem), problem.details);
}
