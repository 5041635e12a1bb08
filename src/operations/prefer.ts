// The `Prefer` header of an invocation that runs a task: how long to wait for the task before
// answering. `respond-async` alone is 0; `wait=N` is N seconds, capped; nothing said is the default.

/** Wait when the request says nothing: long enough for a lifecycle step, never unbounded. */
export const DEFAULT_WAIT_SECONDS = 30;
/** Longest wait a client may ask for with `Prefer: wait=N`. */
export const MAX_WAIT_SECONDS = 300;

/** Seconds to wait for completion, as the `Prefer` header asks. */
export function waitSeconds(prefer: string | undefined): number {
  if (!prefer) return DEFAULT_WAIT_SECONDS;
  const parts = prefer.toLowerCase().split(/[,;]/).map((s) => s.trim());
  const wait = parts.find((p) => /^wait\s*=\s*\d+(\.\d+)?$/.test(p));
  if (wait) return Math.min(MAX_WAIT_SECONDS, Number(wait.split('=')[1]));
  if (parts.includes('respond-async')) return 0;
  return DEFAULT_WAIT_SECONDS;
}
