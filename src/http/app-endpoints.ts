// The applications running on the administration server answer at their context root, as they
// would on a real server: `GET /<app>/` describes the application, and `GET /<app>/work?pool=<jndi>`
// does a unit of work holding a connection of a resource adapter's pool until it finishes (after
// `hold` seconds, at most 300) or the client goes away. That is how a pool gets connections in use.
// The description is open to anyone; work needs the credentials of a user with a role (app.ts), so
// that no anonymous client can take a pool's connections.
import { badRequest, notFound, unavailable } from '../core/problems.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ManagementApi } from '../api/management-api.js';
import { sendJson } from './send.js';

const MAX_HOLD_SECONDS = 300;

/**
 * First path segments the server itself answers: the management interface and its partition-scoped
 * form (`/partitions/<name>/management`), the metrics, the console and the readiness probe
 * (`/appserver/ready`). An application of one of these names never shadows them.
 */
export const RESERVED_SEGMENTS: ReadonlySet<string> = new Set(['management', 'partitions', 'metrics', 'console', 'appserver']);

export class AppEndpoints {
  constructor(private readonly api: ManagementApi) {}

  /**
   * The application a path belongs to, when it runs on this server. The server's own routes always
   * win: an application whose name is one of their first segments, or a partition's, is not
   * reachable at its context root here (it still runs, and its runtime beans answer as ever).
   */
  application(path: string): string | undefined {
    const segments = path.split('?')[0]!.split('/');
    const first = decodeSafe(segments[1] ?? '');
    if (!first || RESERVED_SEGMENTS.has(first)) return undefined;
    // `/<partition>/management/...`: the management interface scoped to a partition.
    if (decodeSafe(segments[2] ?? '') === 'management') return undefined;
    return this.api.application(first);
  }

  /**
   * Whether the request takes something of the server's for a while (a unit of work holds a pool's
   * connection): such requests need a signed-in caller. Only an application's description does not.
   */
  holdsResources(url: string): boolean {
    return url.split('?')[0]!.split('/').slice(2).some((s) => s !== '');
  }

  async handle(request: FastifyRequest, reply: FastifyReply, app: string): Promise<FastifyReply> {
    const rest = request.url.split('?')[0]!.split('/').slice(2).filter((s) => s !== '');
    const query = request.query as Record<string, string | undefined>;
    if (rest.length === 0) return sendJson(reply, 200, this.api.applicationInfo(app));
    const { server, pools } = this.api.pools;
    if (rest[0] !== 'work' || rest.length > 1) throw notFound(rest.join('/'));
    const pool = query.pool;
    if (!pool) throw badRequest("Name the connection pool to use: '?pool=<JNDI name>'.", 'pool');
    if (!pools.has(server, pool)) throw badRequest(`There is no connection pool '${pool}' on ${server}.`, 'pool');
    const hold = Math.min(MAX_HOLD_SECONDS, Math.max(0, Number(query.hold ?? 0) || 0));
    const id = pools.reserve(server, pool);
    if (id === undefined) throw unavailable(`The connection pool '${pool}' has no connection left (all in use).`, 1);
    const started = Date.now();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, hold * 1000);
      // The work ends early when the client goes away: its connection goes back to the pool.
      const stop = () => {
        clearTimeout(timer);
        resolve();
      };
      request.raw.socket.once('close', stop);
      reply.raw.once('close', stop);
    });
    pools.release(server, pool, id);
    return sendJson(reply, 200, { application: app, pool, connection: id, heldMillis: Date.now() - started });
  }
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return '';
  }
}
