// The Lifecycle Manager's records seen as a bean tree (the types of catalog/overlay/lifecycle.ts),
// for the one resolver and renderer. Keys are the resources' paths below the version:
// `environments/env1/runtimes/db1/partitions/pdb1`, `tenants/t1/services/s1/PDB`, ...
// Secrets never reach a bean: a confidential value is shown as null.
import {
  LIFECYCLE_ENVIRONMENT,
  LIFECYCLE_ENVIRONMENT_PARTITION,
  LIFECYCLE_PDB,
  LIFECYCLE_PLUGIN,
  LIFECYCLE_ROOT,
  LIFECYCLE_RUNTIME,
  LIFECYCLE_RUNTIME_PARTITION,
  LIFECYCLE_SERVICE,
  LIFECYCLE_TENANT,
} from '../catalog/overlay/lifecycle.js';
import { LIFECYCLE_VERSION } from '../catalog/versions.js';
import { identityOfKey, keyOfIdentity } from '../core/identity.js';
import type { BeanRecord, TreeSource } from '../tree/records.js';
import type { Association, Environment, LifecycleData, Property, Runtime, RuntimePartition, Service, Tenant } from './model.js';

/** Properties as shown: secrets are never echoed, at any depth. */
export function shownProperties(props: Property[]): Property[] {
  return props.map((p) => {
    const { confidentialValue, properties, ...rest } = p;
    return { ...rest, ...(confidentialValue !== undefined ? { confidentialValue: null } : {}), ...(properties ? { properties: shownProperties(properties) } : {}) } as Property;
  });
}

/**
 * The runtime whose partitions a request for `segments` below the version needs, if any: reading
 * its partitions, or anything addressed to one of them. Creating one needs no list.
 */
export function partitionsNeeded(segments: readonly string[], reading: boolean): string | undefined {
  const [top, runtime, collection] = segments;
  if (top !== 'runtimes' || runtime === undefined || collection !== 'partitions') return undefined;
  return segments.length > 3 || reading ? runtime : undefined;
}

export class LifecycleBeans implements TreeSource {
  /**
   * `records` are read as they are at each lookup; `partitions` holds the partitions fetched for
   * this request, by runtime name: a runtime not in it shows none.
   */
  constructor(
    private readonly records: () => LifecycleData,
    private readonly partitions: ReadonlyMap<string, readonly RuntimePartition[]>,
  ) {}

  bean(key: string): BeanRecord | undefined {
    const s = identityOfKey(key);
    const data = this.records();
    if (s.length === 0) return { type: LIFECYCLE_ROOT, values: { version: LIFECYCLE_VERSION, isLatest: true, lifecycle: 'active' } };
    if (is(s, 'environments', '*')) {
      const env = data.environments.find((e) => e.name === s[1]);
      return env && environmentBean(env);
    }
    if (is(s, 'environments', '*', 'runtimes', '*', 'partitions', '*')) {
      const [, envName, , runtimeName, , name] = s as [string, string, string, string, string, string];
      const env = data.environments.find((e) => e.name === envName);
      if (!env?.partitions.some((p) => p.runtimeName === runtimeName && p.name === name)) return undefined;
      return { type: LIFECYCLE_ENVIRONMENT_PARTITION, values: { runtimeName, name, runtimePartition: ['runtimes', runtimeName, 'partitions', name] } };
    }
    if (is(s, 'runtimes', '*')) {
      const rt = data.runtimes.find((r) => r.name === s[1]);
      return rt && runtimeBean(rt);
    }
    if (is(s, 'runtimes', '*', 'partitions', '*')) {
      const p = this.partitions.get(s[1]!)?.find((x) => x.name === s[3]);
      return p && runtimePartitionBean(s[1]!, p, data.environments);
    }
    if (is(s, 'tenants', '*')) {
      const t = data.tenants.find((x) => x.name === s[1]);
      return t && tenantBean(t);
    }
    if (is(s, 'tenants', '*', 'services', '*') || is(s, 'tenants', '*', 'services', '*', 'PDB')) {
      const service = data.tenants.find((x) => x.name === s[1])?.services.find((x) => x.name === s[3]);
      if (!service || s.length === 4) return service && serviceBean(service);
      if (!service.pdb) return undefined;
      const { status, name, id } = service.pdb;
      return { type: LIFECYCLE_PDB, values: { status, name, id } };
    }
    if (is(s, 'plugins', '*')) {
      const p = data.plugins.find((x) => x.name === s[1]);
      return p && { type: LIFECYCLE_PLUGIN, values: { ...p } };
    }
    return undefined;
  }

  itemNames(collectionKey: string): readonly string[] {
    const s = identityOfKey(collectionKey);
    const data = this.records();
    const names = (list: readonly { name: string }[]) => list.map((x) => x.name);
    if (is(s, 'environments')) return names(data.environments);
    if (is(s, 'environments', '*', 'partitions')) {
      // Named by runtime and partition: the collection's address is runtimes/*/partitions/*.
      const env = data.environments.find((e) => e.name === s[1]);
      return env ? env.partitions.map((p) => keyOfIdentity([p.runtimeName, p.name])) : [];
    }
    if (is(s, 'runtimes')) return names(data.runtimes);
    if (is(s, 'runtimes', '*', 'partitions')) return names(this.partitions.get(s[1]!) ?? []);
    if (is(s, 'tenants')) return names(data.tenants);
    if (is(s, 'tenants', '*', 'services')) return names(data.tenants.find((t) => t.name === s[1])?.services ?? []);
    if (is(s, 'plugins')) return names(data.plugins);
    return [];
  }
}

/** Whether an identity has this shape (`*`: any name). */
function is(identity: readonly string[], ...shape: string[]): boolean {
  return identity.length === shape.length && shape.every((seg, i) => seg === '*' || seg === identity[i]);
}

function environmentBean(env: Environment): BeanRecord {
  const associations = env.associations.map((a): Association => ({ ...a, properties: shownProperties(a.properties) }));
  return { type: LIFECYCLE_ENVIRONMENT, values: { name: env.name, associations } };
}

function runtimeBean(rt: Runtime): BeanRecord {
  const { name, type, hostName, port, protocol } = rt;
  return { type: LIFECYCLE_RUNTIME, values: { name, type, hostName, port, protocol, properties: shownProperties(rt.properties) } };
}

function runtimePartitionBean(runtimeName: string, p: RuntimePartition, environments: readonly Environment[]): BeanRecord {
  const env = environments.find((e) => e.partitions.some((x) => x.name === p.name && x.runtimeName === runtimeName));
  return {
    type: LIFECYCLE_RUNTIME_PARTITION,
    values: { name: p.name, id: p.id, runtimeName, properties: shownProperties(p.properties), ...(env ? { environment: ['environments', env.name] } : {}) },
  };
}

function tenantBean(t: Tenant): BeanRecord {
  return { type: LIFECYCLE_TENANT, values: { name: t.name, id: t.id, topLevelDir: t.topLevelDir } };
}

function serviceBean(s: Service): BeanRecord {
  const { pdb: _pdb, created: _c, updated: _u, ...fields } = s;
  return { type: LIFECYCLE_SERVICE, values: { ...fields, ...(s.environmentRef ? { environment: ['environments', s.environmentRef] } : {}) } };
}
