// Identities and keys. A bean's identity is the list of path segments that names it below its
// tree's root (`["servers", "ms1"]`); its key is the same list joined with '/', each segment
// percent-encoded, so keys compare and sort as strings and a subtree is a key prefix.
import { LONE_SURROGATE } from './text.js';

export type Identity = readonly string[];

export const ROOT_KEY = '';

export function segmentKey(segment: string): string {
  return encodeURIComponent(segment);
}

/**
 * The key as one flat string. Joining strings makes a chain of pieces that the engine keeps beside
 * the flat copy it makes when the key is first hashed: trees hold hundreds of thousands of keys,
 * and the chains would double what they cost. A key never starts or ends with white space
 * (segments are percent-encoded), so trimming changes nothing but the string's layout.
 */
function flat(key: string): string {
  return key.trim();
}

/** Key of a child (singleton or collection) of the bean at `parentKey`. */
export function childKey(parentKey: string, prop: string): string {
  return parentKey === ROOT_KEY ? prop : flat(`${parentKey}/${prop}`);
}

/** Key of the item `name` of the collection at `collectionKey`. */
export function itemKey(collectionKey: string, name: string): string {
  return flat(`${collectionKey}/${segmentKey(name)}`);
}

/** Key of the bean with this identity. */
export function keyOfIdentity(identity: Identity): string {
  return identity.map(segmentKey).join('/');
}

/** The identity a key stands for. */
export function identityOfKey(key: string): string[] {
  return key === ROOT_KEY ? [] : key.split('/').map((s) => decodeURIComponent(s));
}

/** How deep a key lies below the root (the root is 0). */
export function depthOfKey(key: string): number {
  return key === ROOT_KEY ? 0 : key.split('/').length;
}

/** The key one segment up (the collection for an item, the owner for a singleton or collection). */
export function upKey(key: string): string {
  const i = key.lastIndexOf('/');
  return i < 0 ? ROOT_KEY : key.slice(0, i);
}

/** Key of the bean owning a bean: two segments up for items, one for singletons. */
export function ownerKey(key: string, collectionKey: string | null): string {
  return collectionKey !== null ? upKey(collectionKey) : upKey(key);
}

/** True when `key` is `ancestor` or lies below it. */
export function isWithin(key: string, ancestor: string): boolean {
  return ancestor === ROOT_KEY || key === ancestor || key.startsWith(`${ancestor}/`);
}

/** The last segment of a key, decoded (an item's name, or a singleton's property). */
export function lastSegment(key: string): string {
  return decodeURIComponent(key.slice(key.lastIndexOf('/') + 1));
}

/** An identity as messages show it: `["servers","ms1"]`. */
export function describeIdentity(identity: Identity): string {
  return JSON.stringify(identity);
}

/** A key as messages show it (its identity). */
export function describeKey(key: string): string {
  return describeIdentity(identityOfKey(key));
}

/** Whether two identities name the same bean. */
export function sameIdentity(a: Identity, b: Identity): boolean {
  return a.length === b.length && a.every((s, i) => s === b[i]);
}

/**
 * A reference as clients send it: an identity array (`["servers", "ms1"]`) or an object holding
 * one (`{"identity": [...]}`, as reads show references). Undefined when it is neither, or when a
 * segment is not valid Unicode (a lone surrogate can name no bean).
 */
export function parseReference(value: unknown): string[] | undefined {
  const ids = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as { identity?: unknown }).identity : value;
  if (!Array.isArray(ids) || ids.length === 0 || !ids.every((s) => typeof s === 'string' && !LONE_SURROGATE.test(s))) return undefined;
  return ids as string[];
}
