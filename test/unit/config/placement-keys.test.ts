// Items are grouped by their target list before they are placed on servers (src/config/topology.ts):
// two different lists must never share a group, however their names are made. The servers' names
// here are made of the characters and words a group key could be written with (':' ';' ',' '"',
// digits, the collection's name), so lists that a careless key would confuse — one server named
// 'a:;servers:b' against the two servers 'a' and 'b' — are targeted side by side.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { Topology } from '../../../src/config/topology.js';
import { BeanTree } from '../../../src/tree/records.js';

const SERVERS = ['a', 'b', 'a:;servers:b', 'a;serversb', 'a;b', '1:a', '1:a1:b', '1:a;1:b', 'a,b', 'a","b', 'servers', 'a/b'];
/** Lists a key made by joining names with separators would confuse with ['a', 'b']. */
const LOOKALIKES = [['a', 'b'], ['a:;servers:b'], ['a;serversb'], ['a;b'], ['1:a;1:b'], ['a,b'], ['a","b'], ['a/b']];

test('items targeted to different lists are placed by their own list, whatever the names', () => {
  const list = fc.oneof(fc.constantFrom(...LOOKALIKES), fc.uniqueArray(fc.constantFrom(...SERVERS), { minLength: 1, maxLength: 3 }));
  fc.assert(
    fc.property(fc.array(list, { minLength: 2, maxLength: 10 }), (lists) => {
      const t = new BeanTree();
      t.setRoot({ type: 'Domain', values: { name: 'd', adminServerName: 'a' } });
      for (const s of SERVERS) t.putItem('', 'servers', s, { type: 'Server', values: {} });
      lists.forEach((servers, i) => t.putItem('', 'appDeployments', `app${i}`, { type: 'App', values: { targets: servers.map((s) => ['servers', s]) } }));
      const topology = new Topology(t);
      for (const s of SERVERS) {
        const placed = topology.placedOn('appDeployments', s).map((a) => a.name);
        const expected = lists.flatMap((servers, i) => (servers.includes(s) ? [`app${i}`] : []));
        assert.deepEqual(placed, expected, `placed on ${JSON.stringify(s)}`);
      }
    }),
    { numRuns: 500 },
  );
});
