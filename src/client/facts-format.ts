// Shape of the generated type facts (generated/facts.ts), read by `describe` when the server offers
// no description of its own. Compact rows keep the file small.

/** [name, Java type, flags, default?, legal values?]. Flags: w writable, k key, r restart needed,
 *  s secret, a array, @ reference, d default derived at run time. */
export type PropertyFact = [string, string, string, unknown?, unknown[]?];
/** [name, type of its beans, c collection | s singleton | o optional singleton]. */
export type ChildFact = [string, string, 'c' | 's' | 'o'];
/** [name, overloads (each a list of `name:type`), roles besides Admin allowed to invoke it, 1 if it returns a task]. */
export type ActionFact = [string, string[][], string[], 0 | 1];

export interface TypeFacts {
  /** The `type` field of its beans. */
  s: string;
  k: 'config' | 'runtime' | 'security' | 'descriptor' | 'rest';
  /** Non-Admin roles allowed to read it. */
  r: string[];
  p: PropertyFact[];
  c: ChildFact[];
  a: ActionFact[];
}
