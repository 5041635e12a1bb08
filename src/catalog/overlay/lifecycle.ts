// The Lifecycle Manager's resources as bean types: the tree under /management/lifecycle/{version}.
// Its records live in the Lifecycle Manager (src/lifecycle/), which shows them as beans of these
// types; the one resolver and renderer serve them like any other tree.
import type { CatalogProperty, CatalogType } from '../format.js';
import type { OverlayOperation } from '../overlay-format.js';

const NS = 'appserver.management.rest.lifecycle';
export const LIFECYCLE_ROOT = `${NS}.Version`;
export const LIFECYCLE_ENVIRONMENT = `${NS}.Environment`;
export const LIFECYCLE_ENVIRONMENT_PARTITION = `${NS}.EnvironmentPartition`;
export const LIFECYCLE_RUNTIME = `${NS}.Runtime`;
export const LIFECYCLE_RUNTIME_PARTITION = `${NS}.RuntimePartition`;
export const LIFECYCLE_TENANT = `${NS}.Tenant`;
export const LIFECYCLE_SERVICE = `${NS}.Service`;
export const LIFECYCLE_PDB = `${NS}.PDB`;
export const LIFECYCLE_PLUGIN = `${NS}.Plugin`;

const STRING = 'java.lang.String';
/** Settings ({name, value | values | confidentialValue | properties}), shown with secrets as null. */
const SETTINGS: CatalogProperty = { n: 'properties', t: 'java.lang.Object', a: 1, w: 1 };

/** A child collection whose items may be created (`<singular>CreateForm` is its form). */
const creatable = (n: string, t: string, more: Partial<CatalogProperty> = {}): CatalogProperty => ({ n, t, rel: 'c', a: 1, cr: [t], ...more });

const type = (s: string, p: CatalogProperty[]): CatalogType => ({ s, kind: 'rest', links: 'lifecycle', p });

export const lifecycleTypes: Record<string, CatalogType> = {
  [LIFECYCLE_ROOT]: type('Version', [
    { n: 'version', t: STRING },
    { n: 'isLatest', t: 'boolean' },
    { n: 'lifecycle', t: STRING },
    creatable('environments', LIFECYCLE_ENVIRONMENT),
    creatable('runtimes', LIFECYCLE_RUNTIME),
    creatable('tenants', LIFECYCLE_TENANT),
    { n: 'plugins', t: LIFECYCLE_PLUGIN, rel: 'c', a: 1 },
  ]),
  [LIFECYCLE_ENVIRONMENT]: type('Environment', [
    { n: 'name', t: STRING, k: 1, w: 1 },
    // Associations are shown on the environment itself, not in the list of environments.
    { n: 'associations', t: 'java.lang.Object', a: 1, detail: 1 },
    // An environment's partition is addressed by its runtime and name, since two runtimes may
    // each have a partition of that name.
    creatable('partitions', LIFECYCLE_ENVIRONMENT_PARTITION, { at: ['runtimes', '*', 'partitions', '*'] }),
  ]),
  [LIFECYCLE_ENVIRONMENT_PARTITION]: type('EnvironmentPartition', [
    { n: 'runtimeName', t: STRING, w: 1 },
    { n: 'name', t: STRING, k: 1, w: 1 },
    // The partition on its runtime.
    { n: 'runtimePartition', t: LIFECYCLE_RUNTIME_PARTITION, rel: 'r', link: 1 },
  ]),
  [LIFECYCLE_RUNTIME]: type('Runtime', [
    { n: 'name', t: STRING, k: 1, w: 1 },
    { n: 'type', t: STRING, w: 1, d: 'wls', lv: ['wls', 'database', 'otd'] },
    { n: 'hostName', t: STRING, w: 1 },
    { n: 'port', t: 'int', w: 1, d: 7001 },
    { n: 'protocol', t: STRING, w: 1, d: 'http' },
    SETTINGS,
    creatable('partitions', LIFECYCLE_RUNTIME_PARTITION),
  ]),
  [LIFECYCLE_RUNTIME_PARTITION]: type('RuntimePartition', [
    { n: 'name', t: STRING, k: 1, w: 1 },
    { n: 'id', t: STRING, w: 1 },
    { n: 'runtimeName', t: STRING },
    SETTINGS,
    // The environment that holds the partition, if one does.
    { n: 'environment', t: LIFECYCLE_ENVIRONMENT, rel: 'r', link: 1 },
  ]),
  [LIFECYCLE_TENANT]: type('Tenant', [
    { n: 'name', t: STRING, k: 1, w: 1 },
    { n: 'id', t: STRING, w: 1 },
    { n: 'topLevelDir', t: STRING, w: 1 },
    creatable('services', LIFECYCLE_SERVICE),
  ]),
  [LIFECYCLE_SERVICE]: type('Service', [
    { n: 'name', t: STRING, k: 1, w: 1 },
    { n: 'id', t: STRING, w: 1 },
    { n: 'serviceType', t: STRING, w: 1 },
    { n: 'environmentRef', t: STRING, w: 1 },
    { n: 'identityDomain', t: STRING, w: 1 },
    { n: 'topLevelDir', t: STRING, w: 1 },
    { n: 'twoTask', t: STRING, w: 1 },
    // The service's database attachment: one, made by a POST to it.
    { n: 'PDB', t: LIFECYCLE_PDB, rel: 'c', cr: [LIFECYCLE_PDB] },
    // The environment `environmentRef` names.
    { n: 'environment', t: LIFECYCLE_ENVIRONMENT, rel: 'r', link: 1 },
  ]),
  [LIFECYCLE_PDB]: type('PDB', [
    { n: 'status', t: STRING, w: 1, d: 'ACTIVE' },
    { n: 'name', t: STRING, k: 1, w: 1 },
    { n: 'id', t: STRING, w: 1 },
  ]),
  [LIFECYCLE_PLUGIN]: type('Plugin', [
    { n: 'name', t: STRING, k: 1 },
    { n: 'type', t: STRING },
    { n: 'path', t: STRING },
  ]),
};

const partitionPair = ['partition1Name', 'partition1RuntimeName', 'partition2Name', 'partition2RuntimeName'].map((name) => ({ name, type: STRING }));
const settings = { name: 'properties', type: 'java.lang.Object', array: true };
/** Associating or dissociating two partitions of the environment, with or without settings. */
const pairAction = (name: string): OverlayOperation => ({
  name,
  overloads: [
    { params: partitionPair, returns: 'void' },
    { params: [...partitionPair, settings], returns: 'void' },
  ],
  impact: 'action',
});

export const lifecycleOperations: Record<string, OverlayOperation[]> = {
  [LIFECYCLE_ENVIRONMENT]: [
    pairAction('associatePartitions'),
    pairAction('dissociatePartitions'),
    // Without an orchestration: the associations go; with one, also what it provisioned.
    {
      name: 'deprovision',
      overloads: [
        { params: [], returns: 'void' },
        { params: [{ name: 'orchestration', type: 'java.lang.Object' }], returns: 'void' },
      ],
      impact: 'action',
    },
  ],
};
