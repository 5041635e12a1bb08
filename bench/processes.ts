// Benchmarks that run the server as a process of its own: its command, the administrator it is
// started with, what /proc says of it, and how it is ended.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The server's command (from dist/bench). */
export const BIN = fileURLToPath(new URL('../../bin/appserver-admin.js', import.meta.url));

/** The administrator a first start creates (the benchmarks' credentials). */
export function adminEnv(): void {
  process.env.APPSERVER_ADMIN_USER = 'admin';
  process.env.APPSERVER_ADMIN_PASSWORD = 'welcome1';
}

/** A figure of /proc/<pid>/status in MiB (VmRSS: resident now; VmHWM: the peak since the last reset). */
export function statusMiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith(`${field}:`));
  return Number(line?.replace(/\D+/g, '') ?? 0) / 1024;
}

/** Ends a child we started and waits for it to go (killed outright after ten seconds). */
export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
