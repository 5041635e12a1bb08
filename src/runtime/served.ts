// Requests each managed server's own listener answered: the real work the workload model adds to
// its figures (thread pool completions, channel messages and bytes). Kept in memory per process:
// counters of a server start again when it starts again, as a real server's do.
import { NOTHING_SERVED, type Served } from './workload.js';

export class ServedRequests {
  private readonly counts = new Map<string, Served>();
  /** Requests answered by every listener so far (moves whenever a figure that counts them moves). */
  total = 0;

  /** One request answered by `server`'s listener, with the bytes it received and sent. */
  count(server: string, bytesReceived: number, bytesSent: number): void {
    const c = this.counts.get(server) ?? { requests: 0, bytesReceived: 0, bytesSent: 0 };
    c.requests++;
    this.total++;
    c.bytesReceived += Math.max(0, bytesReceived);
    c.bytesSent += Math.max(0, bytesSent);
    this.counts.set(server, c);
  }

  /** What `server` has served since it started (a copy). */
  of(server: string): Served {
    const c = this.counts.get(server);
    return c ? { ...c } : NOTHING_SERVED;
  }

  /** The server stopped: its counters start again with its next start. */
  forget(server: string): void {
    this.counts.delete(server);
  }
}
