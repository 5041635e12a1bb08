// Request bodies, read by content type in linear time. JSON bodies are strict JSON, or (when small)
// the relaxed dialect real scripts send (unquoted keys, single quotes, trailing commas, `=` or `=>`
// between a key and its value, as the product's reader takes them); text bodies may also be
// `key=value&...` pairs. A body is refused with a 400 saying where it broke, when it repeats a key in
// one object, or when it nests deeper than configuration ever does. Forms are not read (415), as the
// product answers them.
import { badRequest } from '../core/problems.js';
import { createRequire } from 'node:module';
import type JSON5Module from 'json5';

let json5: typeof JSON5Module | undefined;
/** The relaxed dialect's reader, loaded with the first body that is not strict JSON. */
const JSON5 = {
  parse: (text: string): unknown => (json5 ??= createRequire(import.meta.url)('json5') as typeof JSON5Module).parse(text),
};

/** Largest body of a non-upload request, in bytes: configuration is far smaller. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Largest body the relaxed dialect is tried on, in bytes. Its reader costs about a hundred times
 * strict JSON's; bodies larger than this must be strict JSON.
 */
export const MAX_RELAXED_BYTES = 64 * 1024;

/** Deepest nesting of arrays and objects a body may have: more is never configuration. */
export const MAX_DEPTH = 64;

/** How a body is read: JSON (strict, then relaxed when small), or text (JSON, then `key=value` pairs). */
export type BodyKind = 'json' | 'text';

/** The kind of body a media type carries, or undefined when the server reads no such body. */
export function bodyKindOf(mediaType: string): BodyKind | undefined {
  const type = mediaType.split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'))) return 'json';
  if (type === 'text/plain') return 'text';
  return undefined;
}

/**
 * The relaxed text with `=>` and `=` between keys and values turned into `:` (strings and comments
 * left alone), so JSON5 reads `{target='cluster1'}` as the product's reader does. Outside strings an
 * `=` is never valid JSON5, so nothing that was valid changes. `=>` becomes `: ` to keep columns.
 */
export function equalsAsColons(text: string): string {
  let out = '';
  let from = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text[i];
    if (c === '"' || c === "'") {
      // Skip the string, escapes included.
      for (i++; i < n && text[i] !== c; i++) if (text[i] === '\\') i++;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < n && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 1;
    } else if (c === '=') {
      const arrow = text[i + 1] === '>';
      out += `${text.slice(from, i)}${arrow ? ': ' : ':'}`;
      if (arrow) i++;
      from = i + 1;
    }
  }
  return from === 0 ? text : out + text.slice(from);
}

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
    if (Array.isArray(v)) {
      for (const child of v) if (child !== null && typeof child === 'object') stack.push([child, depth + 1, top]);
      continue;
    }
    // Parsed JSON objects have only own, enumerable properties.
    for (const k in v as Record<string, unknown>) {
      const child = (v as Record<string, unknown>)[k];
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1, depth === 1 ? k : top]);
    }
  }
  return value;
}

/** Parses a body text into a JSON value; an empty body is `{}`. Text bodies may also be `key=value` pairs. */
export function parseLenient(text: string, what = 'request body', kind: BodyKind = 'text'): unknown {
  if (text.trim() === '') return {};
  let value: unknown;
  let relaxed = false;
  try {
    value = JSON.parse(text);
  } catch (strictError) {
    if (text.length > MAX_RELAXED_BYTES) {
      if (kind === 'text' && isPairs(text)) return pairs(text, what);
      throw badRequest(`The ${what} is not valid JSON${strictWhere(strictError as Error, text)} (relaxed JSON is read only in bodies up to ${MAX_RELAXED_BYTES / 1024} KiB).`);
    }
    try {
      const colons = equalsAsColons(text);
      value = JSON5.parse(colons);
      relaxed = true;
      text = colons;
    } catch (err) {
      if (kind === 'text' && isPairs(text)) return pairs(text, what);
      const e = err as { lineNumber?: number; columnNumber?: number; message?: string };
      const where = e.lineNumber !== undefined ? ` at line ${e.lineNumber}, column ${e.columnNumber}` : '';
      const reason = (e.message ?? 'syntax error').replace(/^JSON5: /, '').replace(/ at \d+:\d+$/, '');
      throw badRequest(`The ${what} is not valid JSON${where}: ${reason}.`);
    }
  }
  checkDepth(value, what);
  const dup = duplicateKey(text, relaxed);
  if (dup) {
    const where = dup.at === '' ? '' : ` (in '${dup.at}')`;
    throw badRequest(`The key '${dup.key}' appears more than once in one object of the ${what}${where}; send each key once.`, dup.at === '' ? dup.key : `${dup.at}.${dup.key}`);
  }
  return value;
}

/** Where strict JSON broke, as ` at line L, column C: reason`, from the parser's message. */
function strictWhere(err: Error, text: string): string {
  const message = err.message ?? '';
  // The parser's message may quote part of the body: keep only its first clause, and find the
  // place ourselves when the message gives none.
  const reason = message.replace(/ at position \d+.*$/s, '').replace(/ in JSON$/, '').replace(/, ".*$/s, '').replace(/, \.\.\.".*$/s, '').trim() || 'syntax error';
  const given = /at position (\d+)/.exec(message);
  const at = given ? Number(given[1]) : jsonErrorOffset(text);
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < at && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return ` at line ${line}, column ${at - lineStart + 1}: ${reason}`;
}

/**
 * Where strict JSON first goes wrong in `text`: one pass, no recursion (nesting is kept on a stack),
 * so any body costs time in proportion to its length.
 */
export function jsonErrorOffset(text: string): number {
  const n = text.length;
  let i = 0;
  const stack: ('{' | '[')[] = [];
  const space = () => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else break;
    }
  };
  const string = (): boolean => {
    if (text[i] !== '"') return false;
    i++;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return true;
      }
      if (c < 0x20) return false;
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return false;
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
        else return false;
      } else i++;
    }
    return false;
  };
  const scalar = (): boolean => {
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return true;
      }
    }
    const m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(i, i + 400));
    if (!m || m[0] === '') return false;
    i += m[0].length;
    return true;
  };
  // A value is expected at i; returns false (with i at the fault) when none is there. Opening
  // brackets are pushed and their first element read in the same loop: no recursion.
  const value = (): boolean => {
    for (;;) {
      space();
      const c = text[i];
      if (c !== '{' && c !== '[') return c === '"' ? string() : scalar();
      stack.push(c);
      i++;
      space();
      if (text[i] === (c === '{' ? '}' : ']')) {
        stack.pop();
        i++;
        return true;
      }
      if (c === '{') {
        if (!string()) return false;
        space();
        if (text[i] !== ':') return false;
        i++;
      }
    }
  };
  if (!value()) return Math.min(i, n);
  for (;;) {
    space();
    const top = stack[stack.length - 1];
    if (top === undefined) return i < n ? i : n;
    const c = text[i];
    if (c === (top === '{' ? '}' : ']')) {
      stack.pop();
      i++;
      continue;
    }
    if (c !== ',') return Math.min(i, n);
    i++;
    if (top === '{') {
      space();
      if (!string()) return Math.min(i, n);
      space();
      if (text[i] !== ':') return Math.min(i, n);
      i++;
    }
    if (!value()) return Math.min(i, n);
  }
}

/** True when a text is `key=value` pairs joined by `&` (keys without white space, braces or brackets). */
export function isPairs(text: string): boolean {
  let i = 0;
  const n = text.length;
  while (true) {
    // One pair: optional white space, a key, optional white space, '=', then anything up to '&'.
    while (i < n && isSpace(text.charCodeAt(i))) i++;
    const keyStart = i;
    while (i < n && isKeyChar(text.charCodeAt(i))) i++;
    if (i === keyStart) return false;
    while (i < n && isSpace(text.charCodeAt(i))) i++;
    if (i >= n || text.charCodeAt(i) !== 0x3d /* = */) return false;
    const amp = text.indexOf('&', i);
    if (amp < 0) return true;
    i = amp + 1;
  }
}

function isSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

function isKeyChar(c: number): boolean {
  // Not '=', '&', '{', '}', '[', ']' nor white space.
  return c !== 0x3d && c !== 0x26 && c !== 0x7b && c !== 0x7d && c !== 0x5b && c !== 0x5d && !isSpace(c);
}

/** `a=1&b=x` as an object of strings (URL-decoded); a key given twice is refused; any key is an own key, `__proto__` included. */
export function pairs(text: string, what = 'request body'): Record<string, string> {
  const out = Object.create(null) as Record<string, string>;
  for (const [k, v] of new URLSearchParams(text.trim())) {
    const key = k.trim();
    if (Object.hasOwn(out, key)) throw badRequest(`The key '${key}' appears more than once in the ${what}; send each key once.`, key);
    out[key] = v;
  }
  return out;
}

interface Frame {
  /** Keys seen so far in this object; null for an array. */
  keys: Set<string> | null;
  /** The key (object) or index (array) of the member being read, for naming a path. */
  member: string | number;
}

/**
 * The first key that occurs twice in one object of a text that already parsed as JSON (or, when
 * `relaxed`, as the relaxed dialect), with the path of that object; one pass, no recursion.
 */
export function duplicateKey(text: string, relaxed: boolean): { key: string; at: string } | undefined {
  const stack: Frame[] = [];
  // True where the next string or word is a key: after '{' or after ',' in an object.
  let expectKey = false;
  const n = text.length;
  let i = 0;
  const path = () =>
    stack
      .slice(0, -1)
      .map((f) => (typeof f.member === 'number' ? `[${f.member}]` : `.${f.member}`))
      .join('')
      .replace(/^\./, '');
  const onKey = (key: string) => {
    const top = stack[stack.length - 1]!;
    if (top.keys!.has(key)) return { key, at: path() };
    top.keys!.add(key);
    top.member = key;
    expectKey = false;
    return undefined;
  };
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x7b /* { */) {
      stack.push({ keys: new Set(), member: '' });
      expectKey = true;
      i++;
    } else if (c === 0x5b /* [ */) {
      stack.push({ keys: null, member: 0 });
      expectKey = false;
      i++;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
      expectKey = false;
      i++;
    } else if (c === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top?.keys) expectKey = true;
      else if (top) top.member = (top.member as number) + 1;
      i++;
    } else if (c === 0x3a /* : */) {
      expectKey = false;
      i++;
    } else if (c === 0x22 /* " */ || c === 0x27 /* ' */) {
      const start = i;
      let escaped = false;
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 0x5c /* \ */) {
          escaped = true;
          i += 2;
          continue;
        }
        i++;
        if (d === c) break;
      }
      if (expectKey) {
        const raw = text.slice(start, i);
        const dup = onKey(escaped ? String(relaxed ? JSON5.parse(raw) : JSON.parse(raw)) : raw.slice(1, -1));
        if (dup) return dup;
      }
    } else if (c === 0x2f /* / */ && relaxed && text.charCodeAt(i + 1) === 0x2f) {
      const end = text.indexOf('\n', i + 2);
      i = end < 0 ? n : end + 1;
    } else if (c === 0x2f && relaxed && text.charCodeAt(i + 1) === 0x2a /* * */) {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
    } else if (isSpace(c)) {
      i++;
    } else {
      // A number, a literal or (relaxed) an unquoted key: up to the next delimiter.
      const start = i;
      while (i < n && !isDelimiter(text.charCodeAt(i))) i++;
      if (i === start) i++;
      if (expectKey) {
        const word = text.slice(start, i);
        const key = word.includes('\\') ? Object.keys(JSON5.parse(`{${word}:0}`) as object)[0]! : word;
        const dup = onKey(key);
        if (dup) return dup;
      }
    }
  }
  return undefined;
}

function isDelimiter(c: number): boolean {
  return c === 0x7b || c === 0x7d || c === 0x5b || c === 0x5d || c === 0x2c || c === 0x3a || c === 0x22 || c === 0x27 || c === 0x2f || isSpace(c);
}
