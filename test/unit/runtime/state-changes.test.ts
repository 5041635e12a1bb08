// The runtime state's writes compare its tables with what was last stored (src/runtime/state.ts
// stateChanges) instead of turning the whole state into entries: after any sequence of changes,
// the entries written must make exactly what the whole state's entries are, and name no entry
// that did not change.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { type RuntimeState, type ServerState, applyEntryChanges, emptyRuntimeState, snapshotState, stateChanges, stateToEntries } from '../../../src/runtime/state.js';

const NAMES = ['ms1', 'ms2', 'AdminServer', '__proto__', 'constructor', 'a/b', 'x"y'];
const name = fc.constantFrom(...NAMES);
const SERVER_STATES: ServerState[] = ['SHUTDOWN', 'RUNNING', 'ADMIN', 'STARTING', 'FAILED'];

type Step = (s: RuntimeState) => void;

/** One change as the runtime makes them: a value set, deleted, an object value replaced or changed in place, a table replaced. */
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.tuple(name, fc.constantFrom(...SERVER_STATES)).map(([n, v]): Step => (s) => void s.servers.set(n, v)),
  name.map((n): Step => (s) => void s.servers.delete(n)),
  fc.tuple(name, fc.constantFrom('RUNNING', 'SHUTDOWN', 'HALTED'), fc.constantFrom(null, 'HALTED', 'BOOTED')).map(([n, state, subState]): Step => (s) => void s.partitions.set(n, { state, subState })),
  name.map((n): Step => (s) => {
    // Changed in place: the write must still see it.
    const p = s.partitions.get(n);
    if (p) p.subState = p.subState === 'HALTED' ? 'BOOTED' : 'HALTED';
  }),
  name.map((n): Step => (s) => void s.partitions.delete(n)),
  fc.tuple(name, name, fc.constantFrom('RUNNING', 'ADMIN', 'BOOTED')).map(([p, srv, d]): Step => (s) => {
    const held = s.partitionServers.get(p) ?? new Map<string, string>();
    s.partitionServers.set(p, held);
    held.set(srv, d);
  }),
  fc.tuple(name, name).map(([p, srv]): Step => (s) => void s.partitionServers.get(p)?.delete(srv)),
  name.map((p): Step => (s) => void s.partitionServers.delete(p)),
  name.map((n): Step => (s) => void s.restartRequired.add(n)),
  name.map((n): Step => (s) => void s.restartRequired.delete(n)),
  fc.tuple(name, fc.constantFrom('STATE_ACTIVE', 'STATE_PREPARED', 'STATE_ADMIN')).map(([n, v]): Step => (s) => void s.applications.set(n, v)),
  fc.tuple(name, fc.boolean()).map(([n, v]): Step => (s) => void s.jmsPaused.set(n, v)),
  fc.tuple(name, fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 3 })).map(([n, t, at]): Step => (s) => void s.retirements.set(n, { timeoutSeconds: t, at })),
  name.map((n): Step => (s) => {
    const r = s.retirements.get(n);
    if (r) r.at += 1;
  }),
  fc.tuple(name, fc.constantFrom(7002, 8002, Number.NaN)).map(([n, v]): Step => (s) => void s.sslChannels.set(n, v)),
  fc.tuple(name, fc.integer({ min: 0, max: 2 })).map(([n, v]): Step => (s) => void s.runningSince.set(n, v)),
  name.map((n): Step => (s) => void s.runningSince.delete(n)),
  fc.constant<Step>((s) => void (s.servers = new Map(s.servers))),
  fc.constant<Step>((s) => void s.dataSources.clear()),
  fc.tuple(name, fc.constantFrom('Running', 'Suspended')).map(([n, v]): Step => (s) => void s.dataSources.set(`${n}//ds1`, v)),
);

test('the entries a write names bring what was stored to the whole state, and name only entries that differ', () => {
  fc.assert(
    fc.property(fc.array(fc.array(step, { maxLength: 6 }), { minLength: 1, maxLength: 8 }), (writes) => {
      const state = emptyRuntimeState();
      state.servers.set('AdminServer', 'RUNNING');
      const stored = snapshotState(state);
      // What a store holds: the entries of every write, applied in turn.
      const store = new Map(Object.entries(stateToEntries(state)).map(([k, v]) => [k, JSON.stringify(v)]));
      for (const steps of writes) {
        const before = new Map(store);
        for (const s of steps) s(state);
        const changes = stateChanges(stored, state);
        for (const c of changes) {
          assert.notEqual(JSON.stringify(c.before), JSON.stringify(c.after), `${c.key} is named but did not change`);
          assert.equal(JSON.stringify(c.before), before.get(c.key), `${c.key}: its value before is what was stored`);
          if (c.after === undefined) store.delete(c.key);
          else store.set(c.key, JSON.stringify(c.after));
        }
        applyEntryChanges(stored, changes);
        const whole = new Map(Object.entries(stateToEntries(state)).map(([k, v]) => [k, JSON.stringify(v)]));
        assert.deepEqual(store, whole);
        assert.deepEqual(stateChanges(stored, state), [], 'nothing is left to write');
      }
    }),
    { numRuns: 300 },
  );
});

test('an entry in any table of the state is written', () => {
  const state = emptyRuntimeState();
  const tables = Object.entries(state) as [string, unknown][];
  for (const [, table] of tables) {
    if (table instanceof Set) table.add('x');
    else if (table instanceof Map) table.set('x', table === state.partitionServers ? new Map([['y', 'RUNNING']]) : 'value');
  }
  const changes = stateChanges(emptyRuntimeState(), state);
  assert.equal(changes.length, tables.length, JSON.stringify(changes.map((c) => c.key)));
  assert.deepEqual(new Set(changes.map((c) => c.key)), new Set(Object.keys(stateToEntries(state))));
});
