// `npm run bench`: every benchmark, each against its baseline measured in the same run, on SQLite
// and (with APPSERVER_BENCH_PG=postgres://...) on PostgreSQL too.
// `npm run bench -- get` runs only the benchmarks whose name contains "get".
import { benchEditActivate } from './edit-activate.js';
import { benchGetBean } from './get-bean.js';
import { benchStores } from './stores.js';

const all: [string, () => Promise<string>][] = [];
for (const store of benchStores()) {
  all.push([`get-bean ${store.label}`, () => benchGetBean(1, store)]);
  all.push([`get-bean-pipelined ${store.label}`, () => benchGetBean(10, store)]);
  all.push([`edit-activate ${store.label}`, () => benchEditActivate(store)]);
}

const filter = process.argv[2];
const lines: string[] = [];
for (const [name, run] of all) if (!filter || name.includes(filter)) lines.push(await run());
console.log('\nSummary');
for (const l of lines) console.log(`- ${l}`);
