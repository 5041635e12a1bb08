// Deployments: making, starting, stopping and removing applications and shared libraries. The
// configuration change goes through an edit session like any other; the deployment itself is a
// progress object that completes on the scheduler's clock and moves the deployment's runtime state.
// Applications and libraries share one namespace (a progress object is named after its deployment),
// so a name is taken by one of them at most.
import { badRequest } from '../core/problems.js';
import type { ConfigService } from '../config/config-service.js';
import { itemKey } from '../core/identity.js';
import type { RuntimeEngine } from './engine.js';
import type { Scheduler } from '../core/clock.js';
import type { Task, TaskEngine } from './tasks.js';

/** `operationType` of a progress object (JSR-88 style command codes, as chosen here). */
export const OPERATION = { start: 1, stop: 2, deploy: 3, undeploy: 4, redeploy: 5, distribute: 6, update: 7, extend: 8 } as const;

/** The domain's collections of deployments, and what their items are called in messages. */
export const DEPLOYMENT_COLLECTIONS = { appDeployments: 'application', libraries: 'library' } as const;
export type DeploymentCollection = keyof typeof DEPLOYMENT_COLLECTIONS;

export interface DeployRequest {
  /** Where the deployment goes (default: the domain's applications). */
  collection?: DeploymentCollection;
  name: string;
  sourcePath: string;
  /** Target references (identity arrays). */
  targets: string[][];
  planPath?: string | undefined;
  moduleType?: string | undefined;
  /** STATE_ACTIVE for deploy, STATE_PREPARED for distribute. */
  finalState: 'STATE_ACTIVE' | 'STATE_PREPARED';
  /** Further properties of the new AppDeployment bean. */
  properties?: Record<string, unknown>;
}

const OWNER = { key: 'deploymentManager', identity: ['deploymentManager'] };

export class Deployments {
  constructor(
    private readonly engine: RuntimeEngine,
    private readonly tasks: TaskEngine,
    private readonly scheduler: Scheduler,
    private readonly config: ConfigService,
    /** How long a deployment step takes (read at each step, so it can be changed while running). */
    private readonly delayMs: () => number,
  ) {}

  /** The collection holding the application or library named, if either does. */
  collectionOf(name: string): DeploymentCollection | undefined {
    const t = this.engine.currentTopology;
    for (const c of Object.keys(DEPLOYMENT_COLLECTIONS) as DeploymentCollection[]) if (t.byName(c, name)) return c;
    return undefined;
  }

  /** Whether an application or a library has the name. */
  exists(name: string): boolean {
    return this.collectionOf(name) !== undefined;
  }

  /** Refuses a name that is no deployment of the collection (an application by default). */
  require(name: string, collection: DeploymentCollection = 'appDeployments'): void {
    if (this.collectionOf(name) !== collection) throw badRequest(`There is no ${DEPLOYMENT_COLLECTIONS[collection]} deployment named '${name}'.`, 'name');
  }

  /** Who holds a name already, in words ('An application', 'A library'), or undefined. */
  holder(name: string): string | undefined {
    const c = this.collectionOf(name);
    return c === undefined ? undefined : c === 'libraries' ? 'A library' : 'An application';
  }

  /** Sets the runtime state of an application or a library (each has a state of its own). */
  private setState(collection: DeploymentCollection, name: string, state: string): void {
    if (collection === 'libraries') this.engine.setLibraryState(name, state);
    else this.engine.setAppState(name, state);
  }

  private forget(collection: DeploymentCollection, name: string): void {
    if (collection === 'libraries') this.engine.forgetLibrary(name);
    else this.engine.forgetApp(name);
  }

  /** Names of the servers (and clusters, virtual targets) a list of target references stands for. */
  targetNames(targets: unknown): string[] {
    return Array.isArray(targets) ? (targets as string[][]).map((t) => t[t.length - 1]!) : [];
  }

  /** Target references for target names (servers, clusters, virtual targets). */
  targetRefs(names: string[]): string[][] {
    const t = this.engine.currentTopology;
    return names.map((name) => {
      for (const collection of ['servers', 'clusters', 'virtualTargets', 'migratableTargets']) {
        if (t.bean([collection, name])) return [collection, name];
      }
      throw badRequest(`There is no server, cluster or virtual target named '${name}'.`, 'targets');
    });
  }

  /** A progress object that completes after the deployment delay, then runs `effect`. */
  private progress(app: string, operation: keyof typeof OPERATION, targets: string[], effect: () => void): Task {
    const task = this.tasks.createDeployment(OWNER, app, { operationType: OPERATION[operation], targets });
    this.scheduler.after(this.delayMs(), () => {
      const failure = this.engine.faults.deploymentFailure(app, targets);
      if (failure !== undefined) return task.finish(failure);
      try {
        effect();
        task.finish();
      } catch (err) {
        task.finish(err instanceof Error ? err.message : String(err));
      }
    });
    return task;
  }

  /**
   * Creates the application's configuration in the caller's edit session. When that activates at
   * once (no lock held), the application then deploys; otherwise it deploys when the session
   * activates and no progress object is returned.
   */
  async deploy(user: string, session: string, req: DeployRequest): Promise<{ identity: string[]; task?: Task }> {
    const holder = this.holder(req.name);
    if (holder) throw badRequest(`${holder} named '${req.name}' is already deployed.`, 'name');
    const implicit = this.config.isImplicit(user, session);
    const prop = this.config.domainProp(req.collection ?? 'appDeployments');
    const body: Record<string, unknown> = { ...req.properties, name: req.name, sourcePath: req.sourcePath, targets: req.targets };
    if (req.planPath) body.planPath = req.planPath;
    if (req.moduleType) body.moduleType = req.moduleType;
    // Until the progress object completes, the application exists but does not run.
    const collection = req.collection ?? 'appDeployments';
    if (implicit) this.setState(collection, req.name, 'STATE_NEW');
    let identity: string[];
    try {
      identity = await this.config.create(user, session, this.config.domainOwner(session), prop, body);
    } catch (err) {
      if (implicit) this.forget(collection, req.name);
      throw err;
    }
    if (!implicit) return { identity };
    const task = this.progress(req.name, req.finalState === 'STATE_ACTIVE' ? 'deploy' : 'distribute', this.targetNames(req.targets), () =>
      this.setState(collection, req.name, req.finalState),
    );
    return { identity, task };
  }

  /** Removes the application or library from the configuration (in the caller's session) and from the servers. */
  async undeploy(user: string, session: string, name: string, collection: DeploymentCollection = 'appDeployments'): Promise<Task | undefined> {
    const implicit = this.config.isImplicit(user, session);
    // Inside an edit session the deployment may be one the session made: the session judges it.
    if (implicit) this.require(name, collection);
    const targets = this.targetNames(this.engine.currentTopology.bean([collection, name])?.values.targets);
    await this.config.delete(user, session, { key: itemKey(collection, name), identity: [collection, name] }, this.config.domainProp(collection));
    if (!implicit) return undefined;
    return this.progress(name, 'undeploy', targets, () => this.forget(collection, name));
  }

  /**
   * Redeploys or updates: the application goes through preparation again and comes back active.
   * A redeploy given `retireTimeout` (seconds) records when the version it replaces retires.
   */
  refresh(name: string, operation: 'redeploy' | 'update', retireTimeoutSeconds?: number, collection: DeploymentCollection = 'appDeployments'): Task {
    this.require(name, collection);
    const before = collection === 'libraries' ? this.engine.libraryState(name) : this.engine.appIntendedState(name);
    const targets = this.targetNames(this.engine.currentTopology.bean([collection, name])?.values.targets);
    if (retireTimeoutSeconds !== undefined) this.engine.setRetirement(name, { timeoutSeconds: retireTimeoutSeconds, at: this.scheduler.now() + retireTimeoutSeconds * 1000 });
    return this.progress(name, operation, targets, () => this.setState(collection, name, before === 'STATE_PREPARED' ? 'STATE_PREPARED' : 'STATE_ACTIVE'));
  }

  /**
   * Adds a code source to the extension class loader of the targeted servers: a progress object
   * named after the archive, which completes once the servers took it in.
   */
  appendToExtensionLoader(codeSourcePath: string, targets: string[]): Task {
    if (codeSourcePath.trim() === '') throw badRequest("The argument 'codeSourcePath' must name a JAR or a directory.", 'codeSourcePath');
    const name = codeSourcePath.replace(/\\/g, '/').split('/').filter((s) => s !== '').pop() ?? codeSourcePath;
    return this.progress(name, 'extend', targets, () => undefined);
  }

  start(name: string, adminMode = false): Task {
    this.require(name);
    const targets = this.targetNames(this.engine.currentTopology.bean(['appDeployments', name])?.values.targets);
    return this.progress(name, 'start', targets, () => this.engine.setAppState(name, adminMode ? 'STATE_ADMIN' : 'STATE_ACTIVE'));
  }

  stop(name: string): Task {
    this.require(name);
    const targets = this.targetNames(this.engine.currentTopology.bean(['appDeployments', name])?.values.targets);
    return this.progress(name, 'stop', targets, () => this.engine.setAppState(name, 'STATE_PREPARED'));
  }

  purge(): void {
    this.tasks.purgeDeployments(OWNER.key);
  }
}
