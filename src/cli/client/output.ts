// What the client commands print: aligned tables for people, JSON for scripts (--json), and a
// progress bar on standard error while a task runs, drawn only when standard error is a terminal.
import { type Task, describeTask } from '../../client/index.js';

export interface Out {
  write(text: string): void;
}

/**
 * Text from the server made safe for a terminal: control characters (escape sequences could move
 * the cursor, retitle the window or hide what follows) are shown as \\u escapes.
 */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A value as one table cell: references as their path, objects as compact JSON. */
export function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return printable(value.replace(/[\r\n\t]+/g, ' '));
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return printable(value.join('/'));
  if (Array.isArray(value) && value.every((v) => v && typeof v === 'object' && Array.isArray((v as { identity?: unknown }).identity))) {
    return printable(value.map((v) => ((v as { identity: string[] }).identity).join('/')).join(', '));
  }
  return printable(JSON.stringify(value));
}

/** Columns padded to their widest cell; the last column is not padded. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

/** A bean as PROPERTY / VALUE rows (links and identity left out). */
export function beanTable(bean: Record<string, unknown>): string {
  const rows = Object.entries(bean)
    .filter(([k]) => k !== 'links' && k !== 'identity')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => [printable(k), cell(v)]);
  return table(['PROPERTY', 'VALUE'], rows);
}

/** Collection items as rows: NAME first, then the columns asked for (default: type and a state if any). */
export function itemsTable(items: Record<string, unknown>[], columns?: string[]): string {
  const present = (k: string) => items.some((i) => i[k] !== undefined);
  const cols = columns ?? ['type', 'state', 'healthState'].filter(present);
  // Items are named by `name`, else by the last segment of their identity (versions by `version`).
  const rows = items.map((i) => [cell(i.name ?? (Array.isArray(i.identity) ? (i.identity as string[]).at(-1) : undefined) ?? i.version ?? ''), ...cols.map((c) => cell(i[c]))]);
  return table(['NAME', ...cols.map((c) => c.toUpperCase())], rows);
}

/** JSON for scripts: two-space indentation and a final newline. */
export function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** Removes `links` everywhere (scripts asked for data; --links keeps them). */
export function withoutLinks(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutLinks);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (k !== 'links') out[k] = withoutLinks(v);
    return out;
  }
  return value;
}

const WIDTH = 24;

/**
 * A progress bar on a terminal: it fills with the share of finished sub-tasks when the task has
 * them, else a block sweeps to show that the task is alive; the task's status and the time spent
 * follow. On anything but a terminal it draws nothing.
 */
export class ProgressBar {
  private frame = 0;
  private drawn = false;

  constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly label: string,
    private readonly enabled = stream.isTTY === true,
  ) {}

  update(task: Task, elapsedMs: number): void {
    if (!this.enabled) return;
    const bar = task.completed ? '='.repeat(WIDTH) : this.partial(task);
    const status = task.completed ? (task.progress === 'failed' ? 'failed' : 'done') : (task.taskStatus ?? task.state ?? task.progress ?? '');
    const text = printable(`[${bar}] ${this.label}  ${status}  ${(elapsedMs / 1000).toFixed(1)}s`);
    const columns = (this.stream.columns ?? 0) >= 20 ? this.stream.columns : 80;
    this.stream.write(`\r${text.slice(0, Math.max(10, columns - 1))}\u001b[K`);
    this.drawn = true;
  }

  /** Ends the bar's line, so what follows starts on a new one. */
  end(): void {
    if (this.drawn) this.stream.write('\n');
    this.drawn = false;
  }

  private partial(task: Task): string {
    const subs = Array.isArray(task.subTasks) ? (task.subTasks as Task[]) : [];
    if (subs.length > 0 && subs.every((s) => s && typeof s === 'object' && 'completed' in s)) {
      const filled = Math.round((subs.filter((s) => s.completed).length / subs.length) * WIDTH);
      return '='.repeat(filled) + ' '.repeat(WIDTH - filled);
    }
    const at = this.frame++ % (2 * (WIDTH - 4));
    const pos = at < WIDTH - 4 ? at : 2 * (WIDTH - 4) - at;
    return ' '.repeat(pos) + '<=>'.padEnd(4) + ' '.repeat(WIDTH - 4 - pos);
  }
}

export function taskLine(task: Task, elapsedMs: number): string {
  const outcome = task.progress === 'failed' ? 'failed' : 'completed';
  const status = task.taskStatus ?? task.state ?? task.progress ?? '';
  return printable(`${describeTask(task)}: ${outcome} (${status}) in ${(elapsedMs / 1000).toFixed(1)}s`) + '\n';
}
