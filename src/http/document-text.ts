// JSON and YAML text of a large document (the OpenAPI document: megabytes), written a part at a
// time with a pause between parts, so that other requests are answered while it is written. The
// YAML is block style with JSON-escaped quoted strings where a plain scalar would be read back as
// something else; a document of plain objects, arrays, strings, numbers, booleans and null reads
// back the same with any YAML 1.2 parser.

/** Lets other work run (called when a slice has taken its share of time). */
export type Pause = () => Promise<void>;

export const nextTurn: Pause = () => new Promise((resolve) => setImmediate(resolve));

/** Time a slice may take before it pauses, in milliseconds. */
const SLICE_MS = 15;

class Slicer {
  private since = performance.now();
  constructor(private readonly pause: Pause) {}
  async maybe(): Promise<void> {
    if (performance.now() - this.since < SLICE_MS) return;
    await this.pause();
    this.since = performance.now();
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The document as compact JSON; objects down to `depth` levels are written entry by entry. */
export async function jsonText(doc: unknown, pause: Pause = nextTurn, depth = 3): Promise<string> {
  const out: string[] = [];
  const slicer = new Slicer(pause);
  const write = async (value: unknown, left: number): Promise<void> => {
    if (left === 0 || !isObject(value)) {
      out.push(JSON.stringify(value) ?? 'null');
      await slicer.maybe();
      return;
    }
    out.push('{');
    let first = true;
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined) continue;
      out.push(first ? '' : ',', JSON.stringify(k), ':');
      first = false;
      await write(v, left - 1);
    }
    out.push('}');
  };
  await write(doc, depth);
  return out.join('');
}

const RESERVED = /^(true|false|null|yes|no|on|off|y|n|~)$/i;
const PLAIN = /^[A-Za-z_][A-Za-z0-9_ .()/'+-]*$/;

/** A string as a YAML scalar: plain when it cannot be misread, else double-quoted with JSON escapes. */
function yamlString(s: string): string {
  if (PLAIN.test(s) && !RESERVED.test(s) && !s.endsWith(' ') && !s.includes(' #') && !s.includes(': ')) return s;
  return JSON.stringify(s);
}

function yamlScalar(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return yamlString(v);
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'null';
  if (typeof v === 'boolean') return String(v);
  return JSON.stringify(v) ?? 'null';
}

/** Empty collections and scalars fit on the key's line. */
function inline(v: unknown): string | undefined {
  if (Array.isArray(v)) return v.length === 0 ? '[]' : undefined;
  if (isObject(v)) return Object.keys(v).length === 0 ? '{}' : undefined;
  return yamlScalar(v);
}

/** The document as block-style YAML. */
export async function yamlText(doc: unknown, pause: Pause = nextTurn): Promise<string> {
  const out: string[] = [];
  const slicer = new Slicer(pause);
  const write = async (value: unknown, indent: string): Promise<void> => {
    if (Array.isArray(value)) {
      for (const item of value) {
        const one = inline(item);
        if (one !== undefined) out.push(`${indent}- ${one}\n`);
        else {
          out.push(`${indent}-\n`);
          await write(item, `${indent}  `);
        }
      }
    } else if (isObject(value)) {
      for (const [k, v] of Object.entries(value)) {
        if (v === undefined) continue;
        const one = inline(v);
        if (one !== undefined) out.push(`${indent}${yamlString(k)}: ${one}\n`);
        else {
          out.push(`${indent}${yamlString(k)}:\n`);
          await write(v, `${indent}  `);
        }
      }
    } else {
      out.push(`${indent}${yamlScalar(value)}\n`);
    }
    await slicer.maybe();
  };
  const top = inline(doc);
  if (top !== undefined) return `${top}\n`;
  await write(doc, '');
  return out.join('');
}
