// The authorization matrix: every kind of operation, tried by a user of each role (Administrators,
// Deployers, Operators, Monitors), by a user in no group, and with no credentials. The expected
// policy is written out below as a table, derived from the README's stated policy (GET and search
// for every role; POST and DELETE for Admin only, except where an operation names more roles) and
// the operations (src/operations/, each declaration's `roles` lists the non-Admin roles allowed;
// Deployer may write types whose catalog roles include it, such as JDBC system resources).
//
// For each cell: what the policy refuses must be refused (403, or 401 without credentials; a user in
// no group is refused even reads) and must leave no trace; what it allows must not be refused with
// 401/403 (and must not fail with a 5xx). State is restored between destructive cells: fresh names,
// and an administrator undoes what a cell did. The matrix is printed.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startRuntimeServer, type RuntimeServer } from '../support/runtime-server.js';
import { Api, type RawReply, basic, envelopeProblem } from '../support/fuzz-lib.js';

type Role = 'Admin' | 'Deployer' | 'Operator' | 'Monitor';
type Who = 'adm' | 'dep' | 'op' | 'mon' | 'nobody' | 'none';

const WHO: Who[] = ['adm', 'dep', 'op', 'mon', 'nobody', 'none'];
const ROLE_OF: Record<Who, Role | null> = { adm: 'Admin', dep: 'Deployer', op: 'Operator', mon: 'Monitor', nobody: null, none: null };
const GROUP_OF: Record<string, string | undefined> = { adm: 'Administrators', dep: 'Deployers', op: 'Operators', mon: 'Monitors', nobody: undefined };
const PASSWORD = 'matrix-pw1';

const AUTHN = 'serverConfig/securityConfiguration/realms/myrealm/authenticationProviders/DefaultAuthenticator';
const ESC = 'domainRuntime/editSessionConfigurationManager/editSessionConfigurations';
const SLC = 'domainRuntime/serverLifeCycleRuntimes';
const PLC = 'domainRuntime/domainPartitionRuntimes/partition1/partitionLifeCycleRuntime';
const RGLC = `${PLC}/resourceGroupLifeCycleRuntimes/partition1-rg`;
const DS = 'serverRuntime/partitionRuntimes/partition1/JDBCPartitionRuntime/JDBCDataSourceRuntimeMBeans/partition1-ds';
const DM = 'domainRuntime/deploymentManager';
const LCM = '/management/lifecycle/latest';
const ASYNC = { prefer: 'respond-async' };

const READERS: Role[] = ['Admin', 'Deployer', 'Operator', 'Monitor'];
const ADMIN: Role[] = ['Admin'];
const ADMIN_DEPLOYER: Role[] = ['Admin', 'Deployer'];
const ADMIN_OPERATOR: Role[] = ['Admin', 'Operator'];

let srv: RuntimeServer;
let admin: Api;
const clients = new Map<Who, Api>();

/** Runs the manual clock far enough for any lifecycle step or deployment to finish. */
const settle = () => srv.advance(10_000);

interface Ctx {
  who: Who;
  /** A name unique to this cell and caller. */
  name: string;
}

interface Cell {
  /** Row label of the matrix. */
  op: string;
  /** Roles the policy allows (Admin always among them). */
  allowed: Role[];
  /** Where the expectation comes from. */
  source: string;
  setup?: (c: Ctx) => Promise<void>;
  run: (api: Api, c: Ctx) => Promise<RawReply>;
  /** Whether the cell's effect is there (checked as an administrator after the run). */
  effect?: (c: Ctx) => Promise<boolean>;
  cleanup?: (c: Ctx) => Promise<void>;
}

async function exists(path: string): Promise<boolean> {
  const r = await admin.get(`${path}${path.includes('?') ? '&' : '?'}links=none`);
  if (r.status !== 200 && r.status !== 404) assert.fail(`GET ${path} as admin: ${r.status} ${r.text.slice(0, 300)}`);
  return r.status === 200;
}

async function state(path: string): Promise<string> {
  const r = await admin.get(`${path}?links=none&fields=state`);
  assert.equal(r.status, 200, `GET ${path}: ${r.text.slice(0, 300)}`);
  return r.json.state;
}

/** An administrator's step that must work (setup and cleanup). */
async function must(r: Promise<RawReply>, what: string, ok: number[] = [200, 201, 202]): Promise<RawReply> {
  const reply = await r;
  assert.ok(ok.includes(reply.status), `${what}: ${reply.status} ${reply.text.slice(0, 400)}`);
  return reply;
}

async function removeIfThere(path: string): Promise<void> {
  if (await exists(path)) await must(admin.del(path, ASYNC), `DELETE ${path}`);
  settle();
}

/** A user of no group that addMemberToGroup puts into Operators. */
const MEMBER = 'member1';
const isOperator = async () => (await must(admin.post(`${AUTHN}/isMember`, { parentGroupName: 'Operators', memberUserOrGroupName: MEMBER, recursive: true }), 'isMember')).json.return === true;
const userExists = async (name: string) => (await must(admin.post(`${AUTHN}/userExists`, { userName: name }), 'userExists')).json.return === true;
const groupExists = async (name: string) => (await must(admin.post(`${AUTHN}/groupExists`, { groupName: name }), 'groupExists')).json.return === true;

// ---- the expected policy: one row per kind of operation ------------------------------------------------

const CELLS: Cell[] = [
  // reads: every role (README: GET and search for every role)
  { op: 'GET a bean (serverConfig/servers/ms1)', allowed: READERS, source: 'README', run: (a) => a.get('serverConfig/servers/ms1?links=none') },
  { op: 'GET a collection (edit/servers)', allowed: READERS, source: 'README', run: (a) => a.get('edit/servers?links=none&fields=name') },
  { op: 'GET a runtime bean (serverLifeCycleRuntimes/ms1)', allowed: READERS, source: 'README', run: (a) => a.get(`${SLC}/ms1?links=none`) },
  { op: 'POST serverRuntime/search', allowed: READERS, source: 'README', run: (a) => a.post('serverRuntime/search', { fields: ['name', 'state'], links: [] }) },
  { op: 'GET edit/changeManager', allowed: READERS, source: 'README', run: (a) => a.get('edit/changeManager?links=none') },

  // the edit tree: a Server (no role but Admin in its catalog roles)
  {
    op: 'create a Server (POST edit/servers)',
    allowed: ADMIN,
    source: 'ServerMBean roles: none',
    run: (a, c) => a.post('edit/servers', { name: c.name }),
    effect: (c) => exists(`serverConfig/servers/${c.name}`),
    cleanup: (c) => removeIfThere(`edit/servers/${c.name}`),
  },
  {
    op: 'update a Server (POST edit/servers/ms2)',
    allowed: ADMIN,
    source: 'ServerMBean roles: none',
    run: (a, c) => a.post('edit/servers/ms2', { notes: c.name }),
    effect: async (c) => (await admin.get('serverConfig/servers/ms2?links=none&fields=notes')).json.notes === c.name,
    cleanup: async () => void (await must(admin.post('edit/servers/ms2', { notes: null }), 'reset ms2 notes')),
  },
  {
    op: 'delete a Server (DELETE edit/servers/X)',
    allowed: ADMIN,
    source: 'ServerMBean roles: none',
    setup: async (c) => void (await must(admin.post('edit/servers', { name: c.name }), 'create the victim server')),
    run: (a, c) => a.del(`edit/servers/${c.name}`),
    effect: async (c) => !(await exists(`serverConfig/servers/${c.name}`)),
    cleanup: (c) => removeIfThere(`edit/servers/${c.name}`),
  },

  // the edit tree: a JDBCSystemResource (its catalog roles include Deployer)
  {
    op: 'create a JDBCSystemResource',
    allowed: ADMIN_DEPLOYER,
    source: 'JDBCSystemResourceMBean roles: Deployer',
    run: (a, c) => a.post('edit/JDBCSystemResources', { name: c.name }),
    effect: (c) => exists(`serverConfig/JDBCSystemResources/${c.name}`),
    cleanup: (c) => removeIfThere(`edit/JDBCSystemResources/${c.name}`),
  },
  {
    op: 'update a JDBCSystemResource',
    allowed: ADMIN_DEPLOYER,
    source: 'JDBCSystemResourceMBean roles: Deployer',
    setup: async (c) => void (await must(admin.post('edit/JDBCSystemResources', { name: c.name }), 'create the data source')),
    run: (a, c) => a.post(`edit/JDBCSystemResources/${c.name}`, { notes: 'changed' }),
    effect: async (c) => (await admin.get(`serverConfig/JDBCSystemResources/${c.name}?links=none&fields=notes`)).json.notes === 'changed',
    cleanup: (c) => removeIfThere(`edit/JDBCSystemResources/${c.name}`),
  },
  {
    op: 'delete a JDBCSystemResource',
    allowed: ADMIN_DEPLOYER,
    source: 'JDBCSystemResourceMBean roles: Deployer',
    setup: async (c) => void (await must(admin.post('edit/JDBCSystemResources', { name: c.name }), 'create the data source')),
    run: (a, c) => a.del(`edit/JDBCSystemResources/${c.name}`),
    effect: async (c) => !(await exists(`serverConfig/JDBCSystemResources/${c.name}`)),
    cleanup: (c) => removeIfThere(`edit/JDBCSystemResources/${c.name}`),
  },

  // the change manager (ChangeManager roles: Deployer)
  {
    op: 'changeManager/startEdit',
    allowed: ADMIN_DEPLOYER,
    source: 'ChangeManager ops roles: Deployer',
    run: (a) => a.post('edit/changeManager/startEdit', {}),
    effect: async () => (await admin.get('edit/changeManager?links=none')).json.locked === true,
    cleanup: async (c) => {
      const cm = (await admin.get('edit/changeManager?links=none')).json;
      if (cm.locked) await must(clients.get(c.who)!.post('edit/changeManager/cancelEdit', {}), `cancelEdit as ${cm.lockOwner}`);
    },
  },
  {
    op: 'changeManager/activate (own lock)',
    allowed: ADMIN_DEPLOYER,
    source: 'ChangeManager ops roles: Deployer',
    run: async (a) => {
      await a.post('edit/changeManager/startEdit', {});
      return a.post('edit/changeManager/activate', {});
    },
    cleanup: async (c) => {
      const cm = (await admin.get('edit/changeManager?links=none')).json;
      if (cm.locked) await must(clients.get(c.who)!.post('edit/changeManager/cancelEdit', {}), 'cancelEdit');
    },
  },
  {
    op: 'changeManager/cancelEdit (own lock)',
    allowed: ADMIN_DEPLOYER,
    source: 'ChangeManager ops roles: Deployer',
    run: async (a) => {
      await a.post('edit/changeManager/startEdit', {});
      return a.post('edit/changeManager/cancelEdit', {});
    },
    cleanup: async (c) => {
      const cm = (await admin.get('edit/changeManager?links=none')).json;
      if (cm.locked) await must(clients.get(c.who)!.post('edit/changeManager/cancelEdit', {}), 'cancelEdit');
    },
  },

  // named edit sessions (config-actions: Admin or Deployer)
  {
    op: 'create a named edit session',
    allowed: ADMIN_DEPLOYER,
    source: 'editSessionConfigurations: Admin, Deployer',
    run: (a, c) => a.post(ESC, { name: c.name, description: 'matrix' }),
    effect: (c) => exists(`${ESC}/${c.name}`),
    cleanup: (c) => removeIfThere(`${ESC}/${c.name}`),
  },
  {
    op: 'destroy a named edit session (own, or admin-made for refused roles)',
    allowed: ADMIN_DEPLOYER,
    source: 'editSessionConfigurations: Admin, Deployer',
    setup: async (c) => {
      // Allowed callers destroy a session of their own; the others one an administrator made.
      const role = ROLE_OF[c.who];
      const maker = role !== null && ADMIN_DEPLOYER.includes(role) ? clients.get(c.who)! : admin;
      await must(maker.post(ESC, { name: c.name, description: 'matrix' }), 'create the session');
    },
    run: (a, c) => a.del(`${ESC}/${c.name}`),
    effect: async (c) => !(await exists(`${ESC}/${c.name}`)),
    cleanup: (c) => removeIfThere(`${ESC}/${c.name}`),
  },

  // server lifecycle (ServerLifeCycleRuntime tasks: Operator)
  {
    op: 'server start (serverLifeCycleRuntimes/ms1/start)',
    allowed: ADMIN_OPERATOR,
    source: 'ServerLifeCycleRuntime.start roles: Operator',
    run: (a) => a.post(`${SLC}/ms1/start`, {}, ASYNC),
    effect: async () => {
      settle();
      return (await state(`${SLC}/ms1`)) === 'RUNNING';
    },
    cleanup: async () => {
      if ((await state(`${SLC}/ms1`)) !== 'SHUTDOWN') await must(admin.post(`${SLC}/ms1/forceShutdown`, {}, ASYNC), 'forceShutdown ms1');
      settle();
    },
  },
  {
    op: 'server shutdown (serverLifeCycleRuntimes/ms1/shutdown)',
    allowed: ADMIN_OPERATOR,
    source: 'ServerLifeCycleRuntime.shutdown roles: Operator',
    setup: async () => {
      await must(admin.post(`${SLC}/ms1/start`, {}, ASYNC), 'start ms1');
      settle();
      assert.equal(await state(`${SLC}/ms1`), 'RUNNING');
    },
    run: (a) => a.post(`${SLC}/ms1/shutdown`, {}, ASYNC),
    effect: async () => {
      settle();
      return (await state(`${SLC}/ms1`)) === 'SHUTDOWN';
    },
    cleanup: async () => {
      if ((await state(`${SLC}/ms1`)) !== 'SHUTDOWN') await must(admin.post(`${SLC}/ms1/forceShutdown`, {}, ASYNC), 'forceShutdown ms1');
      settle();
    },
  },

  // partition and resource-group lifecycle (tasks: Operator)
  {
    op: 'partition suspend (partition1)',
    allowed: ADMIN_OPERATOR,
    source: 'PartitionLifeCycleRuntime.suspend roles: Operator',
    run: (a) => a.post(`${PLC}/suspend`, {}, ASYNC),
    effect: async () => {
      settle();
      return (await state(PLC)) === 'ADMIN';
    },
    cleanup: async () => {
      if ((await state(PLC)) !== 'RUNNING') await must(admin.post(`${PLC}/resume`, {}, ASYNC), 'resume partition1');
      settle();
    },
  },
  {
    op: 'partition resume (partition1)',
    allowed: ADMIN_OPERATOR,
    source: 'PartitionLifeCycleRuntime.resume roles: Operator',
    setup: async () => {
      await must(admin.post(`${PLC}/suspend`, {}, ASYNC), 'suspend partition1');
      settle();
    },
    run: (a) => a.post(`${PLC}/resume`, {}, ASYNC),
    effect: async () => {
      settle();
      return (await state(PLC)) === 'RUNNING';
    },
    cleanup: async () => {
      if ((await state(PLC)) !== 'RUNNING') await must(admin.post(`${PLC}/resume`, {}, ASYNC), 'resume partition1');
      settle();
    },
  },
  {
    op: 'resource group suspend (partition1-rg)',
    allowed: ADMIN_OPERATOR,
    source: 'ResourceGroupLifeCycleRuntime.suspend roles: Operator',
    run: (a) => a.post(`${RGLC}/suspend`, {}, ASYNC),
    effect: async () => {
      settle();
      return (await state(RGLC)) === 'ADMIN';
    },
    cleanup: async () => {
      if ((await state(RGLC)) !== 'RUNNING') await must(admin.post(`${RGLC}/resume`, {}, ASYNC), 'resume partition1-rg');
      settle();
    },
  },
  {
    op: 'resource group resume (partition1-rg)',
    allowed: ADMIN_OPERATOR,
    source: 'ResourceGroupLifeCycleRuntime.resume roles: Operator',
    setup: async () => {
      await must(admin.post(`${RGLC}/suspend`, {}, ASYNC), 'suspend partition1-rg');
      settle();
    },
    run: (a) => a.post(`${RGLC}/resume`, {}, ASYNC),
    effect: async () => {
      settle();
      return (await state(RGLC)) === 'RUNNING';
    },
    cleanup: async () => {
      if ((await state(RGLC)) !== 'RUNNING') await must(admin.post(`${RGLC}/resume`, {}, ASYNC), 'resume partition1-rg');
      settle();
    },
  },

  // deployments (DeploymentManager tasks: Deployer; edit/appDeployments follow AppDeployment's roles)
  {
    op: 'deploymentManager/deploy',
    allowed: ADMIN_DEPLOYER,
    source: 'DeploymentManager.deploy roles: Deployer',
    run: (a, c) => a.post(`${DM}/deploy`, { name: c.name, applicationPath: `/srv/apps/${c.name}.war`, targets: ['AdminServer'], plan: null, deploymentOptions: {} }, ASYNC),
    effect: async (c) => {
      settle();
      return exists(`serverConfig/appDeployments/${c.name}`);
    },
    cleanup: (c) => removeIfThere(`edit/appDeployments/${c.name}`),
  },
  {
    op: 'deploy through POST edit/appDeployments',
    allowed: ADMIN_DEPLOYER,
    source: 'AppDeploymentMBean roles: Deployer',
    run: (a, c) => a.post('edit/appDeployments', { name: c.name, sourcePath: `/srv/apps/${c.name}.war`, targets: [{ identity: ['servers', 'AdminServer'] }] }, ASYNC),
    effect: async (c) => {
      settle();
      return exists(`serverConfig/appDeployments/${c.name}`);
    },
    cleanup: (c) => removeIfThere(`edit/appDeployments/${c.name}`),
  },
  {
    op: 'undeploy through DELETE edit/appDeployments/X',
    allowed: ADMIN_DEPLOYER,
    source: 'AppDeploymentMBean roles: Deployer',
    setup: async (c) => {
      await must(admin.post('edit/appDeployments', { name: c.name, sourcePath: `/srv/apps/${c.name}.war`, targets: [{ identity: ['servers', 'AdminServer'] }] }, ASYNC), 'deploy');
      settle();
    },
    run: (a, c) => a.del(`edit/appDeployments/${c.name}`, ASYNC),
    effect: async (c) => {
      settle();
      return !(await exists(`serverConfig/appDeployments/${c.name}`));
    },
    cleanup: (c) => removeIfThere(`edit/appDeployments/${c.name}`),
  },

  // pools (JDBCDataSourceRuntime: suspend/resume Operator; testPool the readers)
  {
    op: 'JDBC data source suspend',
    allowed: ADMIN_OPERATOR,
    source: 'JDBCDataSourceRuntime.suspend roles: Operator',
    run: (a) => a.post(`${DS}/suspend`, {}),
    effect: async () => (await state(DS)) === 'Suspended',
    cleanup: async () => {
      if ((await state(DS)) === 'Suspended') await must(admin.post(`${DS}/resume`, {}), 'resume the data source');
    },
  },
  {
    op: 'JDBC data source resume',
    allowed: ADMIN_OPERATOR,
    source: 'JDBCDataSourceRuntime.resume roles: Operator',
    setup: async () => void (await must(admin.post(`${DS}/suspend`, {}), 'suspend the data source')),
    run: (a) => a.post(`${DS}/resume`, {}),
    // Resumed: Running, or Unhealthy where nothing answers at the demo's database address.
    effect: async () => ['Running', 'Unhealthy'].includes(await state(DS)),
    cleanup: async () => {
      if ((await state(DS)) === 'Suspended') await must(admin.post(`${DS}/resume`, {}), 'resume the data source');
    },
  },
  { op: 'JDBC data source testPool', allowed: READERS, source: 'JDBCDataSourceRuntime.testPool roles: readers', run: (a) => a.post(`${DS}/testPool`, {}) },

  // operations the table gives no role: Admin only
  {
    op: 'JVMRuntime/runGC (no roles)',
    allowed: ADMIN,
    source: 'JVMRuntime.runGC roles: none',
    run: (a) => a.post('serverRuntime/JVMRuntime/runGC', {}),
  },
  {
    op: 'forceDestroyEditSessionConfiguration (no roles)',
    allowed: ADMIN,
    source: 'EditSessionConfigurationManager.forceDestroy... roles: none',
    setup: async (c) => void (await must(admin.post(ESC, { name: c.name, description: 'matrix' }), 'create the session')),
    run: (a, c) => a.post('domainRuntime/editSessionConfigurationManager/forceDestroyEditSessionConfiguration', { editSession: ['editSessionConfigurationManager', 'editSessionConfigurations', c.name] }),
    effect: async (c) => !(await exists(`${ESC}/${c.name}`)),
    cleanup: (c) => removeIfThere(`${ESC}/${c.name}`),
  },
  {
    op: 'update the domain (POST edit)',
    allowed: ADMIN,
    source: 'DomainMBean roles: none',
    run: (a, c) => a.post('edit', { notes: c.name }),
    effect: async (c) => (await admin.get('serverConfig?links=none&fields=notes')).json.notes === c.name,
    cleanup: async () => void (await must(admin.post('edit', { notes: null }), 'reset the domain notes')),
  },

  // users and groups (authentication provider operations: Admin only)
  {
    op: 'createUser',
    allowed: ADMIN,
    source: 'UserEditor.createUser roles: none',
    run: (a, c) => a.post(`${AUTHN}/createUser`, { userName: c.name, password: PASSWORD, description: 'matrix' }),
    effect: (c) => userExists(c.name),
    cleanup: async (c) => {
      if (await userExists(c.name)) await must(admin.post(`${AUTHN}/removeUser`, { userName: c.name }), 'removeUser');
    },
  },
  {
    op: 'removeUser',
    allowed: ADMIN,
    source: 'UserRemover.removeUser roles: none',
    setup: async (c) => void (await must(admin.post(`${AUTHN}/createUser`, { userName: c.name, password: PASSWORD, description: 'matrix' }), 'createUser')),
    run: (a, c) => a.post(`${AUTHN}/removeUser`, { userName: c.name }),
    effect: async (c) => !(await userExists(c.name)),
    cleanup: async (c) => {
      if (await userExists(c.name)) await must(admin.post(`${AUTHN}/removeUser`, { userName: c.name }), 'removeUser');
    },
  },
  {
    op: 'createGroup',
    allowed: ADMIN,
    source: 'GroupEditor.createGroup roles: none',
    run: (a, c) => a.post(`${AUTHN}/createGroup`, { groupName: c.name, description: 'matrix' }),
    effect: (c) => groupExists(c.name),
    cleanup: async (c) => {
      if (await groupExists(c.name)) await must(admin.post(`${AUTHN}/removeGroup`, { groupName: c.name }), 'removeGroup');
    },
  },
  {
    op: 'addMemberToGroup (a new user into Operators)',
    allowed: ADMIN,
    source: 'GroupEditor.addMemberToGroup roles: none',
    run: (a) => a.post(`${AUTHN}/addMemberToGroup`, { groupName: 'Operators', memberUserOrGroupName: MEMBER }),
    effect: isOperator,
    cleanup: async () => {
      if (await isOperator()) await must(admin.post(`${AUTHN}/removeMemberFromGroup`, { groupName: 'Operators', memberUserOrGroupName: MEMBER }), 'removeMemberFromGroup');
    },
  },
  { op: 'listUsers (user data query)', allowed: ADMIN, source: 'UserReader.listUsers: Admin only', run: (a) => a.post(`${AUTHN}/listUsers`, { nameWildcard: '*', maximumToReturn: 0 }) },

  // the Lifecycle Manager: writes Admin only, reads every role
  {
    op: 'LCM POST environments',
    allowed: ADMIN,
    source: 'lifecycle routes: writes Admin only',
    run: (a, c) => a.post(`${LCM}/environments`, { name: c.name }),
    effect: (c) => exists(`${LCM}/environments/${c.name}`),
    cleanup: (c) => removeIfThere(`${LCM}/environments/${c.name}`),
  },
  {
    op: 'LCM DELETE environments/X',
    allowed: ADMIN,
    source: 'lifecycle routes: writes Admin only',
    setup: async (c) => void (await must(admin.post(`${LCM}/environments`, { name: c.name }), 'create the environment')),
    run: (a, c) => a.del(`${LCM}/environments/${c.name}`),
    effect: async (c) => !(await exists(`${LCM}/environments/${c.name}`)),
    cleanup: (c) => removeIfThere(`${LCM}/environments/${c.name}`),
  },
  {
    op: 'LCM POST runtimes (type otd)',
    allowed: ADMIN,
    source: 'lifecycle routes: writes Admin only',
    run: (a, c) => a.post(`${LCM}/runtimes`, { name: c.name, type: 'otd', hostName: 'localhost', port: 9999 }),
    effect: (c) => exists(`${LCM}/runtimes/${c.name}`),
    cleanup: (c) => removeIfThere(`${LCM}/runtimes/${c.name}`),
  },
  {
    op: 'LCM DELETE runtimes/X',
    allowed: ADMIN,
    source: 'lifecycle routes: writes Admin only',
    setup: async (c) => void (await must(admin.post(`${LCM}/runtimes`, { name: c.name, type: 'otd', hostName: 'localhost', port: 9999 }), 'create the runtime')),
    run: (a, c) => a.del(`${LCM}/runtimes/${c.name}`),
    effect: async (c) => !(await exists(`${LCM}/runtimes/${c.name}`)),
    cleanup: (c) => removeIfThere(`${LCM}/runtimes/${c.name}`),
  },
  {
    op: 'LCM POST tenants',
    allowed: ADMIN,
    source: 'lifecycle routes: writes Admin only',
    run: (a, c) => a.post(`${LCM}/tenants`, { name: c.name }),
    effect: (c) => exists(`${LCM}/tenants/${c.name}`),
    cleanup: (c) => removeIfThere(`${LCM}/tenants/${c.name}`),
  },
  {
    op: 'LCM DELETE tenants/X',
    allowed: ADMIN,
    source: 'lifecycle routes: writes Admin only',
    setup: async (c) => void (await must(admin.post(`${LCM}/tenants`, { name: c.name }), 'create the tenant')),
    run: (a, c) => a.del(`${LCM}/tenants/${c.name}`),
    effect: async (c) => !(await exists(`${LCM}/tenants/${c.name}`)),
    cleanup: (c) => removeIfThere(`${LCM}/tenants/${c.name}`),
  },
  { op: 'LCM GET environments', allowed: READERS, source: 'lifecycle routes: reads for every role', run: (a) => a.get(`${LCM}/environments?links=none`) },
  { op: 'LCM GET runtimes', allowed: READERS, source: 'lifecycle routes: reads for every role', run: (a) => a.get(`${LCM}/runtimes?links=none`) },
  { op: 'LCM GET tenants', allowed: READERS, source: 'lifecycle routes: reads for every role', run: (a) => a.get(`${LCM}/tenants?links=none`) },
];

/** What a caller should get: allowed, refused as unauthenticated (401), or forbidden (403). */
function expected(cell: Cell, who: Who): 'allow' | 401 | 403 {
  if (who === 'none') return 401;
  const role = ROLE_OF[who];
  if (role === null) return 403;
  return cell.allowed.includes(role) ? 'allow' : 403;
}

before(async () => {
  srv = await startRuntimeServer();
  admin = new Api(srv.server.port, basic('admin', 'welcome1'));
  for (const who of WHO) {
    if (who === 'none') {
      clients.set(who, admin.as(null));
      continue;
    }
    await must(admin.post(`${AUTHN}/createUser`, { userName: who, password: PASSWORD, description: `matrix ${who}` }), `createUser ${who}`);
    const group = GROUP_OF[who];
    if (group) await must(admin.post(`${AUTHN}/addMemberToGroup`, { groupName: group, memberUserOrGroupName: who }), `addMemberToGroup ${group} ${who}`);
    clients.set(who, admin.as(basic(who, PASSWORD)));
  }
  await must(admin.post(`${AUTHN}/createUser`, { userName: MEMBER, password: PASSWORD, description: 'matrix member' }), `createUser ${MEMBER}`);
  // Each user signs in as the role it should have.
  for (const who of ['adm', 'dep', 'op', 'mon', 'nobody'] as Who[]) {
    const me = await clients.get(who)!.get('currentUser?links=none');
    assert.equal(me.status, who === 'nobody' ? 403 : 200, `currentUser as ${who}: ${me.text}`);
  }
});

after(async () => {
  await srv.stop(true);
});

test('authorization matrix: every role against every kind of operation', async () => {
  const rows: string[][] = [];
  const problems: string[] = [];
  let n = 0;
  for (const cell of CELLS) {
    const row = [cell.op];
    for (const who of WHO) {
      const ctx: Ctx = { who, name: `mx${n++}-${who}` };
      await cell.setup?.(ctx);
      const r = await cell.run(clients.get(who)!, ctx);
      const want = expected(cell, who);
      const effect = cell.effect ? await cell.effect(ctx) : undefined;
      await cell.cleanup?.(ctx);
      const mark = want === 'allow' ? '' : '*';
      row.push(`${r.status}${mark}`);
      const where = `${cell.op} as ${who}`;
      const envelope = envelopeProblem('POST', r);
      if (envelope) problems.push(`${where}: ${envelope}`);
      if (want === 'allow') {
        if (r.status === 401 || r.status === 403) problems.push(`${where}: allowed by the policy (${cell.source}) but refused with ${r.status}: ${r.text.slice(0, 200)}`);
        else if (effect === false && r.status < 300) problems.push(`${where}: answered ${r.status} but had no effect`);
      } else {
        if (r.status !== want) problems.push(`${where}: the policy (${cell.source}) refuses it, expected ${want}, got ${r.status}: ${r.text.slice(0, 200)}`);
        if (effect === true) problems.push(`${where}: refused by the policy but took effect (status ${r.status})`);
      }
    }
    rows.push(row);
  }

  // The matrix: role x operation -> status; '*' marks a cell the policy refuses.
  const header = ['operation', ...WHO];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cols: string[]) => cols.map((c, i) => c.padEnd(widths[i]!)).join(' | ');
  console.log(
    [
      'authorization matrix (status per caller; * = the policy refuses this cell)',
      line(header),
      widths.map((w) => '-'.repeat(w)).join('-|-'),
      ...rows.map(line),
    ].join('\n'),
  );
  assert.deepEqual(problems, [], `${problems.length} cells break the policy`);
});

test('after the matrix: nothing is left locked and the administrator still works', async () => {
  const cm = await admin.get('edit/changeManager?links=none');
  assert.equal(cm.status, 200);
  assert.equal(cm.json.locked, false, `locked by ${cm.json.lockOwner}`);
  const users = await must(admin.post(`${AUTHN}/listUsers`, { nameWildcard: 'mx*', maximumToReturn: 0 }), 'listUsers');
  assert.deepEqual(users.json.return, [], 'users made by the matrix are left');
  const admins = await must(admin.post(`${AUTHN}/listGroupMembers`, { groupName: 'Administrators', memberUserOrGroupNameWildcard: '*', maximumToReturn: 0 }), 'listGroupMembers');
  assert.deepEqual([...admins.json.return].sort(), ['adm', 'admin']);
  const operators = await must(admin.post(`${AUTHN}/listGroupMembers`, { groupName: 'Operators', memberUserOrGroupNameWildcard: '*', maximumToReturn: 0 }), 'listGroupMembers');
  assert.deepEqual(operators.json.return, ['op']);
});
