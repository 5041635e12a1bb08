// Named edit sessions, under the edit session configuration managers of the domain runtime
// (rb §5.5; spec: destroying another user's session needs Admin).
import { badRequest, forbidden, invalid } from '../core/problems.js';
import { stringValue } from '../config/coerce.js';
import type { Principal } from '../security/service.js';
import type { CollectionDefinition } from './collections.js';
import { DONE, defineOperation, returns } from './define.js';
import { BOOL, RT, VOID, action, ov, p, query } from './declare.js';

const MANAGER = RT + 'EditSessionConfigurationManagerMBean';
const SESSION = RT + 'EditSessionConfigurationRuntimeMBean';

function mayEdit(principal: Principal): void {
  if (!principal.roles.has('Admin') && !principal.roles.has('Deployer')) {
    throw forbidden(`User '${principal.user}' may not create or destroy edit sessions: this needs the Admin or Deployer role.`);
  }
}

export const editSessionOperations = [
  defineOperation(action(MANAGER, 'forceDestroyEditSessionConfiguration', [ov(VOID, p('editSession', SESSION))]), async (call, use) => {
    const id = call.args.editSession as string[] | null;
    const name = id?.[id.length - 1];
    if (!name) throw badRequest("The argument 'editSession' must reference an edit session configuration.", 'editSession');
    await use.config.destroySession(name, call.principal.user, call.principal.roles.has('Admin'));
    return DONE;
  }),
  defineOperation(query(SESSION, 'containsUnactivatedChanges', [ov(BOOL)]), (call, use) =>
    returns(use.config.session(String(call.node.record?.values.name)).hasChanges),
  ),
];

export const editSessionCollections: CollectionDefinition[] = [
  {
    owner: MANAGER,
    prop: 'editSessionConfigurations',
    mayChange: mayEdit,
    create: async (owner, body, principal, use) => {
      mayEdit(principal);
      const name = body.name;
      if (typeof name !== 'string') throw invalid([{ path: 'name', detail: 'A new edit session configuration needs a name (a string).' }]);
      const description = stringValue(body.description ?? '');
      if (!description.ok) throw invalid([{ path: 'description', detail: `The description of an edit session ${description.problem}.` }]);
      const partition = owner.scope.partition ?? null;
      await use.config.createSession(name, partition, principal.user, description.value as string);
      return [...owner.identity, 'editSessionConfigurations', name];
    },
    remove: async (node, principal, use) => {
      mayEdit(principal);
      await use.config.destroySession(String(node.record?.values.name), principal.user, principal.roles.has('Admin'));
    },
  },
];
