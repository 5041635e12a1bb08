// Tasks: the runtime beans that lifecycle and deployment operations return. A task lives in the
// `tasks` collection of the bean that owns it, progresses on the scheduler's clock, and can be
// polled until it completes. Retention is bounded per owner.
import { type BeanRecord, type TreeSource } from '../tree/records.js';
import { childKey, itemKey } from '../core/identity.js';
import type { Scheduler } from '../core/clock.js';

export type TaskStatus = 'TASK IN PROGRESS' | 'TASK COMPLETED' | 'FAILED';

export interface Task {
  name: string;
  type: string;
  /** Key of the collection the task is listed in. */
  collection: string;
  /** Creation order. */
  ord: number;
  /** Key of the owning bean in its tree; the task's key is `<owner>/tasks/<name>`. */
  ownerKey: string;
  key: string;
  identity: string[];
  values: Record<string, unknown>;
  subTasks: Task[];
  /** Settles when the task (and all its sub-tasks) completed or failed. */
  done: Promise<void>;
  /** Run by this server (not read from a store another server writes too). */
  local: boolean;
  finish(error?: string): void;
}

/** Marks a task nobody runs any more as failed, with its reason. */
export function failUnfinished(values: Record<string, unknown>, error: string): void {
  Object.assign(values, 'taskStatus' in values ? { taskStatus: 'FAILED', running: false, taskError: { message: error, cause: null } } : { state: 'STATE_FAILED' });
  Object.assign(values, { progress: 'failed', completed: true, endTimeAsLong: values.startTimeAsLong, endTime: values.startTime });
}

const DEPLOYMENT = 'appserver.management.runtime.DeploymentProgressObjectMBean';

/** Most tasks kept per owner; the oldest completed ones go first. */
export const TASKS_PER_OWNER = 100;

export class TaskEngine implements TreeSource {
  private seq = 0;
  /** Instance running the tasks made here (servers sharing a store tell whose a task is). */
  executor = '';
  /** Persistence hooks: tasks created or changed, and tasks removed. */
  onSave: (tasks: Task[]) => void = () => {};
  onDelete: (keys: string[]) => void = () => {};
  /** collection key (`<owner>/tasks` or `<task>/subTasks`) -> tasks in creation order */
  private readonly collections = new Map<string, Task[]>();
  private readonly byKey = new Map<string, Task>();

  constructor(private readonly scheduler: Scheduler) {}

  /** Creates a running task. `fields` are the type's own fields (operation, serverName, description...). */
  create(owner: { key: string; identity: readonly string[] }, type: string, operation: string, fields: Record<string, unknown>, parent?: Task): Task {
    const collection = parent ? childKey(parent.key, 'subTasks') : childKey(owner.key, 'tasks');
    // Numbered per owner, as the product numbers them: `_0_start`, `_1_shutdown`, ...
    const name = `_${this.nextNumber(collection)}_${operation}`;
    const identity = parent ? [...parent.identity, 'subTasks', name] : [...owner.identity, 'tasks', name];
    const task = this.make(owner.key, collection, identity, name, type, { operation, ...fields }, 'task');
    if (parent) parent.subTasks.push(task);
    else this.trim(collection);
    return task;
  }

  /**
   * Creates a deployment progress object: named after its application (replacing an earlier one),
   * in the deployment manager's `deploymentProgressObjects`, reporting `state` as deployments do.
   */
  createDeployment(owner: { key: string; identity: readonly string[] }, app: string, fields: Record<string, unknown>): Task {
    const collection = childKey(owner.key, 'deploymentProgressObjects');
    const earlier = this.byKey.get(itemKey(collection, app));
    if (earlier) {
      this.drop(earlier);
      this.collections.set(collection, (this.collections.get(collection) ?? []).filter((t) => t !== earlier));
      this.onDelete([earlier.key]);
    }
    const task = this.make(owner.key, collection, [...owner.identity, 'deploymentProgressObjects', app], app, DEPLOYMENT, { id: String(this.seq++), applicationName: app, ...fields }, 'deployment');
    this.trim(collection);
    return task;
  }

  private make(ownerKey: string, collection: string, identity: string[], name: string, type: string, fields: Record<string, unknown>, style: 'task' | 'deployment'): Task {
    const generation = this.generation;
    let settle!: () => void;
    const done = new Promise<void>((resolve) => (settle = resolve));
    const now = this.scheduler.now();
    const status =
      style === 'task'
        ? { taskStatus: 'TASK IN PROGRESS', running: true, systemTask: false, taskError: null, parentTask: identity.includes('subTasks') ? identity.slice(0, -2) : null }
        : { state: 'STATE_RUNNING', failedTargets: [], deploymentMessages: [], rootExceptions: [] };
    const task: Task = {
      name,
      type,
      collection,
      ord: this.seq++,
      ownerKey,
      key: itemKey(collection, name),
      identity,
      values: {
        name,
        ...fields,
        ...status,
        $executor: this.executor,
        progress: 'processing',
        completed: false,
        startTimeAsLong: now,
        endTimeAsLong: -1,
        startTime: now,
        endTime: null,
        intervalToPoll: 1000,
      },
      subTasks: [],
      done,
      local: true,
      finish: (error?: string) => {
        if (task.values.completed) return;
        // A task of an action the store refused ends unseen.
        if (this.discarded.has(task)) return settle();
        // A task of the tasks a restored snapshot replaced ends unseen.
        if (generation !== this.generation) return settle();
        const end = this.scheduler.now();
        const outcome =
          style === 'task'
            ? { taskStatus: error ? 'FAILED' : 'TASK COMPLETED', running: false, taskError: error ? { message: error, cause: null } : null }
            : {
                state: error ? 'STATE_FAILED' : 'STATE_COMPLETED',
                deploymentMessages: [...(task.values.deploymentMessages as string[]), error ?? `${String(task.values.description ?? 'Deployment')} completed.`],
                rootExceptions: error ? [{ message: error, cause: null }] : [],
                failedTargets: error ? task.values.targets : [],
              };
        Object.assign(task.values, { ...outcome, progress: error ? 'failed' : 'success', completed: true, endTimeAsLong: end, endTime: end });
        settle();
        this.onSave([task]);
      },
    };
    this.index(task);
    this.onSave([task]);
    return task;
  }

  private index(task: Task): void {
    const list = this.collections.get(task.collection) ?? [];
    list.push(task);
    this.collections.set(task.collection, list);
    this.byKey.set(task.key, task);
  }

  /**
   * Takes in the tasks kept in the store (at start-up, or when another server sharing it changed
   * them). Tasks running here stay as they are. `orphansFailed`: a task the store holds as running
   * but that nobody runs any more (the server stopped during it) is marked failed.
   */
  load(rows: { key: string; collection: string; ord: number; type: string; values: Record<string, unknown> }[], orphansFailed: boolean): void {
    const local = new Map([...this.byKey.values()].filter((t) => t.local).map((t) => [t.key, t]));
    const stored = new Set(rows.map((r) => r.key));
    this.collections.clear();
    this.byKey.clear();
    // Tasks run here stay (their state is fresher than the store's) unless another server purged them.
    for (const t of local.values()) if (!t.values.completed || stored.has(t.key)) this.index(t);
    const orphans: Task[] = [];
    for (const row of rows.sort((a, b) => a.ord - b.ord)) {
      if (this.byKey.has(row.key)) continue;
      const task: Task = {
        name: row.key.slice(row.key.lastIndexOf('/') + 1),
        type: row.type,
        collection: row.collection,
        ord: row.ord,
        ownerKey: '',
        key: row.key,
        identity: row.values.$identity as string[],
        values: row.values,
        subTasks: [],
        done: Promise.resolve(),
        local: false,
        finish: () => {},
      };
      this.index(task);
      this.seq = Math.max(this.seq, row.ord + 1);
      if (orphansFailed && !row.values.completed) orphans.push(task);
    }
    for (const t of this.byKey.values()) {
      const parent = this.byKey.get(t.collection.slice(0, t.collection.lastIndexOf('/subTasks')));
      if (t.collection.endsWith('/subTasks') && parent && !parent.subTasks.includes(t)) parent.subTasks.push(t);
    }
    for (const t of orphans) failUnfinished(t.values, 'The server stopped before this task completed.');
    if (orphans.length > 0) this.onSave(orphans);
  }

  /** Bumped when every task is replaced: tasks made before it no longer change anything. */
  private generation = 0;

  /**
   * Replaces every task with those of a restored snapshot (whose unfinished tasks were failed:
   * nothing runs them now); tasks running here until now end without a trace.
   */
  replace(rows: Parameters<TaskEngine['load']>[0]): void {
    this.generation++;
    this.collections.clear();
    this.byKey.clear();
    this.load(rows, false);
  }

  /** Tasks numbered in a collection so far (the next one's number), kept as tasks are purged. */
  private readonly numbers = new Map<string, number>();

  /**
   * The next task number of a collection: one past the highest it has ever had here (tasks purged
   * since count too, so a name is never used twice), or seen in the store.
   */
  private nextNumber(collection: string): number {
    let next = this.numbers.get(collection) ?? 0;
    for (const t of this.collections.get(collection) ?? []) {
      const n = taskNumber(t.name);
      if (n !== undefined && n >= next) next = n + 1;
    }
    this.numbers.set(collection, next + 1);
    return next;
  }

  /** Starts numbering tasks from `seq` (servers sharing a store number from distinct bases). */
  numberFrom(seq: number): void {
    this.seq = Math.max(this.seq, seq);
  }

  /** Completes a parent when all its sub-tasks have: failed if any failed. */
  finishWithSubTasks(parent: Task): void {
    const failed = parent.subTasks.filter((t) => t.values.taskStatus === 'FAILED');
    if (parent.subTasks.some((t) => !t.values.completed)) return;
    parent.finish(failed.length > 0 ? `Lifecycle operation failed for sub tasks: ${failed.map((t) => t.values.serverName ?? t.name).join(', ')}` : undefined);
  }

  /** Removes the completed tasks of an owner (all of them, or those that ended before `before`). */
  purge(ownerKey: string, before = Number.POSITIVE_INFINITY): void {
    const collection = childKey(ownerKey, 'tasks');
    const list = this.collections.get(collection);
    if (!list) return;
    const keep = list.filter((t) => !t.values.completed || (t.values.endTimeAsLong as number) >= before);
    const gone = list.filter((t) => !keep.includes(t));
    for (const t of gone) this.drop(t);
    this.collections.set(collection, keep);
    if (gone.length > 0) this.onDelete(gone.map((t) => t.key));
  }

  /** Tasks taken back (their action was refused): they neither finish nor are written. */
  private readonly discarded = new WeakSet<Task>();

  /**
   * Takes back tasks of an action the store refused: they leave the engine with their sub-tasks,
   * never finish, and are removed from the store if a write of them reached it.
   */
  discard(list: Task[]): void {
    const keys: string[] = [];
    const forget = (t: Task) => {
      this.discarded.add(t);
      keys.push(t.key);
      for (const sub of t.subTasks) forget(sub);
    };
    for (const t of list) {
      forget(t);
      const siblings = this.collections.get(t.collection);
      if (siblings) this.collections.set(t.collection, siblings.filter((x) => x !== t));
      this.drop(t);
    }
    if (keys.length > 0) this.onDelete(keys);
  }

  /** Whether a task was taken back (its action refused). */
  isDiscarded(task: Task): boolean {
    return this.discarded.has(task);
  }

  /** Every task known here. */
  all(): Task[] {
    return [...this.byKey.values()];
  }

  /** Marks a task another server was running as failed (that server stopped). */
  abandon(task: Task, error: string): void {
    const values = task.values;
    const now = this.scheduler.now();
    Object.assign(values, 'taskStatus' in values ? { taskStatus: 'FAILED', running: false, taskError: { message: error, cause: null } } : { state: 'STATE_FAILED' });
    Object.assign(values, { progress: 'failed', completed: true, endTimeAsLong: now, endTime: now });
  }

  task(key: string): Task | undefined {
    return this.byKey.get(key);
  }

  bean(key: string): BeanRecord | undefined {
    const t = this.byKey.get(key);
    return t ? { type: t.type, values: t.values } : undefined;
  }

  itemNames(collectionKey: string): readonly string[] {
    return (this.collections.get(collectionKey) ?? []).map((t) => t.name);
  }

  owns(collectionKey: string): boolean {
    return collectionKey.endsWith('/tasks') || collectionKey.endsWith('/subTasks') || collectionKey.endsWith('/deploymentProgressObjects');
  }

  /** Removes the completed deployment progress objects. */
  purgeDeployments(ownerKey: string): void {
    const collection = childKey(ownerKey, 'deploymentProgressObjects');
    const list = this.collections.get(collection) ?? [];
    const gone = list.filter((t) => t.values.completed);
    for (const t of gone) this.drop(t);
    this.collections.set(collection, list.filter((t) => !t.values.completed));
    if (gone.length > 0) this.onDelete(gone.map((t) => t.key));
  }

  private trim(collection: string): void {
    const list = this.collections.get(collection)!;
    const gone: string[] = [];
    while (list.length > TASKS_PER_OWNER) {
      const i = list.findIndex((t) => t.values.completed);
      if (i < 0) break;
      gone.push(list[i]!.key);
      this.drop(list[i]!);
      list.splice(i, 1);
    }
    if (gone.length > 0) this.onDelete(gone);
  }

  private drop(t: Task): void {
    this.byKey.delete(t.key);
    for (const sub of t.subTasks) this.drop(sub);
    this.collections.delete(childKey(t.key, 'subTasks'));
  }
}

/** Where a server's own tasks are kept in the engine: keys of its tree under a prefix of their own. */
export function serverTaskPrefix(server: string): string {
  return `~server~${encodeURIComponent(server)}/`;
}

/**
 * A runtime tree with the task layer over it. `prefix` places the tree's keys in the engine (the
 * domain runtime has none; each server's tree has its own), so trees never share a key.
 */
export class WithTasks implements TreeSource {
  constructor(
    private readonly tasks: TaskEngine,
    private readonly inner: () => TreeSource,
    private readonly prefix = '',
  ) {}

  bean(key: string): BeanRecord | undefined {
    // Tasks lie only in their collections: other keys go straight to the tree, with no key built.
    return (mayNameTask(key) ? this.tasks.bean(this.prefix + key) : undefined) ?? this.inner().bean(key);
  }

  itemNames(collectionKey: string): readonly string[] {
    return this.tasks.owns(collectionKey) ? this.tasks.itemNames(this.prefix + collectionKey) : this.inner().itemNames(collectionKey);
  }
}

/** Whether a key can be a task's (or lie below one): it passes through a collection the engine owns. */
function mayNameTask(key: string): boolean {
  return key.includes('tasks/') || key.includes('Tasks/') || key.includes('deploymentProgressObjects/');
}

/** The number in a task's name (`_12_start` is 12). */
function taskNumber(name: string): number | undefined {
  const m = /^_(\d+)_/.exec(name);
  return m ? Number(m[1]) : undefined;
}
