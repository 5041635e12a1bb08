// Domain as code on the 1,000-server generated domain (10 clusters, 200 partitions, 5,000
// applications): discover, plan (model unchanged: no change expected) and an apply of 100 changes,
// each the median of three runs, against the baseline of the same run: the bare search discover and
// plan send (one POST of the same query, the answer parsed, nothing else). The apply's activations
// are counted on the change manager's activations (goal: one). Goals (issue 27): discover < 10 s,
// plan < 5 s; an apply of 100 changes is one activation. The server runs in a process of its own,
// as it does for a user; the client's steps are those of the commands (plan searches the domain
// while it reads the model). The machine's load average is printed with each figure.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { initDataDir } from '../src/cli/server.js';
import { AppserverClient } from '../src/client/index.js';
import { apply, discover, plan, readLive, readModel } from '../src/client/model/index.js';
import { queryOf } from '../src/client/model/live.js';
import { DEFAULT_SIZE } from '../src/domain/generate.js';
import { rows } from './harness.js';
import { BIN, adminEnv, stopChild } from './processes.js';
import type { BenchStore } from './stores.js';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const AUTH = { authorization: `Basic ${Buffer.from('admin:welcome1').toString('base64')}` };

async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t = performance.now();
  const value = await run();
  return { ms: performance.now() - t, value };
}

async function ready(url: string, child: ChildProcess): Promise<void> {
  const began = performance.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    if (performance.now() - began > 300_000) throw new Error('no 200 within five minutes');
    const code = await fetch(url, { headers: AUTH }).then(
      async (r) => (await r.arrayBuffer(), r.status),
      () => 0,
    );
    if (code === 200) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const load = () => loadavg()[0]!.toFixed(1);

export async function benchDomainAsCode(store: BenchStore): Promise<void> {
  adminEnv();
  const storeUrl = await store.fresh();
  const dataDir = mkdtempSync(join(tmpdir(), 'appserver-bench-dac-'));
  await initDataDir(dataDir, DEFAULT_SIZE, storeUrl);
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = spawn(process.execPath, [BIN, 'serve', '--data-dir', dataDir, '--port', String(port), '--no-listeners', '--log-level', 'error', ...(storeUrl ? ['--store', storeUrl] : [])], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: process.env,
  });
  try {
    const url = `http://127.0.0.1:${port}`;
    await ready(`${url}/management/appserver/latest/edit/servers/ms1`, child);
    const client = new AppserverClient({ url, user: 'admin', password: 'welcome1', maxResponseBytes: 1024 ** 3, requestTimeoutMs: 300_000 });
    const query = JSON.stringify(queryOf('appserver.management.configuration.DomainMBean'));
    const bare: number[] = [];
    const disc: number[] = [];
    const plans: number[] = [];
    const loads: string[] = [];
    let model = '';
    const secret = () => 'bench';
    for (let i = 0; i < 3; i++) {
      loads.push(load());
      bare.push(
        (
          await timed(async () => {
            const r = await fetch(`${client.root}/edit/search`, { method: 'POST', body: query, headers: { ...AUTH, 'content-type': 'application/json', 'x-requested-by': 'bench', accept: 'application/json' } });
            return JSON.parse(await r.text()) as unknown;
          })
        ).ms,
      );
      const d = await timed(() => discover(client));
      disc.push(d.ms);
      model = d.value.model;
      // As `plan` runs: the search goes out first, the model is read while its answer comes in.
      const p = await timed(async () => {
        const reading = readLive(client);
        const read = readModel(model, 'model.yaml', { secret });
        return plan(read.root, await reading);
      });
      if (p.value.changes.length !== 0) throw new Error(`plan of the discovered model found ${p.value.changes.length} changes`);
      plans.push(p.ms);
    }
    // 100 changes: the notes of 100 servers.
    const read = readModel(model, 'model.yaml', { secret });
    const servers = [...read.root.collections.get('servers')!.values()].slice(1, 101);
    for (const [i, s] of servers.entries()) s.values.set('notes', `changed by the benchmark (${i})`);
    const before = (await client.list('edit/changeManager/activations', { links: [] })).length;
    loads.push(load());
    const applied = await timed(() => apply(client, read.root));
    const activations = (await client.list('edit/changeManager/activations', { links: [] })).length - before;
    const changes = applied.value.plan.changes.reduce((n, c) => n + c.props.length, 0);
    loads.push(load());
    const base = median(bare);
    const line = (what: string, ms: number, goal: string) => {
      console.log(`domain-as-code ${what}: ${(ms / 1000).toFixed(2)} s (goal ${goal}) vs the bare search ${(base / 1000).toFixed(2)} s -> ${(ms / base).toFixed(2)}x; load average ${loads.join(', ')}`);
      rows.push({ benchmark: `domain-as-code ${what}`, store: store.label, subject: `${(ms / 1000).toFixed(2)} s`, baseline: `${(base / 1000).toFixed(2)} s (bare search)`, ratio: (ms / base).toFixed(2), latency: `${goal}; load ${loads.join('/')}`, peakRss: `${Math.round(process.memoryUsage().rss / 1024 / 1024)} MiB (client)` });
    };
    line('discover (1,000 servers)', median(disc), '< 10 s');
    line('plan (no change)', median(plans), '< 5 s');
    line(`apply (${changes} changes, ${activations} activation${activations === 1 ? '' : 's'})`, applied.ms, 'one activation');
  } finally {
    await stopChild(child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
