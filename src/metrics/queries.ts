// What /metrics exports of a server's runtime tree, in the shape the monitoring exporter's
// configuration uses: each level names a child of its parent (a collection or a single bean), the
// key property that identifies its items and the label that key becomes, the prefix of its metric
// names, and the properties it exports (every numeric one when none are listed). A level without a
// prefix exports nothing of its own; its key still labels what lies below it.

export interface MetricQuery {
  /** Prefix of this level's metric names (`appserver_servlet_`); none: no metrics of its own. */
  prefix?: string;
  /** Property whose value identifies an item of this level (default `name`). */
  key?: string;
  /** Label the key becomes (default: the key's own name). */
  keyName?: string;
  /** Only items whose `type` is this one. */
  type?: string;
  /** Properties exported; every numeric one when absent. */
  values?: readonly string[];
  /** Text properties exported as the position of their value in a list (`state` → `state_val`). */
  stringValues?: Readonly<Record<string, readonly string[]>>;
  /** Levels below, by the name of the child that holds them. */
  children?: Readonly<Record<string, MetricQuery>>;
}

/** The order the server states are numbered in by `appserver_server_state_val`. */
export const SERVER_STATES = [
  'SHUTDOWN', 'STARTING', 'RUNNING', 'STANDBY', 'SUSPENDING', 'FORCE_SUSPENDING', 'RESUMING', 'SHUTTING_DOWN',
  'FAILED', 'UNKNOWN', 'ADMIN', 'FAILED_RESTARTING', 'ACTIVATE_LATER', 'FAILED_NOT_RESTARTABLE', 'FAILED_MIGRATABLE',
  'DISCOVERED', 'STARTING_IN_ADMIN', 'FORCE_SHUTTING_DOWN',
] as const;

/** One server's runtime tree, from its ServerRuntime down (the exporter's usual dashboard set). */
export const SERVER_QUERY: MetricQuery = {
  prefix: 'appserver_server_',
  key: 'name',
  keyName: 'location',
  values: ['openSocketsCurrentCount', 'activationTime', 'adminServerListenPort', 'listenPort', 'restartsTotalCount'],
  stringValues: { state: SERVER_STATES },
  children: {
    applicationRuntimes: {
      keyName: 'app',
      children: {
        componentRuntimes: {
          prefix: 'appserver_webapp_config_',
          type: 'WebAppComponentRuntime',
          values: ['deploymentState', 'sessionsOpenedTotalCount', 'openSessionsCurrentCount', 'openSessionsHighCount'],
          children: {
            servlets: { prefix: 'appserver_servlet_', key: 'servletName' },
          },
        },
        workManagerRuntimes: {
          prefix: 'appserver_workmanager_',
          keyName: 'workmanager',
          values: ['stuckThreadCount', 'pendingRequests', 'completedRequests'],
        },
      },
    },
    JVMRuntime: { prefix: 'appserver_jvm_' },
    threadPoolRuntime: { prefix: 'appserver_threadpool_' },
    workManagerRuntimes: { prefix: 'appserver_workmanager_', keyName: 'workmanager', values: ['stuckThreadCount', 'pendingRequests', 'completedRequests'] },
    serverChannelRuntimes: { prefix: 'appserver_channel_', key: 'channelName', keyName: 'channelName' },
    JMSRuntime: {
      prefix: 'appserver_jmsruntime_',
      keyName: 'jmsruntime',
      children: {
        JMSServers: {
          prefix: 'appserver_jms_',
          keyName: 'jmsserver',
          children: { destinations: { prefix: 'appserver_jms_dest_', keyName: 'destination' } },
        },
      },
    },
    persistentStoreRuntimes: { prefix: 'appserver_persistentstore_' },
    JDBCServiceRuntime: {
      children: { JDBCDataSourceRuntimeMBeans: { prefix: 'appserver_datasource_', keyName: 'datasource' } },
    },
    JTARuntime: { prefix: 'appserver_jta_' },
  },
};
