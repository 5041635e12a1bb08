// Figures read at request time. The administration server is this process, so its JVM runtime
// and thread pool report this process's real memory, uptime, CPU load and request counts.
import os from 'node:os';
import v8 from 'node:v8';
import type { ProcessFigures } from '../behaviour/derived-values.js';

/** Request counters the HTTP layer feeds. */
export class RequestStats {
  completed = 0;
  pending = 0;
  openConnections = 0;
}

let lastCpu = process.cpuUsage();
let lastCpuAt = process.hrtime.bigint();
let lastLoad = 0;

/** Share of one machine's CPU this process used since the previous reading (0..1). */
function processCpuLoad(): number {
  const now = process.hrtime.bigint();
  const elapsedMicros = Number(now - lastCpuAt) / 1000;
  if (elapsedMicros < 100_000) return lastLoad;
  const used = process.cpuUsage(lastCpu);
  lastCpu = process.cpuUsage();
  lastCpuAt = now;
  lastLoad = Math.min(1, (used.user + used.system) / elapsedMicros / os.cpus().length);
  return lastLoad;
}

function jvm(): Record<string, unknown> {
  const heap = v8.getHeapStatistics();
  const total = heap.total_heap_size;
  const free = Math.max(0, total - heap.used_heap_size);
  return {
    heapSizeCurrent: total,
    heapFreeCurrent: free,
    heapSizeMax: heap.heap_size_limit,
    heapFreePercent: Math.round((100 * (heap.heap_size_limit - heap.used_heap_size)) / heap.heap_size_limit),
    uptime: Math.round(process.uptime() * 1000),
    javaVersion: process.versions.node,
    javaVendor: 'Node.js',
    javaVMVendor: `V8 ${process.versions.v8}`,
    OSName: os.type(),
    OSVersion: os.release(),
    processCpuLoad: processCpuLoad(),
    threadStackDump: '',
  };
}

/** Figures of this process (the administration server), as its runtime tree shows them. */
export function processFigures(stats: RequestStats): ProcessFigures {
  return {
    jvm,
    threadPool: () => ({
      completedRequestCount: stats.completed,
      pendingUserRequestCount: stats.pending,
      executeThreadTotalCount: 1,
      executeThreadIdleCount: stats.pending > 0 ? 0 : 1,
      throughput: stats.completed / Math.max(1, process.uptime()),
    }),
    openSockets: () => stats.openConnections,
  };
}
