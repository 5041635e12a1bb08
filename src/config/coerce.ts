// Turns a JSON value sent by a client into the stored value of a property, or says exactly why it
// cannot: wrong JSON type, out of range, not a legal value, malformed reference.
import type { PropDef } from '../catalog/model.js';

export type Coerced = { ok: true; value: unknown } | { ok: false; problem: string };

const INT_MIN = -2147483648;
const INT_MAX = 2147483647;

const ok = (value: unknown): Coerced => ({ ok: true, value });
const bad = (problem: string): Coerced => ({ ok: false, problem });

function describe(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** A reference as an identity array: accepts `["servers","ms1"]` and `{identity: [...]}`. */
export function identityOf(value: unknown): string[] | undefined {
  const ids = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as { identity?: unknown }).identity : value;
  if (!Array.isArray(ids) || ids.length === 0 || !ids.every((s) => typeof s === 'string')) return undefined;
  return ids as string[];
}

function scalar(p: PropDef, value: unknown): Coerced {
  switch (p.valueKind) {
    case 'int':
    case 'long': {
      const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isInteger(n)) return bad(`must be an integer, not ${describe(value)}`);
      if (p.valueKind === 'int' && (n < INT_MIN || n > INT_MAX)) return bad(`must be between ${INT_MIN} and ${INT_MAX}, not ${n}`);
      if (!Number.isSafeInteger(n)) return bad(`is out of range: ${describe(value)}`);
      return ok(n);
    }
    case 'double': {
      const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isFinite(n)) return bad(`must be a number, not ${describe(value)}`);
      return ok(n);
    }
    case 'boolean':
      if (typeof value === 'boolean') return ok(value);
      if (value === 'true' || value === 'false') return ok(value === 'true');
      return bad(`must be true or false, not ${describe(value)}`);
    case 'string':
      if (typeof value === 'string') return ok(value);
      if (typeof value === 'number' || typeof value === 'boolean') return ok(String(value));
      return bad(`must be a string, not ${describe(value)}`);
    case 'properties': {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return bad(`must be an object of names to string values, not ${describe(value)}`);
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(value)) {
        if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') return bad(`entry '${k}' must be a string, not ${describe(v)}`);
        out[k] = String(v);
      }
      return ok(out);
    }
    case 'date': {
      const ms = typeof value === 'number' ? value : typeof value === 'string' ? Date.parse(value) : Number.NaN;
      if (!Number.isFinite(ms)) return bad(`must be an ISO-8601 date or epoch milliseconds, not ${describe(value)}`);
      return ok(ms);
    }
    default:
      return bad('cannot be set');
  }
}

/** Coerces a client value for a property; `null` means "back to the default" and is handled by the caller. */
export function coerce(p: PropDef, value: unknown): Coerced {
  if (p.shape === 'reference') {
    if (p.array) {
      if (!Array.isArray(value)) return bad(`must be a list of references such as [{"identity": ["servers", "ms1"]}], not ${describe(value)}`);
      const out: string[][] = [];
      for (const item of value) {
        const id = identityOf(item);
        if (!id) return bad(`holds ${describe(item)}, which is not a reference (an identity array such as ["servers", "ms1"])`);
        out.push(id);
      }
      return ok(out);
    }
    const id = identityOf(value);
    return id ? ok(id) : bad(`must be a reference (an identity array such as ["clusters", "cluster1"]), not ${describe(value)}`);
  }
  let result: Coerced;
  if (p.array) {
    if (!Array.isArray(value)) return bad(`must be a JSON array, not ${describe(value)}`);
    const out: unknown[] = [];
    for (const item of value) {
      const r = scalar(p, item);
      if (!r.ok) return bad(`element ${describe(item)} ${r.problem}`);
      out.push(r.value);
    }
    result = ok(out);
  } else {
    result = scalar(p, value);
  }
  if (result.ok && p.legalValues) {
    const values = Array.isArray(result.value) ? result.value : [result.value];
    for (const v of values) {
      if (!p.legalValues.includes(v)) {
        const legal = p.legalValues.map((l) => JSON.stringify(l)).join(', ');
        return bad(`has the value ${describe(v)}, which is not one of the legal values ${legal}`);
      }
    }
  }
  return result;
}
