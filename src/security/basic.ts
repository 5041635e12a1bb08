// Strict decoding of HTTP basic credentials (RFC 7617): canonical base64, valid UTF-8, a colon.
// Anything else is refused, so that one credential has exactly one spelling.

export interface BasicCredentials {
  user: string;
  password: string;
}

/** Longest base64 token accepted (a user name and password of about 3 KiB). */
const MAX_TOKEN = 4096;
const TOKEN = /^[A-Za-z0-9+/]+={0,2}$/;
const SCHEME = /^basic +/i;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Whether an Authorization header uses the Basic scheme. */
export function isBasic(header: string): boolean {
  return SCHEME.test(header) || header.toLowerCase() === 'basic';
}

/** Decodes `Basic <token>`; a problem (for the 401's detail) when the credentials are malformed. */
export function decodeBasic(header: string): BasicCredentials | { problem: string } {
  const m = SCHEME.exec(header);
  const token = m ? header.slice(m[0].length) : '';
  if (token === '') return { problem: 'the Basic credentials are empty' };
  if (token.length > MAX_TOKEN) return { problem: `the Basic credentials are longer than ${MAX_TOKEN} characters` };
  if (!TOKEN.test(token) || token.length % 4 !== 0) return { problem: 'the Basic credentials are not valid base64 (standard alphabet, padded)' };
  const bytes = Buffer.from(token, 'base64');
  // Only the canonical spelling: no stray bits after the last character, no other padding.
  if (bytes.toString('base64') !== token) return { problem: 'the Basic credentials are not canonical base64' };
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { problem: 'the Basic credentials are not valid UTF-8' };
  }
  const colon = text.indexOf(':');
  if (colon < 0) return { problem: "the Basic credentials hold no ':' between user name and password" };
  const user = text.slice(0, colon);
  if (user === '') return { problem: 'the user name in the Basic credentials is empty' };
  if (CONTROL.test(user)) return { problem: 'the user name in the Basic credentials holds control characters' };
  return { user, password: text.slice(colon + 1) };
}
