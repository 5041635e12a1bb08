// The query parameters that shape a GET response: fields, excludeFields, links, excludeLinks.

export interface Shape {
  /** Only these properties (identity counts as one). */
  fields?: ReadonlySet<string>;
  excludeFields?: ReadonlySet<string>;
  /** Only these link rels; `none` drops the `links` key altogether. */
  links?: ReadonlySet<string> | 'none';
  excludeLinks?: ReadonlySet<string>;
}

const EMPTY: Shape = {};

function list(value: unknown, name: string): Set<string> | undefined {
  if (value === undefined) return undefined;
  const joined = Array.isArray(value) ? value.join(',') : value;
  if (typeof joined !== 'string') throw badRequest(`The query parameter '${name}' must be a comma-separated list.`, name);
  return new Set(joined.split(',').map((s) => s.trim()).filter((s) => s.length > 0));
}

/** Reads the shaping parameters of a request's query string. */
export function parseShape(query: Record<string, unknown>): Shape {
  const { fields, excludeFields, links, excludeLinks } = query;
  if (fields === undefined && excludeFields === undefined && links === undefined && excludeLinks === undefined) return EMPTY;
  if (fields !== undefined && excludeFields !== undefined) {
    throw badRequest("The query parameters 'fields' and 'excludeFields' cannot be used together.", 'excludeFields');
  }
  if (links !== undefined && excludeLinks !== undefined) {
    throw badRequest("The query parameters 'links' and 'excludeLinks' cannot be used together.", 'excludeLinks');
  }
  const shape: { -readonly [K in keyof Shape]: Shape[K] } = {};
  const f = list(fields, 'fields');
  if (f) shape.fields = f;
  const ef = list(excludeFields, 'excludeFields');
  if (ef) shape.excludeFields = ef;
  const l = list(links, 'links');
  if (l) shape.links = l.size === 1 && l.has('none') ? 'none' : l;
  const el = list(excludeLinks, 'excludeLinks');
  if (el) shape.excludeLinks = el;
  return shape;
}

export function wantsField(shape: Shape, name: string): boolean {
  if (shape.fields) return shape.fields.has(name);
  if (shape.excludeFields) return !shape.excludeFields.has(name);
  return true;
}

export function wantsLinks(shape: Shape): boolean {
  return shape.links !== 'none';
}

export function wantsRel(shape: Shape, rel: string): boolean {
  if (shape.links === 'none') return false;
  if (shape.links) return shape.links.has(rel);
  if (shape.excludeLinks) return !shape.excludeLinks.has(rel);
  return true;
}import { badRequest } from '../core/problems.js';

