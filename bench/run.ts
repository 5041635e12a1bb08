// `npm run bench`: every benchmark, each against its baseline measured in the same run.
import { benchGetBean } from './get-bean.js';

const lines: string[] = [];
lines.push(await benchGetBean(1));
lines.push(await benchGetBean(10));
console.log('\nSummary');
for (const l of lines) console.log(`- ${l}`);
