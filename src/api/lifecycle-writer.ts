// The Lifecycle Manager tree's writer: each change of a resource is a call to the Lifecycle
// Manager, found by the resource's bean type. Names come from the resource's identity
// (`["tenants", "t1", "services", "s1", "PDB"]`). Every change needs the Admin role.
import type { OperationDef, PropDef } from '../catalog/model.js';
import {
  LIFECYCLE_ENVIRONMENT,
  LIFECYCLE_ENVIRONMENT_PARTITION,
  LIFECYCLE_PDB,
  LIFECYCLE_RUNTIME,
  LIFECYCLE_RUNTIME_PARTITION,
  LIFECYCLE_SERVICE,
  LIFECYCLE_TENANT,
} from '../catalog/overlay/lifecycle.js';
import type { Identity } from '../core/identity.js';
import type { LifecycleService } from '../lifecycle/service.js';
import { authorize } from '../security/authorize.js';
import type { Principal } from '../security/service.js';
import type { BeanNode } from '../tree/resolve.js';
import { type Change, type TreeWriter, type WriteContext, changedPath } from './writers.js';

type Json = Record<string, unknown>;

/** What the Lifecycle Manager does with the resources of one type; `id` is the resource's identity. */
interface Handling {
  /** Creates one in the collection of the owner whose identity is `owner`; returns the new one's identity. */
  create?(owner: Identity, body: Json, user: string): Promise<Identity>;
  update?(id: Identity, body: Json, user: string): Promise<void>;
  delete?(id: Identity, user: string): Promise<void>;
  actions?: Record<string, (id: Identity, body: Json, user: string) => Promise<void>>;
}

/** Segment `i` of an identity (the resolver made it, so it is there). */
const at = (id: Identity, i: number): string => id[i]!;

export class LifecycleWriter implements TreeWriter {
  private readonly byType: Record<string, Handling>;

  constructor(lcm: LifecycleService) {
    this.byType = {
      [LIFECYCLE_ENVIRONMENT]: {
        create: async (_, body, user) => ['environments', (await lcm.createEnvironment(body, user)).name],
        delete: (id) => lcm.deleteEnvironment(at(id, 1)),
        actions: {
          associatePartitions: (id, body, user) => lcm.associate(at(id, 1), body, user),
          dissociatePartitions: (id, body) => lcm.dissociate(at(id, 1), body),
          deprovision: (id, body, user) => lcm.deprovision(at(id, 1), body, user),
        },
      },
      // environments/{e}/runtimes/{rt}/partitions/{p}
      [LIFECYCLE_ENVIRONMENT_PARTITION]: {
        create: async (env, body) => {
          const ref = await lcm.addPartition(at(env, 1), body);
          return [...env, 'runtimes', ref.runtimeName, 'partitions', ref.name];
        },
        delete: (id) => lcm.removePartition(at(id, 1), at(id, 3), at(id, 5)),
      },
      [LIFECYCLE_RUNTIME]: {
        create: async (_, body) => ['runtimes', (await lcm.createRuntime(body)).name],
        update: (id, body) => lcm.updateRuntime(at(id, 1), body),
        delete: (id) => lcm.deleteRuntime(at(id, 1)),
      },
      // runtimes/{rt}/partitions/{p}
      [LIFECYCLE_RUNTIME_PARTITION]: {
        create: async (rt, body, user) => [...rt, 'partitions', (await lcm.createRuntimePartition(at(rt, 1), body, user)).name],
        delete: (id, user) => lcm.deleteRuntimePartition(at(id, 1), at(id, 3), user),
      },
      [LIFECYCLE_TENANT]: {
        create: async (_, body) => ['tenants', (await lcm.createTenant(body)).name],
        update: (id, body) => lcm.updateTenant(at(id, 1), body),
        delete: (id) => lcm.deleteTenant(at(id, 1)),
      },
      // tenants/{t}/services/{s}
      [LIFECYCLE_SERVICE]: {
        create: async (tenant, body) => [...tenant, 'services', (await lcm.createService(at(tenant, 1), body)).name],
        update: (id, body) => lcm.updateService(at(id, 1), at(id, 3), body),
        delete: (id, user) => lcm.deleteService(at(id, 1), at(id, 3), user),
      },
      // tenants/{t}/services/{s}/PDB: a POST makes it, and is refused while it exists.
      [LIFECYCLE_PDB]: {
        create: async (service, body, user) => (await lcm.createPdb(at(service, 1), at(service, 3), body, user), [...service, 'PDB']),
        update: async (id, body, user) => void (await lcm.createPdb(at(id, 1), at(id, 3), body, user)),
        delete: (id, user) => lcm.deletePdb(at(id, 1), at(id, 3), user),
      },
    };
  }

  authorize(principal: Principal): void {
    authorize(principal, { kind: 'role', roles: [], what: 'change the Lifecycle Manager configuration' });
  }

  /** Recorded as the HTTP method and the resource's path below `lifecycle/`. */
  auditName(change: Change): { action: string; bean: string } {
    return { action: change.kind === 'delete' ? 'DELETE' : 'POST', bean: ['lifecycle', ...changedPath(change)].join('/') };
  }

  creates(_owner: BeanNode, prop: PropDef): boolean {
    return this.handling(prop.creators[0])?.create !== undefined;
  }

  updates(node: BeanNode): boolean {
    return this.handling(node.type.name)?.update !== undefined;
  }

  deletes(node: BeanNode): boolean {
    return this.handling(node.type.name)?.delete !== undefined;
  }

  performs(node: BeanNode, op: OperationDef): boolean {
    return this.handling(node.type.name)?.actions?.[op.name] !== undefined;
  }

  create(owner: BeanNode, prop: PropDef, body: Json, ctx: WriteContext): Promise<Identity> {
    return this.handling(prop.creators[0])!.create!(owner.identity, body, ctx.principal.user);
  }

  update(node: BeanNode, body: Json, ctx: WriteContext): Promise<void> {
    return this.handling(node.type.name)!.update!(node.identity, body, ctx.principal.user);
  }

  delete(node: BeanNode, ctx: WriteContext): Promise<void> {
    return this.handling(node.type.name)!.delete!(node.identity, ctx.principal.user);
  }

  invoke(node: BeanNode, op: OperationDef, body: Json, ctx: WriteContext): Promise<void> {
    return this.handling(node.type.name)!.actions![op.name]!(node.identity, body, ctx.principal.user);
  }

  private handling(type: string | undefined): Handling | undefined {
    return type !== undefined && Object.hasOwn(this.byType, type) ? this.byType[type] : undefined;
  }
}
