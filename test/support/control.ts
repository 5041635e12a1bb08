// A server with the control interface, for the control tests: the demo domain on a fresh data
// directory, admin/welcome1, and either a manual clock the test moves (`manual`) or the control
// interface's own clock (follows the wall clock until frozen). `ctl` speaks to the control
// interface, `admin` to the management interface.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningServer, startServer } from '../../src/cli/server.js';
import { ManualScheduler } from '../../src/core/clock.js';
import type { LifecycleTimings } from '../../src/runtime/lifecycle.js';
import { type Client, client, testServerOptions } from './runtime-server.js';

export interface ControlServer {
  server: RunningServer;
  origin: string;
  latest: string;
  /** http://127.0.0.1:port/management/appserver-control */
  controlUrl: string;
  dataDir: string;
  admin: Client;
  /** Paths relative to the control interface's root ('' is the root). */
  ctl: Client;
  /** The manual clock, when the server runs on one. */
  scheduler?: ManualScheduler;
  stop(): Promise<void>;
}

/**
 * Managed servers open their own ports only when `portOffset` is given (tests share the host, see
 * support/ports.ts).
 */
export async function startControlServer(opts: { manual?: boolean; control?: boolean; timings?: Partial<LifecycleTimings>; portOffset?: number } = {}): Promise<ControlServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'appserver-control-'));
  const scheduler = opts.manual === false ? undefined : new ManualScheduler();
  const server = await startServer({
    ...(await testServerOptions(dataDir)),
    ...(scheduler ? { scheduler } : {}),
    ...(opts.timings ? { timings: opts.timings } : {}),
    control: opts.control ?? true,
    ...(opts.portOffset !== undefined ? { portOffset: opts.portOffset, listeners: true } : {}),
  });
  const origin = `http://127.0.0.1:${server.port}`;
  const controlUrl = `${origin}/management/appserver-control`;
  const latest = `${origin}/management/appserver/latest`;
  const self: ControlServer = {
    server,
    origin,
    latest,
    controlUrl,
    dataDir,
    admin: client(() => latest),
    ctl: controlClient(controlUrl),
    ...(scheduler ? { scheduler } : {}),
    // The server that runs now (a test may have replaced it).
    stop: async () => {
      await self.server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return self;
}

/** A client of the control interface: '' is its root, 'faults' its faults... */
function controlClient(root: string): Client {
  const inner = client(() => root);
  const fix = (path: string) => (path === '' ? root : /^https?:/.test(path) ? path : `${root}/${path}`);
  return {
    auth: inner.auth,
    url: fix,
    get: (path, extra) => inner.get(fix(path), extra),
    post: (path, body, extra) => inner.post(fix(path), body, extra),
    del: (path, extra) => inner.del(fix(path), extra),
    as: (other) => {
      const c = client(() => root, other);
      return { ...c, url: fix, get: (p, e) => c.get(fix(p), e), post: (p, b, e) => c.post(fix(p), b, e), del: (p, e) => c.del(fix(p), e) };
    },
  };
}

/** The href of a link of a resource, by rel (and title for actions). */
export function linkOf(resource: { links?: { rel: string; href: string; title?: string }[] }, rel: string, title?: string): string {
  const l = resource.links?.find((x) => x.rel === rel && (title === undefined || x.title === title));
  if (!l) throw new Error(`no ${rel}${title ? ` '${title}'` : ''} link in ${JSON.stringify(resource)}`);
  return l.href;
}
