// JMS on the running servers: each JMS server runs on the server it is targeted to, and hosts the
// queues and topics of the domain's JMS modules whose sub-deployment targets it (destination
// `<module>!<name>`). Production, insertion and consumption can be paused and resumed on a JMS
// server (all its destinations) or on one destination; what was paused is kept in the runtime
// state until the server stops, and a JMS server or destination nobody paused or resumed follows
// its configuration's `*PausedAtStartup`. Message figures come from the workload model (figures.ts).
import type { NamedBean, Topology } from '../config/topology.js';
import type { BeanRef, TreeBuilder } from '../tree/builder.js';
import type { RuntimeState } from './state.js';
import { okHealth } from './health.js';

export type PauseKind = 'production' | 'insertion' | 'consumption';
export const PAUSE_KINDS: readonly PauseKind[] = ['production', 'insertion', 'consumption'];

const LABEL: Record<PauseKind, string> = { production: 'Production', insertion: 'Insertion', consumption: 'Consumption' };

export interface HostedDestination {
  /** `<module>!<destination>` */
  name: string;
  type: 'Queue' | 'Topic';
  /** The destination's configuration (in the module's JMSResource). */
  values: Record<string, unknown>;
}

/** Key of a pause flag in the runtime state: the JMS server, and the destination if any. */
export function pauseKey(jmsServer: string, destination: string | undefined, kind: PauseKind): string {
  return JSON.stringify(destination === undefined ? [jmsServer, kind] : [jmsServer, destination, kind]);
}

export class Messaging {
  constructor(
    private readonly state: RuntimeState,
    private readonly changed: () => void,
  ) {}

  /** The JMS servers that run on `server`. */
  jmsServersOn(t: Topology, server: string): NamedBean[] {
    return [...t.placedOn('JMSServers', server)];
  }

  /** Destinations of the domain's JMS modules placed on a JMS server through their sub-deployments. */
  destinationsOf(t: Topology, jmsServer: string): HostedDestination[] {
    const out: HostedDestination[] = [];
    for (const module of t.items([], 'JMSSystemResources')) {
      for (const [collection, type] of [['queues', 'Queue'], ['topics', 'Topic']] as const) {
        for (const d of t.items([...module.identity, 'JMSResource'], collection)) {
          const sub = d.values.subDeploymentName;
          if (typeof sub !== 'string') continue;
          const targets = t.bean([...module.identity, 'subDeployments', sub])?.values.targets;
          if (Array.isArray(targets) && (targets as string[][]).some((id) => id[0] === 'JMSServers' && id[1] === jmsServer)) {
            out.push({ name: `${module.name}!${d.name}`, type, values: d.values });
          }
        }
      }
    }
    return out;
  }

  /** Adds the JMS runtime of a server's tree: its JMS servers and their destinations. */
  build(b: TreeBuilder, root: BeanRef, t: Topology, server: string): void {
    const hosted = this.jmsServersOn(t, server);
    if (hosted.length === 0) return;
    const jms = b.singleton(root, 'JMSRuntime', { healthState: okHealth('JMS') });
    for (const j of hosted) {
      const ref = b.item(jms, 'JMSServers', j.name, { healthState: okHealth('JMSServer') });
      for (const d of this.destinationsOf(t, j.name)) b.item(ref, 'destinations', d.name, { destinationType: d.type, state: 'advertised_in_local_jndi' });
    }
  }

  /** Whether a kind of activity is paused: as last set, else as the configuration starts it. */
  paused(t: Topology, jmsServer: string, destination: string | undefined, kind: PauseKind): boolean {
    const set = this.state.jmsPaused.get(pauseKey(jmsServer, destination, kind));
    if (set !== undefined) return set;
    if (destination === undefined) return t.bean(['JMSServers', jmsServer])?.values[`${kind}PausedAtStartup`] === 'true';
    return this.destinationsOf(t, jmsServer).find((d) => d.name === destination)?.values[`${kind}PausedAtStartup`] === true;
  }

  /** Told of each pause or resume before it takes effect (the workload model keeps when insertion stood still). */
  onPause: (jmsServer: string, destination: string | undefined, kind: PauseKind, paused: boolean) => void = () => {};

  setPaused(jmsServer: string, destination: string | undefined, kind: PauseKind, paused: boolean): void {
    this.onPause(jmsServer, destination, kind, paused);
    this.state.jmsPaused.set(pauseKey(jmsServer, destination, kind), paused);
    this.changed();
  }

  /** Forgets what was paused where `which` says (a server stopped, a module restarted). */
  forget(which: (jmsServer: string, destination: string | undefined) => boolean): void {
    let any = false;
    for (const key of [...this.state.jmsPaused.keys()]) {
      const parts = JSON.parse(key) as string[];
      if (!which(parts[0]!, parts.length === 3 ? parts[1] : undefined)) continue;
      this.state.jmsPaused.delete(key);
      any = true;
    }
    if (any) this.changed();
  }

  /** What a JMS server or destination runtime shows of its pause states (a destination is paused with its server). */
  live(t: Topology, jmsServer: string, destination?: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const kind of PAUSE_KINDS) {
      const paused = this.paused(t, jmsServer, destination, kind) || (destination !== undefined && this.paused(t, jmsServer, undefined, kind));
      out[`${kind}Paused`] = paused;
      out[`${kind}PausedState`] = `${LABEL[kind]}-${paused ? 'Paused' : 'Enabled'}`;
    }
    return out;
  }
}
