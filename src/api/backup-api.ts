// Backups taken while the server runs: Admin only, recorded in the audit trail. The backup is one
// consistent read of the store (one committed configuration version) followed by the archives of
// this server's data directory. The secret key never leaves through HTTP: it is kept apart (see
// docs/reliability.md), or put in by an offline backup that is asked for it.
import type { Domain } from '../domain/domain.js';
import { forbidden, tooMany } from '../core/problems.js';
import type { Caller } from './caller.js';

export interface BackupDownload {
  /** A file name for it: the domain's name and its configuration version. */
  fileName: string;
  configVersion: number;
  bytes: AsyncGenerator<Buffer>;
  /** Ends the backup's turn (once it is sent, or its client went away); further calls do nothing. */
  release: () => void;
}

/**
 * Backups one server sends at once. Each holds a read of the store open (a connection, and on
 * SQLite a snapshot the journal cannot be folded past) until its client has read it, so a second
 * one at the same time is refused (429).
 */
export const BACKUPS_AT_ONCE = 1;

export class BackupApi {
  constructor(
    private readonly domain: Domain,
    private readonly dataDir: string,
  ) {}

  private underWay = 0;

  /** Refuses a caller who is not an administrator (403), before anything else about the request is judged. */
  admit(caller: Caller): void {
    const { principal } = caller;
    if (principal.roles.has('Admin')) return;
    void this.domain.security.audit.record({ user: principal.user, address: caller.address, action: 'backup', bean: '/appserver/backup', outcome: 'refused' });
    throw forbidden(`User '${principal.user}' may not take a backup of the domain: this needs the role Admin.`);
  }

  async take(caller: Caller): Promise<BackupDownload> {
    this.admit(caller);
    const { principal } = caller;
    if (this.underWay >= BACKUPS_AT_ONCE) {
      throw tooMany('A backup of the domain is being sent by this server already; it takes one at a time (each holds a read of the store open until its client has read it). Retry once it is done.', 5);
    }
    this.underWay++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.underWay--;
    };
    try {
      // Loaded by the first backup taken: a start does not load the backup's format.
      const { takeBackup } = await import('../store/backup/take.js');
      const taken = await takeBackup(this.domain.store, { dataDir: this.dataDir });
      const finish = () => {
        release();
        // The store's read ends with the answer, sent through or not.
        void taken.close().catch(() => undefined);
      };
      try {
        await this.domain.security.audit.record({ user: principal.user, address: caller.address, action: 'backup', bean: '/appserver/backup', outcome: 'success', detail: `configuration version ${taken.configVersion}` });
      } catch (err) {
        finish();
        throw err;
      }
      const name = this.domain.topology().domainName.replace(/[^A-Za-z0-9._-]/g, '_');
      return { fileName: `${name}-v${taken.configVersion}.backup`, configVersion: taken.configVersion, bytes: taken.bytes, release: finish };
    } catch (err) {
      release();
      throw err;
    }
  }
}
