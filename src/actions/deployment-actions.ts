// Deployment actions: the deployment manager, one application's deployment runtime, progress
// objects, and the application state queries of appRuntimeStateRuntime.
import { badRequest } from '../core/problems.js';
import type { ConfigService } from '../config/config-service.js';
import type { Deployments } from '../runtime/deployments.js';
import type { RuntimeEngine } from '../runtime/engine.js';
import type { TaskEngine } from '../runtime/tasks.js';
import type { TreeRoot } from '../tree/resolve.js';
import type { ActionCall, ActionRegistry } from './invoke.js';
import type { TaskReplies } from './task-reply.js';

const R = 'appserver.management.runtime.';
const done = { value: undefined };

/** Application states, least to most advanced: an aggregate reports the most advanced part. */
const APP_STATE_ORDER = ['STATE_NEW', 'STATE_FAILED', 'STATE_RETIRED', 'STATE_PREPARED', 'STATE_ADMIN', 'STATE_UPDATE_PENDING', 'STATE_ACTIVE'];

export interface DeploymentActionDeps {
  engine: RuntimeEngine;
  deployments: Deployments;
  config: ConfigService;
  tasks: TaskEngine;
  replies: TaskReplies;
  domainRuntime: () => TreeRoot;
}

function baseName(path: string): string {
  const file = path.slice(path.replace(/\\/g, '/').lastIndexOf('/') + 1);
  const dot = file.lastIndexOf('.');
  return dot > 0 ? file.slice(0, dot) : file;
}

export function registerDeploymentActions(actions: ActionRegistry, deps: DeploymentActionDeps): void {
  const { engine, deployments, replies } = deps;
  const dr = () => deps.domainRuntime();
  const str = (call: ActionCall, arg: string, required = true): string | undefined => {
    const v = call.args[arg];
    if (v === null || v === undefined || v === '') {
      if (required) throw badRequest(`The argument '${arg}' of '${call.op.name}' is required.`, arg);
      return undefined;
    }
    return String(v);
  };
  const immediate = (call: ActionCall) => {
    if (!deps.config.isImplicit(call.principal.user, call.session)) {
      throw badRequest(`Deployment manager operations change the configuration at once; you hold the edit lock of '${call.session}': activate or cancel your changes first.`);
    }
  };

  // ---- deployment manager ----
  const DM = `${R}DeploymentManagerMBean`;
  for (const [op, finalState] of [['deploy', 'STATE_ACTIVE'], ['distribute', 'STATE_PREPARED']] as const) {
    actions.register(DM, op, async (call) => {
      immediate(call);
      const names = Array.isArray(call.args.targets) && call.args.targets.length > 0 ? (call.args.targets as string[]) : [engine.adminServerName];
      const { task } = await deployments.deploy(call.principal.user, call.session, {
        name: str(call, 'name')!,
        sourcePath: str(call, 'applicationPath')!,
        targets: deployments.targetRefs(names),
        planPath: str(call, 'plan', false),
        finalState,
      });
      return replies.reply(call, task!, dr());
    });
  }
  actions.register(DM, 'undeploy', async (call) => {
    immediate(call);
    return replies.reply(call, (await deployments.undeploy(call.principal.user, call.session, str(call, 'name')!))!, dr());
  });
  actions.register(DM, 'redeploy', (call) => replies.reply(call, deployments.refresh(str(call, 'name')!, 'redeploy'), dr()));
  actions.register(DM, 'update', (call) => replies.reply(call, deployments.refresh(str(call, 'name')!, 'update'), dr()));
  actions.register(DM, 'purgeCompletedDeploymentProgressObjects', () => (deployments.purge(), done));
  actions.register(DM, 'appendToExtensionLoader', (call) => {
    const targets = Array.isArray(call.args.targets) && call.args.targets.length > 0 ? (call.args.targets as string[]) : [engine.adminServerName];
    deployments.targetRefs(targets);
    return replies.reply(call, deployments.appendToExtensionLoader(str(call, 'codeSourcePath')!, targets), dr());
  });
  actions.register(DM, 'confirmApplicationName', (call) => {
    const name = str(call, 'name', false) ?? baseName(str(call, 'sourcePath')!);
    return { value: name };
  });

  // ---- one application's deployment runtime ----
  const ADR = `${R}AppDeploymentRuntimeMBean`;
  const app = (call: ActionCall) => String(call.node.record?.values.applicationName ?? call.node.identity[call.node.identity.length - 1]);
  const adminMode = (call: ActionCall) => (call.args.deploymentOptions as Record<string, unknown> | null)?.adminMode === 'true';
  actions.register(ADR, 'start', (call) => replies.reply(call, deployments.start(app(call), adminMode(call)), dr()));
  actions.register(ADR, 'stop', (call) => replies.reply(call, deployments.stop(app(call)), dr()));
  actions.register(ADR, 'redeploy', (call) => replies.reply(call, deployments.refresh(app(call), 'redeploy'), dr()));
  actions.register(ADR, 'update', (call) => replies.reply(call, deployments.refresh(app(call), 'update'), dr()));
  actions.register(ADR, 'undeploy', async (call) => {
    immediate(call);
    return replies.reply(call, (await deployments.undeploy(call.principal.user, call.session, app(call)))!, dr());
  });
  actions.register(ADR, 'getState', (call) => ({ value: currentState(app(call), str(call, 'target')!) }));

  // ---- progress objects ----
  const DPO = `${R}DeploymentProgressObjectMBean`;
  const progress = (call: ActionCall) => deps.tasks.task(call.node.key);
  actions.register(DPO, 'cancel', (call) => {
    const task = progress(call);
    if (!task || task.values.completed) throw badRequest(`The deployment '${call.node.identity[call.node.identity.length - 1]}' has already completed; there is nothing to cancel.`);
    task.finish('The deployment was cancelled.');
    return done;
  });
  actions.register(DPO, 'getExceptions', (call) => ({ value: (progress(call)?.values.rootExceptions as unknown[]) ?? [] }));

  // ---- application state queries ----
  const topology = () => engine.currentTopology;
  const application = (call: ActionCall) => {
    const id = str(call, 'appid')!;
    const found = topology().appDeployments().find((a) => a.name === id);
    if (!found) throw badRequest(`There is no application '${id}'.`, 'appid');
    return found;
  };
  const modules = (appName: string): string[] => {
    const subs = topology().items(['appDeployments', appName], 'subDeployments').map((s) => s.name);
    return subs.length > 0 ? subs : [appName];
  };
  const requireModule = (appName: string, moduleid: string): void => {
    if (!modules(appName).includes(moduleid)) throw badRequest(`Application '${appName}' has no module '${moduleid}'; its modules are ${modules(appName).join(', ')}.`, 'moduleid');
  };
  const submodules = (appName: string, moduleid: string): string[] =>
    topology().items(['appDeployments', appName, 'subDeployments', moduleid], 'subDeployments').map((s) => s.name);

  /** State of an application on a logical target: the most advanced state of it on the target's servers. */
  function currentState(appName: string, target: string): string | null {
    const t = topology();
    const deployment = t.appDeployments().find((a) => a.name === appName);
    if (!deployment) throw badRequest(`There is no application '${appName}'.`, 'appid');
    const ref = ['servers', 'clusters', 'virtualTargets'].map((c) => [c, target]).find((id) => t.bean(id));
    if (!ref) throw badRequest(`There is no server, cluster or virtual target named '${target}'.`, 'target');
    const onTarget = t.serversOf(ref);
    const appServers = t.serversOfTargets(deployment.values.targets);
    const servers = onTarget.filter((s) => appServers.includes(s));
    if (servers.length === 0) return null;
    const intended = engine.appIntendedState(appName);
    const states = servers.map((s) => (engine.serverTrees.has(s) ? intended : 'STATE_NEW'));
    return states.reduce((a, b) => (APP_STATE_ORDER.indexOf(b) > APP_STATE_ORDER.indexOf(a) ? b : a));
  }

  const ARS = `${R}AppRuntimeStateRuntimeMBean`;
  actions.register(ARS, 'getCurrentState', (call) => {
    const a = application(call);
    const moduleid = str(call, 'moduleid', false);
    if (moduleid) requireModule(a.name, moduleid);
    const sub = str(call, 'subModuleId', false);
    if (moduleid && sub && !submodules(a.name, moduleid).includes(sub)) throw badRequest(`Module '${moduleid}' of '${a.name}' has no submodule '${sub}'.`, 'subModuleId');
    return { value: currentState(a.name, str(call, 'target')!) };
  });
  actions.register(ARS, 'getIntendedState', (call) => {
    const a = application(call);
    const target = str(call, 'target', false);
    if (target && currentState(a.name, target) === null) return { value: null };
    return { value: engine.appIntendedState(a.name) };
  });
  actions.register(ARS, 'getModuleIds', (call) => ({ value: modules(application(call).name) }));
  actions.register(ARS, 'getSubmoduleIds', (call) => {
    const a = application(call);
    const moduleid = str(call, 'moduleid')!;
    requireModule(a.name, moduleid);
    return { value: submodules(a.name, moduleid) };
  });
  actions.register(ARS, 'getModuleType', (call) => {
    const a = application(call);
    const moduleid = str(call, 'moduleid')!;
    requireModule(a.name, moduleid);
    const type = String(a.values.moduleType ?? 'war');
    return { value: (moduleid === a.name ? type : 'war').toUpperCase() };
  });
  actions.register(ARS, 'getModuleTargets', (call) => {
    const a = application(call);
    const moduleid = str(call, 'moduleid')!;
    requireModule(a.name, moduleid);
    const sub = moduleid === a.name ? undefined : topology().bean(['appDeployments', a.name, 'subDeployments', moduleid]);
    const targets = (sub?.values.targets as string[][] | undefined) ?? (a.values.targets as string[][] | undefined) ?? [];
    return { value: targets.map((t) => t[t.length - 1]) };
  });
  actions.register(ARS, 'isAdminMode', (call) => ({ value: currentState(application(call).name, str(call, 'target')!) === 'STATE_ADMIN' }));
  actions.register(ARS, 'isActiveVersion', (call) => (application(call), { value: true }));
  actions.register(ARS, 'getRetireTimeMillis', (call) => (application(call), { value: 0 }));
  actions.register(ARS, 'getRetireTimeoutSeconds', (call) => (application(call), { value: 0 }));
}
