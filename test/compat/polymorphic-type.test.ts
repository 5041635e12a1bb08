// Beans of polymorphic collections show their concrete type in `type`, as the product's do: the
// realm's security providers (whose type data has no `type` of its own) by their implementation's
// class name, in reads of every tree, in collections and in searches; a new provider names its type
// when it is created, and a create form of such a family leaves the choice to the client. Machines
// (a polymorphic collection whose beans always had `type`) show the subtype too.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type RuntimeServer, errorDetails, startRuntimeServer } from '../support/runtime-server.js';

let srv: RuntimeServer;
const REALM = 'securityConfiguration/realms/myrealm';
const P = 'appserver.security.providers.';

before(async () => {
  srv = await startRuntimeServer();
});

after(async () => {
  await srv?.stop(true);
});

test("the realm's providers show their implementation as `type` in every tree, collection and search", async () => {
  const expected: Record<string, Record<string, string>> = {
    authenticationProviders: { DefaultAuthenticator: `${P}authentication.DefaultAuthenticator`, DefaultIdentityAsserter: `${P}authentication.DefaultIdentityAsserter` },
    authorizers: { XACMLAuthorizer: `${P}xacml.authorization.XACMLAuthorizer` },
  };
  for (const tree of ['edit', 'serverConfig', 'domainConfig']) {
    for (const [collection, types] of Object.entries(expected)) {
      const list = await srv.admin.get(`${tree}/${REALM}/${collection}?links=none&fields=name,type`);
      assert.equal(list.status, 200, list.text);
      const shown = Object.fromEntries(list.json.items.map((i: { name: string; type: string }) => [i.name, i.type]));
      for (const [name, type] of Object.entries(types)) assert.equal(shown[name], type, `${tree} ${collection}/${name}: ${list.text}`);
    }
    const one = await srv.admin.get(`${tree}/${REALM}/authenticationProviders/DefaultAuthenticator?links=none`);
    assert.equal(one.json.type, `${P}authentication.DefaultAuthenticator`, one.text);
  }
  const single = await srv.admin.get(`edit/${REALM}/adjudicator?links=none&fields=type`);
  assert.equal(single.json.type, `${P}authorization.DefaultAdjudicator`, single.text);
  const found = await srv.admin.post('serverConfig/search', {
    links: [],
    fields: [],
    children: { securityConfiguration: { links: [], fields: [], children: { realms: { links: [], fields: ['name'], children: { roleMappers: { links: [], fields: ['name', 'type'] } } } } } },
  });
  assert.equal(found.status, 200, found.text);
  const mappers = found.json.securityConfiguration.realms.items[0].roleMappers.items;
  assert.deepEqual(mappers.map((m: { type: string }) => m.type), [`${P}xacml.authorization.XACMLRoleMapper`]);
});

test('a provider is created by naming its type (whole or short), shows it, and cannot change it', async () => {
  await srv.admin.post('edit/changeManager/startEdit', {});
  try {
    const whole = await srv.admin.post(`edit/${REALM}/authenticationProviders`, { name: 'Ldap1', type: `${P}authentication.LDAPAuthenticator`, controlFlag: 'SUFFICIENT' });
    assert.equal(whole.status, 201, whole.text);
    const short = await srv.admin.post(`edit/${REALM}/authenticationProviders`, { name: 'Sql1', type: 'SQLAuthenticator' });
    assert.equal(short.status, 201, short.text);
    const ldap = await srv.admin.get(`edit/${REALM}/authenticationProviders/Ldap1?links=none`);
    assert.equal(ldap.json.type, `${P}authentication.LDAPAuthenticator`);
    assert.equal(ldap.json.controlFlag, 'SUFFICIENT');
    assert.equal((await srv.admin.get(`edit/${REALM}/authenticationProviders/Sql1?fields=type`)).json.type, `${P}authentication.SQLAuthenticator`);
    // Sending the type back unchanged is fine; another type is refused, naming the property.
    assert.equal((await srv.admin.post(`edit/${REALM}/authenticationProviders/Ldap1`, { type: `${P}authentication.LDAPAuthenticator`, controlFlag: 'OPTIONAL' })).status, 200);
    const changed = await srv.admin.post(`edit/${REALM}/authenticationProviders/Ldap1`, { type: `${P}authentication.SQLAuthenticator` });
    assert.match(errorDetails(changed, 400).join(' '), /type of an existing .* cannot be changed/);
    const act = await srv.admin.post('edit/changeManager/activate', {});
    assert.equal(act.status, 200, act.text);
  } finally {
    await srv.admin.post('edit/changeManager/cancelEdit', {});
  }
  const live = await srv.admin.get(`serverConfig/${REALM}/authenticationProviders?links=none&fields=name,type`);
  const types = Object.fromEntries(live.json.items.map((i: { name: string; type: string }) => [i.name, i.type]));
  assert.equal(types.Ldap1, `${P}authentication.LDAPAuthenticator`);
  assert.equal(types.Sql1, `${P}authentication.SQLAuthenticator`);
});

test('a new provider without a type, or of the family base, or of another family, is refused naming `type`; the form leaves it open', async () => {
  const form = await srv.admin.get(`edit/${REALM}/authenticationProviderCreateForm?links=none`);
  assert.equal(form.status, 200, form.text);
  assert.ok(Object.hasOwn(form.json, 'type') && form.json.type === null, form.text);
  for (const body of [{ name: 'NoType' }, { name: 'Base', type: 'AuthenticationProvider' }, { name: 'Wrong', type: `${P}authorization.DefaultAuthorizer` }, { name: 'Num', type: 7 }]) {
    const r = await srv.admin.post(`edit/${REALM}/authenticationProviders`, body);
    assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
    const problems = r.json['appserver:errorsDetails'] as { 'o:errorPath': string; detail: string }[];
    assert.ok(problems.some((p) => p['o:errorPath'] === 'type'), r.text);
    if (body.name === 'NoType') assert.match(problems[0]!.detail, /must name its 'type'.*DefaultAuthenticator/);
  }
  const names = (await srv.admin.get(`edit/${REALM}/authenticationProviders?fields=name&links=none`)).json.items.map((i: { name: string }) => i.name);
  for (const n of ['NoType', 'Base', 'Wrong', 'Num']) assert.ok(!names.includes(n), `${n} was not made: ${names}`);
});

test('machines, a polymorphic collection of configuration beans, show the subtype made', async () => {
  await srv.admin.post('edit/changeManager/startEdit', {});
  try {
    assert.equal((await srv.admin.post('edit/machines', { name: 'plainBox' })).status, 201);
    assert.equal((await srv.admin.post('edit/machines', { name: 'unixBox', type: 'UnixMachine' })).status, 201);
    const list = await srv.admin.get('edit/machines?links=none&fields=name,type');
    const types = Object.fromEntries(list.json.items.map((i: { name: string; type: string }) => [i.name, i.type]));
    assert.equal(types.plainBox, 'Machine');
    assert.equal(types.unixBox, 'UnixMachine');
    const form = await srv.admin.get('edit/machineCreateForm?links=none&fields=type');
    assert.equal(form.json.type, 'Machine', form.text);
  } finally {
    await srv.admin.post('edit/changeManager/cancelEdit', {});
  }
});
