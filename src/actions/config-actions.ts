// Actions of the configuration trees: the change manager, edit sessions, and the lookups of the
// domain and partition beans.
import { badRequest, forbidden, invalid } from '../core/problems.js';
import type { Catalog } from '../catalog/load.js';
import { CHANGE_MANAGER } from '../catalog/overlay/rest-only.js';
import { stringValue } from '../config/coerce.js';
import type { ConfigService } from '../config/config-service.js';
import { Topology } from '../config/topology.js';
import type { BeanNode, Resolver } from '../tree/resolve.js';
import type { ActionCall, ActionRegistry } from './invoke.js';

const CFG = 'appserver.management.configuration.';
const done = { value: undefined };

/** Every bean of a configuration tree below `node`, depth first (a query, so O(tree) is fine). */
function* walk(resolver: Resolver, node: BeanNode): Generator<BeanNode> {
  yield node;
  for (const p of node.type.children) {
    if (p.onlyIn) continue;
    if (p.shape === 'singleton') {
      const child = resolver.singleton(node, p);
      if (child) yield* walk(resolver, child);
    } else {
      for (const item of resolver.items(node, p)) yield* walk(resolver, item);
    }
  }
}

/** Items of the root collections whose item type is a kind of `base` (targets, system resources). */
function rootItemsOf(catalog: Catalog, resolver: Resolver, root: BeanNode, base: string): BeanNode[] {
  return root.type.children
    .filter((p) => p.shape === 'collection' && catalog.isA(catalog.type(p.javaType), base))
    .flatMap((p) => resolver.items(root, p));
}

export function registerConfigActions(actions: ActionRegistry, catalog: Catalog, resolver: Resolver, config: ConfigService): void {
  const user = (call: ActionCall) => call.principal.user;
  const millis = (call: ActionCall, name: string): number | undefined => {
    const v = call.args[name];
    return typeof v === 'number' ? v : undefined;
  };
  actions.register(CHANGE_MANAGER, 'startEdit', async (call) => {
    const waitTime = millis(call, 'waitTime');
    const timeOut = millis(call, 'timeOut');
    await config.startEdit(user(call), call.session, {
      ...(waitTime !== undefined ? { waitTime } : {}),
      ...(timeOut !== undefined ? { timeOut } : {}),
      ...(call.signal ? { signal: call.signal } : {}),
    });
    if (timeOut !== undefined && timeOut > 0) call.audit.detail = `Edit session '${call.session}', lock lapses after ${timeOut} ms.`;
    return done;
  });
  actions.register(CHANGE_MANAGER, 'cancelEdit', async (call) => (await config.cancelEdit(user(call), call.session), done));
  actions.register(CHANGE_MANAGER, 'activate', async (call) => {
    const result = await config.activate(user(call), call.session);
    call.audit.detail = `Edit session '${call.session}': configuration version ${result.version}, ${result.changes.length} change${result.changes.length === 1 ? '' : 's'}${result.restartRequired ? ', restart required' : ''}.`;
    return done;
  });
  // Administrators only (the operations' roles say so): another user's lock, taken over or released.
  actions.register(CHANGE_MANAGER, 'takeOverEdit', async (call) => {
    const timeOut = millis(call, 'timeOut');
    const { holder, changes } = await config.takeOverEdit(user(call), call.session, timeOut ?? -1);
    call.audit.detail =
      holder === null || holder === user(call)
        ? `Edit session '${call.session}': nobody else held the lock.`
        : `Edit session '${call.session}': took over the lock of '${holder}' with ${changes} unactivated change${changes === 1 ? '' : 's'}.`;
    return done;
  });
  actions.register(CHANGE_MANAGER, 'forceCancelEdit', async (call) => {
    const { holder, changes } = await config.forceCancelEdit(call.session);
    call.audit.detail =
      holder === null
        ? `Edit session '${call.session}': nobody held the lock; ${changes} unactivated change${changes === 1 ? '' : 's'} dropped.`
        : `Edit session '${call.session}': released the lock of '${holder}' and dropped ${changes} unactivated change${changes === 1 ? '' : 's'}.`;
    return done;
  });
  actions.register(CHANGE_MANAGER, 'safeResolve', async (call) => (await config.resolve(user(call), call.session, false), done));
  actions.register(CHANGE_MANAGER, 'forceResolve', async (call) => (await config.resolve(user(call), call.session, true), done));

  const root = (call: ActionCall) => resolver.rootNode(call.node.root);
  const topology = (call: ActionCall) => new Topology(call.node.root.source);

  actions.register(`${CFG}DomainMBean`, 'arePartitionsPresent', (call) => ({ value: topology(call).partitions().length > 0 }));
  actions.register(`${CFG}DomainMBean`, 'listTags', (call) => {
    const tags = new Set<string>();
    for (const n of walk(resolver, root(call))) for (const t of (n.record?.values.tags as string[] | undefined) ?? []) tags.add(t);
    return { value: [...tags].sort() };
  });
  actions.register(`${CFG}DomainMBean`, 'findConfigBeansWithTags', (call) => {
    const typeName = String(call.args.type ?? '');
    const wanted = ((call.args.tags as string[] | null) ?? []).filter((t) => typeof t === 'string');
    const all = call.args.matchAll !== false;
    const found: string[][] = [];
    for (const n of walk(resolver, root(call))) {
      if (typeName !== '' && n.type.short !== typeName && ![...n.type.ancestors].some((a) => catalog.types.get(a)?.short === typeName)) continue;
      const tags = (n.record?.values.tags as string[] | undefined) ?? [];
      if (tags.length === 0 || wanted.length === 0) continue;
      const match = all ? wanted.every((t) => tags.includes(t)) : wanted.some((t) => tags.includes(t));
      if (match) found.push([...n.identity]);
    }
    return { value: found };
  });
  actions.register(`${CFG}DomainMBean`, 'findPartitionByID', (call) => {
    const p = topology(call).partitions().find((x) => x.values.partitionID === call.args.partitionID);
    return { value: p ? p.identity : null };
  });
  actions.register(`${CFG}DomainMBean`, 'lookupSystemResource', (call) => {
    const hit = rootItemsOf(catalog, resolver, root(call), `${CFG}SystemResourceMBean`).find((n) => n.record?.values.name === call.args.name);
    return { value: hit ? [...hit.identity] : null };
  });
  actions.register(`${CFG}DomainMBean`, 'lookupTarget', (call) => {
    const hit = rootItemsOf(catalog, resolver, root(call), `${CFG}TargetMBean`).find((n) => n.record?.values.name === call.args.name);
    return { value: hit ? [...hit.identity] : null };
  });
  actions.register(`${CFG}PartitionMBean`, 'findEffectiveServerNames', (call) => {
    const t = topology(call);
    const p = t.partitions().find((x) => x.name === call.node.record?.values.name);
    return { value: p ? t.partitionServers(p).sort() : [] };
  });
  actions.register(`${CFG}PartitionMBean`, 'lookupAvailableTarget', (call) => {
    const available = (call.node.record?.values.availableTargets as string[][] | undefined) ?? [];
    const hit = available.find((id) => id[id.length - 1] === call.args.name);
    return { value: hit ?? null };
  });

  // Named edit sessions live under the edit session configuration managers of the domain runtime.
  actions.register('appserver.management.runtime.EditSessionConfigurationRuntimeMBean', 'containsUnactivatedChanges', (call) => ({
    value: config.session(String(call.node.record?.values.name)).hasChanges,
  }));
  const manager = 'appserver.management.runtime.EditSessionConfigurationManagerMBean';
  const mayEdit = (principal: { roles: ReadonlySet<string>; user: string }) => {
    if (!principal.roles.has('Admin') && !principal.roles.has('Deployer')) {
      throw forbidden(`User '${principal.user}' may not create or destroy edit sessions: this needs the Admin or Deployer role.`);
    }
  };
  actions.registerCollection(manager, 'editSessionConfigurations', {
    mayChange: mayEdit,
    create: async (owner, body, principal) => {
      mayEdit(principal);
      const name = body.name;
      if (typeof name !== 'string') throw invalid([{ path: 'name', detail: 'A new edit session configuration needs a name (a string).' }]);
      const description = stringValue(body.description ?? '');
      if (!description.ok) throw invalid([{ path: 'description', detail: `The description of an edit session ${description.problem}.` }]);
      const partition = owner.identity[0] === 'domainPartitionRuntimes' ? (owner.identity[1] ?? null) : null;
      await config.createSession(name, partition, principal.user, description.value as string);
      return [...owner.identity, 'editSessionConfigurations', name];
    },
    remove: async (node, principal) => {
      mayEdit(principal);
      await config.destroySession(String(node.record?.values.name), principal.user, principal.roles.has('Admin'));
    },
  });
  actions.register(manager, 'forceDestroyEditSessionConfiguration', async (call) => {
    const id = call.args.editSession as string[] | null;
    const name = id?.[id.length - 1];
    if (!name) throw badRequest("The argument 'editSession' must reference an edit session configuration.", 'editSession');
    await config.destroySession(name, call.principal.user, call.principal.roles.has('Admin'));
    return done;
  });
}
