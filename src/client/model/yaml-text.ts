// The model's YAML, written and read fast for the subset discover writes: block maps, lists of
// scalars, plain or double-quoted scalars, `{}` and `[]`. A whole-domain model has tens of
// thousands of keys; the general YAML library takes seconds on it. Anything outside the subset is
// left to that library (read.ts falls back to it), so any valid YAML is still read.

/** A value of the model tree as the readers see it, with where it stands (1-based line and column). */
export type YValue =
  | { kind: 'map'; items: YPair[]; line: number; col: number }
  | { kind: 'seq'; items: YValue[]; line: number; col: number }
  | { kind: 'scalar'; value: string | number | boolean | null; source: string; line: number; col: number };

export interface YPair {
  key: string;
  line: number;
  col: number;
  value: YValue | null;
}

const PLAIN_SAFE = /^[A-Za-z_/.$][A-Za-z0-9_/.$ ,()+=<>\-[\]{}@*%!^~|'"`?&;:]*$/;
const RESERVED = /^(true|false|null|~|yes|no|on|off|y|n|True|False|TRUE|FALSE|Null|NULL)$/;
const NUMERIC = /^[-+]?(\.?\d|\.inf|\.nan|0x|0o)/i;

/** A string as a scalar: plain where YAML reads it back as the same string, else double-quoted. */
export function scalarText(s: string): string {
  if (s !== '' && PLAIN_SAFE.test(s) && !RESERVED.test(s) && !NUMERIC.test(s) && !/: |:$| #|^[-?:,[\]{}#&*!|>'"%@`]/.test(s) && s.trim() === s && !/[[\]{}]/.test(s) && !/[,'"`]/.test(s[0]!)) return s;
  return JSON.stringify(s);
}

function valueText(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : JSON.stringify(String(v));
  if (typeof v === 'boolean') return String(v);
  return scalarText(String(v));
}

/** Writes nested Maps (and arrays of scalars) as block YAML. */
export function writeYaml(root: Map<string, unknown>): string {
  const out: string[] = [];
  const walk = (m: Map<string, unknown>, indent: string) => {
    for (const [k, v] of m) {
      // A key is read up to its first colon: one holding a colon is quoted.
      const key = k.includes(':') ? JSON.stringify(k) : scalarText(k);
      if (v instanceof Map) {
        if (v.size === 0) out.push(`${indent}${key}: {}`);
        else {
          out.push(`${indent}${key}:`);
          walk(v, `${indent}  `);
        }
      } else if (Array.isArray(v)) {
        if (v.length === 0) out.push(`${indent}${key}: []`);
        else {
          out.push(`${indent}${key}:`);
          for (const item of v) out.push(`${indent}  - ${valueText(item)}`);
        }
      } else out.push(`${indent}${key}: ${valueText(v)}`);
    }
  };
  walk(root, '');
  return out.length > 0 ? `${out.join('\n')}\n` : '{}\n';
}

class Unsupported extends Error {}

/** A plain scalar resolved as the YAML 1.2 core schema does. */
function plain(s: string): string | number | boolean | null {
  if (s === '' || s === '~' || s === 'null' || s === 'Null' || s === 'NULL') return null;
  if (s === 'true' || s === 'True' || s === 'TRUE') return true;
  if (s === 'false' || s === 'False' || s === 'FALSE') return false;
  if (/^[-+]?\d+$/.test(s)) {
    const n = Number(s);
    if (!Number.isSafeInteger(n)) throw new Unsupported();
    return n;
  }
  if (/^[-+]?(\.\d+|\d+(\.\d*)?)([eE][-+]?\d+)?$/.test(s)) return Number(s);
  if (/^[-+]?\.(inf|Inf|INF)$|^\.(nan|NaN|NAN)$|^0x|^0o/.test(s)) throw new Unsupported();
  return s;
}

function scalarAt(text: string, line: number, col: number): YValue {
  if (text.startsWith('"')) {
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      throw new Unsupported();
    }
    if (typeof v !== 'string') throw new Unsupported();
    return { kind: 'scalar', value: v, source: text, line, col };
  }
  if (text === '{}') return { kind: 'map', items: [], line, col };
  if (text === '[]') return { kind: 'seq', items: [], line, col };
  if (/^['&*!|>%@`[{?,#]/.test(text) || text.includes(' #') || /:\s|:$/.test(text)) throw new Unsupported();
  return { kind: 'scalar', value: plain(text), source: text, line, col };
}

function keyOf(text: string): string {
  if (text.startsWith('"')) {
    const v = JSON.parse(text) as unknown;
    if (typeof v !== 'string') throw new Unsupported();
    return v;
  }
  if (text === '' || /^['&*!|>%@`[{?,#"-]/.test(text) || text.includes(' #')) throw new Unsupported();
  const v = plain(text);
  return typeof v === 'string' ? v : text;
}

/** Reads the subset writeYaml writes; undefined when the text holds anything else. */
export function readYamlSubset(text: string): YValue | null | undefined {
  try {
    return parse(text);
  } catch (err) {
    if (err instanceof Unsupported || err instanceof SyntaxError) return undefined;
    throw err;
  }
}

function parse(text: string): YValue | null {
  if (text.includes('\t') || text.includes('\r') || /^(---|\.\.\.|%)/m.test(text)) throw new Unsupported();
  const lines = text.split('\n');
  let i = 0;
  // Spaces only (a tab was refused above): the first other character, without copying the line.
  const indentOf = (l: string) => {
    let n = 0;
    while (n < l.length && l.charCodeAt(n) === 32) n++;
    return n;
  };
  const blank = (l: string) => {
    const n = indentOf(l);
    return n === l.length || l.charCodeAt(n) === 35; // '#'
  };
  const skip = () => {
    while (i < lines.length && blank(lines[i]!)) i++;
  };
  // Reads a block map whose keys stand at `indent`.
  const map = (indent: number): YValue => {
    const start = i + 1;
    const items: YPair[] = [];
    const seen = new Set<string>();
    for (;;) {
      skip();
      if (i >= lines.length) break;
      const l = lines[i]!;
      const ind = indentOf(l);
      if (ind < indent) break;
      if (ind > indent) throw new Unsupported();
      const body = l.slice(ind);
      if (body.startsWith('- ') || body === '-') throw new Unsupported();
      const m = /^("(?:[^"\\]|\\.)*"|[^"][^:]*?):(?: (.*))?$/.exec(body);
      if (!m) throw new Unsupported();
      const key = keyOf(m[1]!);
      if (seen.has(key)) throw new Unsupported();
      seen.add(key);
      const line = i + 1;
      const rest = (m[2] ?? '').trim();
      i++;
      if (rest !== '') {
        items.push({ key, line, col: ind + 1, value: scalarAt(rest, line, ind + 1 + m[1]!.length + 2) });
        continue;
      }
      skip();
      const next = lines[i];
      if (next === undefined || indentOf(next) < ind || (indentOf(next) === ind && !next.slice(ind).startsWith('- '))) {
        items.push({ key, line, col: ind + 1, value: null });
        continue;
      }
      const nind = indentOf(next);
      if (next.slice(nind).startsWith('- ') || next.slice(nind) === '-') items.push({ key, line, col: ind + 1, value: seq(nind) });
      else if (nind > ind) items.push({ key, line, col: ind + 1, value: map(nind) });
      else throw new Unsupported();
    }
    return { kind: 'map', items, line: start, col: indent + 1 };
  };
  const seq = (indent: number): YValue => {
    const items: YValue[] = [];
    const start = i + 1;
    for (;;) {
      skip();
      if (i >= lines.length) break;
      const l = lines[i]!;
      const ind = indentOf(l);
      if (ind !== indent || !l.slice(ind).startsWith('- ')) {
        if (ind > indent) throw new Unsupported();
        break;
      }
      const item = l.slice(ind + 2).trim();
      if (item === '' || /^[-?]( |$)/.test(item) || /^[^"]*: /.test(item) || /^[^"]*:$/.test(item)) throw new Unsupported();
      items.push(scalarAt(item, i + 1, ind + 3));
      i++;
    }
    return { kind: 'seq', items, line: start, col: indent + 1 };
  };
  skip();
  if (i >= lines.length) return null;
  if (indentOf(lines[i]!) !== 0) throw new Unsupported();
  const root = map(0);
  skip();
  if (i < lines.length) throw new Unsupported();
  return root;
}
