// Hand-written operations table: the MBean methods that the REST layer exposes as actions
// (`POST <bean URL>/<name>` with a JSON object of named arguments). The bean type data has none.
// Keys are mapped type names; an operation declared on a base type reaches every subtype.
// Source tags in the comments: spec = domain-admin-rest.md; ops X.n = reference/operations.md;
// rb §n = reference/rest-behavior.md; rc = remote-console-resources/<Type>/extension.yaml;
// api = the product's public MBean interface, used only where the references give no argument names
// (those choices are marked "chosen").
import type { OverlayOperation, OverlayOverload, OverlayParam, Role } from '../overlay-format.js';

// ---- vocabulary ---------------------------------------------------------------------------------

const RT = 'appserver.management.runtime.';
const CFG = 'appserver.management.configuration.';
const AUTHN = 'appserver.management.security.authentication.';

const STRING = 'java.lang.String';
const INT = 'int';
const LONG = 'long';
const BOOL = 'boolean';
const PROPS = 'java.util.Properties';
const VOID = 'void';

const SERVER_TASK = RT + 'ServerLifeCycleTaskRuntimeMBean';
const PARTITION_TASK = RT + 'PartitionLifeCycleTaskRuntimeMBean';
const RG_TASK = RT + 'ResourceGroupLifeCycleTaskRuntimeMBean';
const DEPLOY_TASK = RT + 'DeploymentProgressObjectMBean';
const JDBC_TASK = RT + 'JDBCDataSourceTaskRuntimeMBean';

const OPERATOR: Role[] = ['Operator'];
const DEPLOYER: Role[] = ['Deployer'];
const DEPLOYER_OPERATOR: Role[] = ['Deployer', 'Operator'];
const READERS: Role[] = ['Deployer', 'Operator', 'Monitor'];

function p(name: string, type: string, array = false): OverlayParam {
  return array ? { name, type, array: true } : { name, type };
}
const str = (name: string): OverlayParam => p(name, STRING);
const int = (name: string): OverlayParam => p(name, INT);
const bool = (name: string): OverlayParam => p(name, BOOL);
const targetNames = (): OverlayParam => p('targetNames', STRING, true);
const targetRefs = (): OverlayParam => p('targets', CFG + 'TargetMBean', true);
const stringTargets = (): OverlayParam => p('targets', STRING, true);
const options = (): OverlayParam => p('deploymentOptions', PROPS);

function ov(returns: string, ...params: OverlayParam[]): OverlayOverload {
  return { params, returns };
}
function ovArray(returns: string, ...params: OverlayParam[]): OverlayOverload {
  return { params, returns, returnsArray: true };
}
/** The argument set as given, then the same set plus `targetNames`, then plus `targets` (references). */
function targeted(returns: string, ...base: OverlayParam[]): OverlayOverload[] {
  return [ov(returns, ...base), ov(returns, ...base, targetNames()), ov(returns, ...base, targetRefs())];
}

function query(name: string, overloads: OverlayOverload[], roles: Role[] = READERS): OverlayOperation {
  return { name, overloads, impact: 'info', roles };
}
/** A pure read that only Admin may call (user and group data). */
function adminQuery(name: string, overloads: OverlayOverload[]): OverlayOperation {
  return { name, overloads, impact: 'info' };
}
function action(name: string, overloads: OverlayOverload[], roles?: Role[]): OverlayOperation {
  return roles ? { name, overloads, impact: 'action', roles } : { name, overloads, impact: 'action' };
}
/** Returns a task or progress object and honours `Prefer`. */
function task(name: string, overloads: OverlayOverload[], roles: Role[]): OverlayOperation {
  return { name, overloads, impact: 'action', async: true, roles };
}

// ---- shared shapes ------------------------------------------------------------------------------

// Partition and resource-group lifecycle (ops B.3, B.5): the graceful shutdown family.
function lifecycleShutdown(returns: string): OverlayOverload[] {
  return [
    ...targeted(returns),
    ...targeted(returns, int('timeout'), bool('ignoreSessions')),
    ...targeted(returns, int('timeout'), bool('ignoreSessions'), bool('waitForAllSessions')),
  ];
}
function lifecycleSuspend(returns: string): OverlayOverload[] {
  return [...targeted(returns), ...targeted(returns, int('timeout'), bool('ignoreSessions'))];
}

// Server-side resource-group helpers (spec serverRuntime and partitionRuntimes lists; ops B.1).
// Argument names: chosen (api), the group named by `resourceGroupName`.
function resourceGroupHelpers(): OverlayOperation[] {
  const rg = () => str('resourceGroupName');
  return [
    action('startResourceGroup', [ov(VOID, rg())], OPERATOR),
    action('startResourceGroupInAdmin', [ov(VOID, rg())], OPERATOR),
    action('suspendResourceGroup', [ov(VOID, rg()), ov(VOID, rg(), int('timeout'), bool('ignoreSessions'))], OPERATOR),
    action('forceSuspendResourceGroup', [ov(VOID, rg())], OPERATOR),
    action('resumeResourceGroup', [ov(VOID, rg())], OPERATOR),
    action(
      'shutdownResourceGroup',
      [
        ov(VOID, rg()),
        ov(VOID, rg(), int('timeout'), bool('ignoreSessions')),
        ov(VOID, rg(), int('timeout'), bool('ignoreSessions'), bool('waitForAllSessions')),
      ],
      OPERATOR,
    ),
    action('forceShutdownResourceGroup', [ov(VOID, rg())], OPERATOR),
    query('getRgState', [ov(STRING, rg())]),
  ];
}

// In-process lifecycle of a server or partition runtime: synchronous, returns nothing
// (ops C.4, rb §6 shutdown overloads; partition runtime mirrors it, spec).
function localLifecycle(): OverlayOperation[] {
  return [
    action('suspend', [ov(VOID), ov(VOID, int('timeout'), bool('ignoreSessions'))], OPERATOR),
    action('forceSuspend', [ov(VOID)], OPERATOR),
    action('resume', [ov(VOID)], OPERATOR),
    action(
      'shutdown',
      [
        ov(VOID),
        ov(VOID, int('timeout'), bool('ignoreSessions')),
        ov(VOID, int('timeout'), bool('ignoreSessions'), bool('waitForAllSessions')),
      ],
      OPERATOR,
    ),
    action('forceShutdown', [ov(VOID)], OPERATOR),
  ];
}

// Connector suspend/resume family; `type` is the activity bit mask, `props` optional (ops F.1, F.2).
function connectorSuspendable(): OverlayOperation[] {
  const props = () => p('props', PROPS);
  return [
    action('suspendAll', [ov(VOID), ov(VOID, props())], OPERATOR),
    action('resumeAll', [ov(VOID), ov(VOID, props())], OPERATOR),
    action('suspend', [ov(VOID, int('type')), ov(VOID, int('type'), props())], OPERATOR),
    action('resume', [ov(VOID, int('type')), ov(VOID, int('type'), props())], OPERATOR),
  ];
}

// Messaging pause/resume (rc JMSServerRuntime, JMSDestinationRuntime). Admin only: no role given.
function jmsPauseResume(): OverlayOperation[] {
  return ['Production', 'Insertion', 'Consumption'].flatMap((what) => [
    action('pause' + what, [ov(VOID)]),
    action('resume' + what, [ov(VOID)]),
  ]);
}

// ---- the table ----------------------------------------------------------------------------------

export const operations: Record<string, OverlayOperation[]> = {
  // ---- domain runtime root (ops B.1; brief) ----
  [RT + 'DomainRuntimeMBean']: [
    action('restartSystemResource', [ov(VOID, p('resource', CFG + 'SystemResourceMBean'))], OPERATOR),
    action('startPartitionWait', [ov(VOID, p('partition', CFG + 'PartitionMBean'))], OPERATOR),
    action('forceShutdownPartitionWait', [ov(VOID, p('partition', CFG + 'PartitionMBean'))], OPERATOR),
  ],

  // ---- server lifecycle, admin-server side (ops C.2; rc ServerLifeCycleRuntime) ----
  [RT + 'ServerLifeCycleRuntimeMBean']: [
    task('start', [ov(SERVER_TASK), ov(SERVER_TASK, bool('disableMsiMode'))], OPERATOR),
    task('startInAdmin', [ov(SERVER_TASK)], OPERATOR),
    task('startInStandby', [ov(SERVER_TASK)], OPERATOR),
    task('resume', [ov(SERVER_TASK)], OPERATOR),
    task('suspend', [ov(SERVER_TASK), ov(SERVER_TASK, int('timeout'), bool('ignoreSessions'))], OPERATOR),
    task('forceSuspend', [ov(SERVER_TASK)], OPERATOR),
    task(
      'shutdown',
      [
        ov(SERVER_TASK),
        ov(SERVER_TASK, int('timeout'), bool('ignoreSessions')),
        ov(SERVER_TASK, int('timeout'), bool('ignoreSessions'), bool('waitForAllSessions')),
      ],
      OPERATOR,
    ),
    task('forceShutdown', [ov(SERVER_TASK)], OPERATOR),
    action('clearOldServerLifeCycleTaskRuntimes', [ov(VOID)], OPERATOR),
    query('getIPv4URL', [ov(STRING, str('protocol'))]),
    query('getIPv6URL', [ov(STRING, str('protocol'))]),
  ],

  // ---- server runtime (spec serverRuntime list; ops C.4, B.1; rc restartSSLChannels) ----
  [RT + 'ServerRuntimeMBean']: [
    ...localLifecycle(),
    action('restartSSLChannels', [ov(VOID)]),
    query('getURL', [ov(STRING, str('protocol'))]),
    query('getIPv4URL', [ov(STRING, str('protocol'))]),
    query('getIPv6URL', [ov(STRING, str('protocol'))]),
    // partition helpers; argument names chosen (api); forceRestartPartition wait is in ms (spec)
    action('startPartition', [ov(VOID, str('partitionName'))], OPERATOR),
    action('startPartitionInAdmin', [ov(VOID, str('partitionName'))], OPERATOR),
    action('bootPartition', [ov(VOID, str('partitionName'))], OPERATOR),
    action('forceRestartPartition', [ov(VOID, str('partitionName'), p('timeout', LONG))], OPERATOR),
    ...resourceGroupHelpers(),
  ],

  // ---- partition runtime on a server (spec partitionRuntimes list) ----
  [RT + 'PartitionRuntimeMBean']: [
    ...localLifecycle(),
    action('halt', [ov(VOID)], OPERATOR),
    ...resourceGroupHelpers(),
  ],

  // ---- partition lifecycle, domain-wide (spec; ops B.3) ----
  // `targets` (references) variants are superseded by `targetNames` in 12.2.1.3 but still accepted.
  [RT + 'PartitionLifeCycleRuntimeMBean']: [
    task(
      'start',
      [...targeted(PARTITION_TASK), ov(PARTITION_TASK, str('initialState'), int('timeOut'))],
      OPERATOR,
    ),
    task('startInAdmin', targeted(PARTITION_TASK), OPERATOR),
    task('shutdown', lifecycleShutdown(PARTITION_TASK), OPERATOR),
    task('forceShutdown', [...targeted(PARTITION_TASK), ov(PARTITION_TASK, int('timeout'))], OPERATOR),
    task('suspend', lifecycleSuspend(PARTITION_TASK), OPERATOR),
    task('forceSuspend', targeted(PARTITION_TASK), OPERATOR),
    task('resume', targeted(PARTITION_TASK), OPERATOR),
    task('boot', targeted(PARTITION_TASK), OPERATOR),
    task('halt', targeted(PARTITION_TASK), OPERATOR),
    // `serverMBean` form is the older one, kept (cannot be flagged per overload)
    query('getState', [ov(STRING, str('serverName')), ov(STRING, p('serverMBean', CFG + 'ServerMBean'))]),
    query('getSubState', [ov(STRING, str('serverName'))]),
    action('purgeTasks', [ov(VOID)], OPERATOR),
  ],

  // ---- resource-group lifecycle (spec; ops B.5) ----
  [RT + 'ResourceGroupLifeCycleRuntimeMBean']: [
    task('start', targeted(RG_TASK), OPERATOR),
    task('startInAdmin', targeted(RG_TASK), OPERATOR),
    task('shutdown', lifecycleShutdown(RG_TASK), OPERATOR),
    task('forceShutdown', targeted(RG_TASK), OPERATOR),
    task('suspend', lifecycleSuspend(RG_TASK), OPERATOR),
    task('forceSuspend', targeted(RG_TASK), OPERATOR),
    task('resume', targeted(RG_TASK), OPERATOR),
    query('getState', [ov(STRING, str('serverName'))]),
    action('purgeTasks', [ov(VOID)], OPERATOR),
  ],

  // ---- application state queries (spec; ops D.4) ----
  [RT + 'AppRuntimeStateRuntimeMBean']: [
    query('getCurrentState', [
      ov(STRING, str('appid'), str('target')),
      ov(STRING, str('appid'), str('moduleid'), str('target')),
      ov(STRING, str('appid'), str('moduleid'), str('subModuleId'), str('target')),
    ]),
    query('getIntendedState', [ov(STRING, str('appid')), ov(STRING, str('appid'), str('target'))]),
    query('getModuleIds', [ovArray(STRING, str('appid'))]),
    query('getSubmoduleIds', [ovArray(STRING, str('appid'), str('moduleid'))]),
    query('getModuleType', [ov(STRING, str('appid'), str('moduleid'))]),
    query('getModuleTargets', [
      ovArray(STRING, str('appid'), str('moduleid')),
      ovArray(STRING, str('appid'), str('moduleid'), str('subModuleId')),
    ]),
    query('isAdminMode', [ov(BOOL, str('appid'), str('target'))]),
    query('isActiveVersion', [ov(BOOL, str('appid'))]),
    query('getRetireTimeMillis', [ov(LONG, str('appid'))]),
    query('getRetireTimeoutSeconds', [ov(INT, str('appid'))]),
  ],

  // ---- deployment manager (spec; ops D.2; rc DeploymentManager) ----
  [RT + 'DeploymentManagerMBean']: [
    task(
      'deploy',
      [
        ov(DEPLOY_TASK, str('name'), str('applicationPath'), str('plan')),
        ov(DEPLOY_TASK, str('name'), str('applicationPath'), stringTargets(), str('plan'), options()),
      ],
      DEPLOYER,
    ),
    task(
      'distribute',
      [
        ov(DEPLOY_TASK, str('name'), str('applicationPath'), str('plan')),
        ov(DEPLOY_TASK, str('name'), str('applicationPath'), stringTargets(), str('plan'), options()),
      ],
      DEPLOYER,
    ),
    task(
      'redeploy',
      [
        ov(DEPLOY_TASK, str('name'), str('plan'), options()),
        ov(DEPLOY_TASK, str('name'), str('applicationPath'), str('plan'), options()),
      ],
      DEPLOYER,
    ),
    task(
      'undeploy',
      [ov(DEPLOY_TASK, str('name'), str('template')), ov(DEPLOY_TASK, str('name'), options())],
      DEPLOYER,
    ),
    task('update', [ov(DEPLOY_TASK, str('name'), str('plan'), options())], DEPLOYER),
    task(
      'appendToExtensionLoader',
      [ov(DEPLOY_TASK, str('codeSourcePath')), ov(DEPLOY_TASK, str('codeSourcePath'), stringTargets(), options())],
      DEPLOYER,
    ),
    action('purgeCompletedDeploymentProgressObjects', [ov(VOID)], DEPLOYER),
    // spec names it without inputs; argument set chosen (api)
    query('confirmApplicationName', [
      ov(
        STRING,
        bool('isLibrary'),
        str('sourcePath'),
        str('altDDPath'),
        str('name'),
        str('libSpecVersion'),
        str('libImplVersion'),
      ),
    ]),
  ],

  // ---- one deployed application (ops D.2; rc AppDeploymentRuntime, console helpers left out) ----
  [RT + 'AppDeploymentRuntimeMBean']: [
    task('start', [ov(DEPLOY_TASK), ov(DEPLOY_TASK, stringTargets(), options())], DEPLOYER_OPERATOR),
    task('stop', [ov(DEPLOY_TASK), ov(DEPLOY_TASK, stringTargets(), options())], DEPLOYER_OPERATOR),
    task('undeploy', [ov(DEPLOY_TASK), ov(DEPLOY_TASK, stringTargets(), options())], DEPLOYER),
    task(
      'redeploy',
      [
        ov(DEPLOY_TASK),
        ov(DEPLOY_TASK, stringTargets(), options()),
        ov(DEPLOY_TASK, stringTargets(), str('plan'), options()),
        ov(DEPLOY_TASK, stringTargets(), str('applicationPath'), str('plan'), options()),
      ],
      DEPLOYER,
    ),
    task('update', [ov(DEPLOY_TASK, stringTargets(), str('plan'), options())], DEPLOYER),
    query('getState', [ov(STRING, str('target'))]),
  ],

  // ---- one deployed library (rc LibDeploymentRuntime; no-arg forms and undeploy chosen by analogy) ----
  [RT + 'LibDeploymentRuntimeMBean']: [
    task('redeploy', [ov(DEPLOY_TASK), ov(DEPLOY_TASK, stringTargets(), options())], DEPLOYER),
    task('undeploy', [ov(DEPLOY_TASK), ov(DEPLOY_TASK, stringTargets(), options())], DEPLOYER),
  ],

  // ---- deployment job (ops D.3) ----
  [RT + 'DeploymentProgressObjectMBean']: [
    action('cancel', [ov(VOID)], DEPLOYER),
    query('getExceptions', [ovArray('java.lang.Exception', str('target'))]),
  ],

  // ---- named edit sessions (rb §5.5; spec: destroying needs Admin) ----
  [RT + 'EditSessionConfigurationManagerMBean']: [
    action('forceDestroyEditSessionConfiguration', [
      ov(VOID, p('editSession', RT + 'EditSessionConfigurationRuntimeMBean')),
    ]),
  ],
  [RT + 'EditSessionConfigurationRuntimeMBean']: [query('containsUnactivatedChanges', [ov(BOOL)])],

  // ---- role probe (rb §6, §9) ----
  [RT + 'ServerSecurityRuntimeMBean']: [query('checkRole', [ov(BOOL, str('roleName'))])],

  // ---- JVM (brief; ops C.5; rc JVMRuntime) ----
  [RT + 'JVMRuntimeMBean']: [action('runGC', [ov(VOID)])],

  // ---- JDBC data source runtime (ops E.3; rc JDBCDataSourceRuntime) ----
  [RT + 'JDBCDataSourceRuntimeMBean']: [
    action('start', [ov(VOID)], OPERATOR),
    action('suspend', [ov(VOID)], OPERATOR),
    action('forceSuspend', [ov(VOID)], OPERATOR),
    action('resume', [ov(VOID)], OPERATOR),
    action('shutdown', [ov(VOID)], OPERATOR),
    action('forceShutdown', [ov(VOID)], OPERATOR),
    task('asyncSuspend', [ov(JDBC_TASK, int('operationSecs'))], OPERATOR),
    task('asyncShutdown', [ov(JDBC_TASK, int('operationSecs'))], OPERATOR),
    action('reset', [ov(VOID)], OPERATOR),
    action('shrink', [ov(VOID)], OPERATOR),
    action('clearStatementCache', [ov(VOID)], OPERATOR),
    action('dumpPool', [ov(VOID)], OPERATOR),
    action('dumpPoolProfile', [ov(VOID)], OPERATOR),
    action('resetStatistics', [ov(VOID)], OPERATOR),
    // the test reserves a connection, so it counts as an action; null return = passed
    action('testPool', [ov(STRING)], READERS),
    query('poolExists', [ov(BOOL, str('poolName'))]),
    query('isOperationAllowed', [ov(BOOL, str('operation'))]),
  ],

  // ---- connector service (spec; ops F.1) ----
  [RT + 'ConnectorServiceRuntimeMBean']: [
    query('getRA', [ov(RT + 'ConnectorComponentRuntimeMBean', str('key'))]),
    query('getInboundConnections', [ovArray(RT + 'ConnectorInboundRuntimeMBean', str('messageListenerType'))]),
    ...connectorSuspendable(),
  ],

  // ---- resource adapter (spec; ops F.2); getConfiguration/getSchema argument chosen (api) ----
  [RT + 'ConnectorComponentRuntimeMBean']: [
    ...connectorSuspendable(),
    query('getConnectionPool', [ov(RT + 'ConnectorConnectionPoolRuntimeMBean', str('key'))]),
    query('getInboundConnection', [ov(RT + 'ConnectorInboundRuntimeMBean', str('key'))]),
    query('getConfiguration', [ov(STRING, str('version'))]),
    query('getSchema', [ov(STRING, str('version'))]),
  ],

  // ---- log files behind a runtime bean (spec pool and logRuntime lists) ----
  [RT + 'LogRuntimeMBean']: [
    action('ensureLogOpened', [ov(VOID)]),
    action('flushLog', [ov(VOID)]),
    action('forceLogRotation', [ov(VOID)]),
  ],

  // ---- connector connection pool (spec; ops F.3); logging ops come from LogRuntime ----
  [RT + 'ConnectorConnectionPoolRuntimeMBean']: [
    action('testPool', [ov(BOOL)], READERS),
    // false when a connection is reserved and nothing was done (spec)
    action('reset', [ov(BOOL)], OPERATOR),
    action('forceReset', [ov(VOID)], OPERATOR),
  ],

  // ---- one pooled connection (spec) ----
  [RT + 'ConnectorConnectionRuntimeMBean']: [
    action('delete', [ov(VOID)], OPERATOR),
    query('hasError', [ov(BOOL)]),
    action('testConnection', [ov(BOOL)], READERS),
  ],

  // ---- message-driven beans under inbound connections (spec) ----
  [RT + 'MessageDrivenEJBRuntimeMBean']: [
    action('suspend', [ov(VOID)], OPERATOR),
    action('resume', [ov(VOID)], OPERATOR),
  ],
  [RT + 'EJBPoolRuntimeMBean']: [action('initializePool', [ov(VOID)], OPERATOR)],
  [RT + 'EJBTimerRuntimeMBean']: [action('activateDisabledTimers', [ov(VOID)], OPERATOR)],

  // ---- messaging runtime (rc JMSServerRuntime, JMSDestinationRuntime, JMSMessageManagementRuntime) ----
  [RT + 'JMSServerRuntimeMBean']: [
    ...jmsPauseResume(),
    action('forceCommit', [ov(VOID, str('xid'))]),
    action('forceRollback', [ov(VOID, str('xid'))]),
  ],
  [RT + 'JMSDestinationRuntimeMBean']: jmsPauseResume(),
  [RT + 'JMSMessageManagementRuntimeMBean']: [action('deleteMessages', [ov(INT, str('selector'))])],

  // ---- transactions (rc JTARuntime) ----
  [RT + 'JTARuntimeMBean']: [
    action('forceCommit', [ov(VOID, str('xid'), bool('global'))]),
    action('forceRollback', [ov(VOID, str('xid'), bool('global'))]),
  ],

  // ---- security runtime beans (rc DomainSecurityRuntime, UserLockoutManagerRuntime, SingleSignOnServicesRuntime) ----
  [RT + 'DomainSecurityRuntimeMBean']: [
    action('refreshCache', [ov(VOID)]),
    query('hasSecurityValidationWarnings', [ov(BOOL)]),
  ],
  // The queries of the product's interface (api), Admin only: they tell about user names.
  // identityDomain is accepted and ignored (one identity domain).
  [RT + 'UserLockoutManagerRuntimeMBean']: [
    action('clearLockout', [ov(VOID, str('userName')), ov(VOID, str('userName'), str('identityDomain'))]),
    adminQuery('isLockedOut', [ov(BOOL, str('userName')), ov(BOOL, str('userName'), str('identityDomain'))]),
    adminQuery('getLoginFailureCount', [ov(LONG, str('userName')), ov(LONG, str('userName'), str('identityDomain'))]),
    adminQuery('getLastLoginFailure', [ov(LONG, str('userName')), ov(LONG, str('userName'), str('identityDomain'))]),
  ],
  [RT + 'SingleSignOnServicesRuntimeMBean']: [
    action('publish', [ov(VOID, str('fileName'), bool('prohibitOverwrite'))]),
  ],

  // ---- configuration root: edit and serverConfig (spec root actions; findConfigBeansWithTags inputs spec) ----
  // Other argument names chosen (api).
  [CFG + 'DomainMBean']: [
    query('arePartitionsPresent', [ov(BOOL)]),
    query('findConfigBeansWithTags', [
      ovArray(CFG + 'ConfigurationMBean', str('type'), p('tags', STRING, true)),
      ovArray(CFG + 'ConfigurationMBean', str('type'), p('tags', STRING, true), bool('matchAll')),
    ]),
    query('findPartitionByID', [ov(CFG + 'PartitionMBean', str('partitionID'))]),
    query('listTags', [ovArray(STRING)]),
    query('lookupSystemResource', [ov(CFG + 'SystemResourceMBean', str('name'))]),
    query('lookupTarget', [ov(CFG + 'TargetMBean', str('name'))]),
  ],

  // ---- partition configuration (spec serverConfig partitions); arguments chosen (api) ----
  [CFG + 'PartitionMBean']: [
    query('findEffectiveServerNames', [ovArray(STRING)]),
    query('lookupAvailableTarget', [ov(CFG + 'TargetMBean', str('name'))]),
  ],

  // ---- coherence cluster resource (rc CoherenceClusterSystemResource; type data lets Deployer act) ----
  [CFG + 'CoherenceClusterSystemResourceMBean']: [
    action('importCustomClusterConfigurationFile', [ov(VOID, str('file'))], DEPLOYER),
  ],

  // ---- JMS descriptor (spec deliveryFailureParams) ----
  ['appserver.j2ee.descriptor.wl.DeliveryFailureParamsBean']: [query('findSubDeploymentName', [ov(STRING)])],

  // ---- security provider data import/export (rc Import, Export) ----
  ['appserver.management.security.ImportMBean']: [
    action('importData', [ov(VOID, str('format'), str('filename'), p('constraints', PROPS))]),
  ],
  ['appserver.management.security.ExportMBean']: [
    action('exportData', [ov(VOID, str('format'), str('filename'), p('constraints', PROPS))]),
  ],

  // ---- users and groups of an authentication provider (brief item 5). Admin only: no roles. ----
  // The product's list* methods return a cursor name to walk with advance/getCurrentName; here they
  // return the matching names as a string array instead (chosen).
  [AUTHN + 'UserReaderMBean']: [
    adminQuery('userExists', [ov(BOOL, str('userName'))]),
    adminQuery('listUsers', [ovArray(STRING, str('nameWildcard'), int('maximumToReturn'))]),
    adminQuery('getUserDescription', [ov(STRING, str('userName'))]),
  ],
  [AUTHN + 'UserPasswordEditorMBean']: [
    action('changeUserPassword', [ov(VOID, str('userName'), str('oldPassword'), str('newPassword'))]),
  ],
  [AUTHN + 'UserRemoverMBean']: [action('removeUser', [ov(VOID, str('userName'))])],
  [AUTHN + 'UserEditorMBean']: [
    action('createUser', [ov(VOID, str('userName'), str('password'), str('description'))]),
    action('resetUserPassword', [ov(VOID, str('userName'), str('newPassword'))]),
    action('setUserDescription', [ov(VOID, str('userName'), str('description'))]),
  ],
  [AUTHN + 'GroupReaderMBean']: [
    adminQuery('groupExists', [ov(BOOL, str('groupName'))]),
    adminQuery('listGroups', [ovArray(STRING, str('groupNameWildcard'), int('maximumToReturn'))]),
    adminQuery('isMember', [ov(BOOL, str('parentGroupName'), str('memberUserOrGroupName'), bool('recursive'))]),
    adminQuery('getGroupDescription', [ov(STRING, str('groupName'))]),
  ],
  [AUTHN + 'GroupRemoverMBean']: [action('removeGroup', [ov(VOID, str('groupName'))])],
  [AUTHN + 'GroupEditorMBean']: [
    action('createGroup', [ov(VOID, str('groupName'), str('description'))]),
    action('addMemberToGroup', [ov(VOID, str('groupName'), str('memberUserOrGroupName'))]),
    action('removeMemberFromGroup', [ov(VOID, str('groupName'), str('memberUserOrGroupName'))]),
    action('setGroupDescription', [ov(VOID, str('groupName'), str('description'))]),
  ],
  [AUTHN + 'MemberGroupListerMBean']: [
    adminQuery('listMemberGroups', [ovArray(STRING, str('memberUserOrGroupName'))]),
  ],
  [AUTHN + 'GroupMemberListerMBean']: [
    adminQuery('listGroupMembers', [
      ovArray(STRING, str('groupName'), str('memberUserOrGroupNameWildcard'), int('maximumToReturn')),
    ]),
  ],
};
