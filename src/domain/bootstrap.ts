// Opening a domain: the store is opened and checked, the domain is created from its template where
// none exists yet (the demo domain, or a generated one) or loaded, and its parts are built.
import { randomUUID } from 'node:crypto';
import { ApplicationArchives } from '../runtime/archives/applications.js';
import { standardBehaviours } from '../behaviour/index.js';
import type { Catalog } from '../catalog/load.js';
import { DEFAULT_PRODUCT_VERSION, PRODUCT_VERSIONS, UNRECORDED_PRODUCT_VERSION, isProductVersion } from '../catalog/versions.js';
import { ConfigService, DEFAULT_SESSION_LIMITS, type SessionLimits } from '../config/config-service.js';
import { type GivenKey, type SecretKeySource, settleSecretKey } from '../config/secret-key.js';
import { Secrets } from '../config/secrets.js';
import { Topology } from '../config/topology.js';
import { RealScheduler, type Scheduler } from '../core/clock.js';
import { ChangeSignal, announcing } from '../core/changes.js';
import { type Log, SILENT_LOG } from '../core/log.js';
import { LifecycleService } from '../lifecycle/service.js';
import { Deployments } from '../runtime/deployments.js';
import { RuntimeEngine } from '../runtime/engine.js';
import { DEFAULT_TIMINGS, type LifecycleTimings, Lifecycles } from '../runtime/lifecycle.js';
import { RuntimePersistence } from '../runtime/persistence.js';
import { type RuntimeState, emptyRuntimeState, entriesToState, settleInterrupted, stateToEntries } from '../runtime/state.js';
import { TaskEngine } from '../runtime/tasks.js';
import { AuditLog, DEFAULT_AUDIT_RETENTION_MS } from '../security/audit.js';
import { Lockouts } from '../security/lockout.js';
import { generatePassword } from '../security/passwords.js';
import { SecurityService } from '../security/service.js';
import type { Store, StoredBean } from '../store/store.js';
import { BeanTree } from '../tree/records.js';
import { ClusterCoordinator, aliveSince } from './coordinator.js';
import { demoDomain } from './demo.js';
import { Domain, INITIAL_SNAPSHOT } from './domain.js';
import { type DomainSize, generateDomain, runningServers } from './generate.js';

export interface DomainOptions {
  adminUser?: string | undefined;
  adminPassword?: string | undefined;
  domainName?: string;
  listenAddress: string;
  listenPort: number;
  now?: () => number;
  /**
   * What a new data directory starts with: the demo domain (default), a generated one, or a
   * configuration built by the caller once the domain's key is known (an imported domain).
   */
  template?: 'demo' | DomainSize | ((secrets: Secrets) => BeanTree);
  /** The product version of a new domain (default DEFAULT_PRODUCT_VERSION); an existing domain keeps its own. */
  productVersion?: string;
  /** Clock of lifecycle tasks (tests pass a manual one). */
  scheduler?: Scheduler;
  /** Where activations and lifecycle changes are logged (default: nowhere). */
  log?: Log;
  timings?: Partial<LifecycleTimings>;
  /** Caps and idle expiry of named edit sessions (defaults: DEFAULT_SESSION_LIMITS). */
  sessionLimits?: Partial<SessionLimits>;
  /** How long audit records are kept, in ms (default DEFAULT_AUDIT_RETENTION_MS; 0: for ever). */
  auditRetentionMs?: number;
  /** The folder deployed archives are read from to show their modules (the data directory); none: none is read. */
  archiveDir?: string;
  /** Added to every managed server's ports (`serve --port-offset`). */
  portOffset?: number;
  /** Where the key of sealed values comes from (never the store), and the key found there if any. */
  secretKey: SecretKeySource;
  givenKey: GivenKey | undefined;
  /**
   * Given a generated administrator password before the new domain stores it: if it throws, the
   * domain is not created.
   */
  revealPassword?: (user: string, password: string) => void | Promise<void>;
}

export interface OpenedDomain {
  domain: Domain;
  /** The first administrator of a new domain. */
  adminUser?: string;
  /** Set when a new domain was created with a generated administrator password. */
  generatedPassword?: string;
  created: boolean;
}

const CONFIG_TREE = 'config';

/**
 * Opens the domain of a store (creating it where the store holds none). `catalogs` gives the
 * catalog of a product version: only the domain's version is asked for.
 */
export async function openDomain(catalogs: (productVersion: string) => Catalog, store: Store, opts: DomainOptions): Promise<OpenedDomain> {
  let creating = false;
  try {
    await store.open();
    const opened = await load(catalogs, store, opts, () => (creating = true));
    creating = false;
    return opened;
  } catch (err) {
    // A domain this server began to create and did not finish may be created by the next start.
    if (creating && (await store.getMeta('created').catch(() => 'unknown')) === undefined) await store.replaceMeta({}, ['creating']).catch(() => undefined);
    await store.close().catch(() => undefined);
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('SQLITE_')) {
      throw new Error(`${store.description} cannot be read (${(err as Error).message}). The server did not start: restore the file from a backup.`);
    }
    throw err;
  }
}

/** Where the store records the domain's product version. */
const PRODUCT_VERSION_META = 'productVersion';

/**
 * The product version of the domain: a new one's as asked (recorded before the domain counts as
 * created), an existing one's as recorded. A domain from before versions were recorded was
 * 12.2.1.3.0: that is recorded for it now, so it stays so.
 */
async function productVersionOf(store: Store, creating: boolean, asked: string | undefined): Promise<string> {
  if (creating) {
    const version = asked ?? DEFAULT_PRODUCT_VERSION;
    if (!isProductVersion(version)) throw new Error(`${version} is not a product version this server knows (${PRODUCT_VERSIONS.join(', ')})`);
    await store.setMeta(PRODUCT_VERSION_META, version);
    return version;
  }
  const recorded = (await store.getMeta(PRODUCT_VERSION_META)) ?? (await store.initMeta(PRODUCT_VERSION_META, UNRECORDED_PRODUCT_VERSION));
  if (!isProductVersion(recorded)) throw new Error(`the store records the product version '${recorded}', which this server does not know (${PRODUCT_VERSIONS.join(', ')})`);
  return recorded;
}

async function load(catalogs: (productVersion: string) => Catalog, store: Store, opts: DomainOptions, claim: () => void): Promise<OpenedDomain> {
  const now = opts.now ?? Date.now;
  const clock = opts.scheduler ?? new RealScheduler();
  // What falls due on the clock changes state: the parts schedule through a clock that says so.
  const changes = new ChangeSignal();
  const scheduler = announcing(clock, changes);
  const audit = new AuditLog(store, () => scheduler.now());
  const security = new SecurityService(store, new Lockouts(store, () => scheduler.now()), audit);
  // Alone on the store, nobody else will finish transitions or tasks left unfinished.
  const instance = randomUUID();
  const alone = !store.shared || (await store.liveInstances(aliveSince(Date.now()))).length === 0;
  // Servers starting together on an empty shared store: one creates the domain, the others wait.
  let created = (await store.getMeta('created')) === undefined;
  if (created && store.shared) {
    const me = randomUUID();
    created = (await store.initMeta('creating', me)) === me;
    if (!created) await waitForMeta(store, 'created');
  }
  if (created && store.shared) claim();
  // No record that a domain was made, yet beans or users: a domain whose marker was lost, or a
  // creation cut short. Either way it is not written over.
  if (created && (await store.holdsDomain())) {
    throw new Error(
      `${store.description} holds a domain's configuration or users but no record that the domain was created (its 'created' mark is missing). ` +
        'The server did not start and changed nothing: restore the store from a backup, or give the server an empty store to create a new domain.',
    );
  }
  // The key is settled before anything else is written: a server given the wrong key changes nothing.
  const key = await settleSecretKey(store, opts.secretKey, opts.givenKey);
  const catalog = catalogs(await productVersionOf(store, created, opts.productVersion));
  if (store.shared) await store.heartbeat(instance, Date.now());
  let generatedPassword: string | undefined;
  let adminUser: string | undefined;
  let config: BeanTree;
  let state: RuntimeState;
  const secrets = new Secrets(key);
  if (created) {
    const template = opts.template;
    const demo = template === undefined || template === 'demo';
    config = typeof template === 'function'
      ? template(secrets)
      : demo
      ? demoDomain(catalog, {
          domainName: opts.domainName ?? 'demo_domain',
          adminServerName: 'AdminServer',
          listenAddress: opts.listenAddress,
          listenPort: opts.listenPort || 7001,
        })
      : generateDomain(catalog, template as DomainSize, opts.listenPort || 7001);
    await store.writeTree(CONFIG_TREE, { put: toStored(config), remove: [] });
    state = emptyRuntimeState();
    // The demo shows a partition at work: the first one runs, the second waits halted.
    if (demo && config.itemNames('partitions').includes('partition1')) state.partitions.set('partition1', { state: 'RUNNING', subState: null });
    else if (typeof template === 'object') for (const name of runningServers(template)) state.servers.set(name, 'RUNNING');
    await store.writeRuntimeEntries(stateToEntries(state), []);
    await security.load();
    const user = (adminUser = opts.adminUser || 'admin');
    const password = opts.adminPassword || (generatedPassword = generatePassword());
    if (generatedPassword !== undefined) await opts.revealPassword?.(user, generatedPassword);
    await security.bootstrap(user, password);
    const done = new Date(now()).toISOString();
    // On a shared store the claim goes with the mark: a store that later loses its mark is claimed
    // by the next server, which then finds the domain and refuses it (above) instead of waiting.
    if (store.shared) await store.replaceMeta({ created: done }, ['creating']);
    else await store.setMeta('created', done);
  } else {
    config = await readStoredTree(store, CONFIG_TREE);
    state = entriesToState(await store.runtimeEntries());
    if (alone) settleInterrupted(state);
    await security.load();
  }
  const behaviours = standardBehaviours(catalog);
  const configService = await ConfigService.load(catalog, behaviours, store, config, secrets, scheduler);
  configService.sessionLimits = { ...DEFAULT_SESSION_LIMITS, ...opts.sessionLimits };
  const runtime = new RuntimeEngine(catalog, behaviours, new Topology(config), state, () => scheduler.now(), opts.portOffset ?? 0, new ApplicationArchives(opts.archiveDir));
  // Data sources open their pools once the process serves (openManagement); passwords open here.
  runtime.dataSources.configure({ openSecret: (sealed) => secrets.open(sealed), scheduler, log: opts.log ?? SILENT_LOG });
  const timings: LifecycleTimings = { ...DEFAULT_TIMINGS, ...opts.timings };
  const topology = () => new Topology(configService.config);
  const tasks = new TaskEngine(scheduler);
  const lifecycle = new LifecycleService(store, secrets, configService, topology, () => scheduler.now(), (ms, fn) => scheduler.after(ms, fn));
  const persistence = new RuntimePersistence(store, runtime, tasks);
  const domain = new Domain({
    log: opts.log ?? SILENT_LOG,
    catalog,
    behaviours,
    store,
    scheduler,
    clock,
    changes,
    configService,
    runtime,
    security,
    tasks,
    lifecycle,
    persistence,
    lifecycles: new Lifecycles(runtime, tasks, scheduler, timings),
    deployments: new Deployments(runtime, tasks, scheduler, configService, () => timings.deployment),
    coordinator: new ClusterCoordinator({
      store,
      persistence,
      runtime,
      configService,
      tasks,
      lifecycle,
      security,
      topology,
      changed: () => changes.changed(),
      beatFailed: (err) => (opts.log ?? SILENT_LOG).warn({ err }, 'this server could not say it is alive, or end the tasks of servers that stopped; it tries again at the next heartbeat (5 s)'),
    }),
    instance,
  });
  await lifecycle.load(opts.listenAddress, opts.listenPort || 7001);
  // Tasks of earlier runs: a single server knows nobody still runs the unfinished ones.
  tasks.load(await store.tasks(), alone);
  if (store.shared) domain.coordinator.startHeartbeat(instance);
  tasks.executor = instance;
  if (store.shared) tasks.numberFrom(Math.floor(Math.random() * 1e6) * 1000);
  await domain.coordinator.settle();
  // Tasks of servers that already stopped counting as alive are ended now, not at this server's
  // first heartbeat 5 s on: in a row of servers that each live less than that, nobody would end them.
  if (!alone) {
    await domain.coordinator.settleOrphans().catch((err: unknown) => (opts.log ?? SILENT_LOG).warn({ err }, 'the tasks of servers that stopped were not ended at start-up; this server tries again at its next heartbeat (5 s)'));
  }
  // Old audit records go now, then every so often.
  security.audit.onPruneError = (err) => (opts.log ?? SILENT_LOG).error({ err }, 'old audit records not removed');
  security.audit.startRetention(opts.auditRetentionMs ?? DEFAULT_AUDIT_RETENTION_MS);
  // What `reset` of the control interface returns to.
  if (created) await store.putSnapshot(INITIAL_SNAPSHOT, now(), JSON.stringify(await domain.captureRows()));
  return { domain, created, ...(generatedPassword ? { generatedPassword } : {}), ...(adminUser ? { adminUser } : {}) };
}

async function waitForMeta(store: Store, key: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if ((await store.getMeta(key)) !== undefined) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('another server began creating the domain in this store and did not finish within a minute');
}

/** A tree as store rows; items remember their collection and position. */
export function toStored(tree: BeanTree): StoredBean[] {
  const out: StoredBean[] = [];
  for (const [key, record] of tree.entries()) {
    const p = tree.placementOf(key);
    out.push({ key, collection: p?.[0] ?? null, name: p?.[1] ?? null, ord: p?.[2] ?? 0, type: record.type, values: record.values });
  }
  return out;
}

/** A stored tree, put together as the store reads it (in order, no list of rows made first). */
export async function readStoredTree(store: Store, tree: string): Promise<BeanTree> {
  const out = new BeanTree();
  await store.readTree(tree, (key, collection, name, ord, type, values) => out.putRaw(key, { type, values }, collection, name, ord));
  return out;
}


