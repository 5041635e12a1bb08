// The deploy tooling's model: YAML with the sections `domainInfo` (the administrator), `topology`
// (the domain's own attributes, servers, clusters, machines, security configuration, and users and
// groups under `Security`), `resources` (data sources, JMS, stores, partitions, resource groups...)
// and `appDeployments` (`Application`, `Library`). Folders and attributes are the capitalised bean
// property names, child collections in the singular (`Server: {ms1: {ListenPort: 7003}}`),
// references are names (several: `Target: 'ms1,ms2'`), an item of a creator type of its own has a
// folder of that name (`UnixMachine`), other subtypes are wrapped in their type name
// (`AuthenticationProvider: {DefaultAuthenticator: {DefaultAuthenticator: {}}}`), and encrypted
// values are written as their `...Encrypted` twin.
import { Document, LineCounter, type Node, type Pair, type YAMLMap, isAlias, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import type { Catalog } from '../catalog/load.js';
import type { PropDef, TypeDef } from '../catalog/model.js';
import { badRequest } from '../core/problems.js';
import { nameProblem } from '../config/validate.js';
import { Assembler, type BeanRef } from './assemble.js';
import { type Location, below } from './findings.js';
import { type Naming, defaultChildType, squash, subtypeNamed } from './names.js';
import { writeSecret } from './secrets.js';
import { type BeanView, type ExportContext, childrenOf, referenceNames, scalarText, valuesOf } from './walk.js';
import { MAX_DEPTH, utf8Text } from './xml.js';

const DOMAIN_TYPE = 'appserver.management.configuration.DomainMBean';

/** Domain children the deploy tooling keeps in `resources` and `appDeployments` (REST names); the rest is `topology`. */
export const RESOURCES = new Set([
  'JDBCSystemResources', 'JMSSystemResources', 'JMSServers', 'fileStores', 'JDBCStores', 'SAFAgents', 'mailSessions',
  'foreignJNDIProviders', 'WLDFSystemResources', 'coherenceClusterSystemResources', 'messagingBridges', 'JMSBridgeDestinations',
  'customResources', 'startupClasses', 'shutdownClasses', 'selfTuning', 'partitions', 'resourceGroups', 'resourceGroupTemplates',
  'partitionWorkManagers', 'resourceManagement', 'managedExecutorServices', 'managedScheduledExecutorServices', 'managedThreadFactories',
  'managedExecutorServiceTemplates', 'managedScheduledExecutorServiceTemplates', 'managedThreadFactoryTemplates', 'WTCServers',
  'joltConnectionPools', 'JMSInteropModules', 'replicatedStores', 'singletonServices', 'osgiFrameworks', 'WSReliableDeliveryPolicies',
]);
export const APP_DEPLOYMENTS = new Set(['appDeployments', 'libraries']);
const SECTIONS = ['domainInfo', 'topology', 'resources', 'appDeployments'] as const;

/** Users and groups as the model carries them (`topology.Security`). */
export interface UserEntry {
  name: string;
  description: string;
  /** Groups the user is a member of. */
  groups: string[];
  /** The password in clear, when the model gave one (imports only; hashed on the way in). */
  password?: string;
}

export interface GroupEntry {
  name: string;
  description: string;
  /** Groups this group is a member of. */
  groups: string[];
}

export interface SecurityData {
  /** The administrator (`domainInfo.AdminUserName`) and its password when given in clear. */
  adminUser?: string;
  adminPassword?: string;
  users: UserEntry[];
  groups: GroupEntry[];
}

// ---------------------------------------------------------------------------------------------
// Reading

class ModelReader {
  readonly security: SecurityData = { users: [], groups: [] };
  private readonly lines = new LineCounter();

  constructor(
    private readonly catalog: Catalog,
    private readonly naming: Naming,
    private readonly asm: Assembler,
    private readonly file: string,
    private readonly placeholder: string,
  ) {}

  read(input: Buffer | string): void {
    const text = utf8Text(input, this.file);
    let doc;
    try {
      doc = parseDocument(text, { lineCounter: this.lines, uniqueKeys: true, version: '1.2', schema: 'core', prettyErrors: false });
    } catch (err) {
      if (err instanceof RangeError) throw badRequest(`${this.file}: the model is nested too deeply to read.`);
      throw err;
    }
    const error = doc.errors[0];
    if (error) throw badRequest(`${this.file}:${this.lines.linePos(error.pos[0]).line}: the file is not valid YAML: ${error.message.split('\n')[0]}`);
    for (const warning of doc.warnings) this.asm.warn({ file: this.file, path: '', line: this.lines.linePos(warning.pos[0]).line }, `YAML: ${warning.message.split('\n')[0]}`);
    const top = doc.contents;
    const loc: Location = { file: this.file, path: '' };
    if (!isMap(top)) throw badRequest(`${this.file}: a model is a map of sections (${SECTIONS.join(', ')}), not ${top === null ? 'empty' : 'a list or a value'}.`);
    this.checkNodes(top, 0);
    const root = this.asm.root(this.catalog.type(DOMAIN_TYPE));
    for (const pair of top.items) {
      const key = this.keyOf(pair, loc);
      if (key === undefined) continue;
      const at = this.at(loc, key, pair.key as Node);
      const section = SECTIONS.find((s) => squash(s) === squash(key));
      if (!section) {
        this.asm.warn(at, `not imported: '${key}' is not a section of a model (${SECTIONS.join(', ')}).`);
        continue;
      }
      if (pair.value === null || (isScalar(pair.value) && pair.value.value === null)) continue;
      if (!isMap(pair.value)) {
        this.asm.warn(at, `not imported: the section '${key}' must be a map.`);
        continue;
      }
      if (section === 'domainInfo') this.readDomainInfo(pair.value, at);
      else this.readBean(pair.value, root, at, false, 0, section === 'topology');
    }
  }

  /** Refuses aliases (no expansion is done) and nesting deeper than MAX_DEPTH, before anything is read. */
  private checkNodes(node: unknown, depth: number): void {
    if (depth > MAX_DEPTH) throw badRequest(`${this.file}:${this.lineOf(node as Node)}: the model is nested more than ${MAX_DEPTH} levels deep.`);
    if (isAlias(node)) throw badRequest(`${this.file}:${this.lineOf(node)}: aliases (*${node.source}) are not accepted in a model; write the value out.`);
    if (isMap(node) || isSeq(node)) {
      for (const item of node.items as unknown[]) {
        if (item && typeof item === 'object' && 'key' in item) {
          const pair = item as Pair;
          if (isAlias(pair.key) || (pair.key && !isScalar(pair.key))) throw badRequest(`${this.file}:${this.lineOf(pair.key as Node)}: map keys must be plain names.`);
          this.checkNodes(pair.value, depth + 1);
        } else this.checkNodes(item, depth + 1);
      }
    }
  }

  private lineOf(node: Node | null | undefined): number | undefined {
    const start = node?.range?.[0];
    return start === undefined ? undefined : this.lines.linePos(start).line;
  }

  private at(loc: Location, step: string, node: Node | null | undefined): Location {
    return below(loc, step, '.', this.lineOf(node));
  }

  private keyOf(pair: Pair, loc: Location): string | undefined {
    const key = isScalar(pair.key) ? pair.key.value : undefined;
    if (typeof key === 'string') return key;
    if (typeof key === 'number' || typeof key === 'boolean') return String(key);
    this.asm.warn(this.at(loc, '?', pair.key as Node), 'not imported: a key that is not a name.');
    return undefined;
  }

  /** A scalar's value as the catalog wants it: strings keep the text as written (`1.10` stays `1.10`). */
  private scalarValue(node: unknown, p: PropDef): unknown {
    if (!isScalar(node)) return undefined;
    if (p.valueKind === 'string' && typeof node.value !== 'string' && node.value !== null) return node.source ?? String(node.value);
    return node.value;
  }

  private text(node: unknown): string | undefined {
    if (!isScalar(node) || node.value === null) return undefined;
    return typeof node.value === 'string' ? node.value : (node.source ?? String(node.value));
  }

  private readDomainInfo(map: YAMLMap, loc: Location): void {
    for (const pair of map.items) {
      const key = this.keyOf(pair as Pair, loc);
      if (key === undefined) continue;
      const at = this.at(loc, key, pair.key as Node);
      const value = this.text(pair.value);
      if (squash(key) === 'adminusername' && value !== undefined) this.security.adminUser = value;
      else if (squash(key) === 'adminpassword' && value !== undefined) {
        if (this.isPlaceholder(value)) this.asm.note(at, `the administrator's password is a placeholder (${value}): it is taken from the environment or generated, as for a new domain.`);
        else this.security.adminPassword = value;
      } else this.asm.warn(at, `not imported: '${key}' of domainInfo is not carried (only AdminUserName and AdminPassword are).`);
    }
  }

  private isPlaceholder(text: string): boolean {
    return /^@@[A-Za-z]+:[^@]*@@$/.test(text) || text === this.placeholder;
  }

  private readSecurity(map: YAMLMap, loc: Location): void {
    for (const pair of map.items) {
      const key = this.keyOf(pair as Pair, loc);
      if (key === undefined) continue;
      const at = this.at(loc, key, pair.key as Node);
      const kind = squash(key) === 'user' ? 'user' : squash(key) === 'group' ? 'group' : undefined;
      if (!kind || !isMap(pair.value)) {
        if (!(isScalar(pair.value) && pair.value.value === null)) this.asm.warn(at, `not imported: Security holds the folders User and Group, not '${key}'.`);
        continue;
      }
      for (const entry of pair.value.items) {
        const name = this.keyOf(entry as Pair, at);
        if (name === undefined) continue;
        const eloc = this.at(at, name, entry.key as Node);
        const problem = nameProblem(name);
        if (problem) {
          this.asm.refuse(eloc, `the name of a ${kind} ${problem}.`);
          continue;
        }
        const fields = { description: '', groups: [] as string[], password: undefined as string | undefined, noted: false };
        if (isMap(entry.value)) {
          for (const f of entry.value.items) {
            const fkey = this.keyOf(f as Pair, eloc);
            if (fkey === undefined) continue;
            const floc = this.at(eloc, fkey, f.key as Node);
            const field = squash(fkey);
            if (field === 'description') fields.description = this.text(f.value) ?? '';
            else if (field === 'groupmemberof') fields.groups = this.names(f.value);
            else if (kind === 'user' && field === 'password') {
              const value = this.text(f.value);
              if (value !== undefined && !this.isPlaceholder(value)) fields.password = value;
              else if (name === this.security.adminUser) fields.noted = true;
              else {
                fields.noted = true;
                this.asm.note(floc, `the password of the user '${name}' is to be supplied: the user is created without one anybody knows; set it with the authenticator's resetUserPassword.`);
              }
            } else this.asm.warn(floc, `not imported: a ${kind} has no attribute '${fkey}' here (Description, GroupMemberOf${kind === 'user' ? ', Password' : ''}).`);
          }
        } else if (!(isScalar(entry.value) && entry.value.value === null)) {
          this.asm.warn(eloc, `not imported: the ${kind} '${name}' must be a map.`);
          continue;
        }
        if (kind === 'user') {
          if (fields.password === undefined && !fields.noted && name !== this.security.adminUser) {
            this.asm.note(eloc, `the user '${name}' has no password: it is created without one anybody knows; set it with the authenticator's resetUserPassword.`);
          }
          this.security.users.push({ name, description: fields.description, groups: fields.groups, ...(fields.password !== undefined ? { password: fields.password } : {}) });
        } else this.security.groups.push({ name, description: fields.description, groups: fields.groups });
      }
    }
  }

  /** Names given as a list or as one comma-separated text. */
  private names(node: unknown): string[] {
    if (isSeq(node)) return node.items.map((i) => this.text(i)).filter((s): s is string => s !== undefined && s !== '');
    const text = this.text(node);
    return text === undefined ? [] : text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  }

  private readBean(map: YAMLMap, ref: BeanRef, loc: Location, isItem: boolean, depth: number, topology = false): void {
    const names = this.naming.of(ref.type);
    for (const pair of map.items) {
      const key = this.keyOf(pair as Pair, loc);
      if (key === undefined) continue;
      const at = this.at(loc, key, pair.key as Node);
      const value = pair.value as Node | null;
      if (topology && squash(key) === 'security') {
        if (isMap(value)) this.readSecurity(value, at);
        else this.asm.warn(at, 'not imported: Security must be a map of User and Group.');
        continue;
      }
      const slot = names.find(key);
      if (!slot) {
        this.asm.warn(at, `not imported: a ${ref.type.short} has no attribute or folder '${key}'.`);
        continue;
      }
      const p = slot.prop;
      if (isItem && p.name === ref.type.keyProp) {
        const name = this.asm.tree.bean(ref.key)!.values[p.name];
        if (this.text(value) !== name) this.asm.warn(at, `the item is named '${String(name)}' by its key, so ${key}: ${this.text(value)} is not imported.`);
        continue;
      }
      const empty = value === null || (isScalar(value) && value.value === null);
      switch (p.shape) {
        case 'scalar': {
          if (empty) {
            this.asm.warn(at, `not imported: '${key}' has no value.`);
            break;
          }
          if (slot.encrypted || p.encrypted) {
            const text = this.text(value);
            if (text === undefined) this.asm.warn(at, `not imported: '${key}' must be a text.`);
            else this.asm.secret(ref, p, text, at);
          } else if (p.valueKind === 'properties') {
            if (!isMap(value)) this.asm.warn(at, `not imported: '${key}' must be a map of names to values.`);
            else {
              const out = Object.create(null) as Record<string, unknown>;
              for (const e of value.items) {
                const k = this.keyOf(e as Pair, at);
                if (k !== undefined) out[k] = this.text(e.value) ?? '';
              }
              this.asm.value(ref, p, out, at);
            }
          } else if (p.array) {
            const items = isSeq(value) ? value.items : [value];
            this.asm.value(ref, p, items.map((i) => this.scalarValue(i, p)), at);
          } else if (!isScalar(value)) this.asm.warn(at, `not imported: '${key}' must be a single value.`);
          else this.asm.value(ref, p, this.scalarValue(value, p), at);
          break;
        }
        case 'reference':
          if (!empty) this.asm.reference(ref, p, this.names(value), at);
          break;
        case 'singleton': {
          if (!empty && !isMap(value)) {
            this.asm.warn(at, `not imported: the folder '${key}' must be a map.`);
            break;
          }
          const picked = this.pickType(empty ? null : (value as YAMLMap), p, at);
          if (!picked) break;
          const bean = this.asm.singleton(ref, p, picked.type, at);
          if (bean && picked.map) this.readBean(picked.map, bean, picked.loc, false, depth + 1);
          break;
        }
        case 'collection': {
          if (empty) break;
          if (!isMap(value)) {
            this.asm.warn(at, `not imported: the folder '${key}' must be a map of names to items.`);
            break;
          }
          for (const entry of value.items) {
            const name = this.keyOf(entry as Pair, at);
            if (name === undefined) continue;
            const eloc = this.at(at, name, entry.key as Node);
            const evalue = entry.value as Node | null;
            if (evalue !== null && !isMap(evalue) && !(isScalar(evalue) && evalue.value === null)) {
              this.asm.warn(eloc, `not imported: the item '${name}' must be a map.`);
              continue;
            }
            const picked = slot.creator
              ? { type: slot.creator, map: isMap(evalue) ? evalue : null, loc: eloc }
              : this.pickType(isMap(evalue) ? evalue : null, p, eloc);
            if (!picked) continue;
            const item = this.asm.item(ref, p, name, picked.type, eloc);
            if (item && picked.map) this.readBean(picked.map, item, picked.loc, true, depth + 1);
          }
          break;
        }
      }
    }
  }

  /** The type of a child: a map holding only a subtype's name wraps that subtype's attributes. */
  private pickType(map: YAMLMap | null, p: PropDef, loc: Location): { type: TypeDef; map: YAMLMap | null; loc: Location } | undefined {
    const fallback = defaultChildType(this.catalog, p);
    if (map && map.items.length === 1) {
      const only = map.items[0] as Pair;
      const key = isScalar(only.key) ? String(only.key.value) : '';
      const sub = subtypeNamed(this.catalog, p, key);
      if (sub && !this.naming.of(fallback).find(key) && (only.value === null || isMap(only.value) || (isScalar(only.value) && only.value.value === null))) {
        return { type: sub, map: isMap(only.value) ? only.value : null, loc: this.at(loc, key, only.key as Node) };
      }
    }
    return { type: fallback, map, loc };
  }
}

/** Reads a model into the assembler; returns its users and groups. */
export function readModel(catalog: Catalog, naming: Naming, asm: Assembler, text: Buffer | string, file: string, placeholder: string): SecurityData {
  const reader = new ModelReader(catalog, naming, asm, file, placeholder);
  reader.read(text);
  return reader.security;
}

// ---------------------------------------------------------------------------------------------
// Writing

class ModelWriter {
  constructor(private readonly ctx: ExportContext) {}

  bean(bean: BeanView, loc: Location): Map<string, unknown> {
    const names = this.ctx.naming.of(bean.type);
    const out = new Map<string, unknown>();
    for (const [p, value] of valuesOf(this.ctx, bean, loc)) {
      const at = below(loc, names.modelKey(p), '.');
      if (p.encrypted) {
        const text = writeSecret(value, this.ctx.secrets, `${bean.key}:${p.name}`);
        if (text === undefined) this.ctx.findings.push({ severity: 'warning', ...at, message: `not exported: '${p.name}' holds a value that is not sealed.` });
        else out.set(names.modelKey(p, true), text);
      } else if (p.shape === 'reference') {
        const refs = referenceNames(this.ctx, bean.key, p, value, at);
        if (refs.length > 0) out.set(names.modelKey(p), refs.join(','));
      } else if (p.valueKind === 'properties' && value !== null && typeof value === 'object') {
        out.set(names.modelKey(p), new Map(Object.entries(value as Record<string, unknown>)));
      } else if (p.valueKind === 'date' && typeof value === 'number') {
        out.set(names.modelKey(p), scalarText(p, value));
      } else {
        out.set(names.modelKey(p), value);
      }
    }
    for (const group of childrenOf(this.ctx, bean.key, bean.type)) {
      for (const child of group.beans) {
        const folder = group.prop.shape === 'collection' && group.prop.creators.length > 1 ? names.creatorFolder(group.prop, child.type) : names.modelKey(group.prop);
        const cloc = below(loc, child.name !== undefined ? `${folder}.${child.name}` : folder, '.');
        let content: unknown = this.bean(child, cloc);
        // A subtype without a folder of its own is wrapped in its type's name.
        if (child.typeGiven && !(group.prop.creators.length > 1 && group.prop.creators.includes(child.type.name))) content = new Map([[child.type.short, content]]);
        if (child.name === undefined) out.set(folder, content);
        else {
          let items = out.get(folder) as Map<string, unknown> | undefined;
          if (!items) out.set(folder, (items = new Map()));
          items.set(child.name, content);
        }
      }
    }
    return out;
  }
}

/** The model text of a domain and, when given, its users and groups. */
export function writeModel(ctx: ExportContext, security: SecurityData | undefined): string {
  const record = ctx.tree.bean('');
  if (!record) throw new Error('the domain has no root bean');
  const type = ctx.catalog.type(record.type);
  const all = new ModelWriter(ctx).bean({ key: '', type, record, typeGiven: false }, { file: 'model', path: 'topology' });
  const topology = new Map<string, unknown>();
  const resources = new Map<string, unknown>();
  const apps = new Map<string, unknown>();
  const names = ctx.naming.of(type);
  const sectionOf = new Map<string, Map<string, unknown>>();
  for (const p of type.children) sectionOf.set(names.modelKey(p), RESOURCES.has(p.name) ? resources : APP_DEPLOYMENTS.has(p.name) ? apps : topology);
  for (const c of type.children.flatMap((p) => p.creators.length > 1 ? p.creators : [])) sectionOf.set(ctx.catalog.type(c).short, topology);
  for (const [key, value] of all) (sectionOf.get(key) ?? topology).set(key, value);
  const model = new Map<string, unknown>();
  if (security) {
    const info = new Map<string, unknown>();
    if (security.adminUser !== undefined) {
      info.set('AdminUserName', security.adminUser);
      info.set('AdminPassword', `@@SECRET:${security.adminUser}:password@@`);
    }
    if (info.size > 0) model.set('domainInfo', info);
    const sec = new Map<string, unknown>();
    if (security.groups.length > 0) {
      sec.set('Group', new Map(security.groups.map((g) => [g.name, entryMap(g.description, g.groups)])));
    }
    if (security.users.length > 0) {
      sec.set('User', new Map(security.users.map((u) => {
        const m = entryMap(u.description, u.groups);
        m.set('Password', `@@SECRET:${u.name}:password@@`);
        return [u.name, m];
      })));
    }
    if (sec.size > 0) topology.set('Security', sec);
    if (security.users.length > 0 || security.adminUser !== undefined) {
      ctx.findings.push({ severity: 'info', file: 'model', path: 'topology.Security.User', message: 'passwords are not exported: each is marked @@SECRET:<user>:password@@, to be supplied.' });
    }
  }
  if (topology.size > 0) model.set('topology', topology);
  if (resources.size > 0) model.set('resources', resources);
  if (apps.size > 0) model.set('appDeployments', apps);
  const doc = new Document(model, { version: '1.2' });
  return doc.toString({ lineWidth: 0, indent: 2 });
}

function entryMap(description: string, groups: string[]): Map<string, unknown> {
  const m = new Map<string, unknown>();
  if (description !== '') m.set('Description', description);
  if (groups.length > 0) m.set('GroupMemberOf', groups);
  return m;
}

