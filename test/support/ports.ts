// Port offsets for tests of managed servers' own listeners: several test runs (and other people's)
// share this host, so each test picks an offset whose ports are free right now, below the range
// the system hands out for outgoing connections.
import { connect, createServer } from 'node:net';

/** Whether nothing listens on `port` of the loopback address. */
export function portFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/** An offset that makes every one of `ports` (the configured ports) free, effective ports from 10000 to 30000. */
export async function freePortOffset(ports: readonly number[] = [7003, 7005]): Promise<number> {
  const low = 10_000 - Math.min(...ports);
  const span = 30_000 - Math.max(...ports) - low;
  for (let attempt = 0; attempt < 50; attempt++) {
    const offset = low + Math.floor(Math.random() * span);
    let free = true;
    for (const p of ports) if (!(await portFree(p + offset))) free = false;
    if (free) return offset;
  }
  throw new Error(`no free port offset found for the ports ${ports.join(', ')}`);
}

/** Whether a TCP connection to the port is refused (nothing listens), within two seconds. */
export function refused(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(false);
    }, 2000);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve(err.code === 'ECONNREFUSED');
    });
  });
}
