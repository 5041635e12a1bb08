// Requests written byte by byte on a socket, for what fetch cannot send: multipart bodies with any
// part names and order, bodies cut short, clients that go away in the middle, `Expect: 100-continue`
// to know the server has taken a request in before the body is sent.
import net from 'node:net';

export interface Part {
  name: string;
  /** Makes it a file part. */
  filename?: string;
  contentType?: string;
  data: string | Buffer;
}

export const BOUNDARY = 'appserver-test-boundary-7d9';

/** A multipart/form-data body of these parts, in this order. */
export function multipartBody(parts: Part[], boundary = BOUNDARY): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
    const type = p.contentType ?? (p.filename !== undefined ? 'application/octet-stream' : undefined);
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type ? `Content-Type: ${type}\r\n` : ''}\r\n`));
    chunks.push(Buffer.isBuffer(p.data) ? p.data : Buffer.from(p.data));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
  json: any;
}

/** The head of a request (request line and headers, blank line included). */
export function head(method: string, path: string, headers: Record<string, string | number>): string {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** Parses the first final (non-1xx) answer in the bytes a server sent. */
export function parseAnswer(raw: string): RawAnswer | undefined {
  let rest = raw;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0);
    if (status >= 100 && status < 200) {
      rest = rest.slice(end + 4);
      continue;
    }
    const headers: Record<string, string> = {};
    for (const l of lines) {
      const i = l.indexOf(':');
      if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
    }
    const length = Number(headers['content-length'] ?? NaN);
    const body = rest.slice(end + 4);
    if (Number.isFinite(length) && Buffer.byteLength(body) < length) return undefined;
    const text = Number.isFinite(length) ? Buffer.from(body).subarray(0, length).toString('utf8') : body;
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status, headers, text, json };
  }
}

/**
 * Sends `head` then `body` (which may be shorter than the length it declares) and resolves with the
 * server's first final answer; `end` half-closes the connection after the body. Resolves with
 * status 0 when the connection closes with no answer.
 */
export function exchange(port: number, requestHead: string, body?: Buffer, opts: { end?: boolean } = {}): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let raw = '';
    let done = false;
    const finish = (a: RawAnswer) => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve(a);
    };
    socket.on('data', (d) => {
      raw += d.toString('latin1');
      const a = parseAnswer(raw);
      if (a) finish(a);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => finish(parseAnswer(raw) ?? { status: 0, headers: {}, text: raw, json: undefined }));
    socket.write(requestHead);
    if (body) socket.write(body);
    if (opts.end) socket.end();
  });
}

/**
 * Sends `head` (which should ask `Expect: 100-continue`), waits until the server has taken the
 * request in (its `100 Continue`, or an early final answer), writes `partial`, and returns the open
 * socket with what the server sent so far.
 */
export function begin(port: number, requestHead: string, partial?: Buffer): Promise<{ socket: net.Socket; answer: () => RawAnswer | undefined }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let raw = '';
    let started = false;
    socket.on('error', (err) => {
      if (!started) reject(err);
    });
    socket.on('data', (d) => {
      raw += d.toString('latin1');
      if (!started && /^HTTP\/1\.1 \d{3}/.test(raw) && raw.includes('\r\n\r\n')) {
        started = true;
        if (partial && !parseAnswer(raw)) socket.write(partial);
        resolve({ socket, answer: () => parseAnswer(raw) });
      }
    });
    socket.write(requestHead);
  });
}
