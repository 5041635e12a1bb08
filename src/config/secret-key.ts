// The key that seals encrypted properties lives outside the store: in APPSERVER_SECRET_KEY, or in a
// key file (default `<data dir>/secret.key`, mode 0600). The store keeps only a check value of the
// key (an HMAC of a fixed text), so a server given the wrong key refuses to start instead of failing
// later when it opens a secret. Stores written before this kept the key itself in their meta table:
// it is moved out on the first start.
import { closeSync, constants, fstatSync, fsyncSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { dirname } from 'node:path';
import type { Store } from '../store/store.js';

/** Meta entry of stores made before the key moved out: the key itself. */
const LEGACY_META = 'secretKey';
/** Meta entry holding the key's check value. */
const CHECK_META = 'secretKeyCheck';
const CHECK_TEXT = 'appserver-admin secret key check';
export const SECRET_KEY_ENV = 'APPSERVER_SECRET_KEY';
const HOW_TO_MAKE = 'openssl rand -base64 32';

/** Where this server looks for the key. */
export interface SecretKeySource {
  /** The key as base64 (from APPSERVER_SECRET_KEY); when set, the key file is not used. */
  value?: string;
  /** The key file: read if it exists, written (mode 0600) when a key has to be made or moved out of the store. */
  file: string;
  /** True when the file was named (--secret-key-file), false for the default in the data directory. */
  fileNamed?: boolean;
}

export interface GivenKey {
  key: Buffer;
  /** Where it came from, for messages. */
  from: string;
}

/**
 * The key the server was given, or undefined (no variable, no file). Read before anything is
 * created: a malformed key or key file stops the start first.
 */
export function givenKey(source: SecretKeySource, warn: (message: string) => void): GivenKey | undefined {
  if (source.value !== undefined) return { key: parseKey(source.value, SECRET_KEY_ENV), from: SECRET_KEY_ENV };
  const text = readKeyFile(source.file, warn);
  return text === undefined ? undefined : { key: parseKey(text, source.file), from: source.file };
}

/**
 * The key of the domain in `store`, settled against what the store says:
 * - the store holds the key itself (made before the key moved out): it goes to the key file (unless
 *   given in the environment) and leaves the store, replaced by its check value;
 * - the store holds a check value: the given key must match it;
 * - the store holds neither (a new domain): the given key is adopted, or a new one is made and
 *   written to the key file; its check value goes to the store.
 */
export async function settleSecretKey(store: Store, source: SecretKeySource, given: GivenKey | undefined): Promise<Buffer> {
  const legacy = await store.getMeta(LEGACY_META);
  const check = await store.getMeta(CHECK_META);
  if (legacy !== undefined) {
    const key = Buffer.from(legacy, 'base64');
    if (key.length !== 32) throw new Error(`${store.description} holds a damaged secret key (${key.length} bytes instead of 32); restore the store from a backup.`);
    if (check !== undefined && !sameCheck(check, key)) {
      throw new Error(`${store.description} holds a secret key that does not match its check value: an older version of appserver-admin changed it. Restore the store from a backup.`);
    }
    if (given && !given.key.equals(key)) {
      throw new Error(
        `${store.description} was written by an earlier version and holds its own secret key, which is not the key in ${given.from}. ` +
          (given.from === SECRET_KEY_ENV
            ? `Start once without ${SECRET_KEY_ENV}: the store's key then goes to the key file ${source.file}; use that key from then on.`
            : `Move ${given.from} away and start once: the store's key then goes to that file; use that key from then on.`),
      );
    }
    if (!given) writeKeyFile(source.file, key);
    await store.replaceMeta({ [CHECK_META]: checkOf(key) }, [LEGACY_META]);
    return key;
  }
  if (check !== undefined) {
    if (!given) throw new Error(missingKey(store, source));
    if (!sameCheck(check, given.key)) throw new Error(wrongKey(store, given));
    return given.key;
  }
  const key = given?.key ?? randomBytes(32);
  const wrote = !given && writeKeyFile(source.file, key);
  const inForce = await store.initMeta(CHECK_META, checkOf(key));
  if (!sameCheck(inForce, key)) {
    // Another server made the domain's key first, and this one was not given it.
    if (wrote) unlinkSync(source.file);
    throw new Error(given ? wrongKey(store, given) : missingKey(store, source));
  }
  return key;
}

/** Whether `key` is the key whose check value the store holds (meta `secretKeyCheck`). */
export function keyMatchesCheck(check: string, key: Buffer): boolean {
  return sameCheck(check, key);
}

function checkOf(key: Buffer): string {
  return createHmac('sha256', key).update(CHECK_TEXT).digest('base64');
}

function sameCheck(check: string, key: Buffer): boolean {
  const a = Buffer.from(check, 'base64');
  const b = Buffer.from(checkOf(key), 'base64');
  return a.length === b.length && timingSafeEqual(a, b);
}

function parseKey(text: string, where: string): Buffer {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/.test(trimmed)) {
    throw new Error(`${where} does not hold a secret key: it must be the base64 of 32 random bytes on one line (make one with: ${HOW_TO_MAKE}).`);
  }
  return Buffer.from(trimmed, 'base64');
}

/** The text of a key file, or undefined if there is none. A key file is small and regular. */
function readKeyFile(file: string, warn: (message: string) => void): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`cannot read the secret key file ${file}: ${(err as Error).message}`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new Error(`the secret key file ${file} is not a regular file.`);
    if (stat.size > 1024) throw new Error(`the secret key file ${file} is ${stat.size} bytes long: it must hold one line, the base64 of 32 bytes.`);
    if ((stat.mode & 0o077) !== 0) warn(`the secret key file ${file} can be read or changed by other accounts (mode ${mode(stat.mode)}): chmod 600 ${file}`);
    const buf = Buffer.alloc(1025);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** Writes a new key file, mode 0600, durably. Returns true; refuses to replace an existing file. */
export function writeKeyFile(file: string, key: Buffer): true {
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new Error(`the secret key file ${file} appeared while this server was starting; start it again.`);
    throw new Error(`cannot write the secret key file ${file}: ${(err as Error).message}`);
  }
  try {
    writeSync(fd, `${key.toString('base64')}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  syncDir(dirname(file));
  return true;
}

/** Makes a new directory entry durable (best effort: not every platform can open a directory). */
export function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Nothing more can be done here.
  }
}

function mode(m: number): string {
  return (m & 0o777).toString(8).padStart(4, '0');
}

function missingKey(store: Store, source: SecretKeySource): string {
  return (
    `${store.description} holds a domain whose passwords are sealed with a secret key this server was not given ` +
    `(no ${SECRET_KEY_ENV}, and no key file ${source.file}). Give it the domain's key: copy the key file of the server ` +
    `that created the domain (secret.key in its data directory) to ${source.file} with mode 0600` +
    `${source.fileNamed ? '' : ', or name it with --secret-key-file'}, or set ${SECRET_KEY_ENV} to its content.`
  );
}

function wrongKey(store: Store, given: GivenKey): string {
  return (
    `the secret key in ${given.from} is not the key the passwords of ${store.description} are sealed with. ` +
    `Give this server the domain's key (the key file of the server that created the domain, or the ${SECRET_KEY_ENV} it was given).`
  );
}
