// Whether a host's port accepts TCP connections: the check of databases this server has no client
// for. The connection is closed as soon as it is made, nothing is sent and nothing read; the attempt
// ends after `timeoutSeconds` at most.
import net from 'node:net';
import { DatabaseFailure } from './reasons.js';

/** Resolves when `host:port` accepted a connection; rejects with the system's error otherwise. */
export function acceptsConnections(host: string, port: number, timeoutSeconds: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const socket = net.connect({ host, port });
    const timer = setTimeout(() => finish(new DatabaseFailure(`The database at ${host}:${port} did not accept a connection within ${timeoutSeconds} s.`)), timeoutSeconds * 1000);
    timer.unref?.();
    let over = false;
    function finish(err?: unknown): void {
      if (over) return;
      over = true;
      clearTimeout(timer);
      socket.destroy();
      if (err) reject(err);
      else resolve();
    }
    socket.once('connect', () => finish());
    socket.once('error', (err) => finish(err));
    // Nothing is expected from the other side: whatever it sends is dropped.
    socket.on('data', () => {});
  });
}
