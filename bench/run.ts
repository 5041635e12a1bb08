// `npm run bench`: every benchmark, each against its baseline measured in the same run.
// `npm run bench -- get` runs only the benchmarks whose name contains "get".
import { benchEditActivate } from './edit-activate.js';
import { benchGetBean } from './get-bean.js';

const all: [string, () => Promise<string>][] = [
  ['get-bean', () => benchGetBean(1)],
  ['get-bean-pipelined', () => benchGetBean(10)],
  ['edit-activate', () => benchEditActivate()],
];

const filter = process.argv[2];
const lines: string[] = [];
for (const [name, run] of all) if (!filter || name.includes(filter)) lines.push(await run());
console.log('\nSummary');
for (const l of lines) console.log(`- ${l}`);
