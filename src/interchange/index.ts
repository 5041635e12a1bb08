// Import and export of whole domains, in the product's config.xml (with its descriptors) and in
// the deploy tooling's model. `importDomain` turns files into a bean tree plus users and groups,
// `exportDomain` does the reverse; both list what they could not carry, with its location. Hostile
// or broken input (too large, not UTF-8, DTDs and entities, nesting, aliases, names that would
// break identities) is refused with a Problem naming the file and line.
import type { Catalog } from '../catalog/load.js';
import type { Secrets } from '../config/secrets.js';
import { badRequest } from '../core/problems.js';
import type { SecurityService } from '../security/service.js';
import type { StoredGroup, StoredUser } from '../store/store.js';
import type { BeanTree } from '../tree/records.js';
import { Assembler } from './assemble.js';
import { type DescriptorReader, type XmlFile, readConfigXml, writeConfigXml } from './config-xml.js';
import type { Finding } from './findings.js';
import { type SecurityData, readModel, writeModel } from './model.js';
import { Naming } from './names.js';
import { type ForeignSecrets, type SecretOutput, reseal } from './secrets.js';
import { exportContext } from './walk.js';

export type { Finding } from './findings.js';
export { formatFinding } from './findings.js';
export type { SecurityData, UserEntry, GroupEntry } from './model.js';
export type { DescriptorReader } from './config-xml.js';
export type { ForeignSecrets, SecretOutput } from './secrets.js';

export type InterchangeFormat = 'xml' | 'model';

export type ImportInput =
  | {
      format: 'xml';
      /** How the file is named in messages (`config/config.xml`). */
      file: string;
      text: Buffer | string;
      /** Reads the descriptors config.xml names, by their path relative to its folder. */
      readDescriptor: DescriptorReader;
    }
  | { format: 'model'; file: string; text: Buffer | string };

export interface ImportOptions {
  /** Seals values given in clear and opens values sealed with this domain's key. */
  secrets: Secrets;
  /** Values sealed with another key: kept sealed as they came (default), or replaced by the placeholder. */
  foreignSecrets?: ForeignSecrets;
  /** The text put in place of a foreign secret with `foreignSecrets: 'placeholder'` (default `changeme`). */
  secretPlaceholder?: string;
}

export interface ImportResult {
  config: BeanTree;
  /** Users and groups (the model carries them; config.xml does not). */
  users: SecurityData;
  findings: Finding[];
}

export const DEFAULT_PLACEHOLDER = 'changeme';

/** Reads a domain from config.xml (and its descriptors) or from a model. */
export function importDomain(catalog: Catalog, input: ImportInput, opts: ImportOptions): ImportResult {
  const placeholder = opts.secretPlaceholder ?? DEFAULT_PLACEHOLDER;
  if (placeholder === '') throw badRequest('the secret placeholder must not be empty.');
  const naming = new Naming(catalog);
  const asm = new Assembler(catalog, { secrets: opts.secrets, foreign: opts.foreignSecrets ?? 'keep', placeholder });
  let users: SecurityData = { users: [], groups: [] };
  if (input.format === 'xml') readConfigXml(catalog, naming, asm, input.text, input.file, input.readDescriptor);
  else users = readModel(catalog, naming, asm, input.text, input.file, placeholder);
  const { config, findings } = asm.finish();
  const root = config.bean('')!;
  if (typeof root.values.name !== 'string') {
    findings.push({ severity: 'warning', file: input.file, path: input.format === 'xml' ? '/domain' : 'topology', message: 'the domain has no name.' });
  }
  return { config, users, findings };
}

export interface ExportOptions {
  format: InterchangeFormat;
  /** Secrets this domain sealed: written sealed (default; only its key opens them) or as placeholders. */
  secrets?: SecretOutput;
}

export interface ExportResult {
  /** The files: `config.xml` then its descriptors (paths relative to it), or the one model file. */
  files: XmlFile[];
  findings: Finding[];
}

/** Writes a domain (and, for the model, its users and groups) in a format. */
export function exportDomain(catalog: Catalog, config: BeanTree, users: SecurityData | undefined, opts: ExportOptions): ExportResult {
  const ctx = exportContext(catalog, config, opts.secrets ?? 'sealed');
  if (opts.format === 'model') return { files: [{ path: 'model.yaml', text: writeModel(ctx, users) }], findings: ctx.findings };
  const files = writeConfigXml(ctx);
  if (users && (users.users.length > 0 || users.groups.length > 0)) {
    ctx.findings.push({
      severity: 'warning',
      file: 'config.xml',
      path: '/domain/security-configuration',
      message: `${users.users.length} users and ${users.groups.length} groups are not exported: config.xml carries no users (the product keeps them in its realm's store); export the model to carry them.`,
    });
  }
  return { files, findings: ctx.findings };
}

/** Seals again, with the domain's key, what an import sealed with a provisional one. */
export function resealTree(catalog: Catalog, tree: BeanTree, from: Secrets, to: Secrets): void {
  for (const [, record] of tree.entries()) {
    const type = catalog.types.get(record.type);
    if (!type) continue;
    for (const [name, value] of Object.entries(record.values)) {
      if (type.prop.get(name)?.encrypted) record.values[name] = reseal(value, from, to);
    }
  }
}

/** The users and groups of a store as an export carries them (no password, no hash). */
export function securityOf(users: readonly StoredUser[], groups: readonly StoredGroup[]): SecurityData {
  const memberOf = (member: string) => groups.filter((g) => g.members.includes(member)).map((g) => g.name);
  const admins = groups.find((g) => g.name === 'Administrators')?.members ?? [];
  const adminUser = users.find((u) => admins.includes(u.name))?.name;
  return {
    ...(adminUser !== undefined ? { adminUser } : {}),
    users: users.map((u) => ({ name: u.name, description: u.description, groups: memberOf(u.name) })),
    groups: groups.map((g) => ({ name: g.name, description: g.description, groups: memberOf(g.name) })),
  };
}

/**
 * Gives a new domain the imported users and groups: groups first (descriptions updated when they
 * exist), then users (passwords hashed; a user without one gets a random password nobody knows),
 * then memberships. Returns what could not be applied.
 */
export async function applySecurity(security: SecurityService, data: SecurityData, file: string, newPassword: () => string): Promise<Finding[]> {
  const findings: Finding[] = [];
  const at = (path: string, message: string) => findings.push({ severity: 'warning', file, path, message });
  for (const g of data.groups) {
    if (security.hasGroup(g.name)) await security.setGroupDescription(g.name, g.description);
    else await security.createGroup(g.name, g.description);
  }
  for (const u of data.users) {
    if (security.hasUser(u.name)) {
      if (u.description !== '') await security.setUserDescription(u.name, u.description);
      if (u.password !== undefined) await security.setPassword(u.name, u.password);
    } else await security.createUser(u.name, u.password ?? newPassword(), u.description);
  }
  const members: [string, string, string][] = [
    ...data.groups.flatMap((g) => g.groups.map((parent): [string, string, string] => [parent, g.name, `topology.Security.Group.${g.name}.GroupMemberOf`])),
    ...data.users.flatMap((u) => u.groups.map((parent): [string, string, string] => [parent, u.name, `topology.Security.User.${u.name}.GroupMemberOf`])),
  ];
  for (const [group, member, path] of members) {
    if (!security.hasGroup(group)) at(path, `not imported: '${member}' is made a member of '${group}', which is not a group of the domain.`);
    else await security.addMember(group, member);
  }
  return findings;
}
