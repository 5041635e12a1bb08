// Reading a model file into a tree of Nodes: every key checked against the type facts (an unknown
// one is named with the nearest valid key), every value against its property's type and legal
// values, @@PROP:key@@ tokens replaced from the variables, @@SECRET:name:key@@ tokens from the
// secrets. Every problem is collected with its place (dotted path, line and column).
import { LineCounter, type Node as LibNode, type Pair as LibPair, isMap as libIsMap, isScalar as libIsScalar, isSeq as libIsSeq, parseDocument } from 'yaml';
import { type YPair, type YValue, readYamlSubset } from './yaml-text.js';
import { dirname, resolve } from 'node:path';
import { DOMAIN_TYPE, type Child, type Prop, SECTIONS, type TypeInfo, isA, nearest, sectionOf, spellings, squash, subtypeNamed, typeInfo } from './format.js';
import { type Node, type Place, type Principal, type Problem, type Realm, newNode, newRealm } from './tree.js';
import { archiveProblem, isArchivePath } from './archives.js';

export interface Substitutions {
  /** Values of @@PROP:key@@ tokens. */
  variables?: Map<string, string>;
  /** The value of @@SECRET:name:key@@, or undefined when it cannot be found. */
  secret?: (name: string, key: string) => string | undefined;
  /** Where secrets come from, for messages. */
  secretSource?: string;
  /**
   * The folder a model's archive paths (`wlsdeploy/...`) are read from: the model file's own
   * folder unless given.
   */
  archiveDir?: string;
}

export interface ReadModel {
  root: Node;
  problems: Problem[];
  /** Things read but not applied (domainInfo, users and groups). */
  notes: Problem[];
}

type YNode = YValue;
type Pair = YPair;
type YAMLMap = Extract<YValue, { kind: 'map' }>;
const isMap = (v: YValue | null | undefined): v is Extract<YValue, { kind: 'map' }> => v?.kind === 'map';
const isSeq = (v: YValue | null | undefined): v is Extract<YValue, { kind: 'seq' }> => v?.kind === 'seq';
const isScalar = (v: YValue | null | undefined): v is Extract<YValue, { kind: 'scalar' }> => v?.kind === 'scalar';

/** The general YAML library's document as the reader's values (the fallback for what the fast subset does not cover). */
function fromLibrary(node: unknown, lines: LineCounter): YValue | null {
  const pos = (n: LibNode | null | undefined) => {
    const start = n?.range?.[0];
    if (start === undefined) return { line: 1, col: 1 };
    const p = lines.linePos(start);
    return { line: p.line, col: p.col };
  };
  if (node === null || node === undefined) return null;
  if (libIsMap(node)) {
    const items: YPair[] = [];
    for (const pair of node.items as LibPair[]) {
      const k = libIsScalar(pair.key) ? pair.key.value : undefined;
      const key = typeof k === 'string' ? k : typeof k === 'number' || typeof k === 'boolean' ? String(k) : '\u0000';
      items.push({ key, ...pos(pair.key as LibNode), value: fromLibrary(pair.value, lines) });
    }
    return { kind: 'map', items, ...pos(node as LibNode) };
  }
  if (libIsSeq(node)) return { kind: 'seq', items: (node.items as unknown[]).map((i) => fromLibrary(i, lines) ?? { kind: 'scalar', value: null, source: '', line: 1, col: 1 }), ...pos(node as LibNode) };
  if (libIsScalar(node)) {
    const v = node.value;
    const value = v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : String(v);
    return { kind: 'scalar', value, source: node.source ?? String(v), ...pos(node as LibNode) };
  }
  return { kind: 'scalar', value: null, source: '', ...pos(node as LibNode) };
}

const NUMBER = /^(int|long|short|byte|java\.lang\.(Integer|Long|Short|Byte))$/;
const FLOAT = /^(double|float|java\.lang\.(Double|Float))$/;
const TOKEN = /@@(PROP|SECRET|ENV):([^@]*)@@/g;

class Reader {
  readonly problems: Problem[] = [];
  readonly notes: Problem[] = [];

  constructor(
    private readonly file: string,
    private readonly subs: Substitutions,
  ) {}

  private at(path: string, node: { line: number; col: number } | null | undefined): Place {
    if (!node) return { path, file: this.file };
    return { path, file: this.file, line: node.line, col: node.col };
  }

  private problem(at: Place, message: string): void {
    this.problems.push({ at, message });
  }

  read(text: string): Node {
    const root = newNode(DOMAIN_TYPE, []);
    root.at = { path: '', file: this.file };
    let top = readYamlSubset(text);
    if (top === undefined) {
      const lines = new LineCounter();
      const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, version: '1.2', schema: 'core', prettyErrors: false });
      if (doc.errors.length > 0) {
        for (const e of doc.errors) {
          const pos = lines.linePos(e.pos[0]);
          this.problem({ path: '', file: this.file, line: pos.line, col: pos.col }, `not valid YAML: ${e.message.split('\n')[0]}`);
        }
        return root;
      }
      top = fromLibrary(doc.contents, lines);
    }
    if (top === null || (isScalar(top) && top.value === null)) return root;
    if (!isMap(top)) {
      this.problem(this.at('', top), `a model is a map of sections (${SECTIONS.join(', ')})`);
      return root;
    }
    const info = typeInfo(DOMAIN_TYPE)!;
    for (const pair of top.items) {
      const key = this.keyOf(pair, '');
      if (key === undefined) continue;
      const at = this.at(key, pair);
      const section = SECTIONS.find((s) => squash(s) === squash(key));
      if (!section) {
        this.problem(at, `'${key}' is not a section of a model${hint(key, SECTIONS)} (${SECTIONS.join(', ')})`);
        continue;
      }
      const value = pair.value;
      if (value === null || (isScalar(value) && value.value === null)) continue;
      if (!isMap(value)) {
        this.problem(at, `the section '${key}' must be a map`);
        continue;
      }
      if (section === 'domainInfo') {
        this.notes.push({ at, message: 'domainInfo (the administrator) is not changed by plan or apply' });
        continue;
      }
      this.bean(value, root, info, section, section, true);
    }
    return root;
  }

  private keyOf(pair: Pair, path: string): string | undefined {
    if (pair.key !== '\u0000') return pair.key;
    this.problem(this.at(path, pair), 'a key must be a plain name');
    return undefined;
  }

  /** Reads the keys of a map into a bean; at the domain, only the keys of `section` belong there. */
  private bean(map: YAMLMap, node: Node, info: TypeInfo, path: string, section: string, domain = false): void {
    for (const pair of map.items) {
      const key = this.keyOf(pair as Pair, path);
      if (key === undefined) continue;
      const kpath = path ? `${path}.${key}` : key;
      const at = this.at(kpath, pair);
      const value = pair.value;
      if (domain && section === 'topology' && squash(key) === 'security') {
        this.security(node, value, kpath, at);
        continue;
      }
      const slot = info.slots.get(squash(key));
      if (!slot) {
        this.problem(at, `${info.short} has no attribute or folder '${key}'${hint(key, spellings(info))}`);
        continue;
      }
      if (slot.kind === 'prop') {
        this.prop(node, slot.prop, value, kpath, at, slot.encrypted === true);
        continue;
      }
      const child = slot.child;
      if (domain) {
        const belongs = sectionOf(child.name);
        if (belongs !== section) {
          this.problem(at, `'${key}' belongs in the section ${belongs}, not ${section}`);
          continue;
        }
      }
      this.child(node, child, slot.creator, value, kpath, at);
    }
  }

  private child(node: Node, child: Child, creator: string | undefined, value: YNode | null, path: string, at: Place): void {
    const empty = value === null || (isScalar(value) && value.value === null);
    if (!empty && !isMap(value)) {
      this.problem(at, `the folder must be a map${child.shape === 'collection' ? ' of names to items' : ''}`);
      return;
    }
    if (child.shape !== 'collection') {
      const picked = this.pick(empty ? null : (value as YAMLMap), child, creator, path, at);
      if (!picked) return;
      const sub = newNode(picked.type, [...node.path, child.name]);
      sub.at = at;
      sub.itemNames = node.itemNames ?? [];
      node.singletons.set(child.name, sub);
      if (picked.map) this.bean(picked.map, sub, typeInfo(picked.type)!, picked.path, '');
      return;
    }
    let items = node.collections.get(child.name);
    if (!items) node.collections.set(child.name, (items = new Map()));
    if (empty) return;
    for (const entry of (value as YAMLMap).items) {
      const name = this.keyOf(entry as Pair, path);
      if (name === undefined) continue;
      const ipath = `${path}.${name}`;
      const iat = this.at(ipath, entry);
      // '#' is taken: library names carry their versions after it (`jsf#2.0@1.0`), and every path
      // segment is percent-encoded on its way to the server.
      if (name === '' || /[/?]/.test(name) || name.length > 256) {
        this.problem(iat, `'${name}' cannot name a bean (no / or ?, at most 256 characters)`);
        continue;
      }
      if (items.has(name)) {
        this.problem(iat, `a second item named '${name}' in the same collection`);
        continue;
      }
      const ev = entry.value;
      const eempty = ev === null || (isScalar(ev) && ev.value === null);
      if (!eempty && !isMap(ev)) {
        this.problem(iat, `the item '${name}' must be a map`);
        continue;
      }
      const picked = this.pick(eempty ? null : (ev as YAMLMap), child, creator, ipath, iat);
      if (!picked) continue;
      const item = newNode(picked.type, [...node.path, child.name, name], name);
      item.at = iat;
      item.itemNames = [...(node.itemNames ?? []), name];
      items.set(name, item);
      if (picked.map) this.bean(picked.map, item, typeInfo(picked.type)!, picked.path, '');
    }
  }

  /** The type of a child: its folder's creator, a wrapping subtype name, or the default. */
  private pick(map: YAMLMap | null, child: Child, creator: string | undefined, path: string, at: Place): { type: string; map: YAMLMap | null; path: string } | undefined {
    const dflt = creator ?? child.creators[0] ?? child.type;
    if (map && map.items.length === 1 && !creator) {
      const only = map.items[0] as Pair;
      const key = only.key;
      const sub = subtypeNamed(child, key);
      const dinfo = typeInfo(dflt);
      if (sub && !dinfo?.slots.has(squash(key)) && (only.value === null || isMap(only.value) || (isScalar(only.value) && only.value.value === null))) {
        if (!typeInfo(sub)) {
          this.problem(at, `the type ${key} is not known`);
          return undefined;
        }
        return { type: sub, map: isMap(only.value) ? only.value : null, path: `${path}.${key}` };
      }
    }
    if (!typeInfo(dflt)) {
      this.problem(at, `the type of '${child.name}' is not known to this client`);
      return undefined;
    }
    return { type: dflt, map, path };
  }

  /**
   * `topology.Security`: the realm's users and groups (`Group`/`User` folders of names, each with
   * Description, GroupMemberOf and, for users, Password). A password's secret is looked up here,
   * but a missing one is a problem only if the user has to be created (plan decides).
   */
  private security(root: Node, value: YNode | null, path: string, at: Place): void {
    const realm: Realm = { ...newRealm(), at };
    root.realm = realm;
    if (value === null || (isScalar(value) && value.value === null)) return;
    if (!isMap(value)) {
      this.problem(at, 'Security holds the folders User and Group');
      return;
    }
    for (const pair of value.items) {
      const key = this.keyOf(pair, path);
      if (key === undefined) continue;
      const fpath = `${path}.${key}`;
      const fat = this.at(fpath, pair);
      const kind = squash(key) === 'user' ? 'user' : squash(key) === 'group' ? 'group' : undefined;
      if (!kind) {
        this.problem(fat, `Security has no folder '${key}'${hint(key, ['User', 'Group'])} (User, Group)`);
        continue;
      }
      if (kind === 'user') realm.coversUsers = true;
      else realm.coversGroups = true;
      const v = pair.value;
      if (v === null || (isScalar(v) && v.value === null)) continue;
      if (!isMap(v)) {
        this.problem(fat, 'the folder must be a map of names to items');
        continue;
      }
      const into = kind === 'user' ? realm.users : realm.groups;
      for (const entry of v.items) {
        const name = this.keyOf(entry, fpath);
        if (name === undefined) continue;
        const ipath = `${fpath}.${name}`;
        const iat = this.at(ipath, entry);
        if (name === '' || /[/?#,\s]/.test(name) || name.length > 256) {
          this.problem(iat, `'${name}' cannot name a ${kind} (no /, ?, #, comma or space, at most 256 characters)`);
          continue;
        }
        if (realm.users.has(name) || realm.groups.has(name)) {
          this.problem(iat, `a second user or group named '${name}'`);
          continue;
        }
        const principal: Principal = { name, description: '', memberOf: [], at: iat };
        into.set(name, principal);
        const ev = entry.value;
        if (ev === null || (isScalar(ev) && ev.value === null)) continue;
        if (!isMap(ev)) {
          this.problem(iat, `the ${kind} '${name}' must be a map`);
          continue;
        }
        for (const f of ev.items) {
          const fkey = this.keyOf(f, ipath);
          if (fkey === undefined) continue;
          const vat = this.at(`${ipath}.${fkey}`, f);
          const field = squash(fkey);
          if (field === 'description') {
            const t = f.value === null || (isScalar(f.value) && f.value.value === null) ? '' : this.text(f.value, vat);
            if (t === undefined) {
              if (!isScalar(f.value)) this.problem(vat, "'Description' takes a text");
              continue;
            }
            principal.description = t;
            principal.hasDescription = true;
            principal.descriptionAt = vat;
          } else if (field === 'groupmemberof') {
            const names = this.names(f.value, vat);
            if (names === undefined) continue;
            principal.memberOf = [...new Set(names)].sort();
            principal.memberOfAt = vat;
          } else if (kind === 'user' && field === 'password') {
            const missing: string[] = [];
            const t = isScalar(f.value) && f.value.value !== null ? this.substitute(typeof f.value.value === 'string' ? f.value.value : (f.value.source ?? String(f.value.value)), vat, missing) : undefined;
            if (t !== undefined && t !== '') principal.password = t;
            else principal.passwordProblem = { at: vat, message: missing[0] ?? "'Password' takes a text or a @@SECRET:name:key@@ token" };
          } else {
            const known = kind === 'user' ? ['Description', 'GroupMemberOf', 'Password'] : ['Description', 'GroupMemberOf'];
            this.problem(vat, `a ${kind} has no attribute '${fkey}'${hint(fkey, known)} (${known.join(', ')})`);
          }
        }
      }
    }
  }

  /** Replaces the tokens of a text; a missing variable or secret is a problem (kept in `quiet`, when given). */
  private substitute(text: string, at: Place, quiet?: string[]): string | undefined {
    let ok = true;
    const problem = (where: Place, message: string) => (quiet ? quiet.push(message) : this.problem(where, message));
    const out = text.replace(TOKEN, (whole, kind: string, ref: string) => {
      if (kind === 'PROP') {
        const v = this.subs.variables?.get(ref);
        if (v === undefined) {
          ok = false;
          problem(at, this.subs.variables ? `the variable '${ref}' is not in the variables file` : `the variable '${ref}' needs a variables file (--variables)`);
          return whole;
        }
        return v;
      }
      if (kind === 'ENV') {
        const v = process.env[ref];
        if (v === undefined) {
          ok = false;
          problem(at, `the environment variable '${ref}' is not set`);
          return whole;
        }
        return v;
      }
      const colon = ref.indexOf(':');
      const [name, key] = colon >= 0 ? [ref.slice(0, colon), ref.slice(colon + 1)] : [ref, ''];
      const v = this.subs.secret?.(name, key);
      if (v === undefined) {
        ok = false;
        problem(at, this.subs.secret ? `the secret '${ref}' is not in ${this.subs.secretSource ?? 'the secrets'}` : `the secret '${ref}' needs --secrets-from DIR or --secrets-from env`);
        return whole;
      }
      return v;
    });
    return ok ? out : undefined;
  }

  private text(node: YNode | null, at: Place): string | undefined {
    if (!isScalar(node) || node.value === null) return undefined;
    const raw = typeof node.value === 'string' ? node.value : (node.source ?? String(node.value));
    return this.substitute(raw, at);
  }

  private scalar(p: Prop, node: YNode | null, at: Place): { ok: boolean; value?: unknown } {
    if (!isScalar(node)) {
      this.problem(at, `'${p.name}' takes a single value`);
      return { ok: false };
    }
    if (node.value === null) return { ok: true, value: null };
    const hadToken = typeof node.value === 'string' && TOKEN.test(node.value);
    TOKEN.lastIndex = 0;
    let v: unknown = node.value;
    if (typeof v === 'string') {
      const t = this.substitute(v, at);
      if (t === undefined) return { ok: false };
      v = t;
    }
    const show = JSON.stringify(v);
    if (NUMBER.test(p.javaType) || FLOAT.test(p.javaType)) {
      const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' && (hadToken || /^-?\d+(\.\d+)?$/.test(v.trim())) ? Number(v) : Number.NaN;
      if (!Number.isFinite(n) || (NUMBER.test(p.javaType) && !Number.isInteger(n))) {
        this.problem(at, `'${p.name}' takes ${NUMBER.test(p.javaType) ? 'a whole number' : 'a number'}, not ${show}`);
        return { ok: false };
      }
      const limit = /int|Integer/.test(p.javaType) ? 2 ** 31 : /short|Short/.test(p.javaType) ? 2 ** 15 : /byte|Byte/.test(p.javaType) ? 2 ** 7 : Number.MAX_SAFE_INTEGER;
      if (n >= limit || n < -limit) {
        this.problem(at, `'${p.name}' is out of range: ${show}`);
        return { ok: false };
      }
      v = n;
    } else if (p.javaType === 'boolean' || p.javaType === 'java.lang.Boolean') {
      if (v === 'true' || v === 'false') v = v === 'true';
      if (typeof v !== 'boolean') {
        this.problem(at, `'${p.name}' takes true or false, not ${show}`);
        return { ok: false };
      }
    } else if (typeof v !== 'string') {
      v = node.source ?? String(v);
    }
    if (p.legal && p.legal.length > 0 && !p.legal.some((l) => l === v || (typeof l === 'string' && typeof v === 'string' && l.toLowerCase() === v.toLowerCase()))) {
      this.problem(at, `'${p.name}' must be one of ${p.legal.filter((l) => l !== '').map((l) => JSON.stringify(l)).join(', ')}, not ${show}`);
      return { ok: false };
    }
    if (p.legal && typeof v === 'string') v = p.legal.find((l) => typeof l === 'string' && l.toLowerCase() === (v as string).toLowerCase()) ?? v;
    return { ok: true, value: v };
  }

  private names(node: YNode | null, at: Place): string[] | undefined {
    if (isSeq(node)) {
      const out: string[] = [];
      for (const i of node.items) {
        const t = this.text(i, at);
        if (t === undefined) return undefined;
        if (t !== '') out.push(t);
      }
      return out;
    }
    if (node === null || (isScalar(node) && node.value === null)) return [];
    const t = this.text(node, at);
    if (t === undefined) {
      if (!isScalar(node)) this.problem(at, 'a reference is a name, a comma-separated list of names, or a list');
      return undefined;
    }
    return t.split(',').map((s) => s.trim()).filter((s) => s !== '');
  }

  private prop(node: Node, p: Prop, value: YNode | null, path: string, at: Place, encrypted: boolean): void {
    (node.valueAt ??= new Map()).set(p.name, at);
    if (p.key) {
      this.problem(at, `'${p.name}' is the item's name: give it as the item's key`);
      return;
    }
    if (!p.writable && !p.createOnly) {
      this.problem(at, `'${p.name}' of ${typeInfo(node.type)?.short ?? node.type} cannot be set (read-only)`);
      return;
    }
    if (p.secret) {
      if (!isScalar(value) || value.value === null) {
        this.problem(at, `'${p.name}' is a secret: give a @@SECRET:name:key@@ token`);
        return;
      }
      const t = this.text(value, at);
      if (t !== undefined) node.secrets.set(p.name, t);
      return;
    }
    if (encrypted) return;
    if (p.reference) {
      const names = this.names(value, at);
      if (names === undefined) return;
      if (!p.array && names.length > 1) {
        this.problem(at, `'${p.name}' names one bean, not ${names.length}`);
        return;
      }
      node.values.set(p.name, p.array ? names : (names[0] ?? null));
      return;
    }
    if (p.javaType === 'java.util.Properties' || p.javaType === 'java.util.Map') {
      if (!isMap(value)) {
        this.problem(at, `'${p.name}' takes a map of names to values`);
        return;
      }
      const out: Record<string, string> = {};
      for (const e of value.items) {
        const k = this.keyOf(e as Pair, path);
        const t = this.text(e.value, at);
        if (k !== undefined && t !== undefined) out[k] = t;
      }
      node.values.set(p.name, out);
      return;
    }
    if (p.array) {
      const items = isSeq(value) ? value.items : value === null ? [] : [value];
      const out: unknown[] = [];
      for (const i of items) {
        const r = this.scalar(p, i, at);
        if (!r.ok) return;
        out.push(r.value);
      }
      node.values.set(p.name, out);
      return;
    }
    const r = this.scalar(p, value, at);
    if (!r.ok) return;
    node.values.set(p.name, r.value);
    if (ARCHIVE_PROPS.has(p.name) && typeof r.value === 'string' && isArchivePath(r.value) && isA(node.type, DEPLOYMENT_TYPE)) {
      const found = archiveProblem(r.value, this.archiveDir);
      if (typeof found === 'string') this.problem(at, `'${p.name}': ${found}`);
      else (node.archives ??= new Map()).set(p.name, found.file);
    }
  }

  private get archiveDir(): string {
    return this.subs.archiveDir ?? dirname(resolve(this.file));
  }
}

/** A deployment's properties that may name a file of the model's archive (uploaded, not sent as a path). */
const ARCHIVE_PROPS = new Set(['sourcePath', 'planPath']);
const DEPLOYMENT_TYPE = 'appserver.management.configuration.BasicDeploymentMBean';

function hint(wrong: string, known: Iterable<string>): string {
  const n = nearest(wrong, known);
  return n !== undefined ? ` (did you mean '${n}'?)` : '';
}

/** Reads a model's text; `file` names it in messages. */
export function readModel(text: string, file: string, subs: Substitutions = {}): ReadModel {
  const r = new Reader(file, subs);
  const root = r.read(text);
  return { root, problems: r.problems, notes: r.notes };
}

/** Reads a variables file (`key=value` lines; `#` and `!` start comments). */
export function parseVariables(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const unescape = (s: string) => s.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c === 't' ? '\t' : c));
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trimStart();
    if (line === '' || line.startsWith('#') || line.startsWith('!')) continue;
    const m = /^((?:\\.|[^=:\\])*?)\s*[=:]\s*(.*)$/.exec(line);
    if (m) out.set(unescape(m[1]!.trim()), unescape(m[2]!));
    else out.set(unescape(line.trim()), '');
  }
  return out;
}
