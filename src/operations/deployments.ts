// Deployments: the deployment manager (spec; ops D.2; rc DeploymentManager), one application's
// deployment runtime (rc AppDeploymentRuntime), one library's (rc LibDeploymentRuntime: redeploy and
// undeploy), progress objects (ops D.3), and the application state queries of appRuntimeStateRuntime
// (spec; ops D.4). Every deployment returns its progress object and honours `Prefer`. The deployment
// manager's operations that take a name act on the application or library of that name.
import { badRequest } from '../core/problems.js';
import { DONE, type Invocation, type OperationDefinition, type OperationServices, defineOperation, returns, runs } from './define.js';
import {
  BOOL,
  DEPLOY_TASK,
  DEPLOYER,
  DEPLOYER_OPERATOR,
  INT,
  LONG,
  RT,
  STRING,
  VOID,
  action,
  bool,
  options,
  ov,
  ovArray,
  query,
  str,
  stringTargets,
  task,
} from './declare.js';

const DM = RT + 'DeploymentManagerMBean';
const APP = RT + 'AppDeploymentRuntimeMBean';
const LIB = RT + 'LibDeploymentRuntimeMBean';
const PROGRESS = RT + 'DeploymentProgressObjectMBean';
const STATES = RT + 'AppRuntimeStateRuntimeMBean';

/** Application states, least to most advanced: an aggregate reports the most advanced part. */
const APP_STATE_ORDER = ['STATE_NEW', 'STATE_FAILED', 'STATE_RETIRED', 'STATE_PREPARED', 'STATE_ADMIN', 'STATE_UPDATE_PENDING', 'STATE_ACTIVE'];

function baseName(path: string): string {
  const file = path.slice(path.replace(/\\/g, '/').lastIndexOf('/') + 1);
  const dot = file.lastIndexOf('.');
  return dot > 0 ? file.slice(0, dot) : file;
}

function text(call: Invocation, arg: string): string;
function text(call: Invocation, arg: string, required: false): string | undefined;
function text(call: Invocation, arg: string, required = true): string | undefined {
  const v = call.args[arg];
  if (v === null || v === undefined || v === '') {
    if (required) throw badRequest(`The argument '${arg}' of '${call.op.name}' is required.`, arg);
    return undefined;
  }
  return String(v);
}

/** Deployment manager operations change the configuration at once: not inside the caller's open edit. */
function immediate(call: Invocation, use: OperationServices): void {
  if (!use.config.isImplicit(call.principal.user, call.session)) {
    throw badRequest(`Deployment manager operations change the configuration at once; you hold the edit lock of '${call.session}': activate or cancel your changes first.`);
  }
}

const deploymentOptions = (call: Invocation) => (call.args.deploymentOptions as Record<string, string> | null) ?? {};

/**
 * The `retireTimeout` deployment option of a redeploy: seconds the earlier version keeps serving
 * before it retires (undefined when not given).
 */
function retireTimeout(call: Invocation): number | undefined {
  const raw = deploymentOptions(call).retireTimeout;
  if (raw === undefined) return undefined;
  if (!/^\d{1,9}$/.test(raw.trim())) throw badRequest(`The deployment option 'retireTimeout' must be a number of seconds (0 or more), not ${JSON.stringify(raw)}.`, 'deploymentOptions');
  return Number(raw.trim());
}

/** The application a deployment runtime stands for. */
const appOf = (call: Invocation) => String(call.node.record?.values.applicationName ?? call.node.identity[call.node.identity.length - 1]);

/** The library a library deployment runtime stands for. */
const libraryOf = (call: Invocation) => String(call.node.record?.values.libraryIdentifier ?? call.node.identity[call.node.identity.length - 1]);

/** The collection of the deployment the argument `name` names: its library's, or else the applications'. */
const named = (call: Invocation, use: OperationServices) => use.deployments.collectionOf(text(call, 'name')) ?? 'appDeployments';

/** The application named by `appid`. */
function application(call: Invocation, use: OperationServices) {
  const id = text(call, 'appid');
  const found = use.engine.currentTopology.appDeployments().find((a) => a.name === id);
  if (!found) throw badRequest(`There is no application '${id}'.`, 'appid');
  return found;
}

function modules(use: OperationServices, appName: string): string[] {
  const subs = use.engine.currentTopology.items(['appDeployments', appName], 'subDeployments').map((s) => s.name);
  return subs.length > 0 ? subs : [appName];
}

function requireModule(use: OperationServices, appName: string, moduleid: string): void {
  if (!modules(use, appName).includes(moduleid)) throw badRequest(`Application '${appName}' has no module '${moduleid}'; its modules are ${modules(use, appName).join(', ')}.`, 'moduleid');
}

function submodules(use: OperationServices, appName: string, moduleid: string): string[] {
  return use.engine.currentTopology.items(['appDeployments', appName, 'subDeployments', moduleid], 'subDeployments').map((s) => s.name);
}

/** State of an application on a logical target: the most advanced state of it on the target's servers. */
function currentState(use: OperationServices, appName: string, target: string): string | null {
  const t = use.engine.currentTopology;
  const deployment = t.appDeployments().find((a) => a.name === appName);
  if (!deployment) throw badRequest(`There is no application '${appName}'.`, 'appid');
  const ref = ['servers', 'clusters', 'virtualTargets'].map((c) => [c, target]).find((id) => t.bean(id));
  if (!ref) throw badRequest(`There is no server, cluster or virtual target named '${target}'.`, 'target');
  const onTarget = t.serversOf(ref);
  const appServers = t.serversOfTargets(deployment.values.targets);
  const servers = onTarget.filter((s) => appServers.includes(s));
  if (servers.length === 0) return null;
  const intended = use.engine.appIntendedState(appName);
  const states = servers.map((s) => (use.engine.serverTrees.has(s) ? intended : 'STATE_NEW'));
  return states.reduce((a, b) => (APP_STATE_ORDER.indexOf(b) > APP_STATE_ORDER.indexOf(a) ? b : a));
}

/** deploy and distribute: the application is created at once and its progress object returned. */
const deployAs = (finalState: 'STATE_ACTIVE' | 'STATE_PREPARED') => async (call: Invocation, use: OperationServices) => {
  immediate(call, use);
  const names = Array.isArray(call.args.targets) && call.args.targets.length > 0 ? (call.args.targets as string[]) : [use.engine.adminServerName];
  const { task: job } = await use.deployments.deploy(call.principal.user, call.session, {
    name: text(call, 'name'),
    sourcePath: text(call, 'applicationPath'),
    targets: use.deployments.targetRefs(names),
    planPath: text(call, 'plan', false),
    finalState,
  });
  return runs(job!);
};

const deployOverloads = () => [
  ov(DEPLOY_TASK, str('name'), str('applicationPath'), str('plan')),
  ov(DEPLOY_TASK, str('name'), str('applicationPath'), stringTargets(), str('plan'), options()),
];

export const deploymentOperations: OperationDefinition[] = [
  // ---- deployment manager ----
  defineOperation(task(DM, 'deploy', deployOverloads(), DEPLOYER), deployAs('STATE_ACTIVE')),
  defineOperation(task(DM, 'distribute', deployOverloads(), DEPLOYER), deployAs('STATE_PREPARED')),
  defineOperation(
    task(DM, 'redeploy', [ov(DEPLOY_TASK, str('name'), str('plan'), options()), ov(DEPLOY_TASK, str('name'), str('applicationPath'), str('plan'), options())], DEPLOYER),
    (call, use) => runs(use.deployments.refresh(text(call, 'name'), 'redeploy', retireTimeout(call), named(call, use))),
  ),
  defineOperation(task(DM, 'undeploy', [ov(DEPLOY_TASK, str('name'), str('template')), ov(DEPLOY_TASK, str('name'), options())], DEPLOYER), async (call, use) => {
    immediate(call, use);
    return runs((await use.deployments.undeploy(call.principal.user, call.session, text(call, 'name'), named(call, use)))!);
  }),
  defineOperation(task(DM, 'update', [ov(DEPLOY_TASK, str('name'), str('plan'), options())], DEPLOYER), (call, use) =>
    runs(use.deployments.refresh(text(call, 'name'), 'update', undefined, named(call, use))),
  ),
  defineOperation(
    task(DM, 'appendToExtensionLoader', [ov(DEPLOY_TASK, str('codeSourcePath')), ov(DEPLOY_TASK, str('codeSourcePath'), stringTargets(), options())], DEPLOYER),
    (call, use) => {
      const targets = Array.isArray(call.args.targets) && call.args.targets.length > 0 ? (call.args.targets as string[]) : [use.engine.adminServerName];
      use.deployments.targetRefs(targets);
      return runs(use.deployments.appendToExtensionLoader(text(call, 'codeSourcePath'), targets));
    },
  ),
  defineOperation(action(DM, 'purgeCompletedDeploymentProgressObjects', [ov(VOID)], DEPLOYER), (_call, use) => {
    use.deployments.purge();
    return DONE;
  }),
  // The spec names it without inputs; argument set chosen (api).
  defineOperation(
    query(DM, 'confirmApplicationName', [ov(STRING, bool('isLibrary'), str('sourcePath'), str('altDDPath'), str('name'), str('libSpecVersion'), str('libImplVersion'))]),
    (call) => returns(text(call, 'name', false) ?? baseName(text(call, 'sourcePath'))),
  ),

  // ---- one deployed application (ops D.2; rc AppDeploymentRuntime, console helpers left out) ----
  defineOperation(task(APP, 'start', [ov(DEPLOY_TASK), ov(DEPLOY_TASK, stringTargets(), options())], DEPLOYER_OPERATOR), (call, use) =>
    runs(use.deployments.start(appOf(call), deploymentOptions(call).adminMode === 'true')),
  ),
  defineOperation(task(APP, 'stop', [ov(DEPLOY_TASK), ov(DEPLOY_TASK, stringTargets(), options())], DEPLOYER_OPERATOR), (call, use) => runs(use.deployments.stop(appOf(call)))),
  defineOperation(task(APP, 'undeploy', [ov(DEPLOY_TASK), ov(DEPLOY_TASK, stringTargets(), options())], DEPLOYER), async (call, use) => {
    immediate(call, use);
    return runs((await use.deployments.undeploy(call.principal.user, call.session, appOf(call)))!);
  }),
  defineOperation(
    task(
      APP,
      'redeploy',
      [
        ov(DEPLOY_TASK),
        ov(DEPLOY_TASK, stringTargets(), options()),
        ov(DEPLOY_TASK, stringTargets(), str('plan'), options()),
        ov(DEPLOY_TASK, stringTargets(), str('applicationPath'), str('plan'), options()),
      ],
      DEPLOYER,
    ),
    (call, use) => runs(use.deployments.refresh(appOf(call), 'redeploy', retireTimeout(call))),
  ),
  defineOperation(task(APP, 'update', [ov(DEPLOY_TASK, stringTargets(), str('plan'), options())], DEPLOYER), (call, use) => runs(use.deployments.refresh(appOf(call), 'update'))),
  defineOperation(query(APP, 'getState', [ov(STRING, str('target'))]), (call, use) => returns(currentState(use, appOf(call), text(call, 'target')))),

  // ---- one deployed library (rc LibDeploymentRuntime, the console's upload helper left out) ----
  defineOperation(task(LIB, 'redeploy', [ov(DEPLOY_TASK), ov(DEPLOY_TASK, stringTargets(), options())], DEPLOYER), (call, use) =>
    runs(use.deployments.refresh(libraryOf(call), 'redeploy', undefined, 'libraries')),
  ),
  defineOperation(task(LIB, 'undeploy', [ov(DEPLOY_TASK), ov(DEPLOY_TASK, stringTargets(), options())], DEPLOYER), async (call, use) => {
    immediate(call, use);
    return runs((await use.deployments.undeploy(call.principal.user, call.session, libraryOf(call), 'libraries'))!);
  }),

  // ---- deployment job (ops D.3) ----
  defineOperation(action(PROGRESS, 'cancel', [ov(VOID)], DEPLOYER), (call, use) => {
    const job = use.tasks.task(call.node.key);
    if (!job || job.values.completed) throw badRequest(`The deployment '${call.node.identity[call.node.identity.length - 1]}' has already completed; there is nothing to cancel.`);
    job.finish('The deployment was cancelled.');
    return DONE;
  }),
  defineOperation(query(PROGRESS, 'getExceptions', [ovArray('java.lang.Exception', str('target'))]), (call, use) => returns((use.tasks.task(call.node.key)?.values.rootExceptions as unknown[]) ?? [])),

  // ---- application state queries (spec; ops D.4) ----
  defineOperation(
    query(STATES, 'getCurrentState', [
      ov(STRING, str('appid'), str('target')),
      ov(STRING, str('appid'), str('moduleid'), str('target')),
      ov(STRING, str('appid'), str('moduleid'), str('subModuleId'), str('target')),
    ]),
    (call, use) => {
      const a = application(call, use);
      const moduleid = text(call, 'moduleid', false);
      if (moduleid) requireModule(use, a.name, moduleid);
      const sub = text(call, 'subModuleId', false);
      if (moduleid && sub && !submodules(use, a.name, moduleid).includes(sub)) throw badRequest(`Module '${moduleid}' of '${a.name}' has no submodule '${sub}'.`, 'subModuleId');
      return returns(currentState(use, a.name, text(call, 'target')));
    },
  ),
  defineOperation(query(STATES, 'getIntendedState', [ov(STRING, str('appid')), ov(STRING, str('appid'), str('target'))]), (call, use) => {
    const a = application(call, use);
    const target = text(call, 'target', false);
    if (target && currentState(use, a.name, target) === null) return returns(null);
    return returns(use.engine.appIntendedState(a.name));
  }),
  defineOperation(query(STATES, 'getModuleIds', [ovArray(STRING, str('appid'))]), (call, use) => returns(modules(use, application(call, use).name))),
  defineOperation(query(STATES, 'getSubmoduleIds', [ovArray(STRING, str('appid'), str('moduleid'))]), (call, use) => {
    const a = application(call, use);
    const moduleid = text(call, 'moduleid');
    requireModule(use, a.name, moduleid);
    return returns(submodules(use, a.name, moduleid));
  }),
  defineOperation(query(STATES, 'getModuleType', [ov(STRING, str('appid'), str('moduleid'))]), (call, use) => {
    const a = application(call, use);
    const moduleid = text(call, 'moduleid');
    requireModule(use, a.name, moduleid);
    const type = String(a.values.moduleType ?? 'war');
    return returns((moduleid === a.name ? type : 'war').toUpperCase());
  }),
  defineOperation(query(STATES, 'getModuleTargets', [ovArray(STRING, str('appid'), str('moduleid')), ovArray(STRING, str('appid'), str('moduleid'), str('subModuleId'))]), (call, use) => {
    const a = application(call, use);
    const moduleid = text(call, 'moduleid');
    requireModule(use, a.name, moduleid);
    const sub = moduleid === a.name ? undefined : use.engine.currentTopology.bean(['appDeployments', a.name, 'subDeployments', moduleid]);
    const targets = (sub?.values.targets as string[][] | undefined) ?? (a.values.targets as string[][] | undefined) ?? [];
    return returns(targets.map((t) => t[t.length - 1]));
  }),
  defineOperation(query(STATES, 'isAdminMode', [ov(BOOL, str('appid'), str('target'))]), (call, use) => returns(currentState(use, application(call, use).name, text(call, 'target')) === 'STATE_ADMIN')),
  // Applications here have one version each: the deployed one is the active one.
  defineOperation(query(STATES, 'isActiveVersion', [ov(BOOL, str('appid'))]), (call, use) => (application(call, use), returns(true))),
  // When the version replaced by the last redeploy retires (0 when no redeploy named a retireTimeout).
  defineOperation(query(STATES, 'getRetireTimeMillis', [ov(LONG, str('appid'))]), (call, use) => returns(use.engine.retirement(application(call, use).name)?.at ?? 0)),
  // The retireTimeout (seconds) the last redeploy gave (0 when none did).
  defineOperation(query(STATES, 'getRetireTimeoutSeconds', [ov(INT, str('appid'))]), (call, use) => returns(use.engine.retirement(application(call, use).name)?.timeoutSeconds ?? 0)),
];
