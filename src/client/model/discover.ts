// discover: the live domain as a model. Every covered bean with the values that differ from their
// defaults (values at their default, empty lists and unset references are left out), references as
// names, secrets as @@SECRET:name:key@@ tokens (the interface never shows a secret's value), and,
// when asked, host names and ports as @@PROP:key@@ tokens whose values go to a variables file.
import type { AppserverClient } from '../client.js';
import { DOMAIN_TYPE, type Prop, folderOf, modelKey, sectionOf, typeInfo } from './format.js';
import { readLive } from './live.js';
import { type Node, type Principal, type Realm, isEmpty, sameValue } from './tree.js';
import { writeYaml } from './yaml-text.js';

export interface DiscoverOptions {
  /** Host names and ports become @@PROP:key@@ tokens; their values are returned in `variables`. */
  variables?: boolean;
}

export interface Discovered {
  /** The model's YAML text. */
  model: string;
  /** key -> value of each @@PROP:key@@ token written (with `variables`). */
  variables: Map<string, string>;
  /** name:key of each @@SECRET:name:key@@ token written. */
  secrets: string[];
  /** Beans written. */
  beans: number;
}

/** Properties that hold a host name or a port (variables). */
const HOST_OR_PORT = /(ListenAddress|ListenPort|^port$|Port$|HostName$|^host$|Host$|DNSName$|InterfaceAddress$|PublicAddress$)/i;

/** Secret properties discover writes a token for: the interface shows no secret, so only those a resource needs to work. */
function tokenFor(p: Prop, section: string): boolean {
  return section === 'resources' && p.name === 'password';
}

/** Whether a value is at its default: the facts' default, or nothing at all where the facts name none. */
export function atDefault(p: Prop, v: unknown): boolean {
  if (p.default !== undefined) return sameValue(v, p.default, p.reference);
  return isEmpty(v) || v === '';
}

function secretName(node: Node): string {
  // The items the secret belongs to: JDBCSystemResources/ds1 -> jdbcsystemresource-ds1; a data
  // source of a partition's resource group: partition-p1-rg1-ds1.
  const folder = node.path[0] ? modelKey(node.path[0], true) : 'domain';
  const names = node.itemNames ?? [];
  return [folder, ...names].join('-').toLowerCase().replace(/[^a-z0-9.-]+/g, '-').replace(/-+$/, '');
}

class Writer {
  readonly variables = new Map<string, string>();
  readonly secrets: string[] = [];
  beans = 0;

  constructor(private readonly opts: DiscoverOptions) {}

  /** `topology.Security`: groups and users with their descriptions and the groups they are members of; a user's password as a token. */
  realm(realm: Realm): Map<string, unknown> {
    const entry = (p: Principal) => {
      const m = new Map<string, unknown>();
      if (p.description !== '') m.set('Description', p.description);
      if (p.memberOf.length > 0) m.set('GroupMemberOf', p.memberOf);
      return m;
    };
    const out = new Map<string, unknown>();
    const sorted = (m: Map<string, Principal>) => [...m.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    if (realm.groups.size > 0) out.set('Group', new Map(sorted(realm.groups).map((g) => [g.name, entry(g)])));
    if (realm.users.size > 0) {
      out.set('User', new Map(sorted(realm.users).map((u) => {
        const m = entry(u);
        const token = `${u.name}:password`;
        this.secrets.push(token);
        m.set('Password', `@@SECRET:${token}@@`);
        return [u.name, m];
      })));
    }
    return out;
  }

  /** The model map of one bean; `where` is its dotted model path (for variable names). */
  bean(node: Node, where: string[], section: string): Map<string, unknown> {
    this.beans++;
    const info = typeInfo(node.type);
    const out = new Map<string, unknown>();
    if (!info) return out;
    for (const p of info.props.values()) {
      if ((!p.writable && !p.createOnly) || p.key) continue;
      if (p.secret) {
        if (tokenFor(p, section)) {
          const name = secretName(node);
          const token = `${name}:${p.name.toLowerCase()}`;
          this.secrets.push(token);
          out.set(modelKey(p.name, false, true), `@@SECRET:${token}@@`);
        }
        continue;
      }
      if (!node.values.has(p.name)) continue;
      const v = node.values.get(p.name);
      if (atDefault(p, v)) continue;
      const key = modelKey(p.name, p.array);
      if (p.reference) {
        out.set(key, Array.isArray(v) ? v.join(',') : v);
      } else if (this.opts.variables && !p.array && (typeof v === 'number' || (typeof v === 'string' && v !== '')) && HOST_OR_PORT.test(p.name) && p.javaType !== 'boolean') {
        const varName = [...where, key].join('.');
        this.variables.set(varName, String(v));
        out.set(key, `@@PROP:${varName}@@`);
      } else if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
        out.set(key, new Map(Object.entries(v as Record<string, unknown>)));
      } else out.set(key, v);
    }
    for (const c of info.children.values()) {
      const sec = where.length === 0 && node.type === DOMAIN_TYPE ? sectionOf(c.name) : section;
      if (c.shape !== 'collection') {
        const child = node.singletons.get(c.name);
        if (!child) continue;
        const { folder, wrap } = folderOf(c, child.type);
        const m = this.bean(child, [...where, folder], sec);
        // A singleton at its defaults says nothing; an optional one says that it exists.
        if (m.size === 0 && c.shape !== 'optional' && !wrap) continue;
        out.set(folder, wrap ? new Map([[wrap, m]]) : m);
        continue;
      }
      const items = node.collections.get(c.name);
      if (!items || items.size === 0) continue;
      for (const [name, item] of items) {
        const { folder, wrap } = folderOf(c, item.type);
        const m = this.bean(item, [...where, folder, name], sec);
        let f = out.get(folder) as Map<string, unknown> | undefined;
        if (!f) out.set(folder, (f = new Map()));
        f.set(name, wrap ? new Map([[wrap, m]]) : m);
      }
    }
    return out;
  }
}

/** The model of a live domain tree. */
export function writeModel(root: Node, opts: DiscoverOptions = {}): Discovered {
  const w = new Writer(opts);
  const info = typeInfo(DOMAIN_TYPE)!;
  const sections = { topology: new Map<string, unknown>(), resources: new Map<string, unknown>(), appDeployments: new Map<string, unknown>() };
  // The domain's own values and children, each child in its section.
  const all = w.bean(root, [], 'topology');
  const sectionOfKey = new Map<string, 'topology' | 'resources' | 'appDeployments'>();
  for (const c of info.children.values()) {
    const s = sectionOf(c.name);
    sectionOfKey.set(modelKey(c.name, c.shape === 'collection'), s);
    for (const cr of c.creators) sectionOfKey.set(folderOf(c, cr).folder, s);
  }
  for (const [k, v] of all) sections[sectionOfKey.get(k) ?? 'topology'].set(k, v);
  if (root.realm) {
    const security = w.realm(root.realm);
    if (security.size > 0) sections.topology.set('Security', security);
  }
  const model = new Map<string, unknown>();
  for (const s of ['topology', 'resources', 'appDeployments'] as const) if (sections[s].size > 0) model.set(s, sections[s]);
  const text = writeYaml(model);
  return { model: text, variables: w.variables, secrets: [...new Set(w.secrets)], beans: w.beans };
}

/** Reads the live domain and writes its model. */
export async function discover(client: AppserverClient, opts: DiscoverOptions = {}): Promise<Discovered> {
  return writeModel(await readLive(client, { realm: 'if-allowed' }), opts);
}

/** A variables file: `key=value` lines, sorted, with the characters a properties file treats specially escaped. */
export function variablesText(vars: Map<string, string>): string {
  const esc = (s: string, key: boolean) => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(key ? /[=: #!]/g : /^[ #!]/, (c) => `\\${c}`);
  return [...vars.keys()].sort().map((k) => `${esc(k, true)}=${esc(vars.get(k)!, false)}\n`).join('');
}
