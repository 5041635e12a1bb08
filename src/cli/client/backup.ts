// `appserver-admin backup --out FILE` against a running server: downloads GET /appserver/backup
// (administrators only) into a file beside FILE, checks that the download is whole (its last line
// carries the count and SHA-256 of the lines before it), and only then gives it the name FILE.
import { createHash, randomUUID } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { AppserverClient } from '../../client/index.js';
import { type ConnectionFlags, clientOptions } from './connection.js';

/** The last line of a backup is short; a longer one is not an end line. */
const END_LINE_BYTES = 1024;

export async function backupOnline(flags: ConnectionFlags, out: string): Promise<{ bytes: number; configVersion: string | null }> {
  const client = new AppserverClient(clientOptions(flags));
  const target = resolve(out);
  let isDir = false;
  try {
    isDir = statSync(target).isDirectory();
  } catch {
    // Absent: it is made.
  }
  if (isDir) throw new Error(`${out} is a directory: name the backup file to write`);
  const { headers, body } = await client.download('/appserver/backup');
  const partial = join(dirname(target), `.${basename(target)}.${randomUUID()}.partial`);
  const fd = openSync(partial, 'wx', 0o600);
  const digest = createHash('sha256');
  let bytes = 0;
  let lines = 0;
  // The latest complete line is held back from the digest (it may be the end line); `parts` hold
  // the line in progress.
  let latest: Buffer | undefined;
  let parts: Buffer[] = [];
  try {
    for await (const piece of body) {
      const chunk = Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
      writeSync(fd, chunk);
      bytes += chunk.length;
      let start = 0;
      for (;;) {
        const nl = chunk.indexOf(0x0a, start);
        if (nl < 0) break;
        const tail = chunk.subarray(start, nl + 1);
        const line = parts.length > 0 ? Buffer.concat([...parts, tail]) : tail;
        parts = [];
        if (latest) {
          digest.update(latest);
          lines++;
        }
        latest = line;
        start = nl + 1;
      }
      if (start < chunk.length) parts.push(chunk.subarray(start));
    }
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(partial, { force: true });
    throw err;
  }
  closeSync(fd);
  let end: { end?: unknown; lines?: unknown; sha256?: unknown } | undefined;
  try {
    if (parts.length === 0 && latest && latest.length <= END_LINE_BYTES) end = JSON.parse(latest.toString('utf8'));
  } catch {
    end = undefined;
  }
  if (!end || end.end !== true || end.lines !== lines || end.sha256 !== digest.digest('hex')) {
    rmSync(partial, { force: true });
    throw new Error(`the backup from ${client.base} arrived incomplete or damaged (${bytes} bytes, no matching end line): nothing was written to ${out}`);
  }
  renameSync(partial, target);
  return { bytes, configVersion: headers.get('x-appserver-config-version') };
}
