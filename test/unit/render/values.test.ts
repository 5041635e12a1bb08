// Values as the wire shows them (src/render/values.ts): dates, references, secrets and defaults.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { defaultOf, fieldValue, isoDate, toWire, zeroOf } from '../../../src/render/values.js';
import { CFG, RT, beanAt, catalog, configRoot, smallDomain } from '../../support/small-tree.js';

const server = catalog.type(`${CFG}ServerMBean`);
const p = (name: string, type = server) => type.prop.get(name)!;
const edit = configRoot(smallDomain().tree);

test('a date is ISO-8601 with milliseconds and an offset, and reads back as the same instant', () => {
  assert.match(isoDate(Date.UTC(2026, 3, 27, 17, 2, 5, 748)), /^2026-04-2\dT\d\d:\d\d:05\.748[+-]\d\d:\d\d$/);
  fc.assert(
    fc.property(fc.integer({ min: 0, max: Date.UTC(2100, 0, 1) }), (ms) => {
      assert.equal(Date.parse(isoDate(ms)), ms);
      assert.match(isoDate(ms), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$/);
    }),
  );
});

test('dates read back right in zones with half-hour, negative and daylight-saving offsets', () => {
  const saved = process.env.TZ;
  try {
    for (const zone of ['UTC', 'Asia/Kolkata', 'America/St_Johns', 'Pacific/Chatham', 'Europe/Paris']) {
      process.env.TZ = zone;
      // Around the 2026 spring change in Europe and North America, and a plain day.
      for (const ms of [Date.UTC(2026, 2, 29, 0, 59, 59, 999), Date.UTC(2026, 2, 29, 1, 0, 0, 1), Date.UTC(2026, 2, 8, 6, 30), Date.UTC(2026, 6, 1)]) {
        assert.equal(Date.parse(isoDate(ms)), ms, `${zone} ${isoDate(ms)}`);
      }
    }
    process.env.TZ = 'America/St_Johns';
    assert.match(isoDate(Date.UTC(2026, 0, 1)), /-03:30$/);
    process.env.TZ = 'Asia/Kolkata';
    assert.match(isoDate(Date.UTC(2026, 0, 1)), /T05:30:00\.000\+05:30$/);
  } finally {
    if (saved === undefined) delete process.env.TZ;
    else process.env.TZ = saved;
  }
});

test('stored values map to JSON: reference lists as identities, dates as text, secrets as null', () => {
  assert.deepEqual(toWire(p('candidateMachines'), [['machines', 'm1']]), [{ identity: ['machines', 'm1'] }]);
  assert.deepEqual(toWire(p('cluster'), ['clusters', 'c1']), ['clusters', 'c1']);
  assert.deepEqual(toWire(p('candidateMachines'), null), [], 'an unset list of references is empty');
  assert.equal(toWire(p('cluster'), null), null);
  assert.equal(toWire(p('cluster'), undefined), null);
  const start = catalog.type(`${RT}ServerLifeCycleTaskRuntimeMBean`).prop.get('startTime')!;
  assert.equal(toWire(start, 0), isoDate(0));
  assert.equal(toWire(p('customIdentityKeyStorePassPhrase'), { $sealed: 'x' }), null);
  assert.equal(toWire(p('listenPort'), 7001), 7001);
});

test('an unset property shows its default, else the zero of its kind', () => {
  const ms1 = beanAt(edit, ['servers', 'ms1']);
  assert.equal(defaultOf(p('listenPort'), ms1, false), p('listenPort').defaultValue);
  assert.equal(defaultOf(p('type'), ms1, false), 'Server');
  assert.deepEqual(zeroOf(p('tags')), []);
  assert.equal(zeroOf(p('acceptBacklog')), 0);
  assert.equal(zeroOf(p('autoRestart')), false);
  assert.equal(zeroOf(p('listenAddress')), null);
});

test('production mode shows the production default where there is one', () => {
  const ms1 = beanAt(edit, ['servers', 'ms1']);
  const timeout = p('serverLifeCycleTimeoutVal');
  assert.equal(defaultOf(timeout, ms1, false), 30);
  assert.equal(defaultOf(timeout, ms1, true), 120);
  assert.equal(defaultOf(p('listenPort'), ms1, true), defaultOf(p('listenPort'), ms1, false));
});

test('a field is the live value, else the stored one, else the default', () => {
  const ms1 = beanAt(edit, ['servers', 'ms1']);
  assert.equal(fieldValue(p('listenPort'), ms1, undefined, false), 7003);
  assert.equal(fieldValue(p('listenPort'), ms1, { listenPort: 1 }, false), 1);
  assert.equal(fieldValue(p('acceptBacklog'), ms1, undefined, false), p('acceptBacklog').defaultValue);
  assert.equal(fieldValue(p('customIdentityKeyStorePassPhrase'), ms1, { customIdentityKeyStorePassPhrase: 'clear' }, false), null, 'never a secret, even live');
});
