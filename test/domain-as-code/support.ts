// Helpers of the domain-as-code tests: changes made over REST in an edit session of their own, as
// the console makes them.
import assert from 'node:assert/strict';
import type { Client } from '../support/runtime-server.js';

/** Runs `change` in an edit session and activates it; any refused request fails the test. */
export async function inSession(admin: Client, change: (c: Client) => Promise<void>): Promise<void> {
  const checked: Client = {
    ...admin,
    post: async (path, body, headers) => {
      const r = await admin.post(path, body, headers);
      assert.ok(r.status < 300, `POST ${path}: ${r.status} ${r.text}`);
      return r;
    },
    del: async (path, headers) => {
      const r = await admin.del(path, headers);
      assert.ok(r.status < 300, `DELETE ${path}: ${r.status} ${r.text}`);
      return r;
    },
  };
  await checked.post('edit/changeManager/startEdit', {});
  await change(checked);
  await checked.post('edit/changeManager/activate', {});
}
