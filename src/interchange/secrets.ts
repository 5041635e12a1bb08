// Encrypted properties on their way in and out. In the domain they are sealed with its key
// (`{$sealed}`), or kept as they came when sealed with a key this server does not have
// (`{$opaque: "{AES256}..."}`). In files they are written
// - sealed with this domain's key: `{APPSERVER-AES256-GCM}<base64>` (the default; only a server
//   given the same key can open them), or as a placeholder `@@SECRET:<where>@@` to be supplied;
// - sealed by another key (`{AES256}...`, `{AES}...`): as they came;
// and never in clear.
import type { Sealed, Secrets } from '../config/secrets.js';
import { isSealed } from '../config/secrets.js';

export const OWN_PREFIX = '{APPSERVER-AES256-GCM}';

/** A value sealed with a key this server does not have, kept as it came. */
export interface Opaque {
  $opaque: string;
}

export function isOpaque(value: unknown): value is Opaque {
  return value !== null && typeof value === 'object' && typeof (value as Opaque).$opaque === 'string';
}

/** What imports do with values sealed by another key. */
export type ForeignSecrets = 'keep' | 'placeholder';

/** How exports write the secrets this domain sealed. */
export type SecretOutput = 'sealed' | 'placeholder';

/** A placeholder token, as the deploy tooling writes them: `@@SECRET:name:key@@`, `@@PROP:x@@`. */
const TOKEN = /^@@[A-Za-z]+:[^@]*@@$/;
/** A value sealed by some product key: `{AES256}...`, `{AES}...`, `{3DES}...`. */
const FOREIGN = /^\{[A-Za-z0-9-]{2,32}\}\S+$/;

export function isPlaceholder(text: string, placeholder?: string): boolean {
  return TOKEN.test(text) || (placeholder !== undefined && text === placeholder);
}

/** What an encrypted value read from a file becomes. */
export type SecretIn =
  | { kind: 'sealed'; value: Sealed }
  | { kind: 'opaque'; value: Opaque }
  | { kind: 'placeholder-kept'; value: Sealed }
  | { kind: 'to-supply' }
  | { kind: 'clear'; value: Sealed };

export interface SecretReading {
  secrets: Secrets;
  foreign: ForeignSecrets;
  /** Text put in place of a foreign secret with `foreign: 'placeholder'`. */
  placeholder: string;
}

export function readSecret(text: string, opts: SecretReading): SecretIn {
  if (isPlaceholder(text)) return { kind: 'to-supply' };
  if (text.startsWith(OWN_PREFIX)) {
    const sealed = { $sealed: text.slice(OWN_PREFIX.length) };
    try {
      opts.secrets.open(sealed);
      return { kind: 'sealed', value: sealed };
    } catch {
      // Sealed by another appserver domain: as foreign as any other key.
    }
  }
  if (text.startsWith(OWN_PREFIX) || FOREIGN.test(text)) {
    return opts.foreign === 'keep' ? { kind: 'opaque', value: { $opaque: text } } : { kind: 'placeholder-kept', value: opts.secrets.seal(opts.placeholder) };
  }
  return { kind: 'clear', value: opts.secrets.seal(text) };
}

/** The text an export writes for a stored encrypted value, or undefined for a value it cannot write. */
export function writeSecret(value: unknown, output: SecretOutput, where: string): string | undefined {
  if (isOpaque(value)) return value.$opaque;
  if (isSealed(value)) return output === 'sealed' ? `${OWN_PREFIX}${value.$sealed}` : `@@SECRET:${where}@@`;
  return undefined;
}

/** Reseals what one key sealed with another (an import made before the domain's key was settled). */
export function reseal(value: unknown, from: Secrets, to: Secrets): unknown {
  return isSealed(value) ? to.seal(from.open(value)) : value;
}
