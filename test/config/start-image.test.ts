// A clean stop leaves an image of the activated configuration (one JSON text, SQLite), and the next
// start reads that instead of a row per bean. What a start reads must always be what the rows say:
// any write of the rows, by the server or from outside it, drops the image; an image that is not
// sound is dropped and the rows read.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { imageReader } from '../../src/store/images.js';
import type { StoredBean } from '../../src/store/store.js';
import { openStore } from '../../src/store/open.js';
import { client } from '../support/edit.js';
import { onPostgres, storeQuery } from '../support/store.js';
import { startTestServer } from '../support/server.js';

const imageCount = async (dir: string) => (await storeQuery<{ n: number }>(dir, "SELECT count(*) AS n FROM images WHERE tree = 'config'"))[0]!.n;

/** The configuration's beans as rows say them, parsed one by one. */
async function rowBeans(dir: string): Promise<StoredBean[]> {
  const rows = await storeQuery<{ key: string; collection: string | null; name: string | null; ord: number; type: string; data: string }>(
    dir,
    "SELECT key, collection, name, ord, type, data FROM beans WHERE tree = 'config' ORDER BY ord, key",
  );
  return rows.map((r) => ({ key: r.key, collection: r.collection, name: r.name, ord: Number(r.ord), type: r.type, values: JSON.parse(r.data) }));
}

/** The configuration's beans as the store gives them to a start. */
async function storeBeans(dir: string): Promise<StoredBean[]> {
  const store = openStore(dir);
  await store.open();
  try {
    const out: StoredBean[] = [];
    await store.readTree('config', (key, collection, name, ord, type, values) => out.push({ key, collection, name, ord, type, values }));
    return out.sort((a, b) => a.ord - b.ord || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  } finally {
    await store.close();
  }
}

describe('the start-up image of the configuration', { skip: onPostgres() && 'images are kept by SQLite stores only' }, () => {
  test('a clean stop leaves one; a start reads the same beans as the rows hold, and any write drops it', async () => {
    let srv = await startTestServer();
    try {
      let admin = client(() => srv.latest);
      // A value of every kind the configuration holds: text with quotes and non-ASCII, numbers, a
      // reference, a list, and a sealed password.
      assert.equal((await admin.post('edit/changeManager/startEdit', {})).status, 200);
      assert.equal((await admin.post('edit/servers', { name: 'imaged-ü', listenPort: 7311, notes: 'line\nnext "quoted" \u2028' })).status, 201);
      assert.equal((await admin.post('edit/clusters', { name: 'c-image' })).status, 201);
      assert.equal((await admin.post(`edit/servers/${encodeURIComponent('imaged-ü')}`, { cluster: ['clusters', 'c-image'] })).status, 200);
      assert.equal((await admin.post('edit/changeManager/activate', {})).status, 200);
      assert.equal(await imageCount(srv.dataDir), 0, 'a running server keeps no image');
      const before = (await admin.get('domainConfig/servers?links=none')).json;

      await srv.stop();
      assert.equal(await imageCount(srv.dataDir), 1, 'the stop left an image');
      assert.deepEqual(await storeBeans(srv.dataDir), await rowBeans(srv.dataDir), 'the image says what the rows say');

      srv = await startTestServer(srv.dataDir);
      admin = client(() => srv.latest);
      assert.deepEqual((await admin.get('domainConfig/servers?links=none')).json, before, 'the servers read back unchanged from the image');
      assert.equal(await imageCount(srv.dataDir), 1, 'a start that changes nothing keeps it');

      // An activation writes rows: the image goes in the same transaction.
      assert.equal((await admin.post('edit/changeManager/startEdit', {})).status, 200);
      assert.equal((await admin.post('edit/servers/ms1', { listenPort: 7399 })).status, 200);
      assert.equal((await admin.post('edit/changeManager/activate', {})).status, 200);
      assert.equal(await imageCount(srv.dataDir), 0, 'the activation dropped the image');
      await srv.stop();
      assert.equal(await imageCount(srv.dataDir), 1);

      // A change of the rows from outside the server (a hand edit, an older tool) drops it too.
      const ms2 = (await storeQuery<{ data: string }>(srv.dataDir, "SELECT data FROM beans WHERE tree = 'config' AND key = 'servers/ms2'"))[0]!;
      await storeQuery(srv.dataDir, "UPDATE beans SET data = ? WHERE tree = 'config' AND key = 'servers/ms2'", [JSON.stringify({ ...JSON.parse(ms2.data), listenPort: 7398 })]);
      assert.equal(await imageCount(srv.dataDir), 0, 'an update of a row dropped the image');
      srv = await startTestServer(srv.dataDir);
      admin = client(() => srv.latest);
      assert.equal((await admin.get('domainConfig/servers/ms2?links=none')).json.listenPort, 7398, 'the start read the rows');
      assert.equal((await admin.get('domainConfig/servers/ms1?links=none')).json.listenPort, 7399);
      await srv.stop();
      const cluster = (await storeQuery<{ type: string; ord: number }>(srv.dataDir, "SELECT type, ord FROM beans WHERE tree = 'config' AND key = 'clusters/c-image'"))[0]!;
      await storeQuery(srv.dataDir, "INSERT INTO beans (tree, key, collection, name, ord, type, data) VALUES ('config', 'clusters/c-extra', 'clusters', 'c-extra', ?, ?, ?)", [
        Number(cluster.ord) + 1000,
        cluster.type,
        JSON.stringify({ name: 'c-extra' }),
      ]);
      assert.equal(await imageCount(srv.dataDir), 0, 'an insert of a row dropped the image');
      srv = await startTestServer(srv.dataDir);
      assert.equal((await client(() => srv.latest).get('domainConfig/clusters/c-extra?links=none')).status, 200, 'the start read the new row');
      await srv.stop();
      assert.equal(await imageCount(srv.dataDir), 1);
      await storeQuery(srv.dataDir, "DELETE FROM beans WHERE tree = 'config' AND key = 'clusters/c-extra'");
      assert.equal(await imageCount(srv.dataDir), 0, 'a delete of a row dropped the image');
      srv = await startTestServer(srv.dataDir);
      assert.equal((await client(() => srv.latest).get('domainConfig/clusters/c-extra?links=none')).status, 404, 'the start read the rows without it');
      await srv.stop();
      await storeQuery(srv.dataDir, "INSERT INTO beans (tree, key, collection, name, ord, type, data) VALUES ('other', 'x', NULL, NULL, 0, 't', '{}')");
      assert.equal(await imageCount(srv.dataDir), 1, 'a row of another tree leaves the configuration image alone');
      await storeQuery(srv.dataDir, "DELETE FROM beans WHERE tree = 'other'");
    } finally {
      await srv.stop(true);
    }
  });

  test('an image that is not sound is dropped, and the start reads the rows', async () => {
    let srv = await startTestServer();
    try {
      const before = (await client(() => srv.latest).get('domainConfig/servers?links=none')).json;
      for (const data of ['{"words":[],"beans":[1,2,3,4,5,6]}', 'not json', '{"words":["a"],"beans":["k",null,null,0,0]}', '[]']) {
        await srv.stop();
        await storeQuery(srv.dataDir, "UPDATE images SET data = ? WHERE tree = 'config'", [data]);
        srv = await startTestServer(srv.dataDir);
        assert.deepEqual((await client(() => srv.latest).get('domainConfig/servers?links=none')).json, before, `after an image of ${data}`);
      }
    } finally {
      await srv.stop(true);
    }
  });
});

describe('reading an image', () => {
  const beans = (text: string) => {
    const reader = imageReader(text);
    if (!reader) return undefined;
    const out: unknown[][] = [];
    reader((...bean) => out.push(bean));
    return out;
  };

  test('puts each bean with its words in place', () => {
    const text = JSON.stringify({ words: ['servers', 'T.Domain', 'T.Server'], beans: ['', null, null, 0, 1, { name: 'd' }, 'servers/a%2Fb', 0, 'a/b', 3, 2, { listenPort: 1 }] });
    assert.deepEqual(beans(text), [
      ['', null, null, 0, 'T.Domain', { name: 'd' }],
      ['servers/a%2Fb', 'servers', 'a/b', 3, 'T.Server', { listenPort: 1 }],
    ]);
  });

  test('refuses every shape it does not write, putting nothing', () => {
    const bean = ['k', null, null, 0, 0, {}];
    const hostile: unknown[] = [
      null,
      [],
      { words: ['T'] },
      { words: 'T', beans: bean },
      { words: [1], beans: bean },
      { words: ['T'], beans: bean.slice(0, 5) },
      { words: ['T'], beans: [...bean, 'extra'] },
      { words: ['T'], beans: ['k', null, null, 0, 1, {}] },
      { words: ['T'], beans: ['k', null, null, 0, -1, {}] },
      { words: ['T'], beans: ['k', null, null, 0, 0.5, {}] },
      { words: ['T'], beans: ['k', null, null, 0, '0', {}] },
      { words: ['T'], beans: ['k', 7, null, 0, 0, {}] },
      { words: ['T'], beans: ['k', null, 5, 0, 0, {}] },
      { words: ['T'], beans: [5, null, null, 0, 0, {}] },
      { words: ['T'], beans: ['k', null, null, '0', 0, {}] },
      { words: ['T'], beans: ['k', null, null, 0, 0, []] },
      { words: ['T'], beans: ['k', null, null, 0, 0, null] },
      { words: ['T'], beans: ['k', null, null, 0, 0, 'v'] },
      { words: ['T'], beans: [...bean, 'k2', null, null, 1, 0, 3] },
    ];
    for (const shape of hostile) assert.equal(beans(JSON.stringify(shape)), undefined, JSON.stringify(shape));
    for (const text of ['', '{', '{"words":[],"beans":[]', '\u0000', '['.repeat(100_000) + ']'.repeat(100_000)]) assert.equal(beans(text), undefined, text.slice(0, 20));
  });
});
