// Builds the type model from catalog/catalog.json and the hand-written overlay: the file is read once,
// and each type is built the first time it is asked for (a start that needs a few hundred of the
// catalog's types builds only those), then kept.
import { readFileSync } from 'node:fs';
import type { CatalogDifferences, CatalogFile, CatalogProperty, CatalogType, TypePatch } from './format.js';
import type { ApiVersion, PropDef, PropShape, TypeDef, ValueKind } from './model.js';
import type { OperationTable, Overlay, Role } from './overlay-format.js';
import { overlay as defaultOverlay } from './overlay/index.js';
import { DEFAULT_PRODUCT_VERSION, isProductVersion } from './versions.js';

const CATALOG_URL = new URL('../../../catalog/catalog.json', import.meta.url);
const differencesUrl = (version: string) => new URL(`../../../catalog/versions/${version}.json`, import.meta.url);

export class Catalog {
  /** Every type by name; a type is built from its record (with the overlay and operations) the first time it is asked for. */
  readonly types: ReadonlyMap<string, TypeDef>;
  /** The product version whose bean types these are (`12.2.1.4.0`). */
  readonly productVersion: string;
  /**
   * True for a version other than the default: the overlay, the operations and the behaviours are
   * written against the default version's types, and what they say of a type or property this
   * version lacks is left out (for the default version it is a programming error).
   */
  readonly tolerant: boolean;
  /** The types' records: the catalog's and the overlay's REST-only ones. */
  private readonly raw: ReadonlyMap<string, CatalogType>;
  private readonly ancestry = new Map<string, Set<string>>();
  /** Type name -> the names of its subtypes, in catalog order (made on first use). */
  private descendants: Map<string, string[]> | undefined;
  /** Wire `type` value -> names of the types that write it, for polymorphic creation and discriminators (made on first use). */
  private byDiscriminator: Map<string, string[]> | undefined;

  constructor(
    file: CatalogFile,
    private readonly overlay: Overlay,
    private readonly operations: OperationTable = {},
    options: { tolerant?: boolean } = {},
  ) {
    this.productVersion = file.version;
    this.tolerant = options.tolerant ?? false;
    this.raw = new Map([...Object.entries(file.types), ...Object.entries(overlay.types)]);
    this.types = new TypeTable(this.raw, (name) => this.build(name));
    // The overlay and the operations are written for every version: checked strictly against the
    // default version's types; another version lacks some of the types they name, and with them
    // what the overlay adds to those types.
    if (!this.tolerant) {
      for (const name of Object.keys(overlay.patches)) if (!this.raw.has(name)) throw new Error(`overlay names unknown type ${name}`);
      for (const name of Object.keys(operations)) if (!this.raw.has(name)) throw new Error(`operations are declared on unknown type ${name}`);
    }
    // A range that names no integer property, or that its default does not fit, is found now.
    for (const [name, patch] of Object.entries(overlay.patches)) if (patch.ranges && this.raw.has(name)) this.types.get(name);
  }

  /** The type named, or an error naming it (catalog inconsistencies are programming errors). */
  type(name: string): TypeDef {
    const t = this.types.get(name);
    if (!t) throw new Error(`unknown bean type ${name}`);
    return t;
  }

  /** Finds the concrete type a `type` discriminator value selects among the subtypes of `base`. */
  subtypeByDiscriminator(base: TypeDef, value: string): TypeDef | undefined {
    if (!this.byDiscriminator) {
      this.byDiscriminator = new Map();
      for (const [name, t] of this.raw) {
        const disc = t.disc ?? t.s;
        const list = this.byDiscriminator.get(disc);
        if (list) list.push(name);
        else this.byDiscriminator.set(disc, [name]);
      }
    }
    const name = this.byDiscriminator.get(value)?.find((n) => n === base.name || this.ancestorsOf(n).has(base.name));
    return name === undefined ? undefined : this.types.get(name);
  }

  /**
   * Every operation some type of the catalog offers, by the type that declares it, without building
   * the types: a declaration reaches its declaring type and every subtype, unless the same type
   * declares that name earlier (the operations' first, then the overlay's).
   */
  offeredOperations(): { declaredBy: string; name: string }[] {
    const offered: { declaredBy: string; name: string }[] = [];
    // A version's type may name a base its catalog lacks: what is declared there still reaches it.
    const declaring = new Set([...this.raw.keys(), ...this.subtypeIndex().keys()]);
    for (const declaredBy of declaring) {
      const names = new Set<string>();
      const patch = Object.hasOwn(this.overlay.patches, declaredBy) ? this.overlay.patches[declaredBy] : undefined;
      for (const op of [...(Object.hasOwn(this.operations, declaredBy) ? this.operations[declaredBy]! : []), ...(patch?.operations ?? [])]) {
        if (names.has(op.name)) continue;
        names.add(op.name);
        offered.push({ declaredBy, name: op.name });
      }
    }
    return offered;
  }

  isA(t: TypeDef, ancestor: string): boolean {
    return t.name === ancestor || t.ancestors.has(ancestor);
  }

  /** Every ancestor's name of the type named (its records' bases, transitively). */
  private ancestorsOf(name: string): Set<string> {
    let found = this.ancestry.get(name);
    if (found) return found;
    found = new Set();
    const visit = (n: string) => {
      for (const b of this.raw.get(n)?.b ?? []) {
        if (found!.has(b)) continue;
        found!.add(b);
        visit(b);
      }
    };
    visit(name);
    this.ancestry.set(name, found);
    return found;
  }

  /** Type name -> the names of the types that have it among their ancestors, in catalog order. */
  private subtypeIndex(): Map<string, string[]> {
    if (!this.descendants) {
      this.descendants = new Map();
      for (const n of this.raw.keys()) {
        for (const a of this.ancestorsOf(n)) {
          const list = this.descendants.get(a);
          if (list) list.push(n);
          else this.descendants.set(a, [n]);
        }
      }
    }
    return this.descendants;
  }

  /** Builds the type named from its record, the overlay's patches along its lineage and the operations declared on it or an ancestor. */
  private build(name: string): TypeDef {
    const t = buildType(name, this.raw.get(name)!);
    for (const a of this.ancestorsOf(name)) t.ancestors.add(a);
    const { overlay, operations } = this;
    const strict = !this.tolerant;
    const patchOf = (n: string) => (Object.hasOwn(overlay.patches, n) ? overlay.patches[n] : undefined);
    const own = patchOf(name);
    for (const p of own?.properties ?? []) addProp(t, toPropDef(p), true);
    for (const hidden of own?.hide ?? []) removeProp(t, hidden);
    // Properties and operations declared on a base type reach every subtype; the overlay's version of
    // a property replaces the catalog's, and the nearest patch wins.
    const patched = new Set((own?.properties ?? []).map((p) => p.n));
    for (const anc of [name, ...t.ancestors]) {
      for (const op of Object.hasOwn(operations, anc) ? operations[anc]! : []) {
        if (!t.operations.has(op.name)) t.operations.set(op.name, { ...op, declaredBy: anc });
      }
      const patch = patchOf(anc);
      if (!patch) continue;
      if (anc !== name) {
        for (const p of patch.properties ?? []) {
          if (patched.has(p.n)) continue;
          patched.add(p.n);
          addProp(t, toPropDef(p), true);
        }
        for (const hidden of patch.hide ?? []) removeProp(t, hidden);
      }
      for (const op of patch.operations ?? []) {
        if (!t.operations.has(op.name)) t.operations.set(op.name, { ...op, declaredBy: anc });
      }
      for (const [prop, range] of Object.entries(patch.ranges ?? {})) applyRange(t, prop, range, anc === name && strict);
    }
    finishType(t);
    // The subtypes are built when first asked for (asking for a base type does not build its whole family).
    Object.defineProperty(t, 'subtypes', {
      configurable: true,
      enumerable: true,
      get: () => {
        const subtypes = (this.subtypeIndex().get(name) ?? []).map((n) => this.types.get(n)!);
        Object.defineProperty(t, 'subtypes', { value: subtypes, writable: true, enumerable: true, configurable: true });
        return subtypes;
      },
    });
    return t;
  }
}

/** The types of a catalog by name: each built the first time it is asked for, then kept. */
class TypeTable implements ReadonlyMap<string, TypeDef> {
  private readonly built = new Map<string, TypeDef>();

  constructor(
    private readonly raw: ReadonlyMap<string, CatalogType>,
    private readonly make: (name: string) => TypeDef,
  ) {}

  get size(): number {
    return this.raw.size;
  }

  has(name: string): boolean {
    return this.raw.has(name);
  }

  get(name: string): TypeDef | undefined {
    let t = this.built.get(name);
    if (t === undefined && this.raw.has(name)) {
      t = this.make(name);
      this.built.set(name, t);
    }
    return t;
  }

  keys(): MapIterator<string> {
    return this.raw.keys();
  }

  *values(): MapIterator<TypeDef> {
    for (const name of this.raw.keys()) yield this.get(name)!;
  }

  *entries(): MapIterator<[string, TypeDef]> {
    for (const name of this.raw.keys()) yield [name, this.get(name)!];
  }

  [Symbol.iterator](): MapIterator<[string, TypeDef]> {
    return this.entries();
  }

  forEach(callback: (value: TypeDef, key: string, map: ReadonlyMap<string, TypeDef>) => void, thisArg?: unknown): void {
    for (const [name, t] of this.entries()) callback.call(thisArg, t, name, this);
  }
}

let baseFile: CatalogFile | undefined;
const files = new Map<string, CatalogFile>();
const loaded = new Map<string, WeakMap<OperationTable, Catalog>>();
const NO_OPERATIONS: OperationTable = Object.freeze({});

/** The catalog file of a product version: the base file as it is, another version as the base with its differences applied. */
function catalogFile(version: string): CatalogFile {
  let file = files.get(version);
  if (file) return file;
  baseFile ??= JSON.parse(readFileSync(CATALOG_URL, 'utf8')) as CatalogFile;
  if (version === baseFile.version) file = baseFile;
  else {
    const differences = JSON.parse(readFileSync(differencesUrl(version), 'utf8')) as CatalogDifferences;
    if (differences.base !== baseFile.version) throw new Error(`the catalog differences of ${version} apply to ${differences.base}, not to the catalog's ${baseFile.version}: run the catalog generator again`);
    file = applyDifferences(baseFile, differences);
  }
  files.set(version, file);
  return file;
}

/** The whole catalog of another version: the base's types with the differences applied (the base is left as it is). */
export function applyDifferences(base: CatalogFile, differences: CatalogDifferences): CatalogFile {
  const types: Record<string, CatalogType> = { ...base.types };
  for (const [name, change] of Object.entries(differences.types)) {
    if (change === null) delete types[name];
    else if ('p' in change) types[name] = change as CatalogType;
    else {
      const was = types[name];
      if (!was) throw new Error(`the catalog differences of ${differences.version} change ${name}, which the base does not have`);
      types[name] = patchType(was, change as TypePatch);
    }
  }
  return { source: differences.source, version: differences.version, types };
}

function patchType(was: CatalogType, patch: TypePatch): CatalogType {
  const next: CatalogType = { ...was };
  if (patch.s !== undefined) next.s = patch.s;
  if (patch.kind !== undefined) next.kind = patch.kind;
  if (patch.disc !== undefined) {
    if (patch.disc === null) delete next.disc;
    else next.disc = patch.disc;
  }
  if (patch.b !== undefined) {
    if (patch.b === null) delete next.b;
    else next.b = patch.b;
  }
  if (patch.roles !== undefined) {
    if (patch.roles === null) delete next.roles;
    else next.roles = patch.roles;
  }
  const gone = new Set(patch.del ?? []);
  const props = new Map(was.p.filter((p) => !gone.has(p.n)).map((p) => [p.n, p]));
  for (const p of patch.put ?? []) props.set(p.n, p);
  next.p = patch.o
    ? patch.o.map((n) => {
        const p = props.get(n);
        if (!p) throw new Error(`the catalog differences order ${n}, which the type does not have`);
        return p;
      })
    : [...props.values()];
  return next;
}

/**
 * The catalog of a product version (default: the default version) with the operations given
 * (loaded once per version and table); without any, only the overlay's (the Lifecycle Manager's).
 * Only the versions asked for are read. The operations come from their definitions:
 * `catalogWithOperations()` of src/operations/catalog.ts loads the catalog with all of them.
 */
export function loadCatalog(operations: OperationTable = NO_OPERATIONS, version: string = DEFAULT_PRODUCT_VERSION): Catalog {
  if (!isProductVersion(version)) throw new Error(`${version} is not a product version this server knows`);
  let byTable = loaded.get(version);
  if (!byTable) loaded.set(version, (byTable = new WeakMap()));
  let catalog = byTable.get(operations);
  if (!catalog) byTable.set(operations, (catalog = new Catalog(catalogFile(version), defaultOverlay, operations, { tolerant: version !== DEFAULT_PRODUCT_VERSION })));
  return catalog;
}

function buildType(name: string, t: CatalogType): TypeDef {
  const def: TypeDef = {
    name,
    short: t.s,
    discriminator: t.disc ?? t.s,
    kind: t.kind,
    ancestors: new Set(),
    roles: (t.roles ?? []) as Role[],
    props: [],
    prop: new Map(),
    children: [],
    fields: { current: [], legacy: [] },
    linkRefs: [],
    links: t.links ?? 'management',
    operations: new Map(),
    createForms: new Map(),
    keyProp: 'name',
    subtypes: [],
  };
  for (const p of t.p) addProp(def, toPropDef(p), false);
  return def;
}

function addProp(t: TypeDef, p: PropDef, replace: boolean): void {
  const existing = t.prop.get(p.name);
  if (existing && !replace) return;
  if (existing) t.props[t.props.indexOf(existing)] = p;
  else t.props.push(p);
  t.prop.set(p.name, p);
}

function removeProp(t: TypeDef, name: string): void {
  const p = t.prop.get(name);
  if (!p) return;
  t.props.splice(t.props.indexOf(p), 1);
  t.prop.delete(name);
}

/** Sets the legal range of an integer property; the overlay must name real properties and fit their defaults. */
function applyRange(t: TypeDef, name: string, [min, max]: readonly [number, number], declared: boolean): void {
  const p = t.prop.get(name);
  if (!p) {
    if (declared) throw new Error(`overlay gives a range to ${t.short}.${name}, which does not exist`);
    return;
  }
  if (p.min !== undefined) return;
  if (p.valueKind !== 'int' && p.valueKind !== 'long') throw new Error(`overlay gives a range to ${t.short}.${name}, which is not an integer`);
  // A default derived at run time (no declared one) is the derivation's business, not the zero's.
  for (const d of [p.hasDefault ? p.defaultValue : p.derivedDefault ? undefined : 0, p.productionDefault]) {
    if (typeof d === 'number' && (d < min || d > max)) throw new Error(`the default ${d} of ${t.short}.${name} is outside its range ${min}..${max}`);
  }
  p.min = min;
  p.max = max;
}

/** Derived tables: children, visible fields per URL generation, create forms, key property. */
function finishType(t: TypeDef): void {
  for (const p of t.props) {
    if (p.shape === 'singleton' || p.shape === 'collection') {
      t.children.push(p);
      if (p.inline) t.inline = p;
      if (p.creators.length > 0) {
        p.createForm = `${p.shape === 'collection' ? singular(p.name) : p.name}CreateForm`;
        t.createForms.set(p.createForm, p);
      }
      continue;
    }
    if (p.internal) continue;
    if (p.linkOnly) {
      t.linkRefs.push(p);
      continue;
    }
    t.fields.legacy.push(p);
    if (!p.deprecatedIn) t.fields.current.push(p);
    if (p.key) t.keyProp = p.name;
  }
  if (!t.prop.has(t.keyProp)) {
    const key = t.props.find((p) => p.key);
    if (key) t.keyProp = key.name;
  }
}

/** Visible in the URL generation asked for (children and fields alike). */
export function visibleIn(p: PropDef, version: ApiVersion): boolean {
  return version === 'legacy' || !p.deprecatedIn;
}

function toPropDef(p: CatalogProperty): PropDef {
  const shape: PropShape = p.rel === 'c' ? (p.a ? 'collection' : 'singleton') : p.rel === 'r' ? 'reference' : 'scalar';
  const def: PropDef = {
    name: p.n,
    javaType: p.t,
    valueKind: valueKindOf(p.t, p.rel),
    array: p.a === 1,
    shape,
    optional: shape === 'singleton' && (p.cr?.length ?? 0) > 0,
    creators: p.cr ?? [],
    writable: p.w === 1,
    key: p.k === 1,
    hasDefault: 'd' in p,
    defaultValue: p.d,
    derivedDefault: p.dd === 1,
    encrypted: p.enc === 1,
    restartNeeded: p.rs === 1,
    // JMX composite data has no JSON form: the product's REST layer never shows such properties.
    internal: p.ri === 1 || p.t.startsWith('javax.management.'),
  };
  if ('dp' in p) def.productionDefault = p.dp;
  if (p.lv) def.legalValues = p.lv;
  if (p.dep) def.deprecatedIn = p.dep;
  if (p.gr) def.readRoles = p.gr as Role[];
  if (p.sr) def.writeRoles = p.sr as Role[];
  if (p.only) def.onlyIn = p.only;
  if (p.admin) def.adminOnly = true;
  if (p.link) def.linkOnly = true;
  if (p.detail) def.detail = true;
  if (p.at) def.address = p.at;
  if (p.inline) def.inline = true;
  return def;
}

const KIND_BY_JAVA: Record<string, ValueKind> = {
  int: 'int', short: 'int', byte: 'int', 'java.lang.Integer': 'int', 'java.lang.Short': 'int',
  long: 'long', 'java.lang.Long': 'long',
  double: 'double', float: 'double', 'java.lang.Double': 'double', 'java.lang.Float': 'double',
  boolean: 'boolean', 'java.lang.Boolean': 'boolean',
  'java.lang.String': 'string', char: 'string', 'java.lang.Character': 'string',
  'java.util.Properties': 'properties', 'java.util.Map': 'properties',
  'java.util.Date': 'date',
  'appserver.health.HealthState': 'health',
  'java.lang.Exception': 'throwable', 'java.lang.Throwable': 'throwable',
};

/** The kind of value a Java type holds on the wire (`bean` for relationships). */
export function valueKindOf(javaType: string, rel: CatalogProperty['rel']): ValueKind {
  if (rel) return 'bean';
  return KIND_BY_JAVA[javaType] ?? 'object';
}

/** English singular of a collection name, as the create-form names use it. */
export function singular(plural: string): string {
  if (plural.endsWith('ies')) return `${plural.slice(0, -3)}y`;
  if (plural.endsWith('sses') || plural.endsWith('xes')) return plural.slice(0, -2);
  if (plural.endsWith('s') && !plural.endsWith('ss')) return plural.slice(0, -1);
  return plural;
}
