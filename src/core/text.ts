// Facts about text that several layers check.

/** Half of a surrogate pair without its other half: not a character at all. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Characters a bean name may not hold: they would break URLs, identities or object names. */
const BAD_NAME = /[/\\,=:*?"<>|%\u0000-\u001f\u007f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/u;

/** Why a name cannot name a bean, or undefined when it can. */
export function nameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string') return `must be a string, not ${JSON.stringify(name)}`;
  if (name.length === 0) return 'must not be empty';
  if (name.trim() !== name) return `must not begin or end with white space: ${JSON.stringify(name)}`;
  if (name === '.' || name === '..') return `may not be '${name}'`;
  if (name.length > 256) return 'must be at most 256 characters long';
  if (LONE_SURROGATE.test(name)) return 'is not valid Unicode (it holds a lone surrogate)';
  const bad = BAD_NAME.exec(name);
  if (bad) return `contains the character ${JSON.stringify(bad[0])}, which names may not hold`;
  return undefined;
}
