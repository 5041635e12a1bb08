// Where uploads wait while they arrive: `<uploadDir>/.incoming/<id>/`, one folder per request with a
// name the server makes up, holding files the server names too. Nothing a client sends becomes part
// of a path here. The bytes held by all uploads in progress are capped; a request's folder is removed
// when the request ends, whatever happened; what a previous process left is removed at start-up.
import { tooLarge, unavailable } from '../core/problems.js';
import { randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync, rmSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

const MiB = 1024 * 1024;

/** True when `path` lies strictly inside `dir` (after resolving `.` and `..`). */
export function isInside(dir: string, path: string): boolean {
  const rel = relative(resolve(dir), resolve(path));
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

export class StagingArea {
  readonly root: string;
  /** Bytes held (or reserved) by all uploads in progress. */
  private held = 0;

  constructor(
    uploadDir: string,
    /** Most bytes all uploads in progress may hold together. */
    readonly maxBytes: number,
  ) {
    this.root = join(uploadDir, '.incoming');
    // Staging is never resumed: whatever a previous process left is dropped.
    rmSync(this.root, { recursive: true, force: true });
  }

  /** Bytes held by uploads in progress. */
  get inUse(): number {
    return this.held;
  }

  /**
   * A staging folder for one request. Room is taken as bytes arrive, never for what a request only
   * announces: a length declared and not sent holds nothing. A declared length larger than the whole
   * area, or than `perRequest`, is refused at once (413).
   */
  open(declared?: number, perRequest = this.maxBytes): Staging {
    if (declared !== undefined && declared > this.maxBytes) {
      throw tooLarge(`The upload is larger than the server can stage (${mib(this.maxBytes)} in all).`);
    }
    if (declared !== undefined && declared > perRequest) {
      throw tooLarge(`The upload is larger than one upload may be (${mib(perRequest)}: the model and at most two files).`);
    }
    return new Staging(this, join(this.root, randomUUID()));
  }

  /** Takes `bytes` more for `staging`, or refuses: 413 if that upload alone is too large, 503 if others hold the room. */
  reserve(staging: Staging, bytes: number): void {
    const total = staging.held + bytes;
    if (total > this.maxBytes) {
      throw tooLarge(`The upload is larger than the server can stage (${mib(this.maxBytes)} in all).`);
    }
    if (this.held + bytes > this.maxBytes) {
      throw unavailable(`The upload staging area is full (${mib(this.held)} of ${mib(this.maxBytes)} held by uploads in progress); retry when they have finished.`, 5);
    }
    this.held += bytes;
  }

  release(bytes: number): void {
    this.held = Math.max(0, this.held - bytes);
  }
}

export class Staging {
  /** Bytes this request holds in the area. */
  held = 0;
  /** Bytes written to this folder so far. */
  written = 0;
  private made = false;
  private closed = false;
  private files = 0;

  constructor(
    private readonly area: StagingArea,
    readonly dir: string,
  ) {}

  take(bytes: number): void {
    this.area.reserve(this, bytes);
    this.held += bytes;
  }

  /**
   * Writes a stream to a new file of this staging folder, named by the server; counts its bytes
   * against the cap as they arrive; `signal` stops it. Returns the file's path.
   */
  async write(source: NodeJS.ReadableStream, signal?: AbortSignal): Promise<string> {
    if (this.closed) throw new Error('the staging folder was already removed');
    if (!this.made) {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      this.made = true;
    }
    const path = join(this.dir, `part-${++this.files}`);
    if (!isInside(this.dir, path)) throw new Error(`staged file ${path} is outside ${this.dir}`);
    const meter = new Transform({
      transform: (chunk: Buffer, _enc, done) => {
        try {
          this.written += chunk.length;
          if (this.written > this.held) this.take(this.written - this.held);
          done(null, chunk);
        } catch (err) {
          done(err as Error);
        }
      },
    });
    await pipeline(source, meter, createWriteStream(path, { flags: 'wx', mode: 0o600 }), signal ? { signal } : {});
    return path;
  }

  /** Removes this request's staging folder (and nothing else) and gives its bytes back. */
  remove(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.made && isInside(this.area.root, this.dir)) rmSync(this.dir, { recursive: true, force: true });
    this.area.release(this.held);
    this.held = 0;
  }
}

function mib(bytes: number): string {
  return `${Math.round((bytes / MiB) * 10) / 10} MiB`;
}
