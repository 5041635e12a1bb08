// Log files the server writes in its data directory (`logs/`, folders 0700, files 0600): one per
// server (its state changes), the domain's (the audit trail), and one per connector connection pool
// (what was done to the pool). Lines are buffered and reach the file when flushed: on request, when
// the buffer grows large, or a few seconds after the first buffered line on the scheduler's clock.
// Rotation renames a file to the next numbered name (`ms1.log00001`) and starts a new one.
import { appendFileSync, existsSync, mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Scheduler } from '../core/clock.js';

export type Severity = 'Info' | 'Notice' | 'Warning' | 'Error';

/** Buffered bytes that make a log write through at once. */
const BUFFER_BYTES = 8 * 1024;
/** How long a buffered line waits at most before it is written. */
const FLUSH_AFTER_MS = 5000;

export class LogFile {
  private buffer: string[] = [];
  private bytes = 0;
  private timer: { cancel(): void } | undefined;

  constructor(
    /** Absolute path of the file. */
    readonly path: string,
    /** The path as messages show it: relative to the data directory. */
    readonly shown: string,
    private readonly scheduler: Scheduler,
  ) {}

  /** Buffers one line; never throws (a log that cannot be written must not stop what it records). */
  write(severity: Severity, subsystem: string, message: string): void {
    const line = `####<${new Date(this.scheduler.now()).toISOString()}> <${severity}> <${subsystem}> <${message.replace(/\s+/g, ' ')}>\n`;
    this.buffer.push(line);
    this.bytes += Buffer.byteLength(line);
    if (this.bytes >= BUFFER_BYTES) {
      try {
        this.flush();
      } catch {
        // Kept in the buffer: the next flush tries again.
      }
      return;
    }
    this.timer ??= this.scheduler.after(FLUSH_AFTER_MS, () => {
      this.timer = undefined;
      try {
        this.flush();
      } catch {
        // Kept in the buffer.
      }
    });
  }

  /** Lines written but not yet in the file. */
  get pending(): number {
    return this.buffer.length;
  }

  /** True when the file exists (a server writing to it would have it open). */
  get opened(): boolean {
    return existsSync(this.path);
  }

  /** Creates the file (and its folder) if missing; true when it had to be created. */
  ensureOpened(): boolean {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    if (existsSync(this.path)) return false;
    writeFileSync(this.path, '', { mode: 0o600, flag: 'a' });
    return true;
  }

  /** Writes the buffered lines to the file; returns how many. */
  flush(): number {
    this.timer?.cancel();
    this.timer = undefined;
    const count = this.buffer.length;
    if (count === 0) return 0;
    this.ensureOpened();
    appendFileSync(this.path, this.buffer.join(''), { mode: 0o600 });
    this.buffer = [];
    this.bytes = 0;
    return count;
  }

  /** Flushes, renames the file to the next numbered name and starts an empty one; returns the new name of the old file. */
  rotate(): string {
    this.flush();
    this.ensureOpened();
    const name = basename(this.path);
    const folder = dirname(this.path);
    let last = 0;
    for (const f of readdirSync(folder)) {
      const m = f.startsWith(name) ? /^(\d{5,})$/.exec(f.slice(name.length)) : null;
      if (m) last = Math.max(last, Number(m[1]));
    }
    const rotated = `${name}${String(last + 1).padStart(5, '0')}`;
    renameSync(this.path, join(folder, rotated));
    writeFileSync(this.path, '', { mode: 0o600, flag: 'a' });
    return rotated;
  }
}

/** The log files of this server's data directory, by what they record. */
export class LogFiles {
  private readonly files = new Map<string, LogFile>();

  constructor(
    private readonly dataDir: string,
    private readonly scheduler: Scheduler,
  ) {}

  /** A log file by its path below `logs/`, each segment a name (encoded, so no name can leave the folder). */
  private file(...segments: string[]): LogFile {
    const relative = ['logs', ...segments.map((s) => encodeURIComponent(s).replace(/^\.+$/, (dots) => '%2E'.repeat(dots.length)))];
    const key = relative.join('/');
    let f = this.files.get(key);
    if (!f) this.files.set(key, (f = new LogFile(join(this.dataDir, ...relative), key, this.scheduler)));
    return f;
  }

  /** A server's log: its state changes. */
  server(name: string): LogFile {
    return this.file('servers', `${name}.log`);
  }

  /** The domain log: the audit trail of the domain. */
  domain(name: string): LogFile {
    return this.file(`${name}.log`);
  }

  /** The log of a connector connection pool on a server: what was done to the pool. */
  pool(server: string, pool: string): LogFile {
    return this.file('pools', server, `${pool}.log`);
  }

  /** Another runtime bean's log on a server, named by the bean's identity. */
  bean(server: string, identity: readonly string[]): LogFile {
    return this.file('beans', server, `${identity.join('.')}.log`);
  }

  /** Writes every buffered line (when the server stops). */
  flushAll(): void {
    for (const f of this.files.values()) {
      try {
        f.flush();
      } catch {
        // A log that cannot be written loses its last lines, nothing else.
      }
    }
  }
}
