// `npm run bench`: every benchmark, each against its baseline measured in the same run, on SQLite
// and (with APPSERVER_BENCH_PG=postgres://...) on PostgreSQL too. Ratios are throughput of
// appserver-admin over the bare baseline (1.00 = as fast as bare Fastify).
// `npm run bench -- reads` runs only the benchmarks whose name contains "reads" (`-- fleet`, `-- startup`,
// `-- search-one`, `-- ten-thousand`: issue 28's rows).
import { benchAbuse } from './abuse.js';
import { benchShares } from './shares.js';
import { benchControl } from './control.js';
import { benchDomainAsCode } from './domain-as-code.js';
import { benchEditActivate } from './edit-activate.js';
import { table } from './harness.js';
import { benchListeners } from './listeners.js';
import { benchRenderCache } from './render-cache.js';
import { benchLifecycle, benchReads } from './reads.js';
import { benchFleet } from './fleet.js';
import { benchSearch, benchSearchOne } from './search.js';
import { benchStartup } from './startup.js';
import { benchTenThousand } from './ten-thousand.js';
import { benchStores } from './stores.js';
import { benchTopology } from './topology.js';
import { benchWorkload } from './workload.js';

const all: [string, () => Promise<unknown>][] = [];
for (const store of benchStores()) {
  all.push([`reads ${store.label}`, () => benchReads(store)]);
  all.push([`cache ${store.label}`, () => benchRenderCache(store)]);
  all.push([`lifecycle ${store.label}`, () => benchLifecycle(store)]);
  all.push([`search-one ${store.label}`, () => benchSearchOne(store)]);
  all.push([`search-large ${store.label}`, () => benchSearch(store)]);
  all.push([`edit-activate ${store.label}`, () => benchEditActivate(store)]);
  all.push([`abuse ${store.label}`, () => benchAbuse(store)]);
  all.push([`shares ${store.label}`, () => benchShares(store)]);
  all.push([`workload ${store.label}`, () => benchWorkload(store)]);
  all.push([`snapshots ${store.label}`, () => benchControl(store)]);
  all.push([`topology ${store.label}`, () => benchTopology(store)]);
  all.push([`domain-as-code ${store.label}`, () => benchDomainAsCode(store)]);
}

// Memory and start-up of managed servers' listeners (SQLite: the store plays no part in it).
all.push(['listeners SQLite', () => benchListeners()]);
// Issue 28: a fleet of 100 servers under watch (FLEET_SECONDS, default 60), and start-up against a bare app.
all.push(['fleet SQLite', () => benchFleet()]);
all.push(['startup SQLite', () => benchStartup()]);
all.push(['ten-thousand SQLite', () => benchTenThousand()]);

const filter = process.argv[2];
for (const [name, run] of all) if (!filter || name.includes(filter)) await run();
console.log(`\n${table()}`);
