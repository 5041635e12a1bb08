// Discover against the real product: its authenticator's list actions (listUsers, listGroups,
// listGroupMembers) answer with a cursor's name, walked with haveCurrent, getCurrentName and
// advance and then closed, where this server answers with the names. The realm reader must read
// the same users, groups and memberships from either, close every cursor it opened (the product
// keeps an open one until it is closed), also when a call fails half-way.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AppserverClient } from '../../src/client/client.js';
import { AppserverError } from '../../src/client/errors.js';
import { readRealm } from '../../src/client/model/realm.js';
import type { Node } from '../../src/client/model/tree.js';

const USERS: Record<string, { description: string; groups: string[] }> = {
  admin: { description: 'the first administrator', groups: ['Administrators'] },
  alice: { description: 'deploys', groups: ['Deployers', 'Operators'] },
  'b o/b': { description: '', groups: [] },
};
const GROUPS: Record<string, { description: string; members: string[] }> = {
  Administrators: { description: 'may do everything', members: ['admin'] },
  Deployers: { description: 'deploy applications', members: ['alice', 'Operators'] },
  Operators: { description: 'start and stop', members: ['alice'] },
};

function node(type: string, name?: string, parts: { values?: Record<string, unknown>; singletons?: Record<string, Node>; collections?: Record<string, Node[]> } = {}): Node {
  return {
    type,
    ...(name !== undefined ? { name } : {}),
    values: new Map(Object.entries(parts.values ?? {})),
    secrets: new Map(),
    singletons: new Map(Object.entries(parts.singletons ?? {})),
    collections: new Map(Object.entries(parts.collections ?? {}).map(([k, items]) => [k, new Map(items.map((i) => [i.name!, i]))])),
    path: [],
  };
}

/** A live domain whose default realm has the default authenticator. */
const LIVE = node('Domain', undefined, {
  singletons: {
    securityConfiguration: node('SecurityConfiguration', undefined, {
      values: { defaultRealm: 'myrealm' },
      collections: { realms: [node('Realm', 'myrealm', { collections: { authenticationProviders: [node('Authenticator', 'DefaultAuthenticator')] } })] },
    }),
  },
});

/** The product's authenticator behind `invoke`: list actions answer cursors; `failAt` makes the n-th getCurrentName fail. */
function productClient(failAt?: number) {
  const open = new Map<string, { names: string[]; at: number }>();
  let opened = 0;
  let reads = 0;
  const cursor = (names: string[]) => {
    const name = `Cursor_${++opened}`;
    open.set(name, { names, at: 0 });
    return name;
  };
  const walking = (args: Record<string, unknown>) => {
    const c = open.get(String(args.cursor));
    if (!c) throw new AppserverError('server', `no cursor ${String(args.cursor)}`, 400);
    return c;
  };
  const invoke = async (path: string, action: string, args: Record<string, unknown>): Promise<unknown> => {
    assert.equal(path, 'serverConfig/securityConfiguration/realms/myrealm/authenticationProviders/DefaultAuthenticator');
    switch (action) {
      case 'listUsers':
        return cursor(Object.keys(USERS));
      case 'listGroups':
        return cursor(Object.keys(GROUPS));
      case 'listGroupMembers':
        return cursor(GROUPS[String(args.groupName)]!.members);
      case 'haveCurrent': {
        const c = walking(args);
        return c.at < c.names.length;
      }
      case 'getCurrentName': {
        if (++reads === failAt) throw new AppserverError('server', 'the realm went away', 500);
        const c = walking(args);
        return c.names[c.at];
      }
      case 'advance':
        walking(args).at++;
        return null;
      case 'close':
        walking(args);
        open.delete(String(args.cursor));
        return null;
      case 'getUserDescription':
        return USERS[String(args.userName)]!.description;
      case 'getGroupDescription':
        return GROUPS[String(args.groupName)]!.description;
      default:
        throw new Error(`unexpected action ${action}`);
    }
  };
  return { client: { invoke, options: { user: 'admin' } } as unknown as AppserverClient, open, opened: () => opened };
}

test('the realm read through cursors is the realm, and every cursor is closed', async () => {
  const product = productClient();
  const realm = await readRealm(product.client, LIVE);
  assert.ok(realm);
  assert.deepEqual(
    [...realm.users.values()],
    [
      { name: 'admin', description: 'the first administrator', memberOf: ['Administrators'] },
      { name: 'alice', description: 'deploys', memberOf: ['Deployers', 'Operators'] },
      { name: 'b o/b', description: '', memberOf: [] },
    ],
  );
  assert.deepEqual(
    [...realm.groups.values()],
    [
      { name: 'Administrators', description: 'may do everything', memberOf: [] },
      { name: 'Deployers', description: 'deploy applications', memberOf: [] },
      { name: 'Operators', description: 'start and stop', memberOf: ['Deployers'] },
    ],
  );
  assert.equal(product.opened(), 2 + Object.keys(GROUPS).length, 'one cursor per list');
  assert.equal(product.open.size, 0, 'no cursor left open');
});

test('a call that fails while a cursor is walked fails the read, and the cursor is closed', async () => {
  const product = productClient(2);
  await assert.rejects(readRealm(product.client, LIVE), /the realm went away/);
  assert.equal(product.opened(), 1);
  assert.equal(product.open.size, 0, 'the cursor was closed');
});
