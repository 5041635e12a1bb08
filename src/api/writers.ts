// Where a tree's changes go. The dispatch resolves a request's target in a tree, checks the method
// against what the tree's writer takes, has the writer authorize the change, records it in the
// audit trail under the writer's name for it, and hands it to the writer.
import { adminOnlyBean, adminOnlyChanges } from '../behaviour/connection-settings.js';
import type { BehaviourRegistry } from '../behaviour/registry.js';
import type { Catalog } from '../catalog/load.js';
import type { OperationDef, PropDef } from '../catalog/model.js';
import type { ConfigService } from '../config/config-service.js';
import { badRequest, forbidden } from '../core/problems.js';
import type { Identity } from '../core/identity.js';
import { authorize } from '../security/authorize.js';
import type { Principal } from '../security/service.js';
import type { BeanNode } from '../tree/resolve.js';

type Json = Record<string, unknown>;

/** Who changes the tree, and in which edit session. */
export interface WriteContext {
  principal: Principal;
  session: string;
  /**
   * The request's conditions on its target (If-Match...): throws 412 when they fail. A writer that
   * can runs it again inside its own transaction, so that no change slips in between.
   */
  precondition?: () => void;
}

/** A change of a tree, as the writer authorizes it and the audit trail names it. */
export type Change =
  | { kind: 'create'; owner: BeanNode; prop: PropDef }
  /** `properties`: the properties an update sets, when they are known (a description asks one at a time). */
  | { kind: 'update'; node: BeanNode; properties?: readonly string[] }
  | { kind: 'delete'; node: BeanNode }
  | { kind: 'invoke'; node: BeanNode; op: OperationDef };

export interface TreeWriter {
  /** Throws 403 unless the principal may make the change (checked before the body is read, and when it is made). */
  authorize(principal: Principal, change: Change): void;
  /** The change as the audit trail records it: what was done, to which resource. */
  auditName(change: Change): { action: string; bean: string };
  /** Whether items of the collection (or the optional singleton) `prop` of `owner` can be created. */
  creates(owner: BeanNode, prop: PropDef): boolean;
  /** Whether the bean takes a POST that changes it. */
  updates(node: BeanNode): boolean;
  /** Whether the bean can be deleted. */
  deletes(node: BeanNode): boolean;
  /** Whether the writer performs this action itself (without, or when false, the action registry does). */
  performs?(node: BeanNode, op: OperationDef): boolean;
  /** Creates a bean from `body`; returns its identity (its path below the tree's base). */
  create(owner: BeanNode, prop: PropDef, body: Json, ctx: WriteContext): Promise<Identity>;
  update(node: BeanNode, body: Json, ctx: WriteContext): Promise<void>;
  delete(node: BeanNode, ctx: WriteContext): Promise<void>;
  invoke?(node: BeanNode, op: OperationDef, body: Json, ctx: WriteContext): Promise<void>;
}

/** The path a change acts on: the collection for a creation, the action for an invocation. */
export function changedPath(change: Change): readonly string[] {
  switch (change.kind) {
    case 'create':
      return [...change.owner.path, change.prop.name];
    case 'invoke':
      return [...change.node.path, change.op.name];
    default:
      return change.node.path;
  }
}

/** The edit tree's writer: the configuration service, in the request's edit session. Its actions are the action registry's. */
export class EditWriter implements TreeWriter {
  constructor(
    private readonly catalog: Catalog,
    private readonly config: ConfigService,
    private readonly behaviours: BehaviourRegistry,
  ) {}

  authorize(principal: Principal, change: Change): void {
    // Actions of the edit tree are the action registry's, which authorizes them by operation.
    if (change.kind === 'invoke') return authorize(principal, { kind: 'invoke', type: change.node.type, op: change.op });
    const type = change.kind === 'create' ? this.catalog.type(change.prop.creators[0] ?? change.prop.javaType) : change.node.type;
    authorize(principal, { kind: 'write', type });
    // Beans that are connection settings as a whole (a data source's driver properties) are the
    // administrators', whatever their type's roles say; single settings are judged with the body
    // (the configuration service takes a setting sent back unchanged), or here when named.
    if (principal.roles.has('Admin')) return;
    const settings = adminOnlyBean(this.behaviours, type);
    if (settings !== undefined) {
      throw forbidden(`User '${principal.user}' may not ${change.kind === 'create' ? 'create' : change.kind === 'delete' ? 'remove' : 'change'} a ${type.short}: ${settings} change only with the Admin role.`);
    }
    const guarded = change.kind === 'update' && change.properties ? adminOnlyChanges(this.behaviours, type, change.properties) : undefined;
    if (guarded) {
      throw forbidden(`User '${principal.user}' may not change ${guarded.names.map((n) => `'${n}'`).join(', ')} of ${type.short}: ${guarded.what} change only with the Admin role.`);
    }
  }

  auditName(change: Change): { action: string; bean: string } {
    const action = change.kind === 'invoke' ? change.op.name : change.kind;
    const path = change.kind === 'create' ? changedPath(change) : change.node.path;
    return { action, bean: path.join('/') };
  }

  creates(_owner: BeanNode, prop: PropDef): boolean {
    return prop.creators.length > 0;
  }

  updates(): boolean {
    return true;
  }

  deletes(): boolean {
    return true;
  }

  create(owner: BeanNode, prop: PropDef, body: Json, ctx: WriteContext): Promise<Identity> {
    return this.config.create(ctx.principal.user, ctx.session, owner, prop, body, ctx.precondition, ctx.principal.roles.has('Admin'));
  }

  update(node: BeanNode, body: Json, ctx: WriteContext): Promise<void> {
    return this.config.update(ctx.principal.user, ctx.session, node, body, ctx.precondition, ctx.principal.roles.has('Admin'));
  }

  async delete(node: BeanNode, ctx: WriteContext): Promise<void> {
    if (!node.via) throw badRequest('The root of the edit tree cannot be deleted.');
    await this.config.delete(ctx.principal.user, ctx.session, node, node.via, ctx.precondition, ctx.principal.roles.has('Admin'));
  }
}
