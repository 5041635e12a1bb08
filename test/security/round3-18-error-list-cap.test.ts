// Round 3, item 18: a body with tens of thousands of faults. An error lists at most 100 problems and
// then says how many there were in all, so a 1 MB body of 90,000 unknown keys gets an answer of a few
// kilobytes, not 22 MB; the refused write changes nothing; an action called with thousands of
// argument names does not repeat them all back; a list of 20,000 missing references names ten and
// counts the rest, and a key of 60,000 characters is shown in part.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AUTHN, changeManager, type Client, errorItems, serverForTests } from '../support/edit.js';
import { type TestServer } from '../support/server.js';

let srv: TestServer;
let admin: Client;
serverForTests((started, administrator) => {
  srv = started;
  admin = administrator;
});

/** The `i`-th key no server has: `k0`, `k1`... (base 36, so that 90,000 of them fit in 1 MB). */
const key = (i: number) => `k${i.toString(36)}`;

/** A JSON object text of `n` keys no server has, each set to 1. */
function unknownKeys(n: number, extra = ''): string {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(`"${key(i)}":1`);
  return `{${extra}${parts.join(',')}}`;
}

test('item 18: 90,000 unknown keys give at most 100 problems and the total, and change nothing', async () => {
  const body = unknownKeys(90_000, '"notes":"not kept",');
  assert.ok(body.length < 1024 * 1024, `the body is ${body.length} bytes`);
  const before = (await admin.get('serverConfig/servers/ms1?links=none&fields=notes')).json.notes;
  const r = await admin.post('edit/servers/ms1', body);
  const items = errorItems(r, 400, '90,000 unknown keys');
  assert.equal(items.length, 101, `${items.length} problems listed`);
  for (const [i, item] of items.slice(0, 100).entries()) {
    assert.equal(item.path, key(i), `problem ${i} names its key`);
    assert.ok(item.detail.endsWith(`has no property '${key(i)}'.`), item.detail);
  }
  assert.match(items[100]!.detail, /^90000 problems in all; the first 100 are listed\.$/);
  assert.ok(r.text.length < 64 * 1024, `the error is ${r.text.length} bytes`);
  // Nothing was written, not even the one valid property the body carried.
  assert.equal((await admin.get('serverConfig/servers/ms1?links=none&fields=notes')).json.notes, before);
  assert.equal((await admin.get('edit/servers/ms1?links=none&fields=notes')).json.notes, before);
  assert.equal((await changeManager(admin)).locked, false);
});

test('item 18: up to 100 problems are listed as they are, without a count', async () => {
  const r = await admin.post('edit/servers/ms1', unknownKeys(100));
  const items = errorItems(r, 400, '100 unknown keys');
  assert.equal(items.length, 100);
  assert.ok(items.every((i) => /has no property/.test(i.detail)));
  const two = errorItems(await admin.post('edit/servers/ms1', unknownKeys(101)), 400, '101 unknown keys');
  assert.equal(two.length, 101);
  assert.match(two[100]!.detail, /^101 problems in all; the first 100 are listed\.$/);
});

test('item 18: an action called with thousands of argument names names a few of them', async () => {
  const r = await admin.post(`${AUTHN}/userExists`, unknownKeys(3000));
  const items = errorItems(r, 400, 'userExists with 3,000 arguments');
  assert.equal(items.length, 1);
  assert.match(items[0]!.detail, /the arguments k0, k1, .* and 2980 more; valid signatures are: userExists\(userName: string\)/);
  assert.ok(r.text.length < 4096, `the error is ${r.text.length} bytes`);
});

test('item 18: 20,000 missing references name ten and count the rest; a 60,000-character key is shown in part', async () => {
  assert.equal((await admin.post('edit/JDBCSystemResources', { name: 'r3-18-ds' })).status, 201);
  const targets = Array.from({ length: 20_000 }, (_, i) => ['servers', `nowhere${i}`]);
  const r = await admin.post('edit/JDBCSystemResources/r3-18-ds', { targets });
  const [item] = errorItems(r, 400, '20,000 missing targets');
  assert.equal(item!.path, 'targets');
  assert.match(item!.detail, /refers to \["servers","nowhere0"\], .*\["servers","nowhere9"\] and 19990 more, which does not exist or is not a Target\.$/);
  assert.ok(r.text.length < 4096, `the error is ${r.text.length} bytes`);
  const long = `k${'y'.repeat(60_000)}`;
  const two = await admin.post('edit/servers/ms1', { [long]: 1, [`${long}2`]: 2 });
  const items = errorItems(two, 400, 'two keys of 60,000 characters');
  assert.equal(items.length, 2);
  for (const i of items) {
    assert.match(i.path!, /^kyyy.*… \(6000[12] characters in all\)$/);
    assert.match(i.detail, /^Server has no property 'kyyy.*… \(600\d\d characters in all\)$/);
  }
  assert.ok(two.text.length < 8192, `the error is ${two.text.length} bytes`);
  assert.equal((await admin.get('edit/JDBCSystemResources/r3-18-ds?links=none&fields=targets')).json.targets.length, 0);
});
