// Operations are declared once, with their handlers: the catalog learns them from the definitions,
// and no action can be advertised without its handler.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadCatalog } from '../../src/catalog/load.js';
import { lifecycleOperations } from '../../src/catalog/overlay/lifecycle.js';
import { catalogWithOperations, operationTable } from '../../src/operations/catalog.js';
import { DONE, defineOperation } from '../../src/operations/define.js';
import { OperationExecutor } from '../../src/operations/executor.js';
import { OPERATIONS } from '../../src/operations/index.js';

const RT = 'appserver.management.runtime.';

test('every definition reaches the catalog on the type it is declared on, and every subtype inherits it', () => {
  const catalog = catalogWithOperations();
  for (const { declaration } of OPERATIONS) {
    const op = catalog.type(declaration.on).operations.get(declaration.name);
    assert.equal(op?.declaredBy, declaration.on, `${declaration.on}#${declaration.name}`);
    assert.deepEqual(op.overloads, declaration.overloads);
    for (const sub of catalog.type(declaration.on).subtypes) assert.ok(sub.operations.has(declaration.name), `${sub.name} lacks ${declaration.name}`);
  }
  // The log operations declared on LogRuntime reach a connection pool's runtime.
  assert.equal(catalog.type(`${RT}ConnectorConnectionPoolRuntimeMBean`).operations.get('forceLogRotation')?.declaredBy, `${RT}LogRuntimeMBean`);
});

test('without definitions the catalog has only the Lifecycle Manager\'s actions (its tree writer performs them)', () => {
  const bare = loadCatalog({});
  const advertised = [...bare.types.values()].flatMap((t) => [...t.operations.values()].map((op) => `${op.declaredBy}#${op.name}`));
  const lifecycle = Object.entries(lifecycleOperations).flatMap(([on, ops]) => ops.map((op) => `${on}#${op.name}`));
  assert.deepEqual([...new Set(advertised)].sort(), lifecycle.sort());
});

test('the operations the catalog says it offers (checked for handlers before any type is built) are those its built types offer', () => {
  for (const catalog of [catalogWithOperations(), loadCatalog({}), catalogWithOperations('12.2.1.3.0')]) {
    const offered = catalog.offeredOperations().map((op) => `${op.declaredBy}#${op.name}`);
    const built = [...catalog.types.values()].flatMap((t) => [...t.operations.values()].map((op) => `${op.declaredBy}#${op.name}`));
    assert.deepEqual([...new Set(offered)].sort(), [...new Set(built)].sort(), catalog.productVersion);
  }
});

test('operations that have no meaning here are not declared', () => {
  const catalog = catalogWithOperations();
  const gone: [string, string][] = [
    [`${RT}EJBPoolRuntimeMBean`, 'initializePool'],
    [`${RT}EJBTimerRuntimeMBean`, 'activateDisabledTimers'],
    [`${RT}MessageDrivenEJBRuntimeMBean`, 'suspend'],
    [`${RT}MessageDrivenEJBRuntimeMBean`, 'resume'],
    ['appserver.management.configuration.CoherenceClusterSystemResourceMBean', 'importCustomClusterConfigurationFile'],
    [`${RT}JMSMessageManagementRuntimeMBean`, 'deleteMessages'],
    // Only the default authenticator holds users and groups to move.
    ['appserver.security.providers.xacml.authorization.XACMLAuthorizerMBean', 'exportData'],
  ];
  for (const [type, name] of gone) assert.equal(catalog.type(type).operations.has(name), false, `${type}#${name}`);
});

test("a deployed library's runtime offers redeploy and undeploy, each returning a progress object", () => {
  const lib = catalogWithOperations().type(`${RT}LibDeploymentRuntimeMBean`);
  for (const name of ['redeploy', 'undeploy']) {
    const op = lib.operations.get(name);
    assert.ok(op, name);
    assert.equal(op.async, true, name);
    assert.ok(op.overloads.every((o) => o.returns === `${RT}DeploymentProgressObjectMBean`), name);
  }
});

test('an operation defined twice on one type is refused', () => {
  const twice = defineOperation({ on: `${RT}JVMRuntimeMBean`, name: 'runGC', overloads: [{ params: [], returns: 'void' }] }, () => DONE);
  assert.throws(() => operationTable([twice, twice]), /'runGC' of appserver\.management\.runtime\.JVMRuntimeMBean is defined twice/);
});

test('an executor whose catalog advertises an operation it has no handler for does not start', () => {
  const catalog = catalogWithOperations();
  const without = OPERATIONS.filter((d) => d.declaration.name !== 'runGC');
  assert.throws(() => new OperationExecutor(catalog, without, {} as never, {} as never, lifecycleOperations), /the operation 'runGC' of appserver\.management\.runtime\.JVMRuntimeMBean has no handler/);
  // The Lifecycle Manager's actions must be claimed by the writer that performs them.
  assert.throws(() => new OperationExecutor(catalog, OPERATIONS, {} as never, {} as never), /the operation 'associatePartitions' of .*Environment has no handler/);
  assert.doesNotThrow(() => new OperationExecutor(catalog, OPERATIONS, {} as never, {} as never, lifecycleOperations));
});
