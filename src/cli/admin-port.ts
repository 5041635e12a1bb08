// The administration server's administration port: while the domain enables the administration
// port, this process listens on it too (HTTPS with the data directory's certificate) and serves the
// whole interface there, while its plain port refuses management requests. The port follows the
// administration server's channel as the runtime keeps it (opened at start, and at an activation
// the version takes up at once). A port that cannot be opened leaves the channel closed, so the
// domain is still managed on the plain port rather than locked out; the log says why.
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { RuntimeEngine } from '../runtime/engine.js';
import { endpointOf } from '../runtime/endpoints.js';
import type { Certificate } from './certificates.js';

export class AdminPortListener {
  private current: { port: number; app: FastifyInstance } | undefined;
  private queue: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly engine: RuntimeEngine,
    /** Builds the application served on the port, with this key and certificate. */
    private readonly build: (https: Certificate) => Promise<FastifyInstance>,
    private readonly certificate: () => Promise<Certificate>,
    /** The address to bind (the process's `--host`). */
    private readonly host: string,
    private readonly log: Logger,
  ) {
    engine.watchServers(() => void this.follow());
  }

  /** The URL of the administration port while it listens. */
  url(): string | undefined {
    if (!this.current) return undefined;
    const host = this.host.includes(':') ? `[${this.host}]` : this.host;
    return `https://${host}:${this.current.port}`;
  }

  /** Opens, moves or closes the port as the administration server's channel now says; calls run one after another. */
  follow(): Promise<void> {
    this.queue = this.queue.then(() => this.round()).catch((err: unknown) => this.log.warn({ err }, 'the administration port could not be brought up to date'));
    return this.queue;
  }

  private async round(): Promise<void> {
    if (this.closed) return;
    const name = this.engine.adminServerName;
    const wanted = this.engine.administrationChannelOpen(name) ? endpointOf(this.engine.endpoints(name), 'administration')?.port : undefined;
    if (this.current?.port === wanted) return;
    if (this.current) {
      const { app, port } = this.current;
      this.current = undefined;
      await app.close().catch(() => undefined);
      this.log.info({ port }, `the administration port ${port} is closed; management requests are served on the plain port again`);
    }
    if (wanted === undefined) return;
    let app: FastifyInstance | undefined;
    try {
      app = await this.build(await this.certificate());
      await app.listen({ host: this.host, port: wanted });
      this.current = { port: wanted, app };
      this.log.info({ port: wanted }, `administration port open at ${this.url()}: management requests are served there only`);
    } catch (err) {
      await app?.close().catch(() => undefined);
      this.log.error({ err, port: wanted }, `the administration port ${wanted} could not be opened (${(err as Error).message}); management requests stay on the plain port`);
      this.engine.administrationPortFailed(name);
    }
  }

  /** Closes the port (the process stops). */
  async close(): Promise<void> {
    this.closed = true;
    await this.queue;
    const open = this.current;
    this.current = undefined;
    await open?.app.close().catch(() => undefined);
  }
}
