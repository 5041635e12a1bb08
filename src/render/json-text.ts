// JSON text as the real product prints it, which scripts grep and compare: four spaces of indent,
// '/' escaped as '\/', `{}` and `[]` for empty values, and an array whose only element is an
// object opened and closed on the lines of that object: `[{` ... `}]`.

const STEP = '    ';
const pads: string[] = [''];

function pad(depth: number): string {
  let p = pads[depth];
  if (p === undefined) p = pads[depth] = STEP.repeat(depth);
  return p;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function scalar(v: unknown): string {
  // Strings, numbers (NaN and infinities as null), booleans and null, as JSON writes them.
  return JSON.stringify(v) ?? 'null';
}

function object(o: Record<string, unknown>, depth: number): string {
  let out = '';
  const inner = pad(depth + 1);
  for (const key in o) {
    if (!Object.hasOwn(o, key)) continue;
    const v = o[key];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    out += `${out === '' ? '{\n' : ',\n'}${inner}${JSON.stringify(key)}: ${value(v, depth + 1)}`;
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
  // '/' can only occur inside JSON strings, so escaping it everywhere is safe.
  return value(body, 0).replaceAll('/', '\\/');
}
