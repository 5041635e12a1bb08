// Security data and checks: the domain security runtime (rc DomainSecurityRuntime), moving the
// default authenticator's users and groups in and out (rc Export, Import; format and constraints as
// the provider's supportedExport* values say), and publishing a server's single sign-on metadata
// (rc SingleSignOnServicesRuntime). Files are kept in folders of the data directory (data-files.ts).
import { badRequest, invalid } from '../core/problems.js';
import { nameProblem } from '../config/validate.js';
import { isPasswordHash, unmatchableHash } from '../security/passwords.js';
import type { SecurityService } from '../security/service.js';
import { DONE, type Invocation, type OperationDefinition, type OperationServices, defineOperation, returns } from './define.js';
import { BOOL, PROPS, RT, VOID, action, ov, p, query, str } from './declare.js';
import { serverOf } from './beans.js';

const DOMAIN_SECURITY = RT + 'DomainSecurityRuntimeMBean';
const DEFAULT_AUTHENTICATOR = 'appserver.security.providers.authentication.DefaultAuthenticatorMBean';
const SSO = RT + 'SingleSignOnServicesRuntimeMBean';

/** The one data format of the default authenticator (its supportedExportFormats). */
const FORMAT = 'DefaultAtn';
/** Where exported realm data is written and read back. */
const REALM_FOLDER = 'security-data';
/** Where published single sign-on metadata goes. */
const METADATA_FOLDER = 'saml-metadata';

/** What is wrong with the domain's security set-up, looked at now. */
export function securityWarnings(use: OperationServices): string[] {
  const out = [...use.dataDirWarnings()];
  if (!use.security.lockouts.policy().enabled) {
    out.push('User lockout is disabled in the default realm: password guesses are never refused (userLockoutManager lockoutEnabled is false).');
  }
  return out;
}

function format(call: Invocation): void {
  if (call.args.format !== FORMAT) throw badRequest(`The format ${JSON.stringify(call.args.format)} is unknown to the default authenticator: it reads and writes '${FORMAT}' only.`, 'format');
}

/** Names listed in a constraint (`all`, or names separated by commas); every name must exist. */
function chosen(value: string | undefined, known: (name: string) => boolean, all: () => string[], what: string): string[] {
  if (value === undefined || value.trim() === 'all') return all().sort();
  const names = value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  const unknown = names.filter((n) => !known(n));
  if (unknown.length > 0) throw badRequest(`The constraint '${what}' names no ${what.slice(0, -1)} ${unknown.map((n) => `'${n}'`).join(', ')}.`, 'constraints');
  return names;
}

interface RealmData {
  format: string;
  users: { name: string; description: string; passwordHash?: string }[];
  groups: { name: string; description: string; members: string[] }[];
}

function exportRealm(security: SecurityService, constraints: Record<string, string>): RealmData {
  const allowed = new Set(['users', 'groups', 'passwords']);
  const odd = Object.keys(constraints).filter((k) => !allowed.has(k));
  if (odd.length > 0) throw badRequest(`The export constraint${odd.length === 1 ? '' : 's'} ${odd.map((k) => `'${k}'`).join(', ')} ${odd.length === 1 ? 'is' : 'are'} unknown; use users, groups (names separated by commas, or all) and passwords (true or false).`, 'constraints');
  const passwords = constraints.passwords ?? 'true';
  if (passwords !== 'true' && passwords !== 'false') throw badRequest(`The constraint 'passwords' must be true or false, not ${JSON.stringify(passwords)}.`, 'constraints');
  const users = chosen(constraints.users, (n) => security.hasUser(n), () => security.userNames(), 'users');
  const groups = chosen(constraints.groups, (n) => security.hasGroup(n), () => security.groupNames(), 'groups');
  return {
    format: FORMAT,
    users: users.map((name) => {
      const u = security.user(name)!;
      return passwords === 'true' ? { name, description: u.description, passwordHash: u.hash } : { name, description: u.description };
    }),
    groups: groups.map((name) => {
      const g = security.group(name)!;
      return { name, description: g.description, members: [...g.members] };
    }),
  };
}

/** Reads realm data back, checking all of it before anything is changed. */
function parseRealm(text: string, shown: string): RealmData {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw badRequest(`'${shown}' is not realm data written by exportData: ${(err as Error).message}.`, 'filename');
  }
  const problems: { path: string; detail: string }[] = [];
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(data) || data.format !== FORMAT || !Array.isArray(data.users) || !Array.isArray(data.groups)) {
    throw badRequest(`'${shown}' is not realm data in the '${FORMAT}' format (an object with format, users and groups).`, 'filename');
  }
  const text1 = (v: unknown) => typeof v === 'string' && v.length <= 64 * 1024;
  data.users.forEach((u, i) => {
    const at = `users[${i}]`;
    if (!isObject(u) || typeof u.name !== 'string' || nameProblem(u.name) || !text1(u.description ?? '')) problems.push({ path: at, detail: `${at} of '${shown}' is not a user with a valid name and description.` });
    else if (u.passwordHash !== undefined && !isPasswordHash(u.passwordHash)) problems.push({ path: at, detail: `The password hash of '${u.name}' in '${shown}' is not one this server makes.` });
  });
  data.groups.forEach((g, i) => {
    const at = `groups[${i}]`;
    const members = isObject(g) && Array.isArray(g.members) && g.members.every((m) => typeof m === 'string');
    if (!isObject(g) || typeof g.name !== 'string' || nameProblem(g.name) || !text1(g.description ?? '') || !members) problems.push({ path: at, detail: `${at} of '${shown}' is not a group with a valid name, description and member list.` });
  });
  if (problems.length > 0) throw invalid(problems);
  return data as unknown as RealmData;
}

async function importRealm(security: SecurityService, data: RealmData): Promise<string> {
  let users = 0;
  let groups = 0;
  let members = 0;
  const skipped: string[] = [];
  for (const g of data.groups) {
    if (security.hasGroup(g.name) || security.hasUser(g.name)) skipped.push(g.name);
    else if (await security.createGroup(g.name, g.description ?? '')) groups++;
  }
  for (const u of data.users) {
    if (security.hasUser(u.name) || security.hasGroup(u.name)) skipped.push(u.name);
    // A user exported without its password cannot log in until an administrator sets one.
    else if (await security.importUser(u.name, u.passwordHash ?? unmatchableHash(), u.description ?? '')) users++;
  }
  for (const g of data.groups) {
    for (const m of g.members) {
      const exists = security.hasUser(m) || security.hasGroup(m);
      // Memberships that would make a group contain itself are left out, as addMemberToGroup refuses them.
      if (!exists || !security.hasGroup(g.name) || security.group(g.name)!.members.includes(m) || m === g.name || security.groupsOf(g.name).has(m)) continue;
      await security.addMember(g.name, m);
      members++;
    }
  }
  const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  return `${plural(users, 'user')}, ${plural(groups, 'group')} and ${plural(members, 'membership')} added${skipped.length > 0 ? `; existing ${skipped.map((n) => `'${n}'`).join(', ')} left as they were` : ''}.`;
}

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const BINDINGS: [string, string][] = [
  ['POST', 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST'],
  ['Redirect', 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect'],
  ['Artifact', 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Artifact'],
];

/** The SAML 2.0 metadata of a server, from its single sign-on configuration. */
function samlMetadata(use: OperationServices, server: string): string {
  const topology = use.engine.currentTopology;
  const values = topology.bean(['servers', server, 'singleSignOnServices'])?.values ?? {};
  const type = use.catalog.type('appserver.management.configuration.SingleSignOnServicesMBean');
  const value = (name: string): unknown => (Object.hasOwn(values, name) ? values[name] : type.prop.get(name)?.defaultValue);
  const entityID = value('entityID');
  if (typeof entityID !== 'string' || entityID === '') {
    throw badRequest(`Server '${server}' has no entityID in its single sign-on configuration (edit/servers/${server}/singleSignOnServices); set one before publishing its metadata.`);
  }
  const s = topology.servers().find((x) => x.name === server);
  const site = typeof value('publishedSiteURL') === 'string' && value('publishedSiteURL') !== '' ? String(value('publishedSiteURL')) : `http://${String(s?.values.listenAddress || 'localhost')}:${Number(s?.values.listenPort ?? 7001)}/saml2`;
  const role = (kind: 'identityProvider' | 'serviceProvider', element: string, service: string, path: string) => {
    if (value(`${kind}Enabled`) !== true) return [];
    const endpoints = BINDINGS.filter(([b]) => value(`${kind}${b}BindingEnabled`) !== false).map(([b, urn], i) => `    <md:${service} Binding="${urn}" Location="${xml(`${site}/${path}/${b.toLowerCase()}`)}"${service === 'AssertionConsumerService' ? ` index="${i}"` : ''}/>`);
    return [`  <md:${element} protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">`, ...endpoints, `  </md:${element}>`];
  };
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${xml(entityID)}">`,
    ...role('identityProvider', 'IDPSSODescriptor', 'SingleSignOnService', 'idp/sso'),
    ...role('serviceProvider', 'SPSSODescriptor', 'AssertionConsumerService', 'sp/acs'),
    '</md:EntityDescriptor>',
    '',
  ].join('\n');
}

export const securityDataOperations: OperationDefinition[] = [
  // Forgets every verified credential: each user's next request checks its password again (a
  // changed hash in the store, or a new lockout policy, applies at once).
  defineOperation(action(DOMAIN_SECURITY, 'refreshCache', [ov(VOID)]), (call, use) => {
    const forgotten = use.security.refreshCache();
    call.audit.detail = `${forgotten} verified credential${forgotten === 1 ? '' : 's'} forgotten.`;
    return DONE;
  }),
  // Real warnings only: data files other accounts may read, a lockout that is switched off.
  defineOperation(query(DOMAIN_SECURITY, 'hasSecurityValidationWarnings', [ov(BOOL)]), (_call, use) => returns(securityWarnings(use).length > 0)),

  // Users and groups of the realm to a file (constraints: users, groups, passwords).
  defineOperation(action(DEFAULT_AUTHENTICATOR, 'exportData', [ov(VOID, str('format'), str('filename'), p('constraints', PROPS))]), (call, use) => {
    format(call);
    const data = exportRealm(use.security, (call.args.constraints as Record<string, string> | null) ?? {});
    const shown = use.files.write(REALM_FOLDER, call.args.filename, 'filename', `${JSON.stringify(data, null, 2)}\n`, true);
    call.audit.detail = `${data.users.length} users and ${data.groups.length} groups written to ${shown} in the data directory.`;
    return DONE;
  }),
  // Users and groups from a file written by exportData; existing names are left as they are.
  defineOperation(action(DEFAULT_AUTHENTICATOR, 'importData', [ov(VOID, str('format'), str('filename'), p('constraints', PROPS))]), async (call, use) => {
    format(call);
    const constraints = Object.keys((call.args.constraints as Record<string, string> | null) ?? {});
    if (constraints.length > 0) throw badRequest(`The default authenticator takes no import constraints; ${constraints.map((k) => `'${k}'`).join(', ')} cannot be applied.`, 'constraints');
    const { text, shown } = use.files.read(REALM_FOLDER, call.args.filename, 'filename');
    call.audit.detail = `From ${shown}: ${await importRealm(use.security, parseRealm(text, shown))}`;
    return DONE;
  }),

  // The server's SAML 2.0 metadata, written to a file of the data directory.
  defineOperation(action(SSO, 'publish', [ov(VOID, str('fileName'), p('prohibitOverwrite', BOOL))]), (call, use) => {
    const server = serverOf(call);
    const shown = use.files.write(METADATA_FOLDER, call.args.fileName, 'fileName', samlMetadata(use, server), call.args.prohibitOverwrite !== true);
    call.audit.detail = `The single sign-on metadata of '${server}' was written to ${shown} in the data directory.`;
    return DONE;
  }),
];
