// The Lifecycle Manager's records: runtimes and their partitions, environments with their
// partitions and associations, tenants with their services and PDBs, plugins.

/** A named setting: a value, a list of values, a secret, or nested settings. */
export interface Property {
  name: string;
  value?: string;
  values?: string[];
  /** Stored sealed; never shown. */
  confidentialValue?: string | { $sealed: string };
  properties?: Property[];
}

export type RuntimeType = 'wls' | 'otd' | 'database';

export interface RuntimePartition {
  name: string;
  id: string;
  type?: string;
  properties: Property[];
}

export interface Runtime {
  name: string;
  type: RuntimeType;
  hostName: string;
  port: number;
  protocol: string;
  properties: Property[];
  /** This domain itself: its partitions are the configuration's partitions. */
  local?: boolean;
  /** Partitions of runtimes that are not this domain (PDBs of a database, partitions of a remote domain). */
  partitions: RuntimePartition[];
  created: number;
  updated: number;
}

export interface PartitionRef {
  name: string;
  runtimeName: string;
}

export interface Association {
  partition1Name: string;
  partition1RuntimeName: string;
  partition2Name: string;
  partition2RuntimeName: string;
  properties: Property[];
}

export interface Environment {
  name: string;
  partitions: PartitionRef[];
  associations: Association[];
  /** Partitions an orchestration created, which deprovisioning removes again. */
  provisioned: PartitionRef[];
  created: number;
  updated: number;
}

export interface Pdb {
  name: string;
  id: string;
  status: string;
}

export interface Service {
  name: string;
  id: string;
  serviceType: string;
  environmentRef: string | null;
  identityDomain: string | null;
  topLevelDir: string | null;
  twoTask: string | null;
  pdb: Pdb | null;
  created: number;
  updated: number;
}

export interface Tenant {
  name: string;
  id: string;
  topLevelDir: string | null;
  services: Service[];
  created: number;
  updated: number;
}

export interface Plugin {
  name: string;
  type: string;
  path: string;
}

export interface LifecycleData {
  runtimes: Runtime[];
  environments: Environment[];
  tenants: Tenant[];
  plugins: Plugin[];
}

export const LIFECYCLE_STATE_KEY = 'lifecycle';

/** The plugins this server carries: one per kind of runtime it can drive. */
export const BUILT_IN_PLUGINS: Plugin[] = [
  { name: 'appserver-runtime', type: 'wls', path: 'built-in' },
  { name: 'database-runtime', type: 'database', path: 'built-in' },
  { name: 'traffic-director-runtime', type: 'otd', path: 'built-in' },
];

export function emptyLifecycle(): LifecycleData {
  return { runtimes: [], environments: [], tenants: [], plugins: [...BUILT_IN_PLUGINS] };
}

/** The first value of a named property (value, or first of values). */
export function propertyValue(props: Property[] | undefined, name: string): string | undefined {
  const p = props?.find((x) => x.name === name);
  return p?.value ?? p?.values?.[0];
}

export function propertyValues(props: Property[] | undefined, name: string): string[] | undefined {
  const p = props?.find((x) => x.name === name);
  if (!p) return undefined;
  return p.values ?? (p.value !== undefined ? p.value.split(',').map((s) => s.trim()).filter((s) => s !== '') : []);
}

export function nested(props: Property[] | undefined, name: string): Property[] | undefined {
  return props?.find((x) => x.name === name)?.properties;
}
