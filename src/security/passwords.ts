// Password hashing with scrypt (memory-hard), in a self-describing string so parameters can change later.
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

const N = 16384;
const R = 8;
const P = 1;
const KEY_LEN = 32;

/** Key derivations computed by this process (hashes made and passwords checked). */
export const hashing = { computations: 0 };

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  hashing.computations++;
  return new Promise((resolve, reject) => {
    scrypt(password, salt, KEY_LEN, { N: n, r, p, maxmem: 64 * 1024 * 1024 }, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** `scrypt$N$r$p$salt$hash`, base64 parts. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, N, R, P);
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await derive(password, Buffer.from(salt, 'base64'), Number(n), Number(r), Number(p));
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** True for a hash this server makes: scrypt with the current parameters, a 16-byte salt and a 32-byte key. */
export function isPasswordHash(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const [scheme, n, r, p, salt, key, ...rest] = value.split('$');
  const bytes = (b64: string | undefined) => (b64 !== undefined && /^[A-Za-z0-9+/]+={0,2}$/.test(b64) ? Buffer.from(b64, 'base64').length : -1);
  return scheme === 'scrypt' && n === String(N) && r === String(R) && p === String(P) && bytes(salt) === 16 && bytes(key) === KEY_LEN && rest.length === 0;
}

/**
 * A hash with the current parameters that no password matches (random salt and key): checking a
 * password against it costs what checking a real user's does.
 */
export function unmatchableHash(): string {
  return `scrypt$${N}$${R}$${P}$${randomBytes(16).toString('base64')}$${randomBytes(KEY_LEN).toString('base64')}`;
}

/** A readable random password for a new domain's first administrator. */
export function generatePassword(): string {
  return randomBytes(12).toString('base64url');
}
