// What the REST layer adds on top of the bean types: resources that are not beans
// (the change manager; its operations are in src/operations/change-manager.ts), federated children,
// and the job fields of task beans.
import type { CatalogProperty, CatalogType } from '../format.js';
import type { TypeOverlay } from '../overlay-format.js';

export const CHANGE_MANAGER = 'appserver.management.rest.ChangeManager';
export const ACTIVATION = 'appserver.management.rest.Activation';
export const AUDIT_RECORD = 'appserver.management.rest.AuditRecord';
const TASK = 'appserver.management.runtime.TaskRuntimeMBean';

// Fields every asynchronous job carries so that clients can poll it.
const jobFields: CatalogProperty[] = [
  { n: 'startTime', t: 'java.util.Date' },
  { n: 'endTime', t: 'java.util.Date' },
  { n: 'completed', t: 'boolean' },
  { n: 'progress', t: 'java.lang.String', lv: ['success', 'failed', 'processing', 'pending'] },
  { n: 'intervalToPoll', t: 'long', d: 1000 },
];

export const restOnlyTypes: Record<string, CatalogType> = {
  [CHANGE_MANAGER]: {
    s: 'ChangeManager',
    kind: 'rest',
    roles: ['Deployer'],
    p: [
      { n: 'locked', t: 'boolean' },
      { n: 'lockOwner', t: 'java.lang.String' },
      { n: 'hasChanges', t: 'boolean' },
      { n: 'mergeNeeded', t: 'boolean' },
      { n: 'editSession', t: 'java.lang.String', d: 'default' },
      // The session's unactivated changes as activating now would record them (see Activation.changes).
      { n: 'pendingChanges', t: 'java.lang.Object', a: 1 },
      // The record of past activations (who, when, what changed), newest first.
      { n: 'activations', t: ACTIVATION, rel: 'c', a: 1 },
    ],
  },
  [ACTIVATION]: {
    s: 'Activation',
    kind: 'rest',
    p: [
      { n: 'name', t: 'java.lang.String', k: 1 },
      { n: 'version', t: 'long' },
      { n: 'editSession', t: 'java.lang.String' },
      { n: 'user', t: 'java.lang.String' },
      { n: 'startTime', t: 'java.util.Date' },
      { n: 'endTime', t: 'java.util.Date' },
      { n: 'restartRequired', t: 'boolean' },
      { n: 'changes', t: 'java.lang.Object', a: 1 },
    ],
  },
  // One entry of the audit trail (domainRuntime/auditRecords), newest first; administrators only.
  [AUDIT_RECORD]: {
    s: 'AuditRecord',
    kind: 'rest',
    p: [
      { n: 'name', t: 'java.lang.String', k: 1 },
      { n: 'time', t: 'java.util.Date' },
      { n: 'user', t: 'java.lang.String' },
      { n: 'address', t: 'java.lang.String' },
      { n: 'action', t: 'java.lang.String' },
      { n: 'bean', t: 'java.lang.String' },
      { n: 'outcome', t: 'java.lang.String' },
      { n: 'detail', t: 'java.lang.String' },
      // Identical requests within a minute fold into one record: how many, and when the last came.
      { n: 'count', t: 'long' },
      { n: 'lastTime', t: 'java.util.Date' },
    ],
  },
};

export const restOnlyPatches: Record<string, TypeOverlay> = {
  'appserver.management.configuration.DomainMBean': {
    properties: [{ n: 'changeManager', t: CHANGE_MANAGER, rel: 'c', only: 'edit' }],
  },
  'appserver.management.runtime.DomainRuntimeMBean': {
    // The running servers' own runtime trees, federated under the domain runtime; the audit trail.
    properties: [
      { n: 'serverRuntimes', t: 'appserver.management.runtime.ServerRuntimeMBean', rel: 'c', a: 1 },
      { n: 'auditRecords', t: AUDIT_RECORD, rel: 'c', a: 1, admin: 1 },
    ],
  },
  [TASK]: { properties: jobFields },
  'appserver.management.runtime.DeploymentProgressObjectMBean': { properties: jobFields },
  // A system resource's `resource`: a reference to its descriptor (the child holding its module).
  ...Object.fromEntries(
    [
      ['JDBCSystemResourceMBean', 'appserver.j2ee.descriptor.wl.JDBCDataSourceBean'],
      ['JMSSystemResourceMBean', 'appserver.j2ee.descriptor.wl.JMSBean'],
      ['JMSInteropModuleMBean', 'appserver.j2ee.descriptor.wl.JMSBean'],
      ['WLDFSystemResourceMBean', 'appserver.diagnostics.descriptor.WLDFResourceBean'],
      ['CoherenceClusterSystemResourceMBean', 'appserver.coherence.descriptor.wl.AppserverCoherenceBean'],
    ].map(([type, descriptor]) => [`appserver.management.configuration.${type}`, { properties: [{ n: 'resource', t: descriptor!, rel: 'r' as const }] }]),
  ),
  // Security providers are the catalog's polymorphic beans whose type data has no `type`: the REST
  // layer shows their concrete type (the implementation's class name), as it takes it on creation.
  'appserver.management.security.ProviderMBean': {
    properties: [{ n: 'type', t: 'java.lang.String' }],
  },
  'appserver.management.runtime.JVMRuntimeMBean': {
    properties: [{ n: 'processCpuLoad', t: 'double' }],
  },
};
