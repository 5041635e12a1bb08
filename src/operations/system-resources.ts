// Restarting a system resource (domainRuntime restartSystemResource): what runs of it on the
// servers starts afresh. A JDBC data source is running again wherever it has a runtime (whatever
// it was suspended or shut down to); a JMS module's destinations lose what was paused on them and
// follow their configuration again. Other kinds of resource run nothing here.
import type { OperationServices } from './define.js';

/** Restarts the resource `id` names (it exists); returns what was done, for the audit trail. */
export function restartSystemResource(use: OperationServices, id: readonly string[]): string {
  const name = id[id.length - 1]!;
  const collection = id[id.length - 2];
  const engine = use.engine;
  if (collection === 'JDBCSystemResources') {
    const partition = id[0] === 'partitions' ? id[1]! : '';
    let restarted = 0;
    for (const [key, state] of [...engine.state.dataSources]) {
      const [server, p, ds] = key.split('/');
      if (p !== partition || ds !== name || state === 'Running') continue;
      engine.setDataSourceState(server!, p, ds, 'Running');
      restarted++;
    }
    return `Data source '${name}' restarted: running again on ${restarted} server${restarted === 1 ? '' : 's'} where it was not.`;
  }
  if (collection === 'JMSSystemResources' && id.length === 2) {
    engine.messaging.forget((_jmsServer, destination) => destination !== undefined && destination.startsWith(`${name}!`));
    return `JMS module '${name}' restarted: its destinations follow their configured pause states again.`;
  }
  return `'${name}' restarted; nothing of it runs on the servers.`;
}
