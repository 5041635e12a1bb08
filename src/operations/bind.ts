// Binding an invocation: the overload is the one whose parameter names are exactly the body's keys,
// each argument is converted to its declared type, and a result becomes the answer's JSON.
// Pure functions: no service, no I/O.
import { badRequest, invalid } from '../core/problems.js';
import type { OperationDef } from '../catalog/model.js';
import type { OverlayOverload, OverlayParam } from '../catalog/overlay-format.js';
import { type Coerced, decimalValue, integerValue, propertiesValue, stringValue } from '../config/coerce.js';
import { parseReference } from '../core/identity.js';

const SCALAR_NAMES: Record<string, string> = {
  'java.lang.String': 'string',
  boolean: 'boolean',
  'java.lang.Boolean': 'boolean',
  int: 'int',
  'java.lang.Integer': 'int',
  long: 'long',
  'java.lang.Long': 'long',
  double: 'double',
  'java.util.Properties': '{key: string}',
  'java.util.Map': '{key: string}',
};

/** How a parameter's type is written in messages: a scalar name, `reference`, or `[...]` for arrays. */
export function typeLabel(p: OverlayParam): string {
  const base = SCALAR_NAMES[p.type] ?? 'reference';
  return p.array ? `[${base}]` : base;
}

export function signature(op: { name: string }, o: OverlayOverload): string {
  return `${op.name}(${o.params.map((p) => `${p.name}: ${typeLabel(p)}`).join(', ')})`;
}

/** Most argument names a refusal repeats (a body of 10,000 keys is not sent back whole). */
const MAX_NAMED_KEYS = 20;

export interface Bound {
  overload: OverlayOverload;
  args: Record<string, unknown>;
}

/** Picks the overload whose parameter names are exactly the body's keys, and converts the arguments. */
export function bindArguments(op: Pick<OperationDef, 'name' | 'overloads'>, body: Record<string, unknown>): Bound {
  const keys = Object.keys(body).sort();
  const overload = op.overloads.find((o) => {
    const names = o.params.map((p) => p.name).sort();
    return names.length === keys.length && names.every((n, i) => n === keys[i]);
  });
  if (!overload) {
    const valid = op.overloads.map((o) => signature(op, o)).join(', ');
    const named = keys.length > MAX_NAMED_KEYS ? `${keys.slice(0, MAX_NAMED_KEYS).join(', ')} and ${keys.length - MAX_NAMED_KEYS} more` : keys.join(', ');
    const sent = keys.length === 0 ? 'no arguments' : `the arguments ${named}`;
    throw badRequest(`The action '${op.name}' was called with ${sent}; valid signatures are: ${valid}.`);
  }
  const problems: { path: string; detail: string }[] = [];
  const args: Record<string, unknown> = {};
  for (const p of overload.params) {
    const r = convertArgument(p, body[p.name]);
    if ('problem' in r) problems.push({ path: p.name, detail: `The argument '${p.name}' of '${op.name}' ${r.problem}.` });
    else args[p.name] = r.value;
  }
  if (problems.length > 0) throw invalid(problems);
  return { overload, args };
}

/** Converts one argument to its declared type; null stays null (handlers say when one is required). */
export function convertArgument(p: OverlayParam, value: unknown): { value: unknown } | { problem: string } {
  if (value === null || value === undefined) return { value: null };
  if (p.array) {
    if (!Array.isArray(value)) return { problem: `must be a JSON array` };
    const out: unknown[] = [];
    for (const v of value) {
      const r = convertArgument({ ...p, array: false }, v);
      if ('problem' in r) return r;
      out.push(r.value);
    }
    return { value: out };
  }
  // The same rules as configuration values: no number taken for a string, no NUL, no lone
  // surrogate, no string over 64 KiB (users' descriptions and the like are stored).
  const checked = (r: Coerced) => (r.ok ? { value: r.value } : { problem: r.problem });
  switch (SCALAR_NAMES[p.type]) {
    case 'string':
      return checked(stringValue(value));
    case 'boolean':
      if (typeof value === 'boolean') return { value };
      return value === 'true' || value === 'false' ? { value: value === 'true' } : { problem: 'must be true or false' };
    case 'int':
    case 'long':
      return checked(integerValue(value, SCALAR_NAMES[p.type] as 'int' | 'long'));
    case 'double':
      return checked(decimalValue(value));
    case '{key: string}':
      return checked(propertiesValue(value));
    default: {
      const id = parseReference(value);
      return id ? { value: id } : { problem: 'must be a reference (an identity array such as ["servers", "ms1"])' };
    }
  }
}

/**
 * The JSON answer of a completed operation: `{}` for void, `{"return": value}` otherwise; bean
 * arrays are returned as identities. `isBeanType` says whether a return type names a bean type.
 */
export function resultBody(overload: OverlayOverload, value: unknown, isBeanType: (type: string) => boolean): Record<string, unknown> {
  if (overload.returns === 'void') return {};
  if (isBeanType(overload.returns) && overload.returnsArray && Array.isArray(value)) return { return: value.map((identity) => ({ identity })) };
  return { return: value ?? null };
}
