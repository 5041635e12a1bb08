// Turns a JSON value sent by a client into the stored value of a property, or says exactly why it
// cannot: wrong JSON type, out of range, not a legal value, malformed reference, or a string that
// holds a NUL or a lone surrogate or is longer than 64 KiB. Action arguments follow the same rules.
import { LONE_SURROGATE } from '../core/text.js';
import { parseReference } from '../core/identity.js';
import type { PropDef } from '../catalog/model.js';

export type Coerced = { ok: true; value: unknown } | { ok: false; problem: string };

const INT_MIN = -2147483648;
const INT_MAX = 2147483647;

/** Longest configuration string, in bytes of UTF-8: a bean is read whole, so one value stays small. */
export const MAX_STRING_BYTES = 64 * 1024;

/** Numbers written as text, as `key=value` bodies send them: plain decimal only (no spaces, hex, '1e3'). */
const INTEGER_TEXT = /^-?\d+$/;
const DECIMAL_TEXT = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/;

/** A NUL, or half of a surrogate pair without its other half (not a character at all). */
const NUL = /\u0000/;

const ok = (value: unknown): Coerced => ({ ok: true, value });
const bad = (problem: string): Coerced => ({ ok: false, problem });

function describe(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Bytes of a string in UTF-8 (never fewer than its UTF-16 length, so a longer string is too long). */
function utf8Bytes(s: string): number {
  return s.length > MAX_STRING_BYTES ? s.length : Buffer.byteLength(s, 'utf8');
}

/**
 * Why a string cannot be stored as (part of) a configuration value, or undefined when it can:
 * it holds a NUL, is not valid Unicode, or is longer than MAX_STRING_BYTES. Phrased to follow
 * "The property 'x' ..." or "The argument 'x' ...".
 */
export function stringProblem(s: string): string | undefined {
  if (utf8Bytes(s) > MAX_STRING_BYTES) {
    return `is ${Buffer.byteLength(s, 'utf8')} bytes long; a string may be at most ${MAX_STRING_BYTES} bytes (64 KiB) of UTF-8`;
  }
  if (NUL.test(s)) return 'holds a NUL character (\\u0000), which a string may not hold';
  const lone = LONE_SURROGATE.exec(s);
  if (lone) return `is not valid Unicode: it holds a lone surrogate (\\u${lone[0].charCodeAt(0).toString(16)}) at position ${lone.index}`;
  return undefined;
}

/** A string value as stored, or why it cannot be. Numbers and booleans are not strings. */
export function stringValue(value: unknown): Coerced {
  if (typeof value !== 'string') return bad(`must be a string, not ${describe(value)}`);
  const problem = stringProblem(value);
  return problem ? bad(problem) : ok(value);
}

/** A number, or a decimal number written as text (as `key=value` bodies send it); undefined otherwise. */
function numberOf(value: unknown, integer: boolean): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && (integer ? INTEGER_TEXT : DECIMAL_TEXT).test(value)) return Number(value);
  return undefined;
}

/** An integer in the range of a Java int or long (and of the property, when it has one). */
export function integerValue(value: unknown, kind: 'int' | 'long', range?: { min?: number; max?: number }): Coerced {
  const n = numberOf(value, true);
  if (n === undefined || !Number.isInteger(n)) return bad(`must be an integer, not ${describe(value)}`);
  if (kind === 'int' && (n < INT_MIN || n > INT_MAX)) return bad(`must be between ${INT_MIN} and ${INT_MAX}, not ${describe(value)}`);
  if (!Number.isSafeInteger(n)) return bad(`is out of range: ${describe(value)}`);
  const min = range?.min ?? Number.MIN_SAFE_INTEGER;
  const max = range?.max ?? Number.MAX_SAFE_INTEGER;
  if (n < min || n > max) return bad(`must be between ${min} and ${max}, not ${n}`);
  return ok(n);
}

/** A finite number. */
export function decimalValue(value: unknown): Coerced {
  const n = numberOf(value, false);
  if (n === undefined || !Number.isFinite(n)) return bad(`must be a number, not ${describe(value)}`);
  return ok(n);
}

/** An object of names to strings (a Java Properties), every name and value checked as a string. */
export function propertiesValue(value: unknown): Coerced {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return bad(`must be an object of names to string values, not ${describe(value)}`);
  // Names are the client's: any of them, `__proto__` included, is an own key of the result.
  const out = Object.create(null) as Record<string, string>;
  let bytes = 0;
  for (const [k, v] of Object.entries(value)) {
    const key = stringProblem(k);
    if (key) return bad(`has an entry name that ${key}`);
    const entry = stringValue(v);
    if (!entry.ok) return bad(`has an entry ${describe(k)} that ${entry.problem}`);
    bytes += utf8Bytes(k) + utf8Bytes(v as string);
    if (bytes > MAX_STRING_BYTES) return bad(`holds more than ${MAX_STRING_BYTES} bytes (64 KiB) of names and values in all`);
    out[k] = v as string;
  }
  return ok(out);
}


function scalar(p: PropDef, value: unknown): Coerced {
  switch (p.valueKind) {
    case 'int':
    case 'long':
      return integerValue(value, p.valueKind, p);
    case 'double':
      return decimalValue(value);
    case 'boolean':
      if (typeof value === 'boolean') return ok(value);
      if (value === 'true' || value === 'false') return ok(value === 'true');
      return bad(`must be true or false, not ${describe(value)}`);
    case 'string':
      return stringValue(value);
    case 'properties':
      return propertiesValue(value);
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
        const id = parseReference(item);
        if (!id) return bad(`holds ${describe(item)}, which is not a reference (an identity array such as ["servers", "ms1"])`);
        out.push(id);
      }
      return ok(out);
    }
    const id = parseReference(value);
    return id ? ok(id) : bad(`must be a reference (an identity array such as ["clusters", "cluster1"]), not ${describe(value)}`);
  }
  let result: Coerced;
  if (p.array) {
    if (!Array.isArray(value)) return bad(`must be a JSON array, not ${describe(value)}`);
    const out: unknown[] = [];
    let bytes = 0;
    for (const [i, item] of value.entries()) {
      const r = scalar(p, item);
      if (!r.ok) return bad(`has an element (at index ${i}) that ${r.problem}`);
      if (typeof r.value === 'string') bytes += utf8Bytes(r.value);
      if (bytes > MAX_STRING_BYTES) return bad(`holds more than ${MAX_STRING_BYTES} bytes (64 KiB) of strings in all`);
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
