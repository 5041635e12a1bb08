// Request bodies, parsed as leniently as the real product: strict JSON, then the relaxed dialect
// real scripts send (unquoted keys, single quotes, trailing commas), then `key=value` pairs.
// Anything still unparseable is a 400 that says where it broke.
import JSON5 from 'json5';
import { badRequest } from './errors.js';

const PAIRS = /^\s*[^=&\s{}[\]]+\s*=[^&]*(&\s*[^=&\s{}[\]]+\s*=[^&]*)*\s*$/;

/** Deepest nesting of arrays and objects a body may have: more is never configuration. */
export const MAX_DEPTH = 64;

/** Refuses values nested deeper than MAX_DEPTH (walked without recursion). */
function checkDepth(value: unknown, what: string): unknown {
  // Each entry remembers the top-level key it lies under, to name it in the error.
  const stack: [unknown, number, string | undefined][] = [[value, 1, undefined]];
  while (stack.length > 0) {
    const [v, depth, top] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > MAX_DEPTH) {
      throw top === undefined
        ? badRequest(`The ${what} is nested more than ${MAX_DEPTH} levels deep.`)
        : badRequest(`The value of '${top}' in the ${what} is nested more than ${MAX_DEPTH} levels deep.`, top);
    }
    const topLevel = depth === 1 && !Array.isArray(v);
    for (const [k, child] of Object.entries(v)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1, topLevel ? k : top]);
    }
  }
  return value;
}

/** Parses a body text into a JSON value; an empty body is `{}`. */
export function parseLenient(text: string, what = 'request body'): unknown {
  return checkDepth(parseText(text, what), what);
}

function parseText(text: string, what: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    // fall through to the relaxed forms
  }
  try {
    return JSON5.parse(text);
  } catch (err) {
    if (PAIRS.test(text)) return pairs(text);
    const e = err as { lineNumber?: number; columnNumber?: number; message?: string };
    const where = e.lineNumber !== undefined ? ` at line ${e.lineNumber}, column ${e.columnNumber}` : '';
    const reason = (e.message ?? 'syntax error').replace(/^JSON5: /, '').replace(/ at \d+:\d+$/, '');
    throw badRequest(`The ${what} is not valid JSON${where}: ${reason}.`);
  }
}

/** `a=1&b=x` as an object of strings (URL-decoded); any key is an own key, `__proto__` included. */
export function pairs(text: string): Record<string, string> {
  const out = Object.create(null) as Record<string, string>;
  for (const [k, v] of new URLSearchParams(text.trim())) out[k.trim()] = v;
  return out;
}

/** The body of a write, which must be a JSON object. */
export function bodyObject(body: unknown, what = 'request body'): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw badRequest(`The ${what} must be a JSON object.`);
  return body as Record<string, unknown>;
}
