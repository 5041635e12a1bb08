// An action changes the runtime in memory (a server STARTING, a task) and then its writes go to the
// store. When the store refuses them (a full disk, a store out of reach) the action is refused, and
// what it changed in memory is taken back, so that the server and its store agree: the runtime
// state entries it moved return to what they were (unless something else has moved them since), its
// tasks leave the engine and are not written, and what did reach the store is written back.
import { isStoreFailure } from '../core/problems.js';
import type { Topology } from '../config/topology.js';
import type { RuntimeEngine } from './engine.js';
import type { RuntimePersistence } from './persistence.js';
import { copyState, entriesToState, stateToEntries } from './state.js';
import type { Task, TaskEngine } from './tasks.js';

export interface RefusableParts {
  runtime: RuntimeEngine;
  tasks: TaskEngine;
  persistence: RuntimePersistence;
  topology: () => Topology;
  /** Told after something was taken back. */
  changed: () => void;
}

/**
 * Runs an action that may change the runtime, then waits until its writes reached the store. When
 * the store refused them, what the action changed is taken back and the store's problem thrown.
 * `tasksOf` names the tasks the action made (from its result).
 */
export async function storedOrTakenBack<T>(parts: RefusableParts, action: () => Promise<T> | T, tasksOf: (result: T) => Task[]): Promise<T> {
  // Copies of the state's collections (cheap on a large domain); its entries are made only to take an action back.
  const before = copyState(parts.runtime.state);
  const since = parts.persistence.writesBegun;
  const result = await action();
  const after = copyState(parts.runtime.state);
  try {
    await parts.persistence.flushStored(since);
  } catch (err) {
    if (isStoreFailure(err)) takeBack(parts, stateToEntries(before), stateToEntries(after), tasksOf(result));
    throw err;
  }
  return result;
}

const json = (v: unknown) => (v === undefined ? undefined : JSON.stringify(v));

function takeBack(parts: RefusableParts, before: Record<string, unknown>, after: Record<string, unknown>, made: Task[]): void {
  const { runtime, tasks, persistence } = parts;
  if (made.length > 0) tasks.discard(made);
  const now = stateToEntries(runtime.state);
  let moved = false;
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const was = json(before[key]);
    // Not changed by the action, or changed again since (by another request or a task's step).
    if (json(after[key]) === was || json(now[key]) !== json(after[key])) continue;
    if (was === undefined) delete now[key];
    else now[key] = before[key];
    moved = true;
  }
  if (moved) {
    Object.assign(runtime.state, entriesToState(now));
    runtime.rebuild(parts.topology());
    // Entries that did reach the store are written back (compared with what was last written).
    persistence.saveState();
  }
  parts.changed();
}
