// How far the JavaScript heap may grow past what the last full collection kept. Left to itself,
// V8 picks the factor from how fast collection runs against how fast the program allocates, up to
// four times: on a busy machine a server holding 170 MiB of runtime trees may then grow to 700 MiB
// before it collects, while the same server collecting at half again peaks at 280 to 350 MiB at
// the same throughput (bench `search`). The administration server's process is ours, so it says.
import { setFlagsFromString } from 'node:v8';

/** The default: the heap grows to 1.5 times what survived the last full collection. */
export const DEFAULT_HEAP_GROWTH_PERCENT = 50;

/** Parses `--heap-growth` (0: V8 chooses, as it does without this setting). */
export function parseHeapGrowth(value: string): number {
  const n = /^\s*\d{1,3}\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!(n <= 300)) throw new Error(`--heap-growth takes a whole percentage from 0 to 300, not '${value.slice(0, 40)}'`);
  return n;
}

/** Sets the growth for the rest of the process (V8 reads it at every full collection). */
export function limitHeapGrowth(percent: number): void {
  setFlagsFromString(`--heap-growing-percent=${percent}`);
}
