// Property values as the wire shows them: configured value or default, mapped to JSON.
import type { PropDef } from '../catalog/model.js';
import type { BeanNode } from '../tree/resolve.js';

/** Epoch milliseconds as ISO-8601 with milliseconds and the local offset (2026-04-27T19:02:05.748+02:00). */
export function isoDate(ms: number): string {
  const d = new Date(ms);
  const offsetMin = -d.getTimezoneOffset();
  const local = new Date(ms + offsetMin * 60_000);
  const sign = offsetMin >= 0 ? '+' : '-';
  const abs = Math.abs(offsetMin);
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  return `${local.toISOString().slice(0, 23)}${sign}${hh}:${mm}`;
}

/** The value of a property nobody set. */
export function defaultOf(p: PropDef, node: BeanNode, productionMode: boolean): unknown {
  // The bean's own type, as the wire names it, is never stored as a value (a writable `type` is a
  // property of its own, such as a Lifecycle Manager runtime's).
  if (p.name === 'type' && !p.writable) return node.type.discriminator;
  if (p.name === 'name' && node.parentName !== undefined && !p.hasDefault) return node.parentName;
  if (p.hasDefault) return productionMode && p.productionDefault !== undefined ? p.productionDefault : p.defaultValue;
  return zeroOf(p);
}

export function zeroOf(p: PropDef): unknown {
  if (p.array) return [];
  switch (p.valueKind) {
    case 'int':
    case 'long':
    case 'double':
      return 0;
    case 'boolean':
      return false;
    default:
      return null;
  }
}

/** Maps a stored value to its JSON form. */
export function toWire(p: PropDef, value: unknown): unknown {
  if (value === null || value === undefined) return p.array && p.shape === 'reference' ? [] : (value ?? null);
  if (p.encrypted) return null;
  switch (p.valueKind) {
    case 'bean':
      if (p.array) return (value as string[][]).map((identity) => ({ identity }));
      return value;
    case 'date':
      return typeof value === 'number' ? isoDate(value) : value;
    default:
      return value;
  }
}

/** Value of one field of a bean: live value, else configured value, else default. */
export function fieldValue(
  p: PropDef,
  node: BeanNode,
  live: Record<string, unknown> | undefined,
  productionMode: boolean,
): unknown {
  if (p.encrypted) return null;
  if (live && p.name in live) return toWire(p, live[p.name]);
  const values = node.record?.values;
  if (values && Object.hasOwn(values, p.name)) return toWire(p, values[p.name]);
  return toWire(p, defaultOf(p, node, productionMode));
}
