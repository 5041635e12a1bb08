// Legal ranges of integer properties. The bean type data gives legal value lists but no ranges,
// so the ones the server enforces are listed here, keyed by the type that declares the property
// (subtypes inherit them): TCP and UDP ports, and the sizes of dynamic clusters (the product's 0..800). A port whose default is 0 takes 0 as "not set" (the
// value comes from elsewhere, such as the domain's administration port), so 0 is legal there too.
const PORT = [1, 65535] as const;
const PORT_OR_UNSET = [0, 65535] as const;
const CLUSTER_SIZE = [0, 800] as const;

const C = 'appserver.management.configuration.';

export const ranges: Record<string, Record<string, readonly [number, number]>> = {
  [`${C}ServerTemplateMBean`]: { listenPort: PORT, administrationPort: PORT_OR_UNSET, buzzPort: PORT_OR_UNSET },
  [`${C}SSLMBean`]: { listenPort: PORT },
  [`${C}DomainMBean`]: { administrationPort: PORT },
  [`${C}DynamicServersMBean`]: { dynamicClusterSize: CLUSTER_SIZE, maxDynamicClusterSize: CLUSTER_SIZE, minDynamicClusterSize: CLUSTER_SIZE },
  [`${C}ClusterMBean`]: { multicastPort: PORT, frontendHTTPPort: PORT_OR_UNSET, frontendHTTPSPort: PORT_OR_UNSET },
  [`${C}WebServerMBean`]: { frontendHTTPPort: PORT_OR_UNSET, frontendHTTPSPort: PORT_OR_UNSET },
  [`${C}NetworkAccessPointMBean`]: { listenPort: PORT_OR_UNSET, publicPort: PORT_OR_UNSET, proxyPort: PORT },
  [`${C}NetworkChannelMBean`]: { listenPort: PORT, SSLListenPort: PORT },
  [`${C}NodeManagerMBean`]: { listenPort: PORT },
  [`${C}SNMPAgentMBean`]: { SNMPPort: PORT, masterAgentXPort: PORT },
  [`${C}JMSTopicMBean`]: { multicastPort: PORT },
  [`${C}VirtualTargetMBean`]: { explicitPort: PORT_OR_UNSET },
  [`${C}CoherenceMemberConfigMBean`]: { unicastListenPort: PORT_OR_UNSET },
  [`${C}CoherenceServerMBean`]: { unicastListenPort: PORT_OR_UNSET },
  'appserver.coherence.descriptor.wl.CoherenceClusterParamsBean': { clusterListenPort: PORT_OR_UNSET },
  'appserver.coherence.descriptor.wl.CoherenceFederationParamsBean': { remoteCoherenceClusterListenPort: PORT },
  'appserver.j2ee.descriptor.wl.MulticastParamsBean': { multicastPort: PORT_OR_UNSET },
};
