// The one authorisation helper: who may read, write or invoke what.
import { forbidden } from '../core/problems.js';
import type { OperationDef, TypeDef } from '../catalog/model.js';
import type { Role } from '../catalog/overlay-format.js';
import type { Principal } from './service.js';

export type Access =
  | { kind: 'read' }
  | { kind: 'write'; type: TypeDef }
  | { kind: 'invoke'; type: TypeDef; op: OperationDef }
  | { kind: 'role'; roles: readonly Role[]; what: string };

function allowed(principal: Principal, roles: readonly Role[]): boolean {
  if (principal.roles.has('Admin')) return true;
  return roles.some((r) => principal.roles.has(r));
}

/** Throws 403 naming what was refused, unless the principal holds a role that allows it. */
export function authorize(principal: Principal, access: Access): void {
  switch (access.kind) {
    case 'read':
      if (principal.roles.size === 0) throw forbidden(`User '${principal.user}' has no administrative role and may not read this resource.`);
      return;
    case 'write':
      if (!allowed(principal, access.type.roles.filter((r) => r !== 'Monitor'))) {
        throw forbidden(`User '${principal.user}' may not change ${access.type.short} beans: this needs the Admin role.`);
      }
      return;
    case 'invoke': {
      const roles = access.op.roles ?? (access.op.impact === 'info' ? access.type.roles : []);
      if (!allowed(principal, roles)) {
        const who = ['Admin', ...roles].join(', ');
        throw forbidden(`User '${principal.user}' may not invoke '${access.op.name}' on ${access.type.short}: this needs one of the roles ${who}.`);
      }
      return;
    }
    case 'role':
      if (!allowed(principal, access.roles)) {
        throw forbidden(`User '${principal.user}' may not ${access.what}: this needs one of the roles ${['Admin', ...access.roles].join(', ')}.`);
      }
  }
}
