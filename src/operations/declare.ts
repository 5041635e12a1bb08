// The vocabulary of declarations: parameter and overload shapes, and the four kinds of operation
// (queries, administrator-only queries, actions, task-returning actions).
// Where the argument names come from is noted next to each declaration. Source tags:
// spec = domain-admin-rest.md; ops X.n = reference/operations.md; rb §n = reference/rest-behavior.md;
// rc = remote-console-resources/<Type>/extension.yaml; api = the product's public MBean interface,
// used only where the references give no argument names (those choices are marked "chosen").
import type { OverlayOverload, OverlayParam, Role } from '../catalog/overlay-format.js';
import type { OperationDeclaration } from './define.js';

export const RT = 'appserver.management.runtime.';
export const CFG = 'appserver.management.configuration.';
export const AUTHN = 'appserver.management.security.authentication.';

export const STRING = 'java.lang.String';
export const INT = 'int';
export const LONG = 'long';
export const BOOL = 'boolean';
export const PROPS = 'java.util.Properties';
export const VOID = 'void';

export const SERVER_TASK = RT + 'ServerLifeCycleTaskRuntimeMBean';
export const PARTITION_TASK = RT + 'PartitionLifeCycleTaskRuntimeMBean';
export const RG_TASK = RT + 'ResourceGroupLifeCycleTaskRuntimeMBean';
export const DEPLOY_TASK = RT + 'DeploymentProgressObjectMBean';
export const JDBC_TASK = RT + 'JDBCDataSourceTaskRuntimeMBean';

export const OPERATOR: Role[] = ['Operator'];
export const DEPLOYER: Role[] = ['Deployer'];
export const DEPLOYER_OPERATOR: Role[] = ['Deployer', 'Operator'];
export const READERS: Role[] = ['Deployer', 'Operator', 'Monitor'];

export function p(name: string, type: string, array = false): OverlayParam {
  return array ? { name, type, array: true } : { name, type };
}
export const str = (name: string): OverlayParam => p(name, STRING);
export const int = (name: string): OverlayParam => p(name, INT);
export const bool = (name: string): OverlayParam => p(name, BOOL);
export const targetNames = (): OverlayParam => p('targetNames', STRING, true);
export const targetRefs = (): OverlayParam => p('targets', CFG + 'TargetMBean', true);
export const stringTargets = (): OverlayParam => p('targets', STRING, true);
export const options = (): OverlayParam => p('deploymentOptions', PROPS);

export function ov(returns: string, ...params: OverlayParam[]): OverlayOverload {
  return { params, returns };
}
export function ovArray(returns: string, ...params: OverlayParam[]): OverlayOverload {
  return { params, returns, returnsArray: true };
}
/** The argument set as given, then the same set plus `targetNames`, then plus `targets` (references). */
export function targeted(returns: string, ...base: OverlayParam[]): OverlayOverload[] {
  return [ov(returns, ...base), ov(returns, ...base, targetNames()), ov(returns, ...base, targetRefs())];
}

/** A pure read; Monitors may call it when the roles say so. */
export function query(on: string, name: string, overloads: OverlayOverload[], roles: Role[] = READERS): OperationDeclaration {
  return { on, name, overloads, impact: 'info', roles };
}
/** A pure read only administrators may call (user and group data). */
export function adminQuery(on: string, name: string, overloads: OverlayOverload[]): OperationDeclaration {
  return { on, name, overloads, impact: 'info' };
}
/** Changes state; administrators and the roles named may call it. */
export function action(on: string, name: string, overloads: OverlayOverload[], roles?: Role[]): OperationDeclaration {
  return roles ? { on, name, overloads, impact: 'action', roles } : { on, name, overloads, impact: 'action' };
}
/** Returns a task or progress object and honours `Prefer`. */
export function task(on: string, name: string, overloads: OverlayOverload[], roles: Role[]): OperationDeclaration {
  return { on, name, overloads, impact: 'action', async: true, roles };
}

// Partition and resource-group lifecycle (ops B.3, B.5): the graceful shutdown family.
export function lifecycleShutdown(returns: string): OverlayOverload[] {
  return [
    ...targeted(returns),
    ...targeted(returns, int('timeout'), bool('ignoreSessions')),
    ...targeted(returns, int('timeout'), bool('ignoreSessions'), bool('waitForAllSessions')),
  ];
}
export function lifecycleSuspend(returns: string): OverlayOverload[] {
  return [...targeted(returns), ...targeted(returns, int('timeout'), bool('ignoreSessions'))];
}
