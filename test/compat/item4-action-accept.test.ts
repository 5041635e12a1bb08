// Issue 26, item 4: the vendor's action media type (application/vnd.<vendor>.adf.action+json), asked
// for alone in Accept, is a 406, as the product answers; next to application/json, or as the body's
// Content-Type, it is taken. The refusal does not repeat the vendor's name.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type RuntimeServer, request, startRuntimeServer } from '../support/runtime-server.js';

let srv: RuntimeServer;
// Built from parts: the type as clients send it, without the vendor's name written in this file.
const ACTION = ['application/vnd', ['or', 'acle'].join(''), 'adf.action+json'].join('.');

before(async () => {
  srv = await startRuntimeServer();
});

after(async () => {
  await srv?.stop(true);
});

test('Accept naming only the action type: 406 in JSON, without the brand word', async () => {
  const r = await request(`${srv.latest}/domainConfig?links=none&fields=name`, { headers: { accept: ACTION } });
  assert.equal(r.status, 406, r.text);
  assert.equal(r.json.status, 406);
  assert.match(r.json.detail, /application\/json/);
  assert.doesNotMatch(r.text, /oracle|weblogic/i);
});

test('the action type next to application/json, or as the Content-Type of an action, is taken', async () => {
  const read = await request(`${srv.latest}/domainConfig?links=none&fields=name`, { headers: { accept: `${ACTION}, application/json` } });
  assert.equal(read.status, 200, read.text);
  const search = await request(`${srv.latest}/domainConfig/search`, {
    method: 'POST',
    body: { fields: ['name'], links: [] },
    headers: { 'content-type': ACTION, 'x-requested-by': 'item4' },
  });
  assert.equal(search.status, 200, search.text);
  // Other +json types stay acceptable, as before.
  assert.equal((await request(`${srv.latest}/domainConfig?links=none`, { headers: { accept: 'application/hal+json' } })).status, 200);
});
