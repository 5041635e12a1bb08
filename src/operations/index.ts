// Every operation of the management trees, by family. The order within a type is the order of its
// action links.
import { changeManagerOperations } from './change-manager.js';
import type { CollectionDefinition } from './collections.js';
import { configurationQueries } from './configuration-queries.js';
import { connectorOperations } from './connectors.js';
import { dataSourceOperations } from './data-sources.js';
import type { OperationDefinition } from './define.js';
import { deploymentOperations } from './deployments.js';
import { editSessionCollections, editSessionOperations } from './edit-sessions.js';
import { logOperations } from './logs.js';
import { messagingOperations } from './messaging.js';
import { partitionLifecycleOperations } from './partition-lifecycle.js';
import { securityDataOperations } from './security-data.js';
import { securityRealmOperations } from './security-realm.js';
import { serverLifecycleOperations } from './server-lifecycle.js';
import { transactionOperations } from './transactions.js';

export const OPERATIONS: readonly OperationDefinition[] = [
  ...changeManagerOperations,
  ...editSessionOperations,
  ...configurationQueries,
  ...serverLifecycleOperations,
  ...partitionLifecycleOperations,
  ...deploymentOperations,
  ...dataSourceOperations,
  ...connectorOperations,
  ...logOperations,
  ...messagingOperations,
  ...transactionOperations,
  ...securityRealmOperations,
  ...securityDataOperations,
];

/** Runtime collections whose items clients create and delete. */
export const COLLECTIONS: readonly CollectionDefinition[] = [...editSessionCollections];
