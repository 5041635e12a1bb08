// The certificate of the managed servers' HTTPS ports (SSL and administration ports): made once,
// self-signed, for localhost and the loopback addresses, and kept in the data directory (key mode
// 0600) so clients that pin it keep working across restarts. A pair found there is used as it is:
// an operator may put a certificate of their own in its place.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const CERTIFICATE_DIR = 'certificates';
const KEY_FILE = 'listener-key.pem';
const CERT_FILE = 'listener-cert.pem';
/** How long a generated certificate is valid. */
const VALID_DAYS = 825;

export interface Certificate {
  key: string;
  cert: string;
}

/** A function giving the data directory's certificate, generating it on first use (concurrent callers share one). */
export function certificateSource(dataDir: string): () => Promise<Certificate> {
  let pending: Promise<Certificate> | undefined;
  return () => {
    pending ??= loadOrCreate(resolve(dataDir)).catch((err: unknown) => {
      pending = undefined;
      throw new Error(`the certificate of the HTTPS ports could not be made: ${(err as Error).message}`);
    });
    return pending;
  };
}

async function loadOrCreate(dataDir: string): Promise<Certificate> {
  const dir = join(dataDir, CERTIFICATE_DIR);
  const keyFile = join(dir, KEY_FILE);
  const certFile = join(dir, CERT_FILE);
  if (existsSync(keyFile) && existsSync(certFile)) return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8') };
  // The generator (a large library) is loaded only when a certificate is made, not at every start.
  const { generate } = await import('selfsigned');
  const notBeforeDate = new Date();
  const pems = await generate([{ name: 'commonName', value: 'localhost' }, { name: 'organizationName', value: 'appserver-admin' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate: new Date(notBeforeDate.getTime() + VALID_DAYS * 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }, { type: 7, ip: '::1' }] },
    ],
  });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(keyFile, pems.private, { mode: 0o600 });
  writeFileSync(certFile, pems.cert, { mode: 0o644 });
  return { key: pems.private, cert: pems.cert };
}
