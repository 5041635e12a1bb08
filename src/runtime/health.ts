// The "ok" health state every healthy subsystem shows. One frozen value per subsystem name, shared
// by every bean that shows it: a hundred running servers of five hundred applications each would
// otherwise hold a hundred thousand copies of the same four fields.
export interface HealthState {
  readonly state: string;
  readonly subsystemName: string | null;
  readonly partitionName: string | null;
  readonly symptoms: readonly unknown[];
}

const NO_SYMPTOMS: readonly unknown[] = Object.freeze([]);
const shared = new Map<string | null, HealthState>();

/** The healthy state of `subsystemName` (null: a bean's overall state). */
export function okHealth(subsystemName: string | null): HealthState {
  let health = shared.get(subsystemName);
  if (!health) {
    health = Object.freeze({ state: 'ok', subsystemName, partitionName: null, symptoms: NO_SYMPTOMS });
    // Some subsystem names carry a bean's name (a persistent store's): past a bound, values are
    // made afresh rather than kept, so names that come and go cannot grow the map without end.
    if (shared.size < 1024) shared.set(subsystemName, health);
  }
  return health;
}
