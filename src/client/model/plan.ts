// The comparison of a model with the live domain: the beans to create (the first missing level;
// what lies below a new bean is compared again once it exists), the properties to change (old ->
// new, a restart marked), and with `prune` the beans of the kinds the model covers that it does
// not name. A value the model leaves out is its default; a bean the model leaves out is not
// touched unless pruned.
import { type Child, type Prop, folderOf, isA, modelKey, shortName, typeInfo } from './format.js';
import { sameArchive } from './archives.js';
import { covered } from './live.js';
import { type Node, type Place, type Problem, type Realm, isEmpty, newNode, sameValue } from './tree.js';

export interface PropChange {
  /** REST name. */
  name: string;
  /** Model key. */
  key: string;
  old: unknown;
  new: unknown;
  restart: boolean;
  reference: boolean;
  array: boolean;
  /** A secret's value (sent, never shown). */
  secret?: boolean;
}

export interface Change {
  op: 'create' | 'update' | 'delete';
  /** Path below the edit tree root. */
  path: string[];
  type: string;
  /** Where the model names the bean (creates and updates). */
  at?: Place;
  props: PropChange[];
  restart: boolean;
  /** For creates: the model's bean, with what lies below it. */
  node?: Node;
  /** For creates: the child it is made in. */
  child?: Child;
  /** A user or group of the security realm (path `realm/users/<name>` or `realm/groups/<name>`), changed through the authenticator, outside the edit session. */
  realm?: 'user' | 'group';
}

export interface Plan {
  changes: Change[];
  problems: Problem[];
  notes: Problem[];
}

export interface PlanOptions {
  prune?: boolean;
  /** The user the client runs as: never pruned from the realm. */
  self?: string;
}

/** Beans never pruned: the administration server runs the domain. */
function protectedBean(path: string[], live: Node | undefined, root: Node): boolean {
  return path.length === 2 && path[0] === 'servers' && path[1] === root.values.get('adminServerName');
}

function placeOf(node: Node, path: string[]): Place {
  return node.at ?? { path: path.join('/') };
}

class Planner {
  readonly changes: Change[] = [];
  readonly problems: Problem[] = [];
  readonly notes: Problem[] = [];

  constructor(
    private readonly root: Node,
    private readonly liveRoot: Node,
    private readonly opts: PlanOptions,
  ) {}

  /** The value a property should have: the model's, else its default (references: none). */
  private wanted(p: Prop, model: Node): { has: boolean; value?: unknown } {
    if (model.values.has(p.name)) return { has: true, value: model.values.get(p.name) };
    if (p.createOnly) return { has: false };
    if (p.default !== undefined) return { has: true, value: p.default };
    if (p.reference) return { has: true, value: p.array ? [] : null };
    return { has: false };
  }

  private props(model: Node, live: Node): PropChange[] {
    const info = typeInfo(live.type);
    if (!info) return [];
    const out: PropChange[] = [];
    for (const p of info.props.values()) {
      if ((!p.writable && !p.createOnly) || p.key || p.secret) continue;
      const want = this.wanted(p, model);
      if (!want.has) continue;
      const have = live.values.get(p.name);
      if (!live.values.has(p.name) && !model.values.has(p.name)) continue;
      if (sameValue(want.value, have, p.reference) || (isEmpty(want.value) && (have === '' || have === undefined))) continue;
      // An archive the model uploads stands in the domain at the server's own path, under its file name.
      if (model.archives?.has(p.name) && sameArchive(want.value as string, have)) continue;
      if (p.createOnly) {
        this.problems.push({ at: model.valueAt?.get(p.name) ?? placeOf(model, live.path), message: `'${p.name}' is set when the bean is created and cannot change (${JSON.stringify(have)} in the domain)` });
        continue;
      }
      out.push({ name: p.name, key: modelKey(p.name, p.array), old: have, new: want.value, restart: p.restart, reference: p.reference, array: p.array });
    }
    return out;
  }

  compare(model: Node, live: Node): void {
    const props = this.props(model, live);
    if (props.length > 0) this.changes.push({ op: 'update', path: live.path, type: live.type, at: placeOf(model, live.path), props, restart: props.some((p) => p.restart) });
    const info = typeInfo(live.type);
    if (!info) return;
    for (const c of info.children.values()) {
      if (!covered(live.type, c.name, c.type)) continue;
      if (c.shape !== 'collection') {
        const m = model.singletons.get(c.name);
        const l = live.singletons.get(c.name);
        if (l) {
          if (!m && c.shape === 'optional') {
            if (this.opts.prune && model.collections.size + model.singletons.size + model.values.size > 0) this.remove(l);
            continue;
          }
          if (m && m.type !== l.type && m.type !== (c.creators[0] ?? c.type)) {
            this.problems.push({ at: placeOf(m, l.path), message: `${l.path.join('/')} is a ${shortName(l.type)} in the domain, not a ${shortName(m.type)}` });
            continue;
          }
          this.compare(m ?? newNode(l.type, l.path), l);
        } else if (m) {
          this.create(m, [...live.path, c.name], c);
        }
        continue;
      }
      const m = model.collections.get(c.name);
      const l = live.collections.get(c.name) ?? new Map<string, Node>();
      if (!m) continue;
      for (const [name, item] of m) {
        const li = l.get(name);
        if (!li) {
          this.create(item, [...live.path, c.name, name], c);
          continue;
        }
        if (item.type !== li.type && item.type !== (c.creators[0] ?? c.type)) {
          this.problems.push({ at: placeOf(item, li.path), message: `${li.path.join('/')} is a ${shortName(li.type)} in the domain, not a ${shortName(item.type)}: delete it first to change its type` });
          continue;
        }
        this.compare(item, li);
      }
      if (this.opts.prune) {
        for (const [name, li] of l) {
          if (m.has(name)) continue;
          if (protectedBean(li.path, li, this.liveRoot)) {
            this.notes.push({ at: placeOf(this.root, li.path), message: `${li.path.join('/')} is the administration server: never pruned` });
            continue;
          }
          this.remove(li);
        }
      }
    }
  }

  private create(model: Node, path: string[], child: Child): void {
    model.path = path;
    const info = typeInfo(model.type);
    const props: PropChange[] = [];
    if (info) {
      for (const p of info.props.values()) {
        if (model.values.has(p.name)) props.push({ name: p.name, key: modelKey(p.name, p.array), old: undefined, new: model.values.get(p.name), restart: p.restart, reference: p.reference, array: p.array });
        if (model.secrets.has(p.name)) props.push({ name: p.name, key: modelKey(p.name, false, true), old: undefined, new: model.secrets.get(p.name), restart: p.restart, reference: false, array: false, secret: true });
      }
    }
    this.changes.push({ op: 'create', path, type: model.type, at: placeOf(model, path), props, restart: false, node: model, child });
  }

  private remove(live: Node): void {
    this.changes.push({ op: 'delete', path: live.path, type: live.type, props: [], restart: false });
  }
}

/** Compares a model (read.ts) with the live domain (live.ts). */
export function plan(model: Node, live: Node, opts: PlanOptions = {}): Plan {
  const p = new Planner(model, live, opts);
  p.compare(model, live);
  const index = new NameIndex([live, model]);
  for (const c of p.changes) {
    for (const pc of c.props) {
      if (!pc.reference) continue;
      const prop = typeInfo(c.type)?.props.get(pc.name);
      if (!prop) continue;
      const names = pc.array ? (pc.new as string[]) : pc.new === null ? [] : [pc.new as string];
      for (const n of names) {
        const r = index.resolve(n, prop.javaType);
        if (typeof r === 'string') p.problems.push({ at: c.node?.valueAt?.get(pc.name) ?? c.at ?? { path: c.path.join('/') }, message: r });
      }
    }
  }
  if (model.realm) planRealm(model.realm, live.realm, opts, p);
  // Creates in dependency order: the kinds others name first (machines, clusters, templates), parents before children.
  p.changes.sort((a, b) => order(a) - order(b) || (a.op === 'delete' ? b.path.length - a.path.length : a.path.length - b.path.length));
  return { changes: p.changes, problems: p.problems, notes: p.notes };
}

/** The realm's users and groups: created when missing, descriptions and memberships made to match, pruned only with --prune. */
function planRealm(model: Realm, live: Realm | undefined, opts: PlanOptions, out: { changes: Change[]; problems: Problem[]; notes: Problem[] }): void {
  const at = model.at ?? { path: 'topology.Security' };
  if (!live) {
    out.problems.push({ at, message: 'the domain shows no users and groups to this client: it has no default authenticator, or the user may not list them (the Admin role)' });
    return;
  }
  const isGroup = (n: string) => model.groups.has(n) || live.groups.has(n);
  for (const kind of ['group', 'user'] as const) {
    const [wanted, have, other, folder] = kind === 'group' ? [model.groups, live.groups, live.users, 'groups'] : [model.users, live.users, live.groups, 'users'];
    for (const [name, m] of wanted) {
      const where = m.at ?? at;
      for (const g of m.memberOf) {
        if (!isGroup(g)) out.problems.push({ at: m.memberOfAt ?? where, message: `'${g}' names no group of the domain or the model` });
      }
      const l = have.get(name);
      const path = ['realm', folder, name];
      const type = kind === 'group' ? 'Group' : 'User';
      if (!l) {
        if (other.has(name)) {
          out.problems.push({ at: where, message: `'${name}' is a ${kind === 'group' ? 'user' : 'group'} of the domain, not a ${kind}` });
          continue;
        }
        const props: PropChange[] = [];
        if (m.description !== '') props.push(realmProp('description', 'Description', undefined, m.description));
        if (m.memberOf.length > 0) props.push(realmProp('memberOf', 'GroupMemberOf', undefined, m.memberOf));
        if (kind === 'user') {
          if (m.password === undefined) {
            out.problems.push(m.passwordProblem ?? { at: where, message: `the user '${name}' is not in the domain: it is created with a password, give Password: '@@SECRET:${name}:password@@' and its value` });
            continue;
          }
          props.push({ ...realmProp('password', 'Password', undefined, m.password), secret: true });
        }
        out.changes.push({ op: 'create', path, type, at: where, props, restart: false, realm: kind });
        continue;
      }
      const props: PropChange[] = [];
      if (m.description !== l.description) props.push(realmProp('description', 'Description', l.description, m.description));
      if (!sameValue(m.memberOf, l.memberOf)) props.push(realmProp('memberOf', 'GroupMemberOf', l.memberOf, m.memberOf));
      if (props.length > 0) out.changes.push({ op: 'update', path, type, at: where, props, restart: false, realm: kind });
    }
    if (!opts.prune || !(kind === 'group' ? model.coversGroups : model.coversUsers)) continue;
    for (const name of have.keys()) {
      if (wanted.has(name)) continue;
      if (kind === 'user' && name === opts.self) {
        out.notes.push({ at, message: `the user ${name} runs this apply: never pruned` });
        continue;
      }
      out.changes.push({ op: 'delete', path: ['realm', folder, name], type: kind === 'group' ? 'Group' : 'User', props: [], restart: false, realm: kind });
    }
  }
}

function realmProp(name: string, key: string, old: unknown, value: unknown): PropChange {
  return { name, key, old, new: value, restart: false, reference: false, array: Array.isArray(value) };
}

const FIRST = ['machines', 'clusters', 'serverTemplates', 'servers', 'migratableTargets', 'fileStores', 'JDBCStores', 'JDBCSystemResources', 'JMSServers', 'SAFAgents', 'JMSSystemResources', 'selfTuning', 'mailSessions'];

function order(c: Change): number {
  const op = c.op === 'create' ? 0 : c.op === 'update' ? 100 : 200;
  const i = FIRST.indexOf(c.path[0] ?? '');
  return op + (i < 0 ? FIRST.length : i);
}

/** Names of beans to the paths they stand at, over one or more trees (the live domain, the model). */
export class NameIndex {
  private readonly byName = new Map<string, { type: string; path: string[] }[]>();

  constructor(roots: Node[]) {
    for (const r of roots) this.add(r);
  }

  private add(node: Node): void {
    for (const items of node.collections.values()) {
      for (const [name, item] of items) {
        const list = this.byName.get(name) ?? [];
        if (!list.some((e) => e.path.join('/') === item.path.join('/'))) list.push({ type: item.type, path: item.path });
        this.byName.set(name, list);
        this.add(item);
      }
    }
    for (const s of node.singletons.values()) this.add(s);
  }

  /** The path a name stands for where a `javaType` bean is expected, or why there is none. */
  resolve(name: string, javaType: string): string[] | string {
    const found = (this.byName.get(name) ?? []).filter((e) => isA(e.type, javaType));
    const what = shortName(javaType);
    if (found.length === 0) return `'${name}' names no ${what} of the domain or the model`;
    if (found.length === 1) return found[0]!.path;
    const top = found.filter((e) => e.path.length === 2);
    if (top.length === 1) return top[0]!.path;
    return `'${name}' may name several beans (${found.map((e) => e.path.join('/')).join(', ')})`;
  }
}

/** Folder and key of a child of a bean, for the plan's text. */
export function modelPathOf(path: string[]): string {
  return path.join('/');
}

export { folderOf };
