// Log files behind runtime beans (spec: serverLogRuntime, the domain's logRuntime, connection
// pools): each bean stands for a real file of the data directory's `logs/` folder (runtime/logs.ts).
// `ensureLogOpened` creates it again if it was removed, `flushLog` writes the buffered lines, and
// `forceLogRotation` renames it to the next numbered name and starts a new one.
import type { LogFile } from '../runtime/logs.js';
import { DONE, type Invocation, type OperationDefinition, type OperationServices, defineOperation } from './define.js';
import { RT, VOID, action, ov } from './declare.js';
import { poolLog } from './connectors.js';
import { serverOf } from './beans.js';

const LOG = RT + 'LogRuntimeMBean';

/** The file a log runtime bean stands for. */
function logOf(call: Invocation, use: OperationServices): LogFile {
  const { node } = call;
  // The domain runtime's own log is the domain log.
  if (node.root.name === 'domainRuntime' && node.identity.length === 1) return use.logs.domain(use.engine.currentTopology.domainName);
  if (use.catalog.isA(node.type, RT + 'ServerLogRuntimeMBean')) return use.logs.server(serverOf(call));
  if (use.catalog.isA(node.type, RT + 'ConnectorConnectionPoolRuntimeMBean')) return poolLog(call, use, String(node.record?.values.poolName ?? node.identity[node.identity.length - 1]));
  return use.logs.bean(serverOf(call), node.identity);
}

export const logOperations: OperationDefinition[] = [
  defineOperation(action(LOG, 'ensureLogOpened', [ov(VOID)]), (call, use) => {
    const log = logOf(call, use);
    call.audit.detail = log.ensureOpened() ? `${log.shown} was missing and was created again.` : `${log.shown} is open.`;
    return DONE;
  }),
  defineOperation(action(LOG, 'flushLog', [ov(VOID)]), (call, use) => {
    const log = logOf(call, use);
    const lines = log.flush();
    call.audit.detail = `${lines} buffered line${lines === 1 ? '' : 's'} written to ${log.shown}.`;
    return DONE;
  }),
  defineOperation(action(LOG, 'forceLogRotation', [ov(VOID)]), (call, use) => {
    const log = logOf(call, use);
    call.audit.detail = `${log.shown} was rotated to ${log.rotate()}; a new file was started.`;
    return DONE;
  }),
];
