// The files of a deployed archive, read as little as possible: a zip file (war, ear, jar, rar) or an
// exploded directory. Only the descriptors and the nested modules asked for are decompressed, each
// within a size limit, so a hostile archive (a zip bomb, a huge entry, millions of entries) costs a
// bounded amount of memory and time and is simply not described.
import { closeSync, fstatSync, openSync, readSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { inflateRawSync } from 'node:zlib';

/** Limits of what is read of one archive. */
export const ARCHIVE_LIMITS = {
  /** A zip file larger than this is not opened. */
  archiveBytes: 256 * 1024 * 1024,
  /** A descriptor (web.xml, application.xml...) larger than this is skipped. */
  descriptorBytes: 1024 * 1024,
  /** A module nested in an enterprise archive larger than this is not opened. */
  nestedBytes: 64 * 1024 * 1024,
  /** Entry names listed per archive (the rest are not looked at). */
  entries: 20_000,
} as const;

/** Read access to the entries of one archive. */
export interface ArchiveFiles {
  /** Entry names (`/`-separated, no leading slash), at most `ARCHIVE_LIMITS.entries`. */
  readonly names: readonly string[];
  /** The bytes of an entry, or undefined when absent or over `limit`. */
  bytes(name: string, limit: number): Uint8Array | undefined;
}

/** Why an archive could not be read. */
export class ArchiveError extends Error {}

/** Opens a zip file or an exploded directory. */
export function openArchive(path: string): ArchiveFiles {
  const st = statSync(path);
  if (st.isDirectory()) return directory(path);
  if (!st.isFile()) throw new ArchiveError(`${path} is neither a file nor a directory`);
  if (st.size > ARCHIVE_LIMITS.archiveBytes) throw new ArchiveError(`${path} is larger than ${ARCHIVE_LIMITS.archiveBytes} bytes`);
  return zip(readWhole(path, st.size));
}

/**
 * Opens a zip held in memory. Its central directory is read here (no library offers a bounded
 * inflate of one entry): an entry is inflated by zlib with its output capped, so an entry that
 * lies about its size fails instead of filling the memory.
 */
export function zip(data: Uint8Array): ArchiveFiles {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const entries = centralDirectory(buf);
  const names = [...entries.keys()];
  return {
    names,
    bytes(name, limit) {
      const e = entries.get(name);
      if (!e || e.size > limit || e.compressedSize > buf.length) return undefined;
      // The local header repeats the name and has an extra field of its own length.
      const at = e.localHeader;
      if (at + 30 > buf.length || buf.readUInt32LE(at) !== 0x04034b50) return undefined;
      const start = at + 30 + buf.readUInt16LE(at + 26) + buf.readUInt16LE(at + 28);
      const body = buf.subarray(start, start + e.compressedSize);
      if (body.length !== e.compressedSize) return undefined;
      try {
        if (e.method === 0) return e.compressedSize <= limit ? body : undefined;
        if (e.method === 8) return inflateRawSync(body, { maxOutputLength: Math.max(1, limit) });
      } catch {
        return undefined;
      }
      return undefined;
    },
  };
}

interface ZipEntry {
  method: number;
  compressedSize: number;
  size: number;
  localHeader: number;
}

/** The entries the end-of-central-directory record lists (at most `ARCHIVE_LIMITS.entries`). */
function centralDirectory(buf: Buffer): Map<string, ZipEntry> {
  // The end record is in the last 64 KiB + 22 bytes (its comment is at most 64 KiB).
  let end = -1;
  for (let i = buf.length - 22; i >= 0 && i >= buf.length - 22 - 0xffff; i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new ArchiveError('not a zip archive (no end of central directory)');
  const count = buf.readUInt16LE(end + 10);
  let at = buf.readUInt32LE(end + 16);
  const out = new Map<string, ZipEntry>();
  for (let i = 0; i < count && out.size < ARCHIVE_LIMITS.entries; i++) {
    if (at + 46 > buf.length || buf.readUInt32LE(at) !== 0x02014b50) throw new ArchiveError('the zip central directory is damaged');
    const nameLength = buf.readUInt16LE(at + 28);
    const next = at + 46 + nameLength + buf.readUInt16LE(at + 30) + buf.readUInt16LE(at + 32);
    if (next > buf.length) throw new ArchiveError('the zip central directory is damaged');
    const name = buf.toString('utf8', at + 46, at + 46 + nameLength);
    if (!name.endsWith('/')) {
      out.set(name.replace(/^\/+/, ''), {
        method: buf.readUInt16LE(at + 10),
        compressedSize: buf.readUInt32LE(at + 20),
        size: buf.readUInt32LE(at + 24),
        localHeader: buf.readUInt32LE(at + 42),
      });
    }
    at = next;
  }
  return out;
}

function readWhole(path: string, size: number): Uint8Array {
  const buf = Buffer.alloc(size);
  const fd = openSync(path, 'r');
  try {
    // The file may have changed since it was looked at: read what is there, never more than `size`.
    const real = Math.min(size, fstatSync(fd).size);
    let at = 0;
    while (at < real) {
      const n = readSync(fd, buf, at, real - at, at);
      if (n === 0) break;
      at += n;
    }
    return buf.subarray(0, at);
  } finally {
    closeSync(fd);
  }
}

/** An exploded archive: entries are the files below the directory (symbolic links are not followed). */
function directory(root: string): ArchiveFiles {
  const names: string[] = [];
  const walk = (dir: string, depth: number) => {
    if (depth > 12) return;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (names.length >= ARCHIVE_LIMITS.entries) return;
      const full = join(dir, e.name);
      if (e.isDirectory()) walk(full, depth + 1);
      else if (e.isFile()) names.push(relative(root, full).split(sep).join('/'));
    }
  };
  walk(root, 0);
  const listed = new Set(names);
  return {
    names,
    bytes(name, limit) {
      if (!listed.has(name)) return undefined;
      const path = join(root, ...name.split('/'));
      try {
        const st = statSync(path);
        return st.size > limit ? undefined : readWhole(path, st.size);
      } catch {
        return undefined;
      }
    },
  };
}
