// JSON text as the real product prints it, which scripts grep and compare: four spaces of indent,
// '/' escaped as '\/', `{}` and `[]` for empty values, and an array whose only element is an
// object opened and closed on the lines of that object: `[{` ... `}]`.

const STEP = '    ';
const pads: string[] = [''];

export function pad(depth: number): string {
  let p = pads[depth];
  if (p === undefined) p = pads[depth] = STEP.repeat(depth);
  return p;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** What JSON escapes in a string (quotes, backslashes, controls, lone surrogates), and '/'. */
const NEEDS_ESCAPE = /["\\/\u0000-\u001f\ud800-\udfff]/;

/** A string as JSON writes it, with '/' escaped as the product does (escaped where it is printed, so no pass over the whole text). */
function str(v: string): string {
  // Most names and values need no escape at all: quoted as they are.
  if (!NEEDS_ESCAPE.test(v)) return `"${v}"`;
  const s = JSON.stringify(v);
  return s.includes('/') ? s.replaceAll('/', '\\/') : s;
}

function scalar(v: unknown): string {
  // Strings, numbers (NaN and infinities as null), booleans and null, as JSON writes them.
  if (typeof v === 'string') return str(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'null';
  return JSON.stringify(v) ?? 'null';
}

/** A member's name as printed before its value (`"name": `), kept: the same few hundred names recur on every bean. */
const keyTexts = new Map<string, string>();

function keyText(key: string): string {
  let t = keyTexts.get(key);
  if (t === undefined) {
    t = `${str(key)}: `;
    if (keyTexts.size < 20_000) keyTexts.set(key, t);
  }
  return t;
}

function object(o: Record<string, unknown>, depth: number): string {
  let out = '';
  const inner = pad(depth + 1);
  for (const key in o) {
    if (!Object.hasOwn(o, key)) continue;
    const v = o[key];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    out += `${out === '' ? '{\n' : ',\n'}${inner}${keyText(key)}${value(v, depth + 1)}`;
  }
  return out === '' ? '{}' : `${out}\n${pad(depth)}}`;
}

function array(a: readonly unknown[], depth: number): string {
  if (a.length === 0) return '[]';
  const only = a[0];
  if (a.length === 1 && isPlainObject(only)) return `[${object(only, depth)}]`;
  const inner = pad(depth + 1);
  let out = '[\n';
  for (let i = 0; i < a.length; i++) {
    const v = a[i];
    out += `${i === 0 ? '' : ',\n'}${inner}${v === undefined || typeof v === 'function' ? 'null' : value(v, depth + 1)}`;
  }
  return `${out}\n${pad(depth)}]`;
}

function value(v: unknown, depth: number): string {
  if (Array.isArray(v)) return array(v, depth);
  if (isPlainObject(v)) return object(v, depth);
  return scalar(v);
}

/** The body as JSON text in the product's layout. */
export function printJson(body: unknown): string {
  return value(body, 0);
}

/** A value's text nested `depth` levels deep (for bodies printed piece by piece). */
export function valueText(v: unknown, depth: number): string {
  return value(v, depth);
}

/** Whether an object member with this value is printed at all (undefined, functions and symbols are not). */
export function printable(v: unknown): boolean {
  return v !== undefined && typeof v !== 'function' && typeof v !== 'symbol';
}

/**
 * One JSON object printed member by member, as `printJson` lays out an object `depth` levels deep:
 * `open` gives the text before a member's value, `close` the text after the last one.
 */
export class ObjectText {
  private opened = false;
  constructor(private readonly depth: number) {}

  /** The text before the value of member `key`. */
  open(key: string): string {
    const head = this.opened ? ',\n' : '{\n';
    this.opened = true;
    return `${head}${pad(this.depth + 1)}${keyText(key)}`;
  }

  /** A whole member (nothing when its value is not printed). */
  member(key: string, v: unknown): string {
    return printable(v) ? this.open(key) + value(v, this.depth + 1) : '';
  }

  /** Every member of `o`, in its order. */
  members(o: Record<string, unknown>): string {
    let out = '';
    for (const key in o) if (Object.hasOwn(o, key)) out += this.member(key, o[key]);
    return out;
  }

  close(): string {
    return this.opened ? `\n${pad(this.depth)}}` : '{}';
  }
}

/**
 * An array of `count` objects printed element by element, as `printJson` lays it out `depth` levels
 * deep; `elementDepth` is how deep each element's object lies (a lone object shares its array's lines).
 */
export class ObjectArrayText {
  readonly elementDepth: number;
  constructor(
    private readonly count: number,
    private readonly depth: number,
  ) {
    this.elementDepth = count === 1 ? depth : depth + 1;
  }

  open(): string {
    return this.count === 0 ? '[]' : '[';
  }

  /** The text before element `i`. */
  before(i: number): string {
    if (this.count === 1) return '';
    return `${i === 0 ? '\n' : ',\n'}${pad(this.depth + 1)}`;
  }

  close(): string {
    if (this.count === 0) return '';
    return this.count === 1 ? ']' : `\n${pad(this.depth)}]`;
  }
}
