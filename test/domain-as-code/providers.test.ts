// Security providers in domain as code: now that the server shows a provider's concrete type,
// discover writes an LDAP authenticator under its own type's folder with its values, and apply
// makes it again of that type (naming it in `type`), after which plan finds nothing.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parse } from 'yaml';
import { cliOutcome, killRunning, serverEnv } from '../support/cli.js';
import { type RuntimeServer, startRuntimeServer } from '../support/runtime-server.js';
import { inSession } from './support.js';

let srv: RuntimeServer;
let dir: string;
const PROVIDERS = 'edit/securityConfiguration/realms/myrealm/authenticationProviders';

before(async () => {
  srv = await startRuntimeServer();
  dir = mkdtempSync(join(tmpdir(), 'appserver-dac-providers-'));
  for (const name of ['partition-partition1-partition1-rg-partition1-ds', 'partition-partition2-partition2-rg-partition2-ds']) {
    mkdirSync(join(dir, 'secrets', name), { recursive: true });
    writeFileSync(join(dir, 'secrets', name, 'password'), 'from-the-secret-file\n');
  }
  await inSession(srv.admin, async (c) => {
    await c.post(PROVIDERS, { name: 'corpLdap', type: 'appserver.security.providers.authentication.LDAPAuthenticator', host: 'ldap.example', controlFlag: 'SUFFICIENT' });
  });
});

after(async () => {
  await killRunning();
  await srv.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

const cli = (args: string[]) => cliOutcome(args, serverEnv(srv.origin, dir));

test('discover writes a provider under its concrete type; apply makes it again of that type; plan then finds nothing', async () => {
  const file = join(dir, 'domain.yaml');
  const discovered = await cli(['discover', '--out', file]);
  assert.equal(discovered.code, 0, discovered.err);
  const realm = parse(readFileSync(file, 'utf8')).topology.SecurityConfiguration.Realm.myrealm;
  assert.deepEqual(realm.AuthenticationProvider.corpLdap, { LDAPAuthenticator: { ControlFlag: 'SUFFICIENT', Host: 'ldap.example' } });

  await inSession(srv.admin, async (c) => {
    await c.del(`${PROVIDERS}/corpLdap`);
  });
  const secrets = ['--secrets-from', join(dir, 'secrets')];
  const planned = await cli(['plan', file, ...secrets]);
  assert.equal(planned.code, 2, planned.out + planned.err);
  assert.match(planned.out, /\+ create securityConfiguration\/realms\/myrealm\/authenticationProviders\/corpLdap/);
  const applied = await cli(['apply', file, '--yes', ...secrets]);
  assert.equal(applied.code, 0, applied.out + applied.err);
  const made = await srv.admin.get(`${PROVIDERS}/corpLdap?links=none&fields=type,host,controlFlag`);
  assert.deepEqual(made.json, { type: 'appserver.security.providers.authentication.LDAPAuthenticator', host: 'ldap.example', controlFlag: 'SUFFICIENT' });
  const again = await cli(['plan', file, ...secrets]);
  assert.equal(again.code, 0, again.out + again.err);
  assert.match(again.out, /No changes/);
});
