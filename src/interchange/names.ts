// The three spellings of a property: its REST name (`listenPort`, `JDBCResource`), its element in
// config.xml and the descriptors (`listen-port`, `jdbc-resource`) and its key in the deploy
// tooling's model (`ListenPort`, `JDBCResource`). All three come from the bean property name of
// the catalog: the REST name lower-cases its first letter only when a single capital leads, so the
// bean name is the REST name with its first letter raised. Elements and model folders of lists
// (child collections, references, scalar arrays) take the singular (`<server>`, `Server:`), and
// encrypted properties are written as their `...Encrypted` twin (`<password-encrypted>`).
//
// Reading is forgiving about spelling: an element or key matches a property when both agree once
// case, hyphens and underscores are set aside (`jdbc-xa-params`, `JdbcXaParams`, `JDBCXAParams`).
import type { Catalog } from '../catalog/load.js';
import type { PropDef, TypeDef } from '../catalog/model.js';

/** Upper-case runs that are several acronyms written together, split where the product splits them. */
const ACRONYMS = ['JDBC', 'JMS', 'JNDI', 'JTA', 'JMX', 'XA', 'SAF', 'SSL', 'WTC', 'SNMP', 'XML', 'HTTP', 'URL', 'WLDF', 'NM', 'RCM', 'CDI', 'JPA', 'REST', 'ID'];

/** Model folders whose names the deploy tooling chose apart from the bean property. */
export const MODEL_FOLDERS: Record<string, string> = { appDeployments: 'Application', libraries: 'Library' };

/** The bean property name of a REST name: `listenPort` -> `ListenPort`. */
export function beanName(restName: string): string {
  return restName.length === 0 ? restName : restName[0]!.toUpperCase() + restName.slice(1);
}

/** English singular of a capitalised plural: `Servers` -> `Server`, `Properties` -> `Property`. */
export function singularOf(name: string): string {
  if (/aches$/.test(name)) return name.slice(0, -1);
  if (/ies$/.test(name)) return `${name.slice(0, -3)}y`;
  if (/(sses|xes|ches|shes)$/.test(name)) return name.slice(0, -2);
  if (/[^s]s$/.test(name)) return name.slice(0, -1);
  return name;
}

/** Splits an all-capitals run into known acronyms when it is exactly several of them. */
function splitAcronyms(run: string): string[] {
  const parts: string[] = [];
  let rest = run;
  while (rest.length > 0) {
    const next = ACRONYMS.filter((a) => rest.startsWith(a)).sort((a, b) => b.length - a.length)[0];
    if (!next) return [run];
    parts.push(next);
    rest = rest.slice(next.length);
  }
  return parts.length > 1 ? parts : [run];
}

/** The words of a capitalised name: `JDBCSystemResource` -> JDBC, System, Resource; digits stay with the word before. */
function words(name: string): string[] {
  const out: string[] = [];
  for (const m of name.matchAll(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+|[^A-Za-z\d]+/g)) {
    const w = m[0];
    if (/^\d+$/.test(w) && out.length > 0) out[out.length - 1] += w;
    else if (/^[A-Z]{2,}$/.test(w)) out.push(...splitAcronyms(w));
    else out.push(w);
  }
  return out;
}

/** The XML spelling of a capitalised name: `JDBCSystemResource` -> `jdbc-system-resource`. */
export function hyphenate(name: string): string {
  return words(name)
    .map((w) => w.toLowerCase())
    .filter((w) => /[a-z\d]/.test(w))
    .join('-');
}

/** A name with case, hyphens and underscores set aside, for matching what files spell freely. */
export function squash(name: string): string {
  return name.toLowerCase().replace(/[-_]/g, '');
}

/** What an element or model key stands for in a bean of some type. */
export interface Slot {
  prop: PropDef;
  /** The `...Encrypted` twin of an encrypted property. */
  encrypted?: boolean;
  /** The concrete type a folder of its own stands for (collections with several creators). */
  creator?: TypeDef;
}

/** How one type's properties are spelt, computed once per type. */
export interface TypeNames {
  /** Element of a property in config.xml (the singular for lists). */
  element(prop: PropDef, encrypted?: boolean): string;
  /** Key of a property in the model (the singular for child collections). */
  modelKey(prop: PropDef, encrypted?: boolean): string;
  /** Model folder of a creator type of a collection with several creators. */
  creatorFolder(prop: PropDef, type: TypeDef): string;
  /** The property an element or model key names, or undefined. */
  find(spelling: string): Slot | undefined;
}

/** The default type of a child: the first type its creators list, else its declared type. */
export function defaultChildType(catalog: Catalog, prop: PropDef): TypeDef {
  return catalog.type(prop.creators[0] ?? prop.javaType);
}

/** The `xsi:type` value naming a type (`unix-machineType`). */
export function xsiTypeOf(type: TypeDef): string {
  return `${hyphenate(type.short)}Type`;
}

/** Among the types a child may be, the one an `xsi:type` value or a model type key names. */
export function subtypeNamed(catalog: Catalog, prop: PropDef, spelling: string): TypeDef | undefined {
  const local = spelling.slice(spelling.indexOf(':') + 1).replace(/Type$/, '');
  const wanted = squash(local);
  const declared = catalog.type(prop.javaType);
  const candidates = [declared, ...declared.subtypes, ...prop.creators.map((c) => catalog.type(c))];
  return candidates.find((t) => squash(t.short) === wanted && catalog.isA(t, prop.javaType));
}

/** Properties a file may carry for a type: every property but the REST-internal ones. */
export function carriedProps(type: TypeDef): PropDef[] {
  return type.props.filter((p) => !p.internal);
}

export class Naming {
  private readonly cache = new Map<TypeDef, TypeNames>();

  constructor(readonly catalog: Catalog) {}

  of(type: TypeDef): TypeNames {
    let names = this.cache.get(type);
    if (!names) {
      names = this.build(type);
      this.cache.set(type, names);
    }
    return names;
  }

  private build(type: TypeDef): TypeNames {
    const slots = new Map<string, Slot>();
    const add = (spelling: string, slot: Slot) => {
      const key = squash(spelling);
      if (!slots.has(key)) slots.set(key, slot);
    };
    const listName = (p: PropDef) => singularOf(beanName(p.name));
    const isList = (p: PropDef) => p.array || p.shape === 'collection';
    // Plain names first, so that a property always wins over another's plural or twin.
    for (const p of carriedProps(type)) add(isList(p) ? listName(p) : beanName(p.name), { prop: p });
    for (const p of carriedProps(type)) {
      if (isList(p)) add(beanName(p.name), { prop: p });
      if (p.encrypted) add(`${beanName(p.name)}Encrypted`, { prop: p, encrypted: true });
      if (MODEL_FOLDERS[p.name]) add(MODEL_FOLDERS[p.name]!, { prop: p });
      if (p.shape === 'collection' && p.creators.length > 1) {
        for (const c of p.creators) add(this.catalog.type(c).short, { prop: p, creator: this.catalog.type(c) });
      }
    }
    return {
      element: (p, encrypted) => hyphenate(`${isList(p) ? listName(p) : beanName(p.name)}${encrypted ? 'Encrypted' : ''}`),
      modelKey: (p, encrypted) => {
        if (encrypted) return `${beanName(p.name)}Encrypted`;
        if (isList(p)) return MODEL_FOLDERS[p.name] ?? listName(p);
        return beanName(p.name);
      },
      creatorFolder: (p, t) => (t.name === (p.creators[0] ?? p.javaType) ? (MODEL_FOLDERS[p.name] ?? listName(p)) : t.short),
      find: (spelling) => slots.get(squash(spelling)),
    };
  }
}
