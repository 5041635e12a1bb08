// The state machines lifecycle beans follow: for each operation, the states it starts from, the
// transitional state it passes through, the state it ends in, and the states in which it has
// nothing to do. Registered on the lifecycle runtime types, so a type can say which states and
// transitions it has; the runtime's lifecycles run these very tables.
import type { TypeDef } from '../catalog/model.js';
import { BehaviourKind, type BehaviourRegistry } from './registry.js';

/** Which of the runtime's step durations a transition takes. */
export type StepTiming = 'serverStart' | 'serverShutdown' | 'serverSuspend' | 'partition' | 'resourceGroup';

export interface Transition {
  from: readonly string[];
  via: string;
  to: string;
  /** `operation` field of the task. */
  operation: string;
  /** `description` field of the task, for the bean named `subject`. */
  describe: (subject: string) => string;
  timing: StepTiming;
  /**
   * States in which the operation has nothing to do. A server's task then fails at once naming the
   * state (as the real product's does); a partition's or resource group's completes at once, as the
   * product's do (operations.md B.3).
   */
  already?: readonly string[];
}

export interface StateMachine {
  /** Every state the machine knows, in the order its transitions first name them. */
  states: readonly string[];
  /** Transitions by the name of the operation (the REST action) that asks for them. */
  transitions: ReadonlyMap<string, Transition>;
}

/** `others`: states a machine reaches outside its table (a forced restart, for instance). */
function machine(table: Record<string, Transition>, others: readonly string[] = []): StateMachine {
  const states = new Set<string>();
  for (const t of Object.values(table)) for (const s of [...t.from, t.via, t.to, ...(t.already ?? [])]) states.add(s);
  for (const s of others) states.add(s);
  return Object.freeze({ states: Object.freeze([...states]), transitions: new Map(Object.entries(table)) });
}

export const SERVER_LIFECYCLE = machine({
  start: { from: ['SHUTDOWN', 'FAILED'], via: 'STARTING', to: 'RUNNING', operation: 'start', describe: (s) => `Starting ${s} server ...`, timing: 'serverStart', already: ['RUNNING'] },
  startInAdmin: { from: ['SHUTDOWN', 'FAILED'], via: 'STARTING', to: 'ADMIN', operation: 'startInAdmin', describe: (s) => `Starting ${s} server in admin mode ...`, timing: 'serverStart', already: ['ADMIN'] },
  startInStandby: { from: ['SHUTDOWN', 'FAILED'], via: 'STARTING', to: 'STANDBY', operation: 'startInStandby', describe: (s) => `Starting ${s} server in standby mode ...`, timing: 'serverStart', already: ['STANDBY'] },
  resume: { from: ['ADMIN', 'STANDBY'], via: 'RESUMING', to: 'RUNNING', operation: 'resume', describe: (s) => `Resuming ${s} server ...`, timing: 'serverSuspend' },
  suspend: { from: ['RUNNING'], via: 'SUSPENDING', to: 'ADMIN', operation: 'suspendWithTimeout', describe: (s) => `suspending ${s} server ...`, timing: 'serverSuspend', already: ['ADMIN'] },
  forceSuspend: { from: ['RUNNING', 'SUSPENDING'], via: 'FORCE_SUSPENDING', to: 'ADMIN', operation: 'forceSuspend', describe: (s) => `Forcefully suspending ${s} server ...`, timing: 'serverSuspend', already: ['ADMIN'] },
  shutdown: { from: ['RUNNING', 'ADMIN', 'STANDBY', 'SUSPENDING', 'RESUMING'], via: 'SHUTTING_DOWN', to: 'SHUTDOWN', operation: 'shutdown', describe: (s) => `Shutting down ${s} server ...`, timing: 'serverShutdown' },
  forceShutdown: { from: ['RUNNING', 'ADMIN', 'STANDBY', 'SUSPENDING', 'RESUMING', 'STARTING', 'SHUTTING_DOWN', 'FORCE_SUSPENDING', 'FAILED'], via: 'FORCE_SHUTTING_DOWN', to: 'SHUTDOWN', operation: 'forceShutdown', describe: (s) => `Forcefully shutting down ${s} server ...`, timing: 'serverShutdown' },
});

const SHUT = ['HALTED', 'BOOTED'];
export const PARTITION_LIFECYCLE = machine(
  {
    start: { from: SHUT, via: 'STARTING', to: 'RUNNING', operation: 'START', describe: (p) => `Starting ${p}`, timing: 'partition', already: ['RUNNING'] },
    startInAdmin: { from: SHUT, via: 'STARTING_IN_ADMIN', to: 'ADMIN', operation: 'ADMIN', describe: (p) => `Starting ${p} in admin mode`, timing: 'partition', already: ['ADMIN'] },
    boot: { from: ['HALTED'], via: 'BOOTING', to: 'BOOTED', operation: 'BOOT', describe: (p) => `Booting ${p}`, timing: 'partition', already: ['BOOTED'] },
    halt: { from: ['RUNNING', 'ADMIN', 'BOOTED'], via: 'HALTING', to: 'HALTED', operation: 'HALT', describe: (p) => `Halting ${p}`, timing: 'partition', already: ['HALTED'] },
    shutdown: { from: ['RUNNING', 'ADMIN'], via: 'SHUTTING_DOWN', to: 'BOOTED', operation: 'SHUTDOWN', describe: (p) => `Shutting down ${p}`, timing: 'partition', already: SHUT },
    forceShutdown: { from: ['RUNNING', 'ADMIN', 'STARTING', 'STARTING_IN_ADMIN', 'SUSPENDING', 'RESUMING'], via: 'FORCE_SHUTTING_DOWN', to: 'BOOTED', operation: 'FORCE_SHUTDOWN', describe: (p) => `Force Shutting down ${p}`, timing: 'partition', already: SHUT },
    suspend: { from: ['RUNNING'], via: 'SUSPENDING', to: 'ADMIN', operation: 'SUSPEND', describe: (p) => `Suspending ${p}`, timing: 'partition', already: ['ADMIN'] },
    forceSuspend: { from: ['RUNNING', 'SUSPENDING'], via: 'FORCE_SUSPENDING', to: 'ADMIN', operation: 'FORCE_SUSPEND', describe: (p) => `Force Suspending ${p}`, timing: 'partition', already: ['ADMIN'] },
    resume: { from: ['ADMIN'], via: 'RESUMING', to: 'RUNNING', operation: 'RESUME', describe: (p) => `Resuming ${p}`, timing: 'partition', already: ['RUNNING'] },
  },
  // A forced restart on one server passes through FORCE_RESTARTING, then HALTED, back to where it was.
  ['FORCE_RESTARTING'],
);

export const RESOURCE_GROUP_LIFECYCLE = machine({
  start: { from: ['SHUTDOWN'], via: 'STARTING', to: 'RUNNING', operation: 'START', describe: (g) => `Starting ${g}`, timing: 'resourceGroup', already: ['RUNNING'] },
  startInAdmin: { from: ['SHUTDOWN'], via: 'STARTING_IN_ADMIN', to: 'ADMIN', operation: 'ADMIN', describe: (g) => `Starting ${g} in admin mode`, timing: 'resourceGroup', already: ['ADMIN'] },
  shutdown: { from: ['RUNNING', 'ADMIN'], via: 'SHUTTING_DOWN', to: 'SHUTDOWN', operation: 'SHUTDOWN', describe: (g) => `Shutting down ${g}`, timing: 'resourceGroup', already: ['SHUTDOWN'] },
  forceShutdown: { from: ['RUNNING', 'ADMIN', 'STARTING', 'SUSPENDING', 'RESUMING'], via: 'FORCE_SHUTTING_DOWN', to: 'SHUTDOWN', operation: 'FORCE_SHUTDOWN', describe: (g) => `Force Shutting down ${g}`, timing: 'resourceGroup', already: ['SHUTDOWN'] },
  suspend: { from: ['RUNNING'], via: 'SUSPENDING', to: 'ADMIN', operation: 'SUSPEND', describe: (g) => `Suspending ${g}`, timing: 'resourceGroup', already: ['ADMIN'] },
  forceSuspend: { from: ['RUNNING', 'SUSPENDING'], via: 'FORCE_SUSPENDING', to: 'ADMIN', operation: 'FORCE_SUSPEND', describe: (g) => `Force Suspending ${g}`, timing: 'resourceGroup', already: ['ADMIN'] },
  resume: { from: ['ADMIN'], via: 'RESUMING', to: 'RUNNING', operation: 'RESUME', describe: (g) => `Resuming ${g}`, timing: 'resourceGroup', already: ['RUNNING'] },
});

const MACHINE = new BehaviourKind<StateMachine>('state machine');

const R = 'appserver.management.runtime.';

export function registerStateMachines(registry: BehaviourRegistry): void {
  registry.register(MACHINE, `${R}ServerLifeCycleRuntimeMBean`, SERVER_LIFECYCLE);
  registry.register(MACHINE, `${R}PartitionLifeCycleRuntimeMBean`, PARTITION_LIFECYCLE);
  registry.register(MACHINE, `${R}ResourceGroupLifeCycleRuntimeMBean`, RESOURCE_GROUP_LIFECYCLE);
}

/** The state machine beans of the type follow, if they follow one. */
export function stateMachineOf(registry: BehaviourRegistry, type: TypeDef): StateMachine | undefined {
  return registry.find(MACHINE, type);
}
