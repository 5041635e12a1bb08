// `name=value` and `name:=json` arguments of set, create and invoke. A plain value takes the type of
// the property as the server shows it now (or in the create form): a number for a number, a
// reference from a path (`cluster=clusters/c1`), a list from commas; `:=` gives JSON as is.
import { UsageError } from './exit-codes.js';

export type Shapes = Record<string, unknown>;

/** Parses the assignments; `shapes` holds current values (or defaults) whose types a plain value takes. */
export function parseAssignments(args: string[], shapes: Shapes = {}): Record<string, unknown> {
  const entries: [string, unknown][] = [];
  const seen = new Set<string>();
  for (const arg of args) {
    const m = /^([^=:]+?)(:?=)([\s\S]*)$/.exec(arg);
    if (!m) throw new UsageError(`'${arg}' is not name=value or name:=json`);
    const [, name, op, raw] = m as unknown as [string, string, string, string];
    if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(name)) throw new UsageError(`'${name}' is not a property name`);
    if (seen.has(name)) throw new UsageError(`'${name}' is given twice`);
    seen.add(name);
    entries.push([name, op === ':=' ? parseJson(name, raw) : typed(name, raw, Object.hasOwn(shapes, name) ? shapes[name] : undefined)]);
  }
  // fromEntries makes own properties, whatever the names (no prototype games with __proto__).
  return Object.fromEntries(entries);
}

function parseJson(name: string, raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw new UsageError(`${name}:= takes JSON, and '${raw}' is not JSON (for text, use ${name}=...)`);
  }
}

function typed(name: string, raw: string, shape: unknown): unknown {
  if (typeof shape === 'string') return raw;
  if (typeof shape === 'number') {
    const n = raw.trim() === '' ? Number.NaN : Number(raw);
    if (!Number.isFinite(n)) throw new UsageError(`${name} is a number, and '${raw}' is not one`);
    return n;
  }
  if (typeof shape === 'boolean') {
    if (raw !== 'true' && raw !== 'false') throw new UsageError(`${name} is true or false, not '${raw}'`);
    return raw === 'true';
  }
  if (Array.isArray(shape)) {
    const isRefList = shape.length > 0 && shape.every((v) => v && typeof v === 'object' && 'identity' in v);
    if (isRefList) return raw === '' ? [] : raw.split(',').map((p) => ({ identity: segments(p) }));
    // A single reference is an identity array (a set one is never empty).
    if (shape.length > 0 && shape.every((v) => typeof v === 'string')) return raw === '' ? null : segments(raw);
    return raw === '' ? [] : raw.split(',');
  }
  if (shape && typeof shape === 'object') return parseJson(name, raw);
  // No current value to go by: JSON when it reads as such (numbers, true, null, lists), else text.
  if (/^(-?\d+(\.\d+)?|true|false|null|\[.*\]|\{.*\})$/s.test(raw.trim())) {
    try {
      return JSON.parse(raw);
    } catch {
      return raw;
    }
  }
  return raw;
}

function segments(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}
