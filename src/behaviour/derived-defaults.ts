// Derived defaults: properties the type data marks as defaulting to a value computed at run time
// (`dd` in the catalog). Where the reference facts or the type data say how, the value is computed
// here from the configuration the request sees; a property set on the bean keeps its value. Those
// no source describes are listed in UNKNOWN_DERIVED_DEFAULTS (they show their type's zero) and in
// docs/compatibility.md.
import type { TypeDef } from '../catalog/model.js';
import type { BeanView } from './bean.js';
import { type ConfigIndex, refOf } from './config-view.js';
import { defaultPrefix } from './dynamic-servers.js';
import { BehaviourKind, type BehaviourRegistry } from './registry.js';

type Compute = (bean: BeanView, view: ConfigIndex) => unknown;

const DEFAULTS = new BehaviourKind<Record<string, Compute>>('derived defaults');

const C = 'appserver.management.configuration.';
const WL = 'appserver.j2ee.descriptor.wl.';
const WLDF = 'appserver.diagnostics.descriptor.';

/** The socket muxer the product uses unless told otherwise (its own name, brand words renamed). */
const MUXER = 'appserver.socket.NIOSocketMuxer';

/**
 * Derived defaults no reference fact or type data describes: they show the zero of their type
 * (0, false, null or an empty list). Named `Type.property` by the declaring type (its short name),
 * as docs/compatibility.md lists them; a unit test keeps the list exact.
 */
export const UNKNOWN_DERIVED_DEFAULTS: readonly string[] = [
  'Application.stagingMode',
  'CacheAsyncListeners.workManager',
  'CacheStore.workManager',
  'CacheStore.writePolicy',
  'ClassDeployment.className',
  'Cluster.siteName',
  'CoherenceClusterParams.clusteringMode',
  'DefaultAuthenticator.identityDomains',
  'DefaultAuthenticator.nameCallbackAllowed',
  'Domain.enableEECompliantClassloadingForEmbeddedAdapters',
  'Domain.javaServiceConsoleEnabled',
  'Domain.parallelDeployApplications',
  'ForeignJNDIObject.remoteJNDIName',
  'JDBCAppserverParams.appserverOptimizeUtf8Conversion',
  'JTACluster.parallelXADispatchPolicy',
  'Kernel.useConcurrentQueueForRequestManager',
  'NetworkAccessPoint.SSLv2HelloEnabled',
  'NetworkAccessPoint.acceptBacklog',
  'NetworkAccessPoint.allowListViolationAction',
  'NetworkAccessPoint.allowUnencryptedNullCipher',
  'NetworkAccessPoint.ciphersuites',
  'NetworkAccessPoint.completeMessageTimeout',
  'NetworkAccessPoint.connectTimeout',
  'NetworkAccessPoint.customIdentityKeyStoreFileName',
  'NetworkAccessPoint.customIdentityKeyStoreType',
  'NetworkAccessPoint.customPrivateKeyAlias',
  'NetworkAccessPoint.hostnameVerificationIgnored',
  'NetworkAccessPoint.hostnameVerifier',
  'NetworkAccessPoint.idleConnectionTimeout',
  'NetworkAccessPoint.inboundCertificateValidation',
  'NetworkAccessPoint.listenPort',
  'NetworkAccessPoint.loginTimeoutMillis',
  'NetworkAccessPoint.maxBackoffBetweenFailures',
  'NetworkAccessPoint.maxMessageSize',
  'NetworkAccessPoint.minimumTLSProtocolVersion',
  'NetworkAccessPoint.outboundCertificateValidation',
  'NetworkAccessPoint.outboundEnabled',
  'NetworkAccessPoint.outboundPrivateKeyAlias',
  'NetworkAccessPoint.outboundPrivateKeyEnabled',
  'NetworkAccessPoint.privateKeyAlias',
  'NetworkAccessPoint.publicPort',
  'NetworkAccessPoint.tunnelingClientPingSecs',
  'NetworkAccessPoint.tunnelingClientTimeoutSecs',
  'NetworkAccessPoint.useFastSerialization',
  'Partition.primaryIdentityDomain',
  'PartitionFileSystem.root',
  'Realm.autoRestartOnNonDynamicChanges',
  'RestfulManagementServices.javaServiceResourcesEnabled',
  'SAFDestination.SAFErrorHandling',
  'SAFDestination.messageLoggingParams',
  'SAFDestination.timeToLiveDefault',
  'SSL.minimumTLSProtocolVersion',
  'SecurityConfiguration.administrativeIdentityDomain',
  'SingletonService.className',
  'SingletonServiceAppScoped.className',
  'SystemComponentConfiguration.sourcePath',
  'ThresholdParams.bytesHigh',
  'ThresholdParams.bytesLow',
  'ThresholdParams.messagesHigh',
  'ThresholdParams.messagesLow',
  'VirtualUserAuthenticator.identityDomains',
  'WLDFWatch.expressionLanguage',
];

export function registerDerivedDefaults(registry: BehaviourRegistry): void {
  const types = registry.types;
  const defaults = (type: string, computes: Record<string, Compute>) => {
    // The rules are written for every product version: a version may lack the type or the
    // property, or declare the default of a property another version derives (then the declared
    // one holds). The unit test of UNKNOWN_DERIVED_DEFAULTS keeps the rules and the data together.
    if (types.tolerant && !types.types?.has(type)) return;
    const t = types.type(type);
    const kept: Record<string, Compute> = {};
    for (const [name, compute] of Object.entries(computes)) if (t.prop.get(name)?.derivedDefault) kept[name] = compute;
    registry.register(DEFAULTS, type, kept);
  };

  /** A property of another bean as it shows: its set value, else its type's default. */
  const valueAt = (view: ConfigIndex, identity: readonly string[], typeName: string, prop: string): unknown => {
    const record = view.bean(identity);
    if (record && Object.hasOwn(record.values, prop)) return record.values[prop];
    const p = types.type(record?.type ?? typeName).prop.get(prop);
    return p?.hasDefault ? p.defaultValue : null;
  };
  const own = (bean: BeanView, prop: string, dflt: unknown): unknown => {
    const values = bean.record?.values;
    if (values && Object.hasOwn(values, prop)) return values[prop];
    return bean.type.prop.get(prop)?.hasDefault ? bean.type.prop.get(prop)!.defaultValue : dflt;
  };
  const domain = (prop: string) => (_bean: BeanView, view: ConfigIndex) => valueAt(view, [], `${C}DomainMBean`, prop);
  const exalogic = domain('exalogicOptimizationsEnabled');
  const domainName = (view: ConfigIndex) => String(view.bean([])?.values.name ?? 'domain');
  const fixed = (value: unknown) => () => value;

  // ---- servers and templates ----
  defaults(`${C}ServerTemplateMBean`, {
    // A server uses the domain's administration port unless it sets its own.
    administrationPort: domain('administrationPort'),
    // The administration server keeps applications where they are; managed servers get a copy.
    stagingMode: (bean, view) => (bean.identity[0] === 'servers' && bean.identity[1] === view.bean([])?.values.adminServerName ? 'nostage' : 'stage'),
  });
  defaults(`${C}KernelMBean`, {
    administrationProtocol: fixed('t3s'),
    muxerClass: fixed(MUXER),
    // The complete HTTP message timeout, or the complete message timeout when that is -1.
    completeWriteTimeout: (bean) => {
      const http = own(bean, 'completeHTTPMessageTimeout', -1);
      return http === -1 ? own(bean, 'completeMessageTimeout', 60) : http;
    },
    // Exalogic tunings, on when the domain's Exalogic optimizations are.
    addWorkManagerThreadsByCpuCount: exalogic,
    gatheredWritesEnabled: exalogic,
    scatteredReadsEnabled: exalogic,
  });
  defaults(`${C}ClusterMBean`, { sessionLazyDeserializationEnabled: exalogic, memberWarmupTimeoutSeconds: fixed(30) });
  defaults(`${C}JDBCStoreMBean`, { appserverPiggybackCommitEnabled: exalogic });
  defaults(`${C}OverloadProtectionMBean`, {
    failureAction: fixed('no-action'),
    panicAction: fixed('no-action'),
    sharedCapacityForWorkManagers: fixed(65536),
    freeMemoryPercentHighThreshold: fixed(0),
    freeMemoryPercentLowThreshold: fixed(0),
    serverFailureTrigger: fixed(null),
  });
  // A channel's cluster address: its public address, else its cluster's address, else its listen address.
  const nap: Record<string, Compute> = {
    clusterAddress: (bean, view) => {
      const values = bean.record?.values ?? {};
      if (typeof values.publicAddress === 'string' && values.publicAddress !== '') return values.publicAddress;
      const cluster = refOf(view.bean(bean.identity.slice(0, 2))?.values.cluster);
      const address = cluster ? view.bean(cluster)?.values.clusterAddress : undefined;
      if (typeof address === 'string' && address !== '') return address;
      return typeof values.listenAddress === 'string' ? values.listenAddress : null;
    },
  };
  // A channel's own listen and public addresses: null, meaning the server's (as the type data says).
  Object.assign(nap, { listenAddress: fixed(null), publicAddress: fixed(null), outboundPrivateKeyPassPhrase: fixed(null), privateKeyPassPhrase: fixed(null) });
  defaults(`${C}NetworkAccessPointMBean`, nap);
  defaults(`${C}SSLMBean`, {
    // A secret: never shown.
    outboundPrivateKeyPassPhrase: fixed(null),
    // The client certificate's alias when it is used for outbound connections, else the server's.
    outboundPrivateKeyAlias: (bean) => (own(bean, 'useClientCertForOutbound', false) === true ? own(bean, 'clientCertAlias', null) : own(bean, 'serverPrivateKeyAlias', null)),
  });

  // ---- logs ----
  defaults(`${C}LogFileMBean`, {
    dateFormatPattern: fixed('MMM d, yyyy h:mm:ss,SSS a z'),
    // The domain's log is named after the domain, a server's (or template's) after the server.
    fileName: (bean, view) => {
      const id = bean.identity;
      if (id.length === 1) return `logs/${domainName(view)}.log`;
      return id.length === 3 && (id[0] === 'servers' || id[0] === 'serverTemplates') ? `logs/${id[1]}.log` : null;
    },
  });
  defaults(`${C}DataSourceLogFileMBean`, { fileName: fixed('logs/datasource.log') });
  defaults(`${C}JMSMessageLogFileMBean`, {
    fileName: (bean) => (bean.identity[0] === 'JMSServers' && bean.identity.length >= 2 ? `logs/jmsServers/${bean.identity[1]}/jms.messages.log` : null),
  });
  defaults(`${C}WebServerLogMBean`, { fileName: fixed('logs/access.log') });
  defaults(`${C}WLDFServerDiagnosticMBean`, { imageDir: fixed('logs/diagnostic_images') });
  defaults(`${WLDF}WLDFImageNotificationBean`, { imageDirectory: fixed('logs/diagnostic_images') });

  // ---- the domain and its resources ----
  // A deployment nobody targeted is targeted nowhere.
  defaults(`${C}TargetInfoMBean`, { targets: fixed([]) });
  defaults(`${C}AppDeploymentMBean`, { parallelDeployModules: domain('parallelDeployApplicationModules') });
  // A system resource's descriptor lives in the folder of its kind, named after it.
  const descriptor = (folder: string, suffix: string) => (bean: BeanView) => `${folder}/${itemName(bean)}${suffix}.xml`;
  defaults(`${C}JDBCSystemResourceMBean`, { descriptorFileName: descriptor('jdbc', '-jdbc') });
  defaults(`${C}JMSSystemResourceMBean`, { descriptorFileName: descriptor('jms', '-jms') });
  defaults(`${C}CoherenceClusterSystemResourceMBean`, { descriptorFileName: descriptor('coherence', '-coherence') });
  defaults(`${C}WLDFSystemResourceMBean`, { descriptorFileName: descriptor('diagnostics', '') });
  defaults(`${C}ConfigurationExtensionMBean`, { descriptorFileName: (bean) => `${itemName(bean)}.xml` });
  // Where the descriptor is read from: the domain's config folder.
  defaults(`${C}SystemResourceMBean`, {
    sourcePath: (bean, view) => {
      const file = own(bean, 'descriptorFileName', undefined) ?? derivedDefaultValue(registry, bean, view, 'descriptorFileName');
      return typeof file === 'string' ? `./config/${file}` : null;
    },
  });
  // Stores restart in place when they may migrate.
  defaults(`${C}DynamicDeploymentMBean`, { restartInPlace: (bean) => own(bean, 'migrationPolicy', 'Off') !== 'Off' });
  defaults(`${C}JMXMBean`, {
    // The platform MBean server is used from domain version 10.3.3.0 on.
    platformMBeanServerUsed: (_bean, view) => atLeast(String(view.bean([])?.values.domainVersion ?? '12.2.1.3.0'), [10, 3, 3, 0]),
  });
  defaults(`${C}SNMPAgentMBean`, { SNMPEngineId: (bean, view) => (bean.identity.length === 1 ? domainName(view) : itemName(bean)) });
  defaults(`${C}LifecycleManagerEndPointMBean`, { runtimeName: (_bean, view) => domainName(view) });
  defaults(`${C}DynamicServersMBean`, { serverNamePrefix: (bean) => (bean.identity[0] === 'clusters' ? defaultPrefix(bean.identity[1]!) : null) });

  // A cluster's transaction settings are the domain's unless it sets its own.
  const jta = (prop: string) => (_bean: BeanView, view: ConfigIndex) => valueAt(view, ['JTA'], `${C}JTAMBean`, prop);
  defaults(`${C}JTAClusterMBean`, Object.fromEntries(['beforeCompletionIterationLimit', 'crossSiteRecoveryLeaseExpiration', 'crossSiteRecoveryLeaseUpdate', 'determiners', 'maxTransactions', 'securityInteropMode', 'tightlyCoupledTransactionsEnabled'].map((p) => [p, jta(p)])));
  defaults(`${C}JTAPartitionMBean`, { timeoutSeconds: jta('timeoutSeconds') });
  // A certificate authority's revocation checks follow the domain's unless it sets its own.
  const revocation = (prop: string) => (bean: BeanView, view: ConfigIndex) => valueAt(view, bean.identity.slice(0, -2), `${C}CertRevocMBean`, prop);
  const revocationProps = ['crlDpBackgroundDownloadEnabled', 'crlDpDownloadTimeout', 'crlDpEnabled', 'failOnUnknownRevocStatus', 'methodOrder', 'ocspNonceEnabled', 'ocspResponseCacheEnabled', 'ocspResponseTimeout', 'ocspTimeTolerance'];
  defaults(`${C}CertRevocCaMBean`, Object.fromEntries(revocationProps.map((p) => [p, revocation(p)])));

  // ---- JDBC descriptors ----
  defaults(`${WL}JDBCConnectionPoolParamsBean`, { minCapacity: (bean) => own(bean, 'initialCapacity', 1) });
  // A data source is bound under its own name.
  defaults(`${WL}JDBCDataSourceParamsBean`, {
    JNDINames: (bean, view) => {
      const resource = view.bean(bean.identity.slice(0, -1))?.values.name;
      const name = typeof resource === 'string' ? resource : bean.identity[bean.identity.length - 3];
      return name === undefined ? [] : [name];
    },
  });

  // ---- JMS descriptors: a destination's settings come from its template, else the type's defaults ----
  const template = types.type(`${WL}TemplateBean`);
  const fromTemplate = (prop: string, dflt: unknown) => (bean: BeanView, view: ConfigIndex) => {
    const named = refOf(bean.record?.values.template);
    if (named) return valueAt(view, named, template.name, prop);
    return template.prop.get(prop)?.hasDefault ? template.prop.get(prop)!.defaultValue : dflt;
  };
  const destinationProps: [string, unknown][] = [
    ['attachSender', 'supports'],
    ['consumptionPausedAtStartup', false],
    ['insertionPausedAtStartup', false],
    ['productionPausedAtStartup', false],
    ['destinationKeys', []],
    ['maximumMessageSize', 2147483647],
    ['messagingPerformancePreference', 25],
    ['SAFExportPolicy', 'All'],
    ['unitOfWorkHandlingPolicy', 'PassThrough'],
    ['quota', null],
  ];
  defaults(`${WL}DestinationBean`, Object.fromEntries(destinationProps.map(([p, d]) => [p, fromTemplate(p, d)])));
  // An entity is targeted through the sub-deployment of its own name.
  defaults(`${WL}TargetableBean`, { subDeploymentName: (bean) => itemName(bean) });
  // The parameters of a destination: those of its template's same parameters, else "no override".
  const param = (prop: string, dflt: unknown) => (bean: BeanView, view: ConfigIndex) => {
    const owner = view.bean(bean.identity.slice(0, -1));
    const named = refOf(owner?.values.template);
    const child = bean.identity[bean.identity.length - 1]!;
    if (named) {
      const value = view.bean([...named, child])?.values[prop];
      if (value !== undefined) return value;
    }
    return dflt;
  };
  defaults(`${WL}DeliveryFailureParamsBean`, {
    redeliveryLimit: param('redeliveryLimit', -1),
    expirationPolicy: param('expirationPolicy', 'Discard'),
    expirationLoggingPolicy: param('expirationLoggingPolicy', null),
    errorDestination: param('errorDestination', null),
  });
  defaults(`${WL}DeliveryParamsOverridesBean`, {
    deliveryMode: param('deliveryMode', 'No-Delivery'),
    priority: param('priority', -1),
    redeliveryDelay: param('redeliveryDelay', -1),
    timeToDeliver: param('timeToDeliver', '-1'),
    timeToLive: param('timeToLive', -1),
  });
  defaults(`${WL}MessageLoggingParamsBean`, { messageLoggingEnabled: param('messageLoggingEnabled', false), messageLoggingFormat: param('messageLoggingFormat', null) });
  defaults(`${WL}MulticastParamsBean`, { multicastAddress: param('multicastAddress', null), multicastPort: param('multicastPort', 6001), multicastTimeToLive: param('multicastTimeToLive', 1) });
  defaults(`${WL}TopicSubscriptionParamsBean`, { messagesLimitOverride: param('messagesLimitOverride', -1) });
  defaults(`${WL}SAFDestinationBean`, { unitOfOrderRouting: fixed('Hash'), useSAFTimeToLiveDefault: fixed(false) });
}

/** The last segment of the bean's identity: an item's name. */
function itemName(bean: BeanView): string {
  return bean.identity[bean.identity.length - 1] ?? '';
}

/** Whether a dotted version is at least `min`. */
function atLeast(version: string, min: number[]): boolean {
  const parts = version.split('.').map((p) => Number.parseInt(p, 10) || 0);
  for (let i = 0; i < min.length; i++) {
    if ((parts[i] ?? 0) !== min[i]) return (parts[i] ?? 0) > min[i]!;
  }
  return true;
}

/** One derived default of a bean (undefined when none is known). */
function derivedDefaultValue(registry: BehaviourRegistry, bean: BeanView, view: ConfigIndex, prop: string): unknown {
  for (const computes of registry.all(DEFAULTS, bean.type)) if (Object.hasOwn(computes, prop)) return computes[prop]!(bean, view);
  return undefined;
}

/** The derived defaults of a bean for the properties it does not set (nearest registration first). */
export function derivedDefaults(registry: BehaviourRegistry, bean: BeanView, view: ConfigIndex): Record<string, unknown> | undefined {
  const all = registry.all(DEFAULTS, bean.type);
  if (all.length === 0) return undefined;
  const values = bean.record?.values ?? {};
  const out: Record<string, unknown> = {};
  for (const computes of all) {
    for (const [prop, compute] of Object.entries(computes)) {
      if (Object.hasOwn(out, prop) || Object.hasOwn(values, prop)) continue;
      out[prop] = compute(bean, view);
    }
  }
  return out;
}

/** Whether the bean type computes the derived default `prop`. */
export function computesDefault(registry: BehaviourRegistry, type: TypeDef, prop: string): boolean {
  return registry.all(DEFAULTS, type).some((computes) => Object.hasOwn(computes, prop));
}
