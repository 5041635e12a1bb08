// GET /appserver/backup: a backup of the domain as it is now, streamed (see src/store/backup/).
// Administrators only; it carries the whole domain, so like a write it needs X-Requested-By (a page
// of another site cannot make a browser fetch it with the user's credentials and read it).
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { BackupApi } from '../api/backup-api.js';
import { badRequest } from '../core/problems.js';
import { clientAddress } from './management.js';

export const BACKUP_PATH = '/appserver/backup';

/**
 * How long a backup's client may leave its connection without reading (ms) before the backup is
 * cut: the server holds a read of the store open for it until then.
 */
export const BACKUP_STALL_MS = 60_000;

/** True for the backup's path, with or without a query. */
export function isBackup(url: string): boolean {
  return url === BACKUP_PATH || url.startsWith(`${BACKUP_PATH}?`);
}

/**
 * A backup's bytes as the connection takes them. While the connection takes nothing (the client
 * stopped reading) for `stallMs`, the answer is cut: the server would otherwise hold the backup's
 * read of the store open for as long as the client likes.
 */
class BackupStream extends Readable {
  private stalled: NodeJS.Timeout | undefined;
  private pumping = false;

  constructor(
    private readonly source: AsyncGenerator<Buffer>,
    private readonly stallMs: number,
  ) {
    super({ highWaterMark: 1024 * 1024 });
  }

  override _read(): void {
    if (this.stalled) clearTimeout(this.stalled);
    this.stalled = undefined;
    if (!this.pumping) void this.pump();
  }

  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      for (;;) {
        const next = await this.source.next();
        if (this.destroyed) return;
        if (next.done) {
          this.push(null);
          return;
        }
        if (!this.push(next.value)) {
          this.stalled = setTimeout(() => this.destroy(new Error(`the client took no part of the backup for ${this.stallMs / 1000} s`)), this.stallMs);
          this.stalled.unref();
          return;
        }
      }
    } catch (err) {
      this.destroy(err as Error);
    } finally {
      this.pumping = false;
    }
  }

  override _destroy(err: Error | null, done: (error?: Error | null) => void): void {
    if (this.stalled) clearTimeout(this.stalled);
    void this.source.return(undefined).catch(() => undefined);
    done(err);
  }
}

export function registerBackup(app: FastifyInstance, backup: BackupApi): void {
  app.get(BACKUP_PATH, { exposeHeadRoute: false }, async (request, reply) => {
    const caller = { principal: request.principal, address: clientAddress(request) };
    backup.admit(caller);
    const csrf = request.headers['x-requested-by'];
    if (typeof csrf !== 'string' || csrf.trim() === '') {
      throw badRequest("The header 'X-Requested-By' is required to take a backup (any non-empty value, for example 'X-Requested-By: MyClient').");
    }
    const taken = await backup.take(caller);
    // The backup's turn ends when its answer has gone, or its client went away; a client that stops
    // reading is cut after a while, which ends it as well.
    reply.raw.once('close', taken.release);
    reply.header('content-type', 'application/x-ndjson; charset=utf-8');
    reply.header('content-disposition', `attachment; filename="${taken.fileName}"`);
    reply.header('x-appserver-config-version', String(taken.configVersion));
    return reply.send(new BackupStream(taken.bytes, BACKUP_STALL_MS));
  });
}
