// Connections of the managed servers' listeners. Each listener takes at most `perListener`
// connections at once, and all of them together at most what the process's descriptor limit leaves
// once `reserve` descriptors are kept for the administration port, its store and its files: idle
// sockets piled on a managed port are refused there and never starve the administration port. A
// connection with no request in progress and no byte read or written for `idleMs` is closed.
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionLimits {
  /** Connections one listener keeps at once (more are closed as they arrive). */
  perListener: number;
  /** Descriptors kept for the administration port and the process's own files. */
  reserve: number;
  /** A connection idle this long (ms), with no request in progress, is closed. */
  idleMs: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = { perListener: 1024, reserve: 1024, idleMs: 30_000 };

/** The process's soft limit of open files (Linux), or undefined when it cannot be read. */
export function descriptorLimit(): number | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    const n = Number(soft);
    return Number.isSafeInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

interface Tracked {
  socket: Socket;
  requests: number;
  bytes: number;
  since: number;
}

/** The connections of every managed listener of the process, counted together. */
export class ManagedConnections {
  /** Connections all managed listeners may hold together. */
  readonly budget: number;
  private readonly open = new Set<Tracked>();
  private readonly bySocket = new WeakMap<Socket, Tracked>();
  private timer: NodeJS.Timeout | undefined;
  /** Connections refused for the caps (for figures and tests). */
  refused = 0;

  constructor(
    readonly limits: ConnectionLimits,
    descriptors: number | undefined = descriptorLimit(),
  ) {
    // Without a known limit, the budget is what the per-listener caps allow of a common 65,536.
    const total = descriptors ?? 65_536;
    this.budget = Math.max(0, total - limits.reserve);
  }

  /** Connections the managed listeners hold now. */
  get count(): number {
    return this.open.size;
  }

  /** Applies the caps and the idle timeout to one listener's server. */
  attach(server: Server): void {
    server.maxConnections = this.limits.perListener;
    server.on('connection', (socket: Socket) => {
      if (this.open.size >= this.budget) {
        this.refused++;
        socket.destroy();
        return;
      }
      const t: Tracked = { socket, requests: 0, bytes: 0, since: performance.now() };
      this.open.add(t);
      this.bySocket.set(socket, t);
      socket.once('close', () => this.open.delete(t));
      this.startSweeping();
    });
    server.on('drop', () => this.refused++);
    server.on('request', (req: { socket: Socket }, res: NodeJS.EventEmitter) => {
      // (An HTTPS request's socket is the TLS layer over the counted one: its bytes still count.)
      const t = this.bySocket.get(req.socket);
      if (!t) return;
      t.requests++;
      res.once('close', () => {
        t.requests--;
        t.since = performance.now();
      });
    });
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private startSweeping(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.sweep(), Math.max(50, Math.min(1000, Math.floor(this.limits.idleMs / 4))));
    this.timer.unref();
  }

  private sweep(): void {
    const now = performance.now();
    for (const t of this.open) {
      const bytes = t.socket.bytesRead + t.socket.bytesWritten;
      if (t.requests > 0 || bytes !== t.bytes) {
        t.bytes = bytes;
        t.since = now;
        continue;
      }
      if (now - t.since >= this.limits.idleMs) t.socket.destroy();
    }
    if (this.open.size === 0) this.close();
  }
}
