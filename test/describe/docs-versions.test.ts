// The API reference page offers the version segments of the domain it is served for, taken from
// the catalog's list of product versions: `latest`, the domain's release and every older one
// (newest first), and the deprecated 12.2.1.0. A release left out of the list, or one listed that
// the server does not serve, fails here; each listed segment serves its document.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { PRODUCT_VERSIONS } from '../../src/catalog/versions.js';
import { type RuntimeServer, request, startRuntimeServer } from '../support/runtime-server.js';

const started: RuntimeServer[] = [];
after(async () => {
  for (const s of started) await s.stop(true).catch(() => undefined);
});

/** The versions the page's start script offers. */
async function pageVersions(srv: RuntimeServer): Promise<string[]> {
  const start = await request(`${srv.origin}/management/appserver/docs/reference.js`);
  assert.equal(start.status, 200, start.text.slice(0, 200));
  const list = /var versions = \[([^\]]*)\]/.exec(start.text);
  assert.ok(list, 'the start script lists its versions');
  return list[1]!.split(',').map((v) => v.trim().replace(/'/g, ''));
}

for (const version of ['12.2.1.4.0', '15.1.1.0.0']) {
  test(`the reference page of a ${version} domain offers latest, ${version} and every older release, and 12.2.1.0; each serves its document`, { timeout: 60_000 }, async () => {
    const srv = await startRuntimeServer(undefined, undefined, { productVersion: version });
    started.push(srv);
    const offered = await pageVersions(srv);
    // Every release of the catalog's list up to the domain's, none after it.
    const releases = PRODUCT_VERSIONS.filter((v) => PRODUCT_VERSIONS.indexOf(v) <= PRODUCT_VERSIONS.indexOf(version as (typeof PRODUCT_VERSIONS)[number]));
    assert.deepEqual(offered, ['latest', ...[...releases].reverse(), '12.2.1.0']);
    for (const v of PRODUCT_VERSIONS) assert.equal(offered.includes(v), releases.includes(v), `${v} offered by the page of a ${version} domain`);
    for (const segment of offered) {
      const doc = await request(`${srv.origin}/management/appserver/${segment}/openapi.json?tree=versions`);
      assert.equal(doc.status, 200, `${segment}: ${doc.text.slice(0, 200)}`);
      assert.equal(typeof doc.json?.openapi, 'string', segment);
    }
    // A release newer than the domain's names nothing.
    const newer = PRODUCT_VERSIONS.find((v) => !releases.includes(v));
    if (newer) assert.equal((await request(`${srv.origin}/management/appserver/${newer}/openapi.json?tree=versions`)).status, 404, newer);
  });
}
