// Encrypted properties (passwords, pass phrases) are stored sealed with the domain's key
// (AES-256-GCM) and never returned in clear. The key is kept apart from the store: secret-key.ts.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface Sealed {
  $sealed: string;
}

export function isSealed(value: unknown): value is Sealed {
  return value !== null && typeof value === 'object' && typeof (value as Sealed).$sealed === 'string';
}

export class Secrets {
  constructor(private readonly key: Buffer) {}

  seal(clear: string): Sealed {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(clear, 'utf8'), cipher.final()]);
    return { $sealed: Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64') };
  }

  open(sealed: Sealed): string {
    const raw = Buffer.from(sealed.$sealed, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}
