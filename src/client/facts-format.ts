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

/** The deploy tooling's model, as far as the type facts do not tell it (generated/model-format.ts). */
export interface ModelFormatData {
  /** Domain children written in the `resources` section. */
  resources: string[];
  /** Domain children written in the `appDeployments` section (the rest go to `topology`). */
  appDeployments: string[];
  /** Child collections whose model folder is not their singular (`appDeployments` -> `Application`). */
  folders: Record<string, string>;
  /** Base types of each configuration type. */
  ancestors: Record<string, string[]>;
  /** Per type and child collection: the types it may create, its default first (only where that is not just its declared type). */
  creators: Record<string, Record<string, string[]>>;
}
