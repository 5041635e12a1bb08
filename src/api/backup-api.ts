// Backups taken while the server runs: Admin only, recorded in the audit trail. The backup is one
// consistent read of the store (one committed configuration version) followed by the archives of
// this server's data directory. The secret key never leaves through HTTP: it is kept apart (see
// docs/reliability.md), or put in by an offline backup that is asked for it.
import type { Domain } from '../domain/domain.js';
import { forbidden } from '../core/problems.js';
import type { Caller } from './caller.js';

export interface BackupDownload {
  /** A file name for it: the domain's name and its configuration version. */
  fileName: string;
  configVersion: number;
  bytes: AsyncGenerator<Buffer>;
}

export class BackupApi {
  constructor(
    private readonly domain: Domain,
    private readonly dataDir: string,
  ) {}

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
    // Loaded by the first backup taken: a start does not load the backup's format.
    const { takeBackup } = await import('../store/backup/take.js');
    const taken = await takeBackup(this.domain.store, { dataDir: this.dataDir });
    await this.domain.security.audit.record({ user: principal.user, address: caller.address, action: 'backup', bean: '/appserver/backup', outcome: 'success', detail: `configuration version ${taken.configVersion}` });
    const name = this.domain.topology().domainName.replace(/[^A-Za-z0-9._-]/g, '_');
    return { fileName: `${name}-v${taken.configVersion}.backup`, configVersion: taken.configVersion, bytes: taken.bytes };
  }
}
