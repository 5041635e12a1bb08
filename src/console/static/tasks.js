// Lifecycle operations as tasks, for every view that starts one (servers, clusters, partitions,
// resource groups, deployments with their progress objects): the call that asks for the task, the
// polling that follows it, the buttons that offer the operations, and one component showing a
// task's progress, its final status or its error.
import { useRef, useState } from './vendor/hooks.mjs';
import { api, followTask, html, show, taskFailed } from './lib.js';

/** Asks for an operation as a task (`Prefer: respond-async`) and follows it to its end. */
export async function runTask(path, body, report) {
  const r = await api('POST', path, body ?? {}, { Prefer: 'respond-async' });
  const url = r.location || r.json?.links?.find((l) => l.rel === 'job')?.href;
  if (!url) {
    // An operation that finished at once may answer its task without a place to poll it.
    report(r.json);
    return r.json;
  }
  return followTask(url, r.json, report);
}

/**
 * One task at a time per owner: `run(path)` starts it, `task` is its latest reading, `error` the
 * refusal of the call (a 400 naming the state, a 403...). `onEnd` runs when it has ended.
 */
export function useTask(onEnd) {
  const [task, setTask] = useState(undefined);
  const [error, setError] = useState(undefined);
  const [busy, setBusy] = useState(false);
  const ended = useRef(onEnd);
  ended.current = onEnd;
  const run = async (path, body) => {
    setError(undefined);
    setTask(undefined);
    setBusy(true);
    try {
      const last = await runTask(path, body, setTask);
      return last;
    } catch (err) {
      setError(err.message);
      return undefined;
    } finally {
      setBusy(false);
      ended.current?.();
    }
  };
  return { task, error, busy, run };
}

/** Where a task is: running, done or failed (the class the view and the tests look for). */
export const taskPhase = (t) => (t.completed || t.running === false ? (taskFailed(t) ? 'failed' : 'done') : 'running');

/** Why a task or a deployment's progress object failed, in the server's words. */
export function taskErrorText(t) {
  const error = t.taskError || (Array.isArray(t.rootExceptions) && t.rootExceptions[0]);
  if (error) return typeof error.message === 'string' ? error.message : show(error);
  const messages = Array.isArray(t.deploymentMessages) ? t.deploymentMessages : [];
  return messages[messages.length - 1] || 'failed';
}

/**
 * A task's (or a deployment progress object's) bar, moving until it ends, its status, and its error
 * if it failed. `name` marks it for the page (data-task; the task's operation by default).
 */
export function TaskProgress({ task, error, label, name }) {
  if (!task && !error) return null;
  const status = task && (task.taskStatus || task.state || '');
  return html`${task && html`<div class=${`task ${taskPhase(task)}`} data-task=${name || task.operation} role="status">
      <progress max="1" value=${taskPhase(task) === 'running' ? undefined : 1} aria-label=${`${label || task.description || task.operation || name}: ${status || task.progress || ''}`}></progress>
      ${' '}${status} ${task.progress || ''}${taskFailed(task) ? `: ${taskErrorText(task)}` : ''}
    </div>`}
    ${error && html`<p class="error" role="alert">${error}</p>`}`;
}

// The operations each kind of bean offers, and the states each one can start from (as the server's
// state machines say: src/behaviour/state-machines.ts). The console only greys out what the state
// does not allow; the server judges every call itself and its refusal is shown as it comes.
const SERVER_UP = ['RUNNING', 'ADMIN', 'STANDBY', 'SUSPENDING', 'RESUMING'];
export const LIFECYCLES = {
  server: {
    start: ['SHUTDOWN', 'FAILED'],
    suspend: ['RUNNING'],
    resume: ['ADMIN', 'STANDBY'],
    shutdown: SERVER_UP,
    forceShutdown: [...SERVER_UP, 'STARTING', 'SHUTTING_DOWN', 'FORCE_SUSPENDING', 'FAILED'],
  },
  // Partitions by their detailed state: SHUTDOWN is BOOTED or HALTED (its subState).
  partition: {
    start: ['HALTED', 'BOOTED'],
    suspend: ['RUNNING'],
    resume: ['ADMIN'],
    shutdown: ['RUNNING', 'ADMIN'],
    forceShutdown: ['RUNNING', 'ADMIN', 'STARTING', 'STARTING_IN_ADMIN', 'SUSPENDING', 'RESUMING'],
    boot: ['HALTED'],
    halt: ['RUNNING', 'ADMIN', 'BOOTED'],
  },
  resourceGroup: {
    start: ['SHUTDOWN'],
    suspend: ['RUNNING'],
    resume: ['ADMIN'],
    shutdown: ['RUNNING', 'ADMIN'],
    forceShutdown: ['RUNNING', 'ADMIN', 'STARTING', 'SUSPENDING', 'RESUMING'],
  },
};

/** Whether `op` of a bean of `kind` can start from `state`. */
export const allowed = (kind, op, state) => Boolean(LIFECYCLES[kind][op]?.includes(state));

/** Buttons for the operations of a kind of bean; those its state does not allow are greyed out. */
export function OperationButtons({ kind, state, onRun, what, except = [] }) {
  const ops = Object.keys(LIFECYCLES[kind]).filter((op) => !except.includes(op));
  return html`<span class="op-buttons">${ops.map((op) => html`<button type="button" data-op=${op} disabled=${!allowed(kind, op, state)}
      aria-label=${`${op} ${what}`} onClick=${() => onRun(op)}>${op}</button>`)}</span>`;
}
