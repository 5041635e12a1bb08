// Answers of operations that return a task: wait as the `Prefer` header asks (bounded), then 200
// when the task is done or 202 with the task's `Location` while it runs. The body is the task
// entity with a single `job` link, as the real product answers.
import { badRequest, notFound } from '../core/problems.js';
import type { RenderContext, Renderer } from '../render/entity.js';
import type { Task } from '../runtime/tasks.js';
import type { Resolver, TreeRoot } from '../tree/resolve.js';
import type { ActionCall, ActionResult } from './invoke.js';

/** Wait when the request says nothing: long enough for a lifecycle step, never unbounded. */
export const DEFAULT_WAIT_SECONDS = 30;
/** Longest wait a client may ask for with `Prefer: wait=N`. */
export const MAX_WAIT_SECONDS = 300;

/** Seconds to wait for completion: `respond-async` alone is 0, `wait=N` is N (capped). */
export function waitSeconds(prefer: string | undefined): number {
  if (!prefer) return DEFAULT_WAIT_SECONDS;
  const parts = prefer.toLowerCase().split(/[,;]/).map((s) => s.trim());
  const wait = parts.find((p) => /^wait\s*=\s*\d+(\.\d+)?$/.test(p));
  if (wait) return Math.min(MAX_WAIT_SECONDS, Number(wait.split('=')[1]));
  if (parts.includes('respond-async')) return 0;
  return DEFAULT_WAIT_SECONDS;
}

/** Waits up to `seconds` (real time) for a task; true when it completed. */
export async function settled(task: Task, seconds: number): Promise<boolean> {
  if (task.values.completed) return true;
  if (seconds <= 0) return false;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), seconds * 1000)));
  try {
    return await Promise.race([task.done.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export class TaskReplies {
  constructor(
    private readonly resolver: Resolver,
    private readonly renderer: Renderer,
  ) {}

  /** The task entity as the job resource shows it. */
  render(task: Task, root: TreeRoot, ctx: RenderContext): Record<string, unknown> {
    const target = this.resolver.resolve(root, task.identity, ctx.version);
    if (target.kind !== 'bean') throw notFound(task.name);
    const href = ctx.urls.href([...root.base, ...task.identity]);
    const { links: _links, ...fields } = this.renderer.bean(target.node, { ...ctx, shape: {} });
    return { links: [{ rel: 'job', href }], ...fields };
  }

  private body(task: Task, root: TreeRoot, call: ActionCall): Record<string, unknown> {
    return this.render(task, root, call.ctx);
  }

  /**
   * Waits for the task as `Prefer` allows. `voidResult`: the operation returns nothing when it
   * completes in time (the server-side lifecycle actions), else the task entity.
   */
  async reply(call: ActionCall, task: Task, root: TreeRoot, voidResult = false): Promise<ActionResult> {
    const done = await settled(task, waitSeconds(call.prefer));
    const href = call.ctx.urls.href([...root.base, ...task.identity]);
    if (done && voidResult && task.values.taskStatus === 'FAILED') {
      const error = task.values.taskError as { message?: string } | null;
      throw badRequest(`'${call.op.name}' failed: ${error?.message ?? 'the task failed'}.`);
    }
    if (done) return { reply: { status: 200, body: voidResult ? {} : this.body(task, root, call) } };
    return { reply: { status: 202, body: this.body(task, root, call), headers: { location: href } } };
  }
}
