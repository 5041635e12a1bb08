// Who references whom in the activated configuration, so that deleting a bean can clear the
// references to it without scanning the domain. The index is made when first asked (a delete),
// not at start-up: indexing every bean of a large domain would delay the first answer.
import type { Catalog } from '../catalog/load.js';
import type { PropDef, TypeDef } from '../catalog/model.js';
import type { BeanRecord } from '../tree/records.js';
import { keyOfIdentity } from '../core/identity.js';

export interface Referrer {
  key: string;
  prop: string;
}

export class ReferenceIndex {
  /** target key -> "referrerKey\0prop" */
  private readonly byTarget = new Map<string, Set<string>>();

  /** Each type's reference properties: a type has many properties and few references, and a start indexes every bean. */
  private readonly references = new Map<TypeDef, PropDef[]>();

  /** Whether the index holds every bean yet (until then, changes need not be followed). */
  private built = false;

  constructor(
    private readonly catalog: Catalog,
    /** Every bean of the activated configuration, read when the index is first asked. */
    private readonly everyBean: () => Iterable<[string, BeanRecord]>,
  ) {}

  private ensureBuilt(): void {
    if (this.built) return;
    this.built = true;
    for (const [key, record] of this.everyBean()) this.index(key, record);
  }

  private referencesOf(type: TypeDef): PropDef[] {
    let props = this.references.get(type);
    if (!props) this.references.set(type, (props = type.props.filter((p) => p.shape === 'reference')));
    return props;
  }

  /** Reference targets held by a record, as [prop, target key] pairs. */
  targetsOf(record: BeanRecord): [string, string][] {
    const type = this.catalog.types.get(record.type);
    if (!type) return [];
    const out: [string, string][] = [];
    for (const p of this.referencesOf(type)) {
      const v = record.values[p.name];
      if (p.array && Array.isArray(v)) for (const id of v) out.push([p.name, keyOfIdentity(id as string[])]);
      else if (!p.array && Array.isArray(v)) out.push([p.name, keyOfIdentity(v as string[])]);
    }
    return out;
  }

  add(key: string, record: BeanRecord): void {
    if (this.built) this.index(key, record);
  }

  private index(key: string, record: BeanRecord): void {
    for (const [prop, target] of this.targetsOf(record)) {
      const set = this.byTarget.get(target) ?? new Set<string>();
      set.add(`${key}\0${prop}`);
      this.byTarget.set(target, set);
    }
  }

  remove(key: string, record: BeanRecord | undefined): void {
    if (!record || !this.built) return;
    for (const [prop, target] of this.targetsOf(record)) {
      const set = this.byTarget.get(target);
      set?.delete(`${key}\0${prop}`);
      if (set?.size === 0) this.byTarget.delete(target);
    }
  }

  /** Beans of the activated configuration that reference `target`. */
  referrers(target: string): Referrer[] {
    this.ensureBuilt();
    const set = this.byTarget.get(target);
    if (!set) return [];
    return [...set].map((entry) => {
      const i = entry.indexOf('\0');
      return { key: entry.slice(0, i), prop: entry.slice(i + 1) };
    });
  }
}
