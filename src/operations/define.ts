// An operation is declared once, with its handler next to it: `defineOperation(declaration,
// handler)`. Definitions are static module data; what a handler works with (configuration, runtime,
// tasks, security...) reaches it as a typed context at call time. The catalog learns the
// declarations from the definitions, so no action is advertised without a handler.
import type { Catalog } from '../catalog/load.js';
import type { OperationDef } from '../catalog/model.js';
import type { OverlayOperation, OverlayOverload } from '../catalog/overlay-format.js';
import type { Scheduler } from '../core/clock.js';
import type { ConfigService } from '../config/config-service.js';
import type { RenderContext } from '../render/entity.js';
import type { Deployments } from '../runtime/deployments.js';
import type { RuntimeEngine } from '../runtime/engine.js';
import type { Lifecycles } from '../runtime/lifecycle.js';
import type { LogFiles } from '../runtime/logs.js';
import type { Task, TaskEngine } from '../runtime/tasks.js';
import type { AuditNote } from '../security/audit.js';
import type { Principal, SecurityService } from '../security/service.js';
import type { BeanNode, Resolver, TreeRoot } from '../tree/resolve.js';
import type { DataFiles } from './data-files.js';

/** What the catalog shows of an operation, and the bean type it is declared on (subtypes inherit it). */
export interface OperationDeclaration extends OverlayOperation {
  on: string;
}

/** The services an operation's handler works with, given at call time by the composition root. */
export interface OperationServices {
  readonly catalog: Catalog;
  readonly resolver: Resolver;
  readonly config: ConfigService;
  readonly engine: RuntimeEngine;
  readonly lifecycles: Lifecycles;
  readonly tasks: TaskEngine;
  readonly deployments: Deployments;
  readonly security: SecurityService;
  readonly scheduler: Scheduler;
  /** The log files of the servers, the domain and the pools. */
  readonly logs: LogFiles;
  /** Files operations read and write, kept inside the data directory. */
  readonly files: DataFiles;
  /** The domain runtime tree, where lifecycle tasks and deployment progress objects live. */
  domainRuntime(): TreeRoot;
  /** What is wrong with the data directory's permissions, looked at afresh. */
  dataDirWarnings(): string[];
  /**
   * Runs an action and waits until what it changed reached the store; a store that refuses it (a
   * full disk, a store out of reach) has what it changed taken back, and its problem thrown.
   */
  refusable<T>(action: () => Promise<T> | T, tasksOf: (result: T) => Task[]): Promise<T>;
}

/** One invocation, its arguments bound to an overload and converted to their declared types. */
export interface Invocation {
  node: BeanNode;
  op: OperationDef;
  overload: OverlayOverload;
  args: Record<string, unknown>;
  principal: Principal;
  /** Edit session chosen by the request. */
  session: string;
  /** Rendering context of the request (URLs, version). */
  ctx: RenderContext;
  /** What the handler adds to the request's audit record. */
  audit: AuditNote;
  /** Aborted when the client goes away (for operations that wait). */
  signal?: AbortSignal;
  /**
   * The request's conditions on the bean (If-Match...), judged once before the handler runs; a
   * handler that changes the configuration judges them again inside its transaction.
   */
  precondition?: () => void;
}

/**
 * What a handler returns: a value (`{}` for void operations, `{"return": value}` otherwise), or a
 * task the executor waits for as `Prefer` says. `root` is the tree the task is listed in (the
 * domain runtime unless said otherwise).
 */
export type Outcome = { value: unknown } | { task: Task; root?: TreeRoot };

export type OperationHandler = (call: Invocation, use: OperationServices) => Outcome | Promise<Outcome>;

export interface OperationDefinition {
  readonly declaration: OperationDeclaration;
  readonly handler: OperationHandler;
  /** See `defineOperation`. */
  readonly storesItself?: boolean;
}

/**
 * `storesItself`: the handler stores its change in its own transaction and throws when the store
 * refuses it (the change manager's actions); runtime writes that follow from the change are retried
 * until the store takes them, and do not turn an acknowledged change into a refusal.
 */
export function defineOperation(declaration: OperationDeclaration, handler: OperationHandler, options: { storesItself?: boolean } = {}): OperationDefinition {
  return Object.freeze({ declaration: Object.freeze(declaration), handler, ...(options.storesItself ? { storesItself: true } : {}) });
}

/** The outcome of an operation that returns nothing. */
export const DONE: Outcome = Object.freeze({ value: undefined });

export function returns(value: unknown): Outcome {
  return { value };
}

export function runs(task: Task, root?: TreeRoot): Outcome {
  return root ? { task, root } : { task };
}

/** Key of a declaration: the type it is declared on and its name. */
export function operationKey(on: string, name: string): string {
  return `${on}#${name}`;
}
