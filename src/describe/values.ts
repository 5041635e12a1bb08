// How a property's or a parameter's value looks on the wire, said two ways: a short type word for
// the description resource, and a JSON Schema for the OpenAPI document. Both read the catalog's facts.
import type { Catalog } from '../catalog/load.js';
import { valueKindOf } from '../catalog/load.js';
import type { PropDef, TypeDef, ValueKind } from '../catalog/model.js';

/** The short word for a kind of value (`reference` for a bean a property or an argument points at). */
export function kindWord(kind: ValueKind): string {
  switch (kind) {
    case 'bean':
      return 'reference';
    case 'throwable':
      return 'exception';
    default:
      return kind;
  }
}

/** The kind of value a parameter's Java type holds (a bean type is a reference). */
export function parameterKind(catalog: Catalog, javaType: string): ValueKind {
  return catalog.types.has(javaType) ? 'bean' : valueKindOf(javaType, undefined);
}

// Units are not in the type data: they are read from how the product names its properties (a
// suffix such as `Seconds` or `Bytes` on a number). A number without such a suffix has none said.
const UNIT_SUFFIXES: readonly (readonly [RegExp, string])[] = [
  [/(Millis|MilliSeconds|Milliseconds|MilliSecs|InMillis|Msecs|MSecs)$/, 'milliseconds'],
  [/(Nanos|NanoSeconds|Nanoseconds)$/, 'nanoseconds'],
  [/(Seconds|Secs|Sec|InSeconds)$/, 'seconds'],
  [/(Minutes|Mins)$/, 'minutes'],
  [/Hours$/, 'hours'],
  [/Days$/, 'days'],
  [/(Bytes|ByteCount|InBytes)$/, 'bytes'],
  [/(KBytes|Kilobytes|KB|InKB)$/, 'kilobytes'],
  [/(MBytes|Megabytes|MB|InMB)$/, 'megabytes'],
  [/(Percent|Percentage)$/, 'percent'],
];

/** The unit of a numeric property, when its name says it. */
export function unitOf(p: Pick<PropDef, 'name' | 'valueKind'>): string | undefined {
  if (p.valueKind !== 'int' && p.valueKind !== 'long' && p.valueKind !== 'double') return undefined;
  for (const [suffix, unit] of UNIT_SUFFIXES) if (suffix.test(p.name)) return unit;
  return undefined;
}

type Schema = Record<string, unknown>;

/** `#/components/schemas/<name>` */
export const schemaRef = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

/** The JSON Schema of one value of a kind (not an array of them). */
export function kindSchema(kind: ValueKind): Schema {
  switch (kind) {
    case 'string':
      return { type: ['string', 'null'] };
    case 'int':
      return { type: 'integer', format: 'int32' };
    case 'long':
      return { type: 'integer', format: 'int64' };
    case 'double':
      return { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'date':
      return { type: ['string', 'null'], format: 'date-time' };
    case 'properties':
      return { type: ['object', 'null'], additionalProperties: { type: ['string', 'null'] } };
    case 'health':
      return schemaRef('HealthState');
    case 'bean':
      return schemaRef('Reference');
    case 'throwable':
    case 'object':
      return {};
  }
}

/** The schema of a value of `kind`, or of an array of them. */
export function valueSchema(kind: ValueKind, array: boolean): Schema {
  if (!array) return kindSchema(kind);
  // Several references are shown as objects holding each identity.
  const item = kind === 'bean' ? schemaRef('ReferenceItem') : kindSchema(kind);
  return { type: ['array', 'null'], items: item };
}

/** The schema of one property of a bean type, with what the catalog knows of it. */
export function propertySchema(p: PropDef, writable: boolean): Schema {
  const s: Schema = { ...valueSchema(p.valueKind, p.array) };
  const ref = '$ref' in s;
  // A `$ref` keeps its siblings in OpenAPI 3.1, so facts may sit beside it.
  if (p.legalValues && !ref) s.enum = p.array ? undefined : p.legalValues;
  if (p.legalValues && p.array && !ref) s.items = { ...(s.items as Schema), enum: p.legalValues };
  if (s.enum === undefined) delete s.enum;
  if (p.min !== undefined) s.minimum = p.min;
  if (p.max !== undefined) s.maximum = p.max;
  if (p.hasDefault && !p.encrypted && p.defaultValue !== undefined) s.default = p.defaultValue;
  if (p.encrypted) {
    s.writeOnly = true;
    s.format = 'password';
  } else if (!writable) {
    s.readOnly = true;
  }
  const unit = unitOf(p);
  if (unit) s['x-unit'] = unit;
  if (p.restartNeeded && writable) s['x-restart-needed'] = true;
  if (p.deprecatedIn) s.deprecated = true;
  return s;
}

/** The concrete types a child property may hold: its creators, else the declared type and its subtypes. */
export function childTypes(catalog: Catalog, p: PropDef): TypeDef[] {
  if (p.creators.length > 1) return p.creators.map((name) => catalog.type(name));
  if (p.creators.length === 1) {
    // A lone creator with subtypes is an abstract base (security providers): any subtype is made.
    const t = catalog.type(p.creators[0]!);
    return t.subtypes.length > 0 ? [...t.subtypes] : [t];
  }
  return [catalog.type(p.javaType)];
}
