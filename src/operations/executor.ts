// The one executor of actions: checks the caller's roles, binds the overload, runs the handler,
// and answers. A task is waited for as `Prefer` says, on the scheduler's clock: an operation
// declared `async` answers 200 with the task when it is done in time, else 202 with `Location`; an
// operation the product declares `void` that runs a task answers `{}` when done in time (or the
// task's failure), else 202 as well. The task body carries a single `job` link, as the product's.
import { badRequest, internal, notFound } from '../core/problems.js';
import { settlesWithin } from '../core/clock.js';
import type { Catalog } from '../catalog/load.js';
import type { OperationDef } from '../catalog/model.js';
import type { OperationTable } from '../catalog/overlay-format.js';
import type { RenderContext, Renderer } from '../render/entity.js';
import type { Task } from '../runtime/tasks.js';
import type { AuditNote } from '../security/audit.js';
import { authorize } from '../security/authorize.js';
import type { Principal } from '../security/service.js';
import type { BeanNode, TreeRoot } from '../tree/resolve.js';
import { bindArguments, resultBody } from './bind.js';
import { type Invocation, type OperationDefinition, type OperationHandler, type OperationServices, operationKey } from './define.js';
import { waitSeconds } from './prefer.js';

/** An invocation as a request makes it: the bean, the operation, who, and how long to wait. */
export interface InvokeRequest {
  node: BeanNode;
  op: OperationDef;
  principal: Principal;
  session: string;
  ctx: RenderContext;
  /** The request's `Prefer` header, if any. */
  prefer: string | undefined;
  audit: AuditNote;
  signal?: AbortSignal;
  /** The request's conditions on the bean (If-Match...), for handlers that judge them again inside their own transaction. */
  precondition?: () => void;
}

/** The answer of an invocation: status, JSON body, and headers (`Location` of a running task). */
export interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

export class OperationExecutor {
  private readonly handlers = new Map<string, OperationHandler>();
  /** Operations whose handlers store their change themselves (see `defineOperation`). */
  private readonly selfStoring = new Set<string>();

  constructor(
    private readonly catalog: Catalog,
    definitions: readonly OperationDefinition[],
    private readonly renderer: Renderer,
    private readonly use: OperationServices,
    /** Actions the catalog declares that a tree's writer performs (the Lifecycle Manager's). */
    performedElsewhere: OperationTable = {},
  ) {
    for (const { declaration, handler, storesItself } of definitions) {
      const key = operationKey(declaration.on, declaration.name);
      this.handlers.set(key, handler);
      if (storesItself) this.selfStoring.add(key);
    }
    const elsewhere = (op: { declaredBy: string; name: string }) => Object.hasOwn(performedElsewhere, op.declaredBy) && performedElsewhere[op.declaredBy]!.some((o) => o.name === op.name);
    // Every action the catalog advertises must have its handler: a server that could show an
    // action link it cannot run does not start.
    for (const op of catalog.offeredOperations()) {
      if (!this.handlers.has(operationKey(op.declaredBy, op.name)) && !elsewhere(op)) throw new Error(`the operation '${op.name}' of ${op.declaredBy} has no handler`);
    }
  }

  async invoke(request: InvokeRequest, body: Record<string, unknown>): Promise<Answer> {
    const { node, op } = request;
    authorize(request.principal, { kind: 'invoke', type: node.type, op });
    // The request's conditions on the bean (If-Match...) hold, or nothing is done.
    request.precondition?.();
    const handler = this.handlers.get(operationKey(op.declaredBy, op.name));
    if (!handler) throw internal(`The operation '${op.name}' of ${node.type.short} has no handler.`);
    const { overload, args } = bindArguments(op, body);
    const call: Invocation = {
      node,
      op,
      overload,
      args,
      principal: request.principal,
      session: request.session,
      ctx: request.ctx,
      audit: request.audit,
      ...(request.signal ? { signal: request.signal } : {}),
      ...(request.precondition ? { precondition: request.precondition } : {}),
    };
    // An action's changes reach the store before it is answered (or waited on); refused there,
    // they are taken back, so that nothing changed.
    const outcome =
      op.impact === 'info' || this.storesItself(op) ? await handler(call, this.use) : await this.use.refusable(() => handler(call, this.use), (o) => ('task' in o ? [o.task] : []));
    if ('value' in outcome) return { status: 200, body: resultBody(overload, outcome.value, (t) => this.catalog.types.has(t)) };
    return this.taskAnswer(call, outcome.task, outcome.root ?? this.use.domainRuntime(), request.prefer);
  }

  /** Whether the operation's handler stores its change itself (its follow-up writes do not refuse it). */
  storesItself(op: OperationDef): boolean {
    return this.selfStoring.has(operationKey(op.declaredBy, op.name));
  }

  private async taskAnswer(call: Invocation, task: Task, root: TreeRoot, prefer: string | undefined): Promise<Answer> {
    const done = await this.settled(task, prefer, call.signal);
    if (done && !call.op.async) {
      if (task.values.taskStatus === 'FAILED') {
        const error = task.values.taskError as { message?: string } | null;
        throw badRequest(`'${call.op.name}' failed: ${error?.message ?? 'the task failed'}.`);
      }
      return { status: 200, body: {} };
    }
    const body = this.taskEntity(task, root, call.ctx);
    if (done) return { status: 200, body };
    return { status: 202, body, headers: { location: call.ctx.urls.href([...root.base, ...task.identity]) } };
  }

  /**
   * Waits for a task as `Prefer` allows, on the scheduler's clock; true when it completed (at once
   * for a task that already has). Ends early, false, when `signal` aborts.
   */
  settled(task: Task, prefer: string | undefined, signal?: AbortSignal): Promise<boolean> {
    if (task.values.completed) return Promise.resolve(true);
    return settlesWithin(this.use.scheduler, waitSeconds(prefer) * 1000, task.done, signal);
  }

  /** The task entity as its job resource shows it, with the single `job` link. */
  taskEntity(task: Task, root: TreeRoot, ctx: RenderContext): Record<string, unknown> {
    const target = this.use.resolver.resolve(root, task.identity, ctx.version);
    if (target.kind !== 'bean') throw notFound(task.name);
    const href = ctx.urls.href([...root.base, ...task.identity]);
    const { links: _links, ...fields } = this.renderer.bean(target.node, { ...ctx, shape: {} });
    return { links: [{ rel: 'job', href }], ...fields };
  }
}
