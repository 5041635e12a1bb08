// What the store holds of the runtime is what the server showed: a write names only the runtime
// state entries that changed since the last one (src/runtime/state.ts stateChanges), so a change it
// missed would show as a server, partition, resource group or application in another state after a
// restart. Random sequences of lifecycle actions (seeded: a failure names its seed), then a restart:
// everything a user sees of those states must read the same, twice in a row.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { ASYNC, type RuntimeServer, pollUntil, startRuntimeServer } from '../support/runtime-server.js';

const LC = 'domainRuntime/serverLifeCycleRuntimes';
const PLC = (p: string) => `domainRuntime/domainPartitionRuntimes/${p}/partitionLifeCycleRuntime`;

let srv: RuntimeServer;
after(() => srv?.stop(true));

/** A small seeded generator, so that a failing sequence can be run again. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

async function items(path: string, fields: string): Promise<Record<string, unknown>[]> {
  const r = await srv.admin.get(`${path}?links=none&fields=${fields}`);
  if (r.status === 404) return [];
  assert.equal(r.status, 200, `${path}: ${r.text}`);
  return r.json.items as Record<string, unknown>[];
}

/** Every lifecycle state a user reads: servers, partitions and their resource groups, running servers' flags, applications. */
async function shown(): Promise<unknown> {
  const servers = await items(LC, 'name,state');
  const partitions: Record<string, unknown> = {};
  for (const p of await items('domainRuntime/domainPartitionRuntimes', 'name')) {
    const name = String(p.name);
    const plc = await srv.admin.get(`${PLC(name)}?links=none&fields=state,subState`);
    partitions[name] = { ...plc.json, groups: await items(`${PLC(name)}/resourceGroupLifeCycleRuntimes`, 'name,state') };
  }
  const running = await items('domainRuntime/serverRuntimes', 'name,state,restartRequired');
  const apps: Record<string, unknown> = {};
  for (const a of await items('domainRuntime/deploymentManager/appDeploymentRuntimes', 'name')) {
    const r = await srv.admin.post('domainRuntime/appRuntimeStateRuntime/getIntendedState', { appid: a.name });
    apps[String(a.name)] = r.json?.return ?? r.status;
  }
  return { servers, partitions, running, apps };
}

/** One action chosen at random; waits until its task ended (an action refused in the current state is fine). */
async function act(pick: () => number): Promise<string> {
  const servers = (await items(LC, 'name')).map((s) => String(s.name));
  const partitions = (await items('domainRuntime/domainPartitionRuntimes', 'name')).map((p) => String(p.name));
  const apps = (await items('domainRuntime/deploymentManager/appDeploymentRuntimes', 'name')).map((a) => String(a.name));
  const one = <T>(xs: T[]): T => xs[Math.floor(pick() * xs.length)]!;
  const kinds: [number, () => string][] = [
    [5, () => `${LC}/${one(servers.filter((s) => s !== 'AdminServer'))}/${one(['start', 'start', 'shutdown', 'forceShutdown', 'suspend', 'resume'])}`],
    [partitions.length > 0 ? 3 : 0, () => `${PLC(one(partitions))}/${one(['start', 'shutdown', 'halt', 'boot', 'forceSuspend', 'resume'])}`],
    [apps.length > 0 ? 2 : 0, () => `domainRuntime/deploymentManager/appDeploymentRuntimes/${one(apps)}/${one(['stop', 'start'])}`],
  ];
  let at = pick() * kinds.reduce((n, [w]) => n + w, 0);
  const [, make] = kinds.find(([w]) => (at -= w) < 0) ?? kinds[0]!;
  const path = make();
  const r = await srv.admin.post(path, {}, ASYNC);
  assert.ok(r.status < 500, `${path}: ${r.status} ${r.text}`);
  const location = r.headers.get('location');
  if (r.status === 202 && location) {
    srv.advance(120_000);
    await pollUntil(() => srv.admin.get(`${location}?links=none&fields=completed`), (t) => t.json?.completed === true, `${path} completed`, 20_000);
  }
  return `${path} ${r.status}`;
}

for (const seed of [11, 2026]) {
  test(`after random lifecycle actions a restart shows every state as it was (seed ${seed})`, async () => {
    srv = srv ? await srv.restart() : await startRuntimeServer();
    const pick = random(seed);
    const done: string[] = [];
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 8; i++) done.push(await act(pick));
      const before = await shown();
      srv = await srv.restart();
      assert.deepEqual(await shown(), before, `after ${done.join(', ')}`);
    }
  });
}
