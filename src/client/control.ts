// The control interface of a server started with `--control` (faults, clock, snapshots, journal),
// for tests written with the typed client. Plain requests below /management/appserver-control
// through an AppserverClient: the same credentials, time limits and errors.
import type { AppserverClient } from './client.js';

const ROOT = '/management/appserver-control';

export type FaultKind = 'startFailure' | 'crash' | 'slow' | 'hang' | 'status' | 'drop' | 'dataSourceDown' | 'deploymentFailure' | 'jmsServerDown';

/** A fault to inject: its kind, one scope, and how often and how long it acts. */
export interface FaultRequest {
  kind: FaultKind;
  name?: string;
  server?: string;
  application?: string;
  dataSource?: string;
  jmsServer?: string;
  urlPattern?: string;
  /** With application or dataSource: the server (or cluster) concerned. */
  target?: string;
  /** With urlPattern: only this HTTP method. */
  method?: string;
  message?: string;
  status?: number;
  latencyMs?: number;
  count?: number;
  probability?: number;
  expiresInSeconds?: number;
}

export interface Fault extends FaultRequest {
  name: string;
  message: string;
  remaining: number | null;
  probability: number;
  expires: number | null;
  created: number;
  hits: number;
  active: boolean;
}

export interface Timings {
  serverStart: number;
  serverShutdown: number;
  serverSuspend: number;
  partition: number;
  resourceGroup: number;
  deployment: number;
}

export interface ClockState {
  now: number;
  frozen: boolean;
  canRun: boolean;
  timings: Timings;
}

export interface Snapshot {
  name: string;
  created: number;
  bytes: number;
}

export interface JournalEntry {
  id: number;
  time: number;
  method: string;
  path: string;
  user: string | null;
  status: number;
  durationMs: number;
  requestBytes: number;
  responseBytes: number;
  fault?: string;
}

export interface JournalFilter {
  method?: string;
  path?: string;
  user?: string;
  status?: number;
  after?: number;
  limit?: number;
}

export class ControlClient {
  constructor(private readonly client: AppserverClient) {}

  private async call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const r = await this.client.request(method, `${ROOT}${path}`, body !== undefined ? { body } : {});
    return r.body as T;
  }

  addFault(fault: FaultRequest): Promise<Fault> {
    return this.call('POST', '/faults', fault);
  }

  async faults(): Promise<Fault[]> {
    return (await this.call<{ items: Fault[] }>('GET', '/faults')).items;
  }

  async removeFault(name: string): Promise<void> {
    await this.call('POST', `/faults/${encodeURIComponent(name)}/remove`);
  }

  async clearFaults(): Promise<void> {
    await this.call('POST', '/faults/clear');
  }

  clock(): Promise<ClockState> {
    return this.call('GET', '/clock');
  }

  freeze(): Promise<ClockState> {
    return this.call('POST', '/clock/freeze');
  }

  resume(): Promise<ClockState> {
    return this.call('POST', '/clock/resume');
  }

  advance(ms: number): Promise<ClockState> {
    return this.call('POST', '/clock/advance', { ms });
  }

  /** A preset (`instant`, `default`, `realistic`) and/or step durations in ms. */
  setTimings(timings: Partial<Timings> & { preset?: 'instant' | 'default' | 'realistic' }): Promise<ClockState> {
    return this.call('POST', '/clock/setTimings', timings);
  }

  saveSnapshot(name: string): Promise<Snapshot> {
    return this.call('POST', '/snapshots', { name });
  }

  async snapshots(): Promise<Snapshot[]> {
    return (await this.call<{ items: Snapshot[] }>('GET', '/snapshots')).items;
  }

  async restoreSnapshot(name: string): Promise<void> {
    await this.call('POST', `/snapshots/${encodeURIComponent(name)}/restore`);
  }

  async deleteSnapshot(name: string): Promise<void> {
    await this.call('POST', `/snapshots/${encodeURIComponent(name)}/remove`);
  }

  /** Back to the domain as it was created. */
  async reset(): Promise<void> {
    await this.call('POST', '/reset');
  }

  /** Requests the server answered, newest first. */
  async journal(filter: JournalFilter = {}): Promise<JournalEntry[]> {
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(filter)) if (v !== undefined) query.set(k, String(v));
    const q = query.toString();
    return (await this.call<{ items: JournalEntry[] }>('GET', `/journal${q ? `?${q}` : ''}`)).items;
  }

  async clearJournal(): Promise<void> {
    await this.call('POST', '/journal/clear');
  }
}
