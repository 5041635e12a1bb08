// Round 3, item 10: the audit trail does not grow by a row per request. Identical records (same
// user, address, action, bean, outcome and detail) within one minute fold into one row with a
// count and the first and last time; a Monitor looping refused writes adds a row per minute, not
// one per request. Records older than `serve --audit-retention` are removed at start-up and every
// so often; 0 keeps them for ever.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { restoreOffline, writeFileAtomically } from '../../src/cli/backup.js';
import { takeBackup } from '../../src/store/backup/take.js';
import { AUTHN, type Client, type RuntimeServer, createUser, startRuntimeServer } from '../support/runtime-server.js';
import { storeFor } from '../support/store.js';

const AUDIT = 'domainRuntime/auditRecords';
const MINUTE = 60_000;
const BURST = 500;

interface AuditRecord {
  name: string;
  time: string;
  lastTime: string;
  count: number;
  user: string | null;
  action: string;
  bean: string;
  outcome: string;
  detail: string;
}

async function records(admin: Client): Promise<AuditRecord[]> {
  const r = await admin.get(`${AUDIT}?links=none`);
  assert.equal(r.status, 200, r.text);
  return r.json.items;
}

const refusedCreates = (all: AuditRecord[], user: string) => all.filter((r) => r.user === user && r.action === 'createUser' && r.outcome === 'refused');

/** Sends `n` refused writes, `parallel` at a time. */
async function refusedWrites(c: Client, n: number, parallel = 25): Promise<void> {
  let sent = 0;
  const worker = async () => {
    while (sent < n) {
      sent++;
      const r = await c.post(`${AUTHN}/createUser`, { userName: 'never10', password: 'Never-10-pw', description: '' });
      assert.equal(r.status, 403, r.text);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

describe('identical records fold into one row per minute', () => {
  let srv: RuntimeServer;
  let monitor: Client;
  let other: Client;

  before(async () => {
    srv = await startRuntimeServer();
    monitor = srv.admin.as(await createUser(srv.admin, 'monitor10', 'Monitor-10-pw', 'Monitors'));
    other = srv.admin.as(await createUser(srv.admin, 'monitor10b', 'Monitor-10b-pw', 'Monitors'));
  });

  after(async () => {
    await srv?.stop(true);
  });

  test(`round 3 item 10: ${BURST} refused writes of a Monitor add a row per minute whose counts add up to ${BURST}`, async () => {
    const before = (await records(srv.admin)).length;
    await refusedWrites(monitor, BURST);
    await refusedWrites(other, 3, 3);
    const all = await records(srv.admin);
    const mine = refusedCreates(all, 'monitor10');
    assert.equal(mine.reduce((n, r) => n + r.count, 0), BURST, JSON.stringify(mine));
    // One row per minute the burst touched: never two rows of one minute.
    const minutes = new Set(mine.map((r) => Math.floor(Date.parse(r.time) / MINUTE)));
    assert.equal(minutes.size, mine.length, JSON.stringify(mine));
    assert.ok(mine.length <= 3, `${mine.length} rows for ${BURST} identical requests`);
    for (const r of mine) {
      assert.ok(r.count >= 1);
      const first = Date.parse(r.time);
      const last = Date.parse(r.lastTime);
      assert.ok(first <= last && Math.floor(first / MINUTE) === Math.floor(last / MINUTE), JSON.stringify(r));
    }
    // Another user's identical requests are records of their own.
    const theirs = refusedCreates(all, 'monitor10b');
    assert.equal(theirs.reduce((n, r) => n + r.count, 0), 3, JSON.stringify(theirs));
    assert.ok(theirs.length <= 2);
    // The whole trail grew by a handful of rows, not by a row per request.
    assert.ok(all.length - before <= 6, `${all.length - before} rows added`);
  });

  test('round 3 item 10: records of another kind are rows of their own, with their own count', async () => {
    const adminCreates = (all: AuditRecord[]) => all.filter((x) => x.action === 'createUser' && x.user === 'admin' && x.outcome === 'success');
    const before = adminCreates(await records(srv.admin));
    const r = await srv.admin.post(`${AUTHN}/createUser`, { userName: 'user10', password: 'User-10-pw', description: '' });
    assert.equal(r.status, 200, r.text);
    const now = adminCreates(await records(srv.admin));
    // The administrator's successful createUser calls of this minute (the test's clock stands still)
    // are one row, apart from the Monitors' refusals; this one added 1 to its count.
    assert.equal(now.reduce((n, x) => n + x.count, 0), before.reduce((n, x) => n + x.count, 0) + 1);
    assert.equal(now.length, 1, JSON.stringify(now));
    assert.ok(now[0]!.count >= 3, JSON.stringify(now));
  });

  test('round 3 item 10: the counts are stored: a restarted server shows them', async () => {
    srv = await srv.restart();
    const mine = refusedCreates(await records(srv.admin), 'monitor10');
    assert.equal(mine.reduce((n, r) => n + r.count, 0), BURST);
  });
});

/** A backup of the running server, written to a file; the file's path. */
async function backupFile(srv: RuntimeServer): Promise<string> {
  const file = join(mkdtempSync(join(tmpdir(), 'appserver-audit-backup-')), 'domain.backup');
  const taken = await takeBackup(srv.server.domain.store);
  await writeFileAtomically(file, taken.bytes);
  return file;
}

/** Restores a backup file of `from` into a new data directory (and its store) and serves it with `from`'s key. */
async function restored(file: string, from: RuntimeServer): Promise<RuntimeServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'appserver-audit-restored-'));
  const store = await storeFor(dataDir);
  await restoreOffline(file, { dataDir, ...(store ? { store } : {}) });
  // A backup never carries the secret key: it is copied as an operator would.
  copyFileSync(join(from.dataDir, 'secret.key'), join(dataDir, 'secret.key'));
  return startRuntimeServer(dataDir);
}

/**
 * The same backup as a server written before audit records were counted wrote it: the audit table
 * without its last two columns (the end line's count and digest made again to match).
 */
function withoutAuditCounts(file: string): string {
  const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l !== '');
  const out: string[] = [];
  let left = 0;
  for (const line of lines.slice(0, -1)) {
    const value = JSON.parse(line) as unknown;
    if (left > 0) {
      left--;
      out.push(JSON.stringify((value as unknown[]).slice(0, -2)));
    } else if ((value as { table?: string }).table === 'audit') {
      const header = value as { columns: string[]; rows: number };
      left = header.rows;
      out.push(JSON.stringify({ ...header, columns: header.columns.slice(0, -2) }));
    } else {
      out.push(line);
    }
  }
  const body = out.map((l) => `${l}\n`).join('');
  const older = `${file}.older`;
  writeFileSync(older, `${body}${JSON.stringify({ end: true, lines: out.length, sha256: createHash('sha256').update(body).digest('hex') })}\n`);
  return older;
}

describe('audit counts in backups', () => {
  let srv: RuntimeServer;

  before(async () => {
    srv = await startRuntimeServer();
    await refusedWrites(srv.admin.as(await createUser(srv.admin, 'monitor10c', 'Monitor-10c-pw', 'Monitors')), 40, 4);
  });

  after(async () => {
    await srv?.stop(true);
  });

  test('round 3 item 10: a backup carries each record\'s count and last time; restored, the trail reads the same', async () => {
    const mine = refusedCreates(await records(srv.admin), 'monitor10c');
    assert.equal(mine.reduce((n, r) => n + r.count, 0), 40);
    const copy = await restored(await backupFile(srv), srv);
    try {
      const back = refusedCreates(await records(copy.admin), 'monitor10c');
      assert.deepEqual(
        back.map((r) => [r.count, r.time, r.lastTime]),
        mine.map((r) => [r.count, r.time, r.lastTime]),
      );
    } finally {
      await copy.stop(true);
    }
  });

  test('round 3 item 10: a backup written before records were counted restores them as one request each', async () => {
    const mine = refusedCreates(await records(srv.admin), 'monitor10c');
    const copy = await restored(withoutAuditCounts(await backupFile(srv)), srv);
    try {
      const back = refusedCreates(await records(copy.admin), 'monitor10c');
      assert.deepEqual(
        back.map((r) => [r.count, r.time, r.lastTime]),
        mine.map((r) => [1, r.time, r.time]),
      );
    } finally {
      await copy.stop(true);
    }
  });
});

describe('retention', () => {
  /** Polls the audit until `check` holds (the sweep runs on its own). */
  async function until(admin: Client, check: (all: AuditRecord[]) => boolean, what: string): Promise<AuditRecord[]> {
    let all: AuditRecord[] = [];
    for (let i = 0; i < 200; i++) {
      all = await records(admin);
      if (check(all)) return all;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail(`${what}: ${JSON.stringify(all.slice(0, 5))}`);
  }

  test('round 3 item 10: records older than the retention are removed while the server runs', async () => {
    const srv = await startRuntimeServer(undefined, undefined, { auditRetentionMs: 2000 });
    try {
      const monitor = srv.admin.as(await createUser(srv.admin, 'monitor10r', 'Monitor-10r-pw', 'Monitors'));
      await refusedWrites(monitor, 20, 5);
      const seen = refusedCreates(await records(srv.admin), 'monitor10r');
      assert.equal(seen.reduce((n, r) => n + r.count, 0), 20);
      // The server's clock moves past the retention; a sweep (every second for so short a one) removes them.
      srv.advance(5000);
      await until(srv.admin, (all) => refusedCreates(all, 'monitor10r').length === 0, 'the old records are still there');
    } finally {
      await srv.stop(true);
    }
  });

  test('round 3 item 10: 0 keeps records for ever; a server started with a retention removes older ones at start-up', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'appserver-audit10-'));
    // Two hours before the next server's clock, kept for ever.
    let srv = await startRuntimeServer(dataDir, undefined, { auditRetentionMs: 0, clockStart: Date.UTC(2026, 0, 1) - 2 * 3_600_000 });
    const monitor = srv.admin.as(await createUser(srv.admin, 'monitor10k', 'Monitor-10k-pw', 'Monitors'));
    await refusedWrites(monitor, 10, 2);
    srv.advance(3 * 3_600_000);
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(refusedCreates(await records(srv.admin), 'monitor10k').reduce((n, r) => n + r.count, 0), 10);
    await srv.stop(false);
    // Kept for an hour: the records are two hours old when it starts. Its next sweep is minutes
    // away, so only the start-up removes them.
    srv = await startRuntimeServer(dataDir, undefined, { auditRetentionMs: 3_600_000 });
    try {
      await until(srv.admin, (all) => refusedCreates(all, 'monitor10k').length === 0, 'records older than the retention outlived the start-up');
    } finally {
      await srv.stop(true);
    }
  });
});
