// Builds a bean tree from what a reader found in a file, checked against the catalog: names that
// would break identities are refused, values are coerced by the property's type, references are
// collected by name and resolved once every bean is known. What cannot be carried becomes a
// finding at its location; nothing is dropped silently.
import type { Catalog } from '../catalog/load.js';
import type { PropDef, TypeDef } from '../catalog/model.js';
import { coerce } from '../config/coerce.js';
import { nameProblem } from '../config/validate.js';
import { isCreateOnly } from '../behaviour/create-only.js';
import { standardBehaviours } from '../behaviour/index.js';
import type { BehaviourRegistry } from '../behaviour/registry.js';
import { childKey, identityOfKey, itemKey } from '../core/identity.js';
import { type ProblemDetail, invalid } from '../core/problems.js';
import { BeanTree } from '../tree/records.js';
import { type Finding, type Location, where } from './findings.js';
import { type SecretReading, readSecret } from './secrets.js';

export interface BeanRef {
  key: string;
  type: TypeDef;
}

interface PendingReference {
  from: BeanRef;
  prop: PropDef;
  names: string[];
  loc: Location;
}

/** Beans at most in one import (a domain of 10,000 servers holds about 100,000). */
export const MAX_BEANS = 2_000_000;

const registries = new WeakMap<Catalog, BehaviourRegistry>();

/** The type behaviours of a catalog, made once. */
function behavioursOf(catalog: Catalog): BehaviourRegistry {
  let r = registries.get(catalog);
  if (!r) registries.set(catalog, (r = standardBehaviours(catalog)));
  return r;
}

/** Read-only properties the server keeps for itself, whatever a file says. */
const SERVER_KEPT = new Set(['id', 'dynamicallyCreated', 'lastModificationTime']);

/**
 * Why a property is not carried as a value, or undefined when it is. Read-only properties are
 * carried (config.xml keeps many, such as an adjudicator's name or a partition's ID), except those
 * the server works out itself.
 */
export function notCarried(catalog: Catalog, type: TypeDef, p: PropDef): string | undefined {
  if (p.name === 'type') return 'the bean type is given by the element or folder, not by a value';
  if (!p.writable && !p.key && !isCreateOnly(behavioursOf(catalog), type, p.name) && (p.derivedDefault || SERVER_KEPT.has(p.name))) {
    return `'${p.name}' of ${type.short} is read-only and worked out by the server`;
  }
  return undefined;
}

export class Assembler {
  readonly tree = new BeanTree();
  readonly findings: Finding[] = [];
  private readonly errors: ProblemDetail[] = [];
  private readonly references: PendingReference[] = [];
  private beans = 0;

  constructor(
    readonly catalog: Catalog,
    private readonly secretReading: SecretReading,
  ) {}

  warn(loc: Location, message: string): void {
    this.findings.push({ severity: 'warning', ...loc, message });
  }

  note(loc: Location, message: string): void {
    this.findings.push({ severity: 'info', ...loc, message });
  }

  /** A problem that refuses the whole import (reported with every other one at the end). */
  refuse(loc: Location, message: string): void {
    this.errors.push({ detail: `${where(loc)}: ${message}` });
  }

  root(type: TypeDef): BeanRef {
    this.tree.setRoot({ type: type.name, values: {} });
    return { key: '', type };
  }

  /** Adds an item; undefined (and a refusal or finding) when its name is bad or already taken. */
  item(parent: BeanRef, p: PropDef, name: unknown, type: TypeDef, loc: Location): BeanRef | undefined {
    const problem = nameProblem(name);
    if (problem) {
      this.refuse(loc, `the name of a ${type.short} ${problem}.`);
      return undefined;
    }
    const collection = childKey(parent.key, p.name);
    const key = itemKey(collection, name as string);
    if (this.tree.bean(key)) {
      this.warn(loc, `a second ${type.short} named '${name as string}' in '${p.name}': only the first is imported.`);
      return undefined;
    }
    if (!this.count(loc)) return undefined;
    this.tree.putItem(parent.key, p.name, name as string, { type: type.name, values: { [type.keyProp]: name } });
    return { key, type };
  }

  /** Adds (or finds again) a singleton child. */
  singleton(parent: BeanRef, p: PropDef, type: TypeDef, loc: Location): BeanRef | undefined {
    const key = childKey(parent.key, p.name);
    const existing = this.tree.bean(key);
    if (existing) {
      if (existing.type !== type.name) {
        this.warn(loc, `'${p.name}' is given again as another type (${type.short}): only the first is imported.`);
        return undefined;
      }
      return { key, type };
    }
    if (!this.count(loc)) return undefined;
    this.tree.putSingleton(parent.key, p.name, { type: type.name, values: {} });
    return { key, type };
  }

  private count(loc: Location): boolean {
    if (++this.beans <= MAX_BEANS) return true;
    if (this.beans === MAX_BEANS + 1) this.refuse(loc, `the domain holds more than ${MAX_BEANS} beans, more than an import takes.`);
    return false;
  }

  private values(ref: BeanRef): Record<string, unknown> {
    return this.tree.bean(ref.key)!.values;
  }

  private take(ref: BeanRef, p: PropDef, value: unknown, loc: Location): void {
    const values = this.values(ref);
    if (Object.hasOwn(values, p.name) && !(p.key && values[p.name] === value)) {
      this.warn(loc, `'${p.name}' is given twice: the last one counts.`);
    }
    values[p.name] = value;
  }

  /** Sets a scalar property from what the file held (text, number, boolean, list, map). */
  value(ref: BeanRef, p: PropDef, raw: unknown, loc: Location): void {
    const skip = notCarried(this.catalog, ref.type, p);
    if (skip) {
      this.note(loc, `not imported: ${skip}.`);
      return;
    }
    const result = coerce(p, raw);
    if (!result.ok) {
      this.warn(loc, `not imported: the property '${p.name}' of ${ref.type.short} ${result.problem}.`);
      return;
    }
    this.take(ref, p, result.value, loc);
  }

  /** Sets an encrypted property from the text a file held. */
  secret(ref: BeanRef, p: PropDef, text: string, loc: Location): void {
    const read = readSecret(text, this.secretReading);
    switch (read.kind) {
      case 'to-supply':
        this.note(loc, `'${p.name}' is a placeholder (${text}): it is left unset; supply it through the edit tree.`);
        return;
      case 'opaque':
        this.note(loc, `'${p.name}' is sealed with a key this server does not have: it is kept sealed as it came and cannot be used here until it is set again.`);
        break;
      case 'placeholder-kept':
        this.note(loc, `'${p.name}' was sealed with a key this server does not have: it is replaced by the placeholder '${this.secretReading.placeholder}'; set the real value through the edit tree.`);
        break;
      case 'clear':
        this.note(loc, `'${p.name}' was given in clear: it is sealed with the domain's key.`);
        break;
      case 'sealed':
        break;
    }
    this.take(ref, p, read.value, loc);
  }

  /** Records a reference by name, resolved by `finish`. */
  reference(ref: BeanRef, p: PropDef, names: string[], loc: Location): void {
    if (!p.array && names.length > 1) {
      this.warn(loc, `'${p.name}' refers to one bean, not ${names.length} (${names.join(', ')}): only '${names[0]}' is imported.`);
      names = names.slice(0, 1);
    }
    const existing = this.references.find((r) => r.from.key === ref.key && r.prop === p);
    if (existing && p.array) existing.names.push(...names);
    else if (existing) existing.names = names;
    else this.references.push({ from: ref, prop: p, names, loc });
  }

  /** The tree, with references resolved; refuses the import when names would break identities. */
  finish(): { config: BeanTree; findings: Finding[] } {
    if (this.errors.length > 0) throw invalid(this.errors);
    const index = new NameIndex(this.catalog, this.tree);
    for (const r of this.references) {
      const resolved: string[][] = [];
      for (const name of r.names) {
        const found = index.resolve(name, r.prop.javaType, r.from.key);
        if (found.key !== undefined) resolved.push(identityOfKey(found.key));
        else this.warn(r.loc, `not imported: '${r.prop.name}' refers to '${name}', ${found.why}.`);
      }
      if (r.prop.array) {
        if (resolved.length > 0) this.values(r.from)[r.prop.name] = resolved;
      } else if (resolved[0]) {
        this.values(r.from)[r.prop.name] = resolved[0];
      }
    }
    return { config: this.tree, findings: this.findings };
  }
}

/**
 * Beans by name, to turn the names files use for references back into beans. A name may be taken
 * by several beans (a data source in each of two partitions): the one nearest the bean that refers
 * to it wins, as the product resolves names within a scope first.
 */
export class NameIndex {
  private readonly byName = new Map<string, { key: string; type: TypeDef }[]>();

  constructor(
    private readonly catalog: Catalog,
    tree: BeanTree,
  ) {
    for (const [key, record] of tree.entries()) {
      const type = catalog.types.get(record.type);
      if (!type || key === '') continue;
      const place = tree.placementOf(key);
      const name = place ? place[1] : record.values[type.keyProp];
      if (typeof name !== 'string') continue;
      const list = this.byName.get(name);
      if (list) list.push({ key, type });
      else this.byName.set(name, [{ key, type }]);
    }
  }

  /** The bean a name stands for, seen from the bean at `from`, or why there is none. */
  resolve(name: string, javaType: string, from: string): { key: string; why?: undefined } | { key?: undefined; why: string } {
    const declared = this.catalog.types.get(javaType);
    const kind = declared?.short ?? javaType;
    const candidates = (this.byName.get(name) ?? []).filter((c) => this.catalog.isA(c.type, javaType));
    if (candidates.length === 0) return { why: `which is not a ${kind} of this domain` };
    if (candidates.length === 1) return { key: candidates[0]!.key };
    const scored = candidates.map((c) => ({ key: c.key, score: sharedSegments(c.key, from) }));
    const best = Math.max(...scored.map((s) => s.score));
    const nearest = scored.filter((s) => s.score === best);
    if (nearest.length === 1) return { key: nearest[0]!.key };
    return { why: `which names ${nearest.length} beans of type ${kind} equally near (${nearest.map((n) => n.key).join(', ')})` };
  }
}

function sharedSegments(a: string, b: string): number {
  const x = a.split('/');
  const y = b.split('/');
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  return i;
}
