// `appserver-admin/client`: the typed client of the Domain Administration REST Interface.
export { AppserverClient, BeanHandle, describeTask, isTask, jobHref, taskFailure } from './client.js';
export type { Bean, ChangeManagerState, ClientOptions, Collection, DeployRequest, ReadOptions, Reply, Task, TreeRoot, WaitOptions } from './client.js';
export { AppserverError, type ErrorKind } from './errors.js';
export type * from './generated/beans.js';
export { ControlClient } from './control.js';
export type { ClockState, Fault, FaultKind, FaultRequest, JournalEntry, JournalFilter, Snapshot, Timings } from './control.js';
