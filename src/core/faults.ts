// Faults injected through the control interface, as the parts of the domain see them: each part
// asks at the moment a fault would change what it does, and a domain without the control
// interface answers "no fault" everywhere.

export interface FaultHooks {
  /** The message the start of this server now fails with, if a fault says so (it counts as one use). */
  startFailure(server: string): string | undefined;
  /** Milliseconds added to each lifecycle step of this server (a slow server). */
  lifecycleDelay(server: string): number;
  /** Scheduler time until which this server's lifecycle steps stand still (a hung server), if hung. */
  hungUntil(server: string): number | undefined;
  /** The message a deployment step of this application on these targets fails with, if one does. */
  deploymentFailure(application: string, targets: readonly string[]): string | undefined;
  /** Why this data source on this server cannot reach its database, if it cannot. */
  dataSourceDown(dataSource: string, server: string): string | undefined;
  /** Why this JMS server is down, if it is. */
  jmsServerDown(jmsServer: string): string | undefined;
}

export const NO_FAULTS: FaultHooks = {
  startFailure: () => undefined,
  lifecycleDelay: () => 0,
  hungUntil: () => undefined,
  deploymentFailure: () => undefined,
  dataSourceDown: () => undefined,
  jmsServerDown: () => undefined,
};
