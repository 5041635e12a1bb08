// The catalog with its operations: the declarations of every definition, handed to the catalog
// loader (which knows nothing of operations). Servers, tests and tools load it this way.
import { type Catalog, loadCatalog } from '../catalog/load.js';
import type { OperationTable, OverlayOperation } from '../catalog/overlay-format.js';
import type { OperationDefinition } from './define.js';
import { OPERATIONS } from './index.js';

/** The declarations of `definitions`, by the type each is declared on, in their order. */
export function operationTable(definitions: readonly OperationDefinition[]): OperationTable {
  const table: Record<string, OverlayOperation[]> = {};
  for (const { declaration } of definitions) {
    const { on, ...operation } = declaration;
    const list = (table[on] ??= []);
    if (list.some((o) => o.name === operation.name)) throw new Error(`the operation '${operation.name}' of ${on} is defined twice`);
    list.push(operation);
  }
  return table;
}

const TABLE = operationTable(OPERATIONS);

/** The catalog of a product version (default: the default version) with every operation of OPERATIONS (loaded once per version). */
export function catalogWithOperations(version?: string): Catalog {
  return loadCatalog(TABLE, version);
}
