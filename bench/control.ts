// Snapshots of the control interface: how long saving, restoring and resetting the demo domain take
// over HTTP (median of many), against a baseline measured in the same run on the same server: one
// small activation (startEdit, one change, activate), the cheapest whole-domain write there is.
// The target: a restore of the demo domain well under 100 ms.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../src/cli/server.js';
import { rows } from './harness.js';
import type { BenchStore } from './stores.js';

const HEADERS = {
  authorization: `Basic ${Buffer.from('admin:welcome1').toString('base64')}`,
  'content-type': 'application/json',
  'x-requested-by': 'bench',
};

async function post(url: string, body: unknown = {}): Promise<void> {
  const res = await fetch(url, { method: 'POST', headers: HEADERS, body: JSON.stringify(body) });
  await res.arrayBuffer();
  if (res.status >= 300) throw new Error(`${url}: ${res.status}`);
}

/** Median milliseconds of `fn` over `count` runs (after a few to warm up). */
async function median(count: number, fn: (i: number) => Promise<void>): Promise<number> {
  for (let i = 0; i < 3; i++) await fn(-1 - i);
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = process.hrtime.bigint();
    await fn(i);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

export async function benchControl(store: BenchStore): Promise<string> {
  const count = Number(process.env.BENCH_CYCLES ?? 30);
  const dataDir = mkdtempSync(join(tmpdir(), 'appserver-bench-'));
  try {
    const url = await store.fresh();
    const server = await startServer({ host: '127.0.0.1', port: 0, dataDir, logLevel: 'silent', quiet: true, adminUser: 'admin', adminPassword: 'welcome1', control: true, ...(url ? { store: url } : {}) });
    try {
      const origin = `http://127.0.0.1:${server.port}`;
      const base = `${origin}/management/appserver/latest`;
      const control = `${origin}/management/appserver-control`;
      const activation = await median(count, async (i) => {
        await post(`${base}/edit/changeManager/startEdit`);
        await post(`${base}/edit/servers/ms1`, { notes: `run ${i}` });
        await post(`${base}/edit/changeManager/activate`);
      });
      const save = await median(count, () => post(`${control}/snapshots`, { name: 'bench' }));
      // Each restore follows a change, so there is something to undo; only the restore is timed.
      const restores: number[] = [];
      for (let i = 0; i < count; i++) {
        await post(`${base}/edit/servers/ms2`, { notes: `before restore ${i}` });
        const started = process.hrtime.bigint();
        await post(`${control}/snapshots/bench/restore`);
        restores.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
      restores.sort((a, b) => a - b);
      const restoreMs = restores[Math.floor(restores.length / 2)]!;
      const reset = await median(count, () => post(`${control}/reset`));
      const line =
        `snapshots on ${store.label}: restore ${restoreMs.toFixed(1)} ms, save ${save.toFixed(1)} ms, reset ${reset.toFixed(1)} ms; ` +
        `one small activation ${activation.toFixed(1)} ms (restore / activation ${(restoreMs / activation).toFixed(2)}); target: restore under 100 ms: ${restoreMs < 100 ? 'met' : 'MISSED'}`;
      console.log(line);
      rows.push({
        benchmark: 'snapshot restore of the demo domain (median over HTTP); baseline: one small activation',
        store: store.label,
        subject: `restore ${restoreMs.toFixed(1)} ms, save ${save.toFixed(1)} ms, reset ${reset.toFixed(1)} ms`,
        baseline: `${activation.toFixed(1)} ms per activation`,
        ratio: (activation / restoreMs).toFixed(2),
        latency: '-',
        peakRss: '-',
      });
      return line;
    } finally {
      await server.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
