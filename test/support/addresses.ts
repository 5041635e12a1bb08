// Requests from other client addresses of this machine: every 127.x.y.z address is the loopback
// interface on Linux, so a test can be several clients (the server sees each as a TCP peer of its own).
import * as http from 'node:http';
import { jsonOrUndefined } from './answer.js';

export interface AddressedReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: any;
}

/** One request to `url` from the local address `from` (for example 127.0.0.2). */
export function requestFrom(
  from: string,
  url: string,
  init: { method?: string; auth?: string | null; headers?: Record<string, string>; body?: unknown } = {},
): Promise<AddressedReply> {
  const target = new URL(url);
  const body = init.body === undefined ? undefined : Buffer.from(JSON.stringify(init.body));
  const headers: Record<string, string | number> = { accept: 'application/json', ...init.headers };
  if (init.auth) headers.authorization = init.auth;
  if (body) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = body.length;
  }
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, method: init.method ?? 'GET', headers, localAddress: from, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => {
          const json = jsonOrUndefined(text);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
