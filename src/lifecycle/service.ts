// The Lifecycle Manager: runtimes, environments, associations, orchestrations, tenants, services and
// PDBs. Every change of the records is persisted before it is acknowledged, one at a time and never
// waiting on a runtime: calls to runtimes are made outside the records' lock, holding only the
// locks of the runtimes and environments they concern, and the records are checked again when the
// change is saved. A failing orchestration undoes the steps it had done.
import { Problem, badRequest, conflict, invalid, notFound } from '../core/problems.js';
import { randomUUID } from 'node:crypto';
import { stringValue } from '../config/coerce.js';
import type { ConfigService } from '../config/config-service.js';
import type { Secrets } from '../config/secrets.js';
import { isSealed } from '../config/secrets.js';
import type { Topology } from '../config/topology.js';
import { nameProblem } from '../config/validate.js';
import { Mutex } from '../core/mutex.js';
import { type Store, StoreConflict } from '../store/store.js';
import { hostNameProblem, normalHostName, PROTOCOLS, protocolProblem, shown, urlHost } from './address.js';
import { LifecycleBeans } from './beans.js';
import { LocalDriver, RecordedDriver, RemoteDriver, type RuntimeDriver, type Timer } from './drivers.js';
import {
  type Association,
  type Environment,
  type LifecycleData,
  LIFECYCLE_STATE_KEY,
  type PartitionRef,
  type Pdb,
  type Property,
  type Runtime,
  type RuntimePartition,
  type RuntimeType,
  type Service,
  type Tenant,
  emptyLifecycle,
  nested,
  propertyValue,
} from './model.js';

const RUNTIME_TYPES: RuntimeType[] = ['wls', 'otd', 'database'];


/** Checks the Property model: every entry named, with a value, values, a secret or nested properties. */
export function parseProperties(raw: unknown, where: string): Property[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw badRequest(`'${where}' must be an array of properties ({name, value}).`, where);
  return raw.map((p, i) => {
    if (p === null || typeof p !== 'object') throw badRequest(`'${where}[${i}]' must be an object {name, value}.`, where);
    const o = p as Record<string, unknown>;
    if (typeof o.name !== 'string' || o.name === '') throw badRequest(`'${where}[${i}]' must have a non-empty 'name'.`, where);
    // Every string stored follows the rules of configuration strings (no NUL, valid Unicode, at most 64 KiB).
    const text = (value: unknown, field: string): string => {
      const r = stringValue(value);
      if (!r.ok) throw badRequest(`'${where}[${i}].${field}' ${r.problem}.`, where);
      return r.value as string;
    };
    const out: Property = { name: text(o.name, 'name') };
    if (o.value !== undefined && o.value !== null) out.value = text(o.value, 'value');
    if (o.values !== undefined && o.values !== null) {
      if (!Array.isArray(o.values)) throw badRequest(`'${where}[${i}].values' must be an array of strings.`, where);
      out.values = o.values.map((v, j) => text(v, `values[${j}]`));
    }
    if (o.confidentialValue !== undefined && o.confidentialValue !== null) out.confidentialValue = text(o.confidentialValue, 'confidentialValue');
    if (o.properties !== undefined) out.properties = parseProperties(o.properties, `${where}[${i}].properties`);
    return out;
  });
}

function str(body: Record<string, unknown>, key: string, required: boolean): string | undefined {
  const v = body[key];
  if (v === undefined || v === null || v === '') {
    if (required) throw invalid([{ path: key, detail: `'${key}' is required.` }]);
    return undefined;
  }
  const r = stringValue(v);
  if (!r.ok) throw invalid([{ path: key, detail: `'${key}' ${r.problem}.` }]);
  return r.value as string;
}

/** Locks by name: one holder per name at a time, in arrival order; other names never wait. */
class NamedLocks {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `fn` holding every lock named (taken in sorted order, so that two callers cannot deadlock). */
  async run<T>(names: string[], fn: () => Promise<T>): Promise<T> {
    const releases: (() => void)[] = [];
    try {
      for (const name of [...new Set(names)].sort()) releases.push(await this.take(name));
      return await fn();
    } finally {
      for (const release of releases.reverse()) release();
    }
  }

  private async take(name: string): Promise<() => void> {
    const before = this.tails.get(name) ?? Promise.resolve();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const tail = before.then(() => held);
    this.tails.set(name, tail);
    await before;
    return () => {
      release();
      if (this.tails.get(name) === tail) this.tails.delete(name);
    };
  }
}

const runtimeLock = (name: string) => `runtime ${name}`;
const environmentLock = (name: string) => `environment ${name}`;

function hostNameField(raw: unknown): string {
  if (typeof raw !== 'string') throw invalid([{ path: 'hostName', detail: `The host name must be a string, not ${shown(raw)}.` }]);
  const problem = hostNameProblem(raw);
  if (problem) throw invalid([{ path: 'hostName', detail: `The host name ${shown(raw)} ${problem}.` }]);
  return normalHostName(raw);
}

function protocolField(raw: unknown): string {
  const protocol = typeof raw === 'string' ? raw.toLowerCase() : undefined;
  if (protocol === undefined || !PROTOCOLS.includes(protocol)) {
    throw invalid([{ path: 'protocol', detail: `The protocol must be one of ${PROTOCOLS.join(', ')}, not ${shown(raw)}.` }]);
  }
  return protocol;
}

function requireName(body: Record<string, unknown>, what: string): string {
  const name = str(body, 'name', true)!;
  const problem = nameProblem(name);
  if (problem) throw invalid([{ path: 'name', detail: `The name of the ${what} ${problem}.` }]);
  return name;
}

export class LifecycleService {
  private data: LifecycleData = emptyLifecycle();
  /** Stored revision of the records, for compare-and-set writes between servers. */
  private rev = 0;
  /** The records' lock: held only while records are checked, changed and saved, never during a call to a runtime. */
  private readonly mutex = new Mutex();
  /** Locks of runtimes and environments, held across the calls an operation makes to runtimes. */
  private readonly locks = new NamedLocks();
  private readonly local: LocalDriver;
  private readonly remote: RemoteDriver;
  private readonly recorded = new RecordedDriver();

  constructor(
    private readonly store: Store,
    private readonly secrets: Secrets,
    config: ConfigService,
    private readonly topology: () => Topology,
    private readonly now: () => number,
    /** Time limit of calls to remote runtimes (tests pass a manual clock's). */
    after?: Timer,
  ) {
    this.local = new LocalDriver(config, topology);
    this.remote = new RemoteDriver(secrets, after);
  }

  /** Loads the records and registers this domain as a runtime (named after the domain). */
  async load(host: string, port: number): Promise<void> {
    await this.reload();
    const name = this.topology().domainName;
    if (this.data.runtimes.some((r) => r.local || r.name === name)) return;
    await this.change(async () => {
      const t = this.now();
      if (!this.data.runtimes.some((r) => r.local || r.name === name)) {
        this.data.runtimes.unshift({ name, type: 'wls', hostName: host, port, protocol: 'http', properties: [], local: true, partitions: [], created: t, updated: t });
      }
    });
  }

  /** Reads the records again (another server sharing the store changed them); never in the middle of a change. */
  reload(): Promise<void> {
    return this.mutex.run(() => this.read());
  }

  private async read(): Promise<void> {
    const doc = await this.store.getDocument<LifecycleData>(LIFECYCLE_STATE_KEY);
    this.data = doc?.value ?? emptyLifecycle();
    this.rev = doc?.rev ?? 0;
  }

  /**
   * Runs a change of the records under their lock; they are restored if it fails, and saved if it
   * succeeds. If another server changed them first, the change runs again on their records. `fn`
   * calls no remote runtime: what it checks is checked again on a retry.
   */
  private change<T>(fn: () => Promise<T>): Promise<T> {
    return this.mutex.run(async () => {
      for (let attempt = 0; ; attempt++) {
        const before = structuredClone(this.data);
        try {
          const result = await fn();
          this.rev = await this.store.putDocument(LIFECYCLE_STATE_KEY, this.data, this.rev);
          return result;
        } catch (err) {
          this.data = before;
          if (!(err instanceof StoreConflict) || attempt > 0) throw err;
          await this.read();
        }
      }
    });
  }

  /**
   * The records as a bean tree for one request. The partitions of `runtime`, when it names a
   * registered runtime, are fetched from it first (the tree is read synchronously).
   */
  async beans(runtime: string | undefined): Promise<LifecycleBeans> {
    const partitions = new Map<string, RuntimePartition[]>();
    if (runtime !== undefined && this.data.runtimes.some((r) => r.name === runtime)) partitions.set(runtime, await this.runtimePartitions(runtime));
    return new LifecycleBeans(() => this.data, partitions);
  }

  private driver(rt: Runtime): RuntimeDriver {
    if (rt.local) return this.local;
    return rt.type === 'wls' ? this.remote : this.recorded;
  }

  /** Runtimes whose partitions are the records kept here (databases, traffic directors). */
  private recordedHere(rt: Runtime): boolean {
    return this.driver(rt) === this.recorded;
  }

  /** A copy of a runtime as it is now, for calls made outside the records' lock. */
  private snapshot(name: string): Runtime {
    return structuredClone(this.runtime(name));
  }

  /** Creates a partition on a runtime: in the records for a recorded runtime, else through its driver. */
  private async makePartition(rt: Runtime, name: string, id: string | undefined, properties: Property[], user: string): Promise<RuntimePartition> {
    if (!this.recordedHere(rt)) return this.driver(rt).createPartition(rt, name, id, properties, user);
    return this.change(async () => this.recorded.createPartition(this.runtime(rt.name), name, id, properties));
  }

  private async removeRuntimePartition(rt: Runtime, name: string, user: string): Promise<void> {
    if (!this.recordedHere(rt)) return this.driver(rt).deletePartition(rt, name, user);
    await this.change(async () => {
      const live = this.data.runtimes.find((r) => r.name === rt.name);
      if (live) await this.recorded.deletePartition(live, name);
    });
  }

  // ---- runtimes ----

  runtimes(): Runtime[] {
    return this.data.runtimes;
  }

  runtime(name: string): Runtime {
    const rt = this.data.runtimes.find((r) => r.name === name);
    if (!rt) throw notFound(name);
    return rt;
  }

  /** Applies the fields of a create or update body to `rt`, each checked, and the protocol against the type. */
  private runtimeFields(body: Record<string, unknown>, rt: Partial<Runtime>): void {
    const type = str(body, 'type', rt.type === undefined);
    if (type !== undefined) {
      if (!RUNTIME_TYPES.includes(type as RuntimeType)) throw invalid([{ path: 'type', detail: `The runtime type must be one of ${RUNTIME_TYPES.join(', ')}, not '${type}'.` }]);
      rt.type = type as RuntimeType;
    }
    if (body.hostName !== undefined) rt.hostName = hostNameField(body.hostName);
    if (body.port !== undefined) {
      const raw = body.port;
      const port = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d+$/.test(raw.trim()) ? Number(raw) : Number.NaN;
      if (!Number.isInteger(port) || port < 1 || port > 65535) throw invalid([{ path: 'port', detail: `The port must be an integer from 1 to 65535, not ${JSON.stringify(raw)}.` }]);
      rt.port = port;
    }
    if (body.protocol !== undefined) rt.protocol = protocolField(body.protocol);
    if (type !== undefined || body.protocol !== undefined) {
      const problem = protocolProblem(rt.type!, rt.protocol!);
      if (problem) throw invalid([{ path: 'protocol', detail: `The protocol ${problem}, not ${shown(rt.protocol)}.` }]);
    }
    if (body.properties !== undefined) rt.properties = this.seal(parseProperties(body.properties, 'properties'));
  }

  /** Keeps secrets sealed: confidential values, and any property named like a password. */
  private seal(props: Property[]): Property[] {
    return props.map((p) => {
      const secret = p.confidentialValue ?? (/password/i.test(p.name) ? p.value : undefined);
      const out: Property = { ...p };
      if (secret !== undefined) {
        delete out.value;
        out.confidentialValue = isSealed(secret) ? secret : this.secrets.seal(String(secret));
      }
      if (p.properties) out.properties = this.seal(p.properties);
      return out;
    });
  }

  /** Refuses a new runtime whose name, or (for `wls`) host and port, a registered one has. */
  private checkNewRuntime(rt: Runtime): void {
    if (this.data.runtimes.some((r) => r.name === rt.name)) throw conflict(`A runtime with specified name "${rt.name}" already exists.`, 'name');
    const host = rt.hostName.toLowerCase();
    if (rt.type === 'wls' && this.data.runtimes.some((r) => r.type === 'wls' && r.hostName.toLowerCase() === host && r.port === rt.port)) {
      throw conflict(`A runtime with specified host and port already exists. HostName: ${rt.hostName} and Port: ${rt.port}.`, 'hostName');
    }
  }

  async createRuntime(body: Record<string, unknown>): Promise<Runtime> {
    const name = requireName(body, 'runtime');
    if (this.data.runtimes.some((r) => r.name === name)) throw conflict(`A runtime with specified name "${name}" already exists.`, 'name');
    const t = this.now();
    const rt: Runtime = { name, type: 'wls', hostName: 'localhost', port: 7001, protocol: 'http', properties: [], partitions: [], created: t, updated: t };
    this.runtimeFields(body, rt);
    this.checkNewRuntime(rt);
    if (rt.type === 'wls' && body.hostName === undefined) throw invalid([{ path: 'hostName', detail: "A runtime of type 'wls' needs the 'hostName' (and 'port') of its administration server." }]);
    const register = () =>
      this.change(async () => {
        this.checkNewRuntime(rt);
        this.data.runtimes.push(rt);
        return rt;
      });
    // A remote domain is registered as the product does it: without calling it. It is contacted
    // when it is used, and what is wrong with it (a wrong password, nothing there) is said then.
    return register();
  }

  updateRuntime(name: string, body: Record<string, unknown>): Promise<void> {
    return this.change(async () => {
      const rt = this.runtime(name);
      if (rt.local && (body.hostName !== undefined || body.port !== undefined || body.type !== undefined)) {
        throw badRequest(`Runtime '${name}' is this domain; its type, host and port follow the server.`);
      }
      this.runtimeFields(body, rt);
      rt.updated = this.now();
    });
  }

  deleteRuntime(name: string): Promise<void> {
    return this.change(async () => {
      const rt = this.runtime(name);
      if (rt.local) throw badRequest(`Runtime '${name}' is this domain and cannot be unregistered.`);
      const user = this.data.environments.find((e) => e.partitions.some((p) => p.runtimeName === name));
      if (user) throw badRequest(`Runtime '${name}' has partitions in environment "${user.name}"; remove them from it first.`);
      this.data.runtimes = this.data.runtimes.filter((r) => r !== rt);
    });
  }

  async runtimePartitions(name: string): Promise<RuntimePartition[]> {
    const rt = this.snapshot(name);
    return this.driver(rt).partitions(rt);
  }

  async runtimePartition(rtName: string, name: string): Promise<RuntimePartition> {
    const found = (await this.runtimePartitions(rtName)).find((p) => p.name === name);
    if (!found) throw notFound(name);
    return found;
  }

  async createRuntimePartition(rtName: string, body: Record<string, unknown>, user: string): Promise<RuntimePartition> {
    this.runtime(rtName);
    const name = requireName(body, 'partition');
    const id = str(body, 'id', false);
    const properties = this.seal(parseProperties(body.properties, 'properties'));
    return this.locks.run([runtimeLock(rtName)], async () => this.makePartition(this.snapshot(rtName), name, id, properties, user));
  }

  /** Deletes a partition on its runtime; refused while an environment uses it. */
  async deleteRuntimePartition(rtName: string, name: string, user: string): Promise<void> {
    this.runtime(rtName);
    return this.locks.run([runtimeLock(rtName)], async () => {
      const rt = this.snapshot(rtName);
      if (!(await this.driver(rt).partitions(rt)).some((p) => p.name === name)) throw notFound(name);
      const inUse = () => {
        const env = this.environmentUsing({ name, runtimeName: rtName });
        if (env) throw badRequest(`A Runtime Partition cannot be deleted as it is referenced by Environment "${env.name}".`);
      };
      inUse();
      if (!this.recordedHere(rt)) return this.driver(rt).deletePartition(rt, name, user);
      await this.change(async () => {
        inUse();
        await this.recorded.deletePartition(this.runtime(rtName), name);
      });
    });
  }

  private environmentUsing(ref: PartitionRef): Environment | undefined {
    return this.data.environments.find((e) => e.partitions.some((p) => p.name === ref.name && p.runtimeName === ref.runtimeName));
  }

  // ---- environments ----

  environments(): Environment[] {
    return this.data.environments;
  }

  environment(name: string): Environment {
    const env = this.data.environments.find((e) => e.name === name);
    if (!env) throw notFound(name);
    return env;
  }

  /** Creates an environment; with an orchestration, its partitions are made first (all or none). */
  async createEnvironment(body: Record<string, unknown>, user: string): Promise<Environment> {
    const name = requireName(body, 'environment');
    const unique = () => {
      if (this.data.environments.some((e) => e.name === name)) throw conflict(`Environment "${name}" already exists.`, 'name');
    };
    unique();
    const t = this.now();
    const env: Environment = { name, partitions: [], associations: [], provisioned: [], created: t, updated: t };
    const save = () =>
      this.change(async () => {
        unique();
        for (const ref of env.partitions) {
          if (!this.data.runtimes.some((r) => r.name === ref.runtimeName)) throw badRequest(`Runtime "${ref.runtimeName}" was unregistered while environment "${name}" was being made.`, 'runtimeName');
        }
        this.data.environments.push(env);
        return env;
      });
    if (body.orchestration === undefined || body.orchestration === null) return save();
    const plan = this.plan(body.orchestration);
    return this.locks.run([environmentLock(name), ...plan.steps.map((s) => runtimeLock(s.runtimeName))], async () => {
      unique();
      const made = await this.orchestrate(env, plan, user);
      try {
        return await save();
      } catch (err) {
        await this.undo(made, user);
        throw err;
      }
    });
  }

  deleteEnvironment(name: string): Promise<void> {
    return this.change(async () => {
      const env = this.environment(name);
      this.data.environments = this.data.environments.filter((e) => e !== env);
      for (const tenant of this.data.tenants) for (const s of tenant.services) if (s.environmentRef === name) s.environmentRef = null;
    });
  }

  /** Adds an existing runtime partition to an environment. */
  async addPartition(envName: string, body: Record<string, unknown>): Promise<PartitionRef> {
    this.environment(envName);
    const ref = { name: str(body, 'name', true)!, runtimeName: str(body, 'runtimeName', true)! };
    this.runtime(ref.runtimeName);
    return this.locks.run([runtimeLock(ref.runtimeName)], async () => {
      if (!(await this.runtimePartitions(ref.runtimeName)).some((p) => p.name === ref.name)) {
        throw badRequest(`Unable to find Partition with name "${ref.name}" on runtime "${ref.runtimeName}".`, 'name');
      }
      return this.change(async () => {
        const env = this.environment(envName);
        const rt = this.runtime(ref.runtimeName);
        if (this.recordedHere(rt) && !rt.partitions.some((p) => p.name === ref.name)) {
          throw badRequest(`Unable to find Partition with name "${ref.name}" on runtime "${ref.runtimeName}".`, 'name');
        }
        if (env.partitions.some((p) => p.name === ref.name && p.runtimeName === ref.runtimeName)) {
          throw conflict(`Partition "${ref.name}" of runtime "${ref.runtimeName}" is already in environment "${envName}".`, 'name');
        }
        env.partitions.push(ref);
        env.updated = this.now();
        return ref;
      });
    });
  }

  partitionOf(envName: string, runtimeName: string, name: string): PartitionRef {
    const ref = this.environment(envName).partitions.find((p) => p.name === name && p.runtimeName === runtimeName);
    if (!ref) throw notFound(name);
    return ref;
  }

  removePartition(envName: string, runtimeName: string, name: string): Promise<void> {
    return this.change(async () => {
      const env = this.environment(envName);
      this.partitionOf(envName, runtimeName, name);
      if (env.associations.some((a) => (a.partition1Name === name && a.partition1RuntimeName === runtimeName) || (a.partition2Name === name && a.partition2RuntimeName === runtimeName))) {
        throw badRequest(`Partition "${name}" is associated with another partition of environment "${envName}"; dissociate them first.`);
      }
      env.partitions = env.partitions.filter((p) => !(p.name === name && p.runtimeName === runtimeName));
      env.updated = this.now();
    });
  }

  async associate(envName: string, body: Record<string, unknown>, user: string): Promise<void> {
    const first = this.environment(envName);
    const a = this.normalise(this.association(body));
    this.checkAssociation(first, a);
    const commit = () =>
      this.change(async () => {
        const env = this.environment(envName);
        this.checkAssociation(env, a);
        env.associations.push(a);
        env.updated = this.now();
      });
    if (!this.pointsDataSource(a)) return commit();
    return this.locks.run([runtimeLock(a.partition1RuntimeName), runtimeLock(a.partition2RuntimeName)], async () => {
      this.checkAssociation(this.environment(envName), a);
      await this.pointDataSource(a, user);
      await commit();
    });
  }

  dissociate(envName: string, body: Record<string, unknown>): Promise<void> {
    return this.change(async () => {
      const env = this.environment(envName);
      const a = this.normalise(this.association(body));
      const i = env.associations.findIndex((x) => sameAssociation(x, a));
      if (i < 0) throw badRequest(`Partitions "${a.partition1Name}" and "${a.partition2Name}" are not associated in environment "${envName}".`);
      env.associations.splice(i, 1);
      env.updated = this.now();
    });
  }

  private association(body: Record<string, unknown>): Association {
    return {
      partition1Name: str(body, 'partition1Name', true)!,
      partition1RuntimeName: str(body, 'partition1RuntimeName', true)!,
      partition2Name: str(body, 'partition2Name', true)!,
      partition2RuntimeName: str(body, 'partition2RuntimeName', true)!,
      properties: this.seal(parseProperties(body.properties, 'properties')),
    };
  }

  /** A database or traffic-director partition always stands second. */
  private normalise(a: Association): Association {
    const first = this.data.runtimes.find((r) => r.name === a.partition1RuntimeName);
    if (first && first.type !== 'wls') {
      return { ...a, partition1Name: a.partition2Name, partition1RuntimeName: a.partition2RuntimeName, partition2Name: a.partition1Name, partition2RuntimeName: a.partition1RuntimeName };
    }
    return a;
  }

  /** Both partitions in the environment, not yet associated, on runtimes that exist. */
  private checkAssociation(env: Environment, a: Association): void {
    for (const [name, runtimeName] of [[a.partition1Name, a.partition1RuntimeName], [a.partition2Name, a.partition2RuntimeName]] as const) {
      if (!env.partitions.some((p) => p.name === name && p.runtimeName === runtimeName)) {
        throw badRequest(`Partition "${name}" of runtime "${runtimeName}" is not in environment "${env.name}"; add it before associating it.`);
      }
    }
    if (env.associations.some((x) => sameAssociation(x, a))) throw conflict(`Partitions "${a.partition1Name}" and "${a.partition2Name}" are already associated.`);
    this.runtime(a.partition1RuntimeName);
    this.runtime(a.partition2RuntimeName);
  }

  /** Associating an application partition with a database, naming a data source: it is to point at the PDB. */
  private pointsDataSource(a: Association): boolean {
    const dataSource = propertyValue(a.properties, 'jdbcSystemResource');
    const override = propertyValue(a.properties, 'jdbcSystemResourceOverride');
    return this.runtime(a.partition2RuntimeName).type === 'database' && Boolean(dataSource || override);
  }

  /** Points the data source an association names at its PDB (a call to the application partition's runtime). */
  private async pointDataSource(a: Association, user: string): Promise<void> {
    const rt1 = this.snapshot(a.partition1RuntimeName);
    const rt2 = this.runtime(a.partition2RuntimeName);
    const dataSource = propertyValue(a.properties, 'jdbcSystemResource');
    const override = propertyValue(a.properties, 'jdbcSystemResourceOverride');
    const driver = this.driver(rt1);
    if (!driver.pointDataSource) throw badRequest(`Runtime '${rt1.name}' cannot point its data sources at a database.`);
    const url = `jdbc:postgresql://${urlHost(rt2.hostName)}:${rt2.port}/${encodeURIComponent(a.partition2Name)}`;
    await driver.pointDataSource(rt1, a.partition1Name, (override ?? dataSource)!, url, override !== undefined, user);
  }

  /** Without an orchestration: dissociates everything. With one: also removes what it provisioned, and the environment. */
  async deprovision(envName: string, body: Record<string, unknown>, user: string): Promise<void> {
    const first = this.environment(envName);
    if (body.orchestration === undefined || body.orchestration === null) {
      return this.change(async () => {
        const env = this.environment(envName);
        env.associations = [];
        env.updated = this.now();
      });
    }
    const orchestration = body.orchestration as Record<string, unknown>;
    if (typeof orchestration !== 'object' || typeof orchestration.name !== 'string') throw invalid([{ path: 'orchestration', detail: "An orchestration needs a 'name'." }]);
    return this.locks.run([environmentLock(envName), ...first.provisioned.map((ref) => runtimeLock(ref.runtimeName))], async () => {
      const env = this.environment(envName);
      for (const ref of env.provisioned) {
        const other = this.data.environments.find((e) => e !== env && e.partitions.some((p) => p.name === ref.name && p.runtimeName === ref.runtimeName));
        if (other) throw badRequest(`Partition "${ref.name}" of runtime "${ref.runtimeName}" is also used by environment "${other.name}"; remove it from there first. Nothing was changed.`);
        if (!first.provisioned.some((p) => p.name === ref.name && p.runtimeName === ref.runtimeName)) {
          throw badRequest(`Environment "${envName}" changed while it was being deprovisioned; try again. Nothing was changed.`);
        }
      }
      const gone: PartitionRef[] = [];
      try {
        for (const ref of [...env.provisioned]) {
          const found = this.data.runtimes.find((r) => r.name === ref.runtimeName);
          if (!found) continue;
          const rt = structuredClone(found);
          if ((await this.driver(rt).partitions(rt)).some((p) => p.name === ref.name)) await this.removeRuntimePartition(rt, ref.name, user);
          gone.push(ref);
        }
      } catch (err) {
        // What was removed before the failure leaves the environment too.
        await this.change(async () => {
          const now = this.data.environments.find((e) => e.name === envName);
          if (now) forget(now, gone);
        });
        throw err;
      }
      await this.change(async () => {
        this.data.environments = this.data.environments.filter((e) => e.name !== envName);
        for (const tenant of this.data.tenants) for (const s of tenant.services) if (s.environmentRef === envName) s.environmentRef = null;
      });
    });
  }

  /** Checks an orchestration and lists its tiers, before anything is made. */
  private plan(raw: unknown): { name: string; steps: { tier: string; props: Property[]; partitionName: string; runtimeName: string }[] } {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalid([{ path: 'orchestration', detail: 'The orchestration must be an object {name, args}.' }]);
    const o = raw as Record<string, unknown>;
    if (typeof o.name !== 'string' || o.name === '') throw invalid([{ path: 'orchestration', detail: "The orchestration needs a 'name'." }]);
    const tiers = parseProperties(o.args, 'orchestration.args');
    if (tiers.length === 0) throw invalid([{ path: 'orchestration', detail: "The orchestration needs 'args': one entry per tier, such as {name: 'wls', properties: [...]}." }]);
    const steps = tiers.map((tier) => {
      const props = tier.properties ?? [];
      const partitionName = propertyValue(props, 'partitionName');
      const runtimeName = propertyValue(props, 'runtimeName');
      if (!partitionName || !runtimeName) throw invalid([{ path: 'orchestration.args', detail: `Tier '${tier.name}' needs 'partitionName' and 'runtimeName'.` }]);
      const problem = nameProblem(partitionName);
      if (problem) throw invalid([{ path: 'orchestration.args', detail: `The partitionName of tier '${tier.name}' ${problem}.` }]);
      if (!this.data.runtimes.some((r) => r.name === runtimeName)) throw badRequest(`Unable to find Runtime with name "${runtimeName}" in LCM Configuration.`, 'runtimeName');
      return { tier: tier.name, props, partitionName, runtimeName };
    });
    return { name: o.name, steps };
  }

  /**
   * Runs a provisioning orchestration: one tier per argument (`wls`, `db`, `otd`...), each naming the
   * partition to make on a runtime; then the environment holds them and tiers that say
   * `associateWith` are associated. A failing step undoes the partitions already made. Returns what
   * it made, for the caller to undo if the environment cannot be saved.
   */
  private async orchestrate(env: Environment, plan: ReturnType<LifecycleService['plan']>, user: string): Promise<{ rt: Runtime; ref: PartitionRef }[]> {
    const made: { rt: Runtime; ref: PartitionRef }[] = [];
    try {
      for (const step of plan.steps) {
        const found = this.data.runtimes.find((r) => r.name === step.runtimeName);
        if (!found) throw badRequest(`Unable to find Runtime with name "${step.runtimeName}" in LCM Configuration.`, 'runtimeName');
        const rt = structuredClone(found);
        const exists = (await this.driver(rt).partitions(rt)).some((p) => p.name === step.partitionName);
        if (exists) throw conflict(`Partition "${step.partitionName}" already exists on runtime "${rt.name}".`, 'partitionName');
        const properties = [...(nested(step.props, 'partitionProperties') ?? []), ...step.props.filter((p) => ['resourceGroups', 'targets', 'availableTargets', 'component'].includes(p.name))];
        await this.makePartition(rt, step.partitionName, undefined, properties, user);
        const ref = { name: step.partitionName, runtimeName: rt.name };
        made.push({ rt, ref });
        env.partitions.push(ref);
        env.provisioned.push(ref);
      }
      for (const step of plan.steps) {
        const withTier = propertyValue(step.props, 'associateWith');
        if (!withTier) continue;
        const other = plan.steps.find((p) => p.tier === withTier);
        if (!other || other === step) throw invalid([{ path: 'associateWith', detail: `Tier '${step.tier}' is to be associated with '${withTier}', which is not another tier of this orchestration.` }]);
        const a = this.normalise({
          partition1Name: step.partitionName,
          partition1RuntimeName: step.runtimeName,
          partition2Name: other.partitionName,
          partition2RuntimeName: other.runtimeName,
          properties: nested(step.props, 'associateProperties') ?? [],
        });
        this.checkAssociation(env, a);
        if (this.pointsDataSource(a)) await this.pointDataSource(a, user);
        env.associations.push(a);
        env.updated = this.now();
      }
      return made;
    } catch (err) {
      await this.undo(made, user);
      throw err instanceof Problem ? err : badRequest(`The orchestration '${plan.name}' failed and was rolled back: ${(err as Error).message}`);
    }
  }

  /** Removes the partitions an orchestration made, last first; failures are left as they are. */
  private async undo(made: { rt: Runtime; ref: PartitionRef }[], user: string): Promise<void> {
    for (const { rt, ref } of [...made].reverse()) await this.removeRuntimePartition(rt, ref.name, user).catch(() => undefined);
  }

  // ---- tenants, services, PDBs ----

  tenants(): Tenant[] {
    return this.data.tenants;
  }

  tenant(name: string): Tenant {
    const t = this.data.tenants.find((x) => x.name === name);
    if (!t) throw notFound(name);
    return t;
  }

  createTenant(body: Record<string, unknown>): Promise<Tenant> {
    return this.change(async () => {
      const name = requireName(body, 'tenant');
      if (this.data.tenants.some((t) => t.name === name)) throw conflict(`Tenant "${name}" already exists.`, 'name');
      const t = this.now();
      const tenant: Tenant = { name, id: str(body, 'id', false) ?? randomUUID(), topLevelDir: str(body, 'topLevelDir', false) ?? null, services: [], created: t, updated: t };
      this.data.tenants.push(tenant);
      return tenant;
    });
  }

  updateTenant(name: string, body: Record<string, unknown>): Promise<void> {
    return this.change(async () => {
      const tenant = this.tenant(name);
      if (body.topLevelDir !== undefined) tenant.topLevelDir = str(body, 'topLevelDir', false) ?? null;
      tenant.updated = this.now();
    });
  }

  deleteTenant(name: string): Promise<void> {
    return this.change(async () => {
      const tenant = this.tenant(name);
      if (tenant.services.some((s) => s.pdb)) throw badRequest(`Tenant "${name}" has services with PDBs; remove the PDBs first.`);
      this.data.tenants = this.data.tenants.filter((t) => t !== tenant);
    });
  }

  service(tenantName: string, name: string): Service {
    const s = this.tenant(tenantName).services.find((x) => x.name === name);
    if (!s) throw notFound(name);
    return s;
  }

  createService(tenantName: string, body: Record<string, unknown>): Promise<Service> {
    return this.change(async () => {
      const tenant = this.tenant(tenantName);
      const name = requireName(body, 'service');
      if (tenant.services.some((s) => s.name === name)) throw conflict(`Service "${name}" already exists in tenant "${tenantName}".`, 'name');
      const environmentRef = str(body, 'environmentRef', false) ?? null;
      if (environmentRef) this.environmentRef(environmentRef);
      const t = this.now();
      const service: Service = {
        name,
        id: str(body, 'id', false) ?? randomUUID(),
        serviceType: str(body, 'serviceType', false) ?? 'JaaS',
        environmentRef,
        identityDomain: str(body, 'identityDomain', false) ?? null,
        topLevelDir: str(body, 'topLevelDir', false) ?? null,
        twoTask: str(body, 'twoTask', false) ?? null,
        pdb: null,
        created: t,
        updated: t,
      };
      tenant.services.push(service);
      return service;
    });
  }

  private environmentRef(name: string): Environment {
    const env = this.data.environments.find((e) => e.name === name);
    if (!env) throw badRequest(`Unable to find Environment with name "${name}" in LCM Configuration.`, 'environmentRef');
    return env;
  }

  updateService(tenantName: string, name: string, body: Record<string, unknown>): Promise<void> {
    return this.change(async () => {
      const s = this.service(tenantName, name);
      for (const key of ['topLevelDir', 'identityDomain', 'twoTask', 'serviceType'] as const) {
        if (body[key] !== undefined) (s as unknown as Record<string, unknown>)[key] = str(body, key, false) ?? null;
      }
      if (body.environmentRef !== undefined) {
        const ref = str(body, 'environmentRef', false) ?? null;
        if (ref) this.environmentRef(ref);
        s.environmentRef = ref;
      }
      s.updated = this.now();
    });
  }

  deleteService(tenantName: string, name: string, user: string): Promise<void> {
    return this.change(async () => {
      const tenant = this.tenant(tenantName);
      const s = this.service(tenantName, name);
      if (s.pdb) await this.removePdb(s, user);
      tenant.services = tenant.services.filter((x) => x !== s);
    });
  }

  /** The database runtime that holds a service's PDB: its environment's, else the only one registered. */
  private databaseFor(s: Service): Runtime | undefined {
    const env = s.environmentRef ? this.data.environments.find((e) => e.name === s.environmentRef) : undefined;
    const inEnv = env?.partitions.map((p) => this.data.runtimes.find((r) => r.name === p.runtimeName)).find((r) => r?.type === 'database');
    if (inEnv) return inEnv;
    const all = this.data.runtimes.filter((r) => r.type === 'database');
    return all.length === 1 ? all[0] : undefined;
  }

  createPdb(tenantName: string, serviceName: string, body: Record<string, unknown>, user: string): Promise<Pdb> {
    return this.change(async () => {
      const s = this.service(tenantName, serviceName);
      if (s.pdb) throw conflict(`Service "${serviceName}" already has a PDB ("${s.pdb.name}"); delete it first.`);
      const pdb: Pdb = { name: requireName(body, 'PDB'), id: str(body, 'id', false) ?? randomUUID(), status: str(body, 'status', false) ?? 'ACTIVE' };
      const db = this.databaseFor(s);
      if (db) await this.driver(db).createPartition(db, pdb.name, undefined, [{ name: 'pdbId', value: pdb.id }, { name: 'status', value: pdb.status }], user);
      s.pdb = pdb;
      s.updated = this.now();
      return pdb;
    });
  }

  deletePdb(tenantName: string, serviceName: string, user: string): Promise<void> {
    return this.change(async () => {
      const s = this.service(tenantName, serviceName);
      if (!s.pdb) throw notFound('PDB');
      await this.removePdb(s, user);
    });
  }

  private async removePdb(s: Service, user: string): Promise<void> {
    const db = this.databaseFor(s);
    if (db && s.pdb) {
      const env = this.environmentUsing({ name: s.pdb.name, runtimeName: db.name });
      if (env) throw badRequest(`PDB "${s.pdb.name}" cannot be deleted as it is referenced by Environment "${env.name}"; remove it from the environment first.`);
    }
    if (db && s.pdb && (await this.driver(db).partitions(db)).some((p) => p.name === s.pdb!.name)) {
      await this.driver(db).deletePartition(db, s.pdb.name, user);
    }
    s.pdb = null;
    s.updated = this.now();
  }

  plugins() {
    return this.data.plugins;
  }
}

function sameAssociation(a: Association, b: Association): boolean {
  return (
    a.partition1Name === b.partition1Name &&
    a.partition1RuntimeName === b.partition1RuntimeName &&
    a.partition2Name === b.partition2Name &&
    a.partition2RuntimeName === b.partition2RuntimeName
  );
}

/** Takes partitions out of an environment: from its partitions, what it provisioned, and its associations. */
function forget(env: Environment, refs: PartitionRef[]): void {
  const gone = (name: string, runtimeName: string) => refs.some((r) => r.name === name && r.runtimeName === runtimeName);
  env.partitions = env.partitions.filter((p) => !gone(p.name, p.runtimeName));
  env.provisioned = env.provisioned.filter((p) => !gone(p.name, p.runtimeName));
  env.associations = env.associations.filter((a) => !gone(a.partition1Name, a.partition1RuntimeName) && !gone(a.partition2Name, a.partition2RuntimeName));
}
