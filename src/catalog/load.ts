// Builds the type model from catalog/catalog.json and the hand-written overlay, once, at start-up.
import { readFileSync } from 'node:fs';
import type { CatalogDifferences, CatalogFile, CatalogProperty, CatalogType, TypePatch } from './format.js';
import type { ApiVersion, PropDef, PropShape, TypeDef, ValueKind } from './model.js';
import type { OperationTable, Overlay, Role } from './overlay-format.js';
import { overlay as defaultOverlay } from './overlay/index.js';
import { DEFAULT_PRODUCT_VERSION, isProductVersion } from './versions.js';

const CATALOG_URL = new URL('../../../catalog/catalog.json', import.meta.url);
const differencesUrl = (version: string) => new URL(`../../../catalog/versions/${version}.json`, import.meta.url);

export class Catalog {
  readonly types = new Map<string, TypeDef>();
  /** The product version whose bean types these are (`12.2.1.4.0`). */
  readonly productVersion: string;
  /**
   * True for a version other than the default: the overlay, the operations and the behaviours are
   * written against the default version's types, and what they say of a type or property this
   * version lacks is left out (for the default version it is a programming error).
   */
  readonly tolerant: boolean;
  /** Wire `type` value -> type, for polymorphic creation and discriminators. */
  private readonly byDiscriminator = new Map<string, TypeDef[]>();

  constructor(file: CatalogFile, overlay: Overlay, operations: OperationTable = {}, options: { tolerant?: boolean } = {}) {
    this.productVersion = file.version;
    this.tolerant = options.tolerant ?? false;
    const raw: Record<string, CatalogType> = { ...file.types, ...overlay.types };
    for (const [name, t] of Object.entries(raw)) this.types.set(name, buildType(name, t));
    this.resolveAncestors(raw);
    this.applyOverlay(overlay, operations);
    this.indexSubtypes();
    for (const t of this.types.values()) finishType(t);
  }

  /** The type named, or an error naming it (catalog inconsistencies are programming errors). */
  type(name: string): TypeDef {
    const t = this.types.get(name);
    if (!t) throw new Error(`unknown bean type ${name}`);
    return t;
  }

  /** Finds the concrete type a `type` discriminator value selects among the subtypes of `base`. */
  subtypeByDiscriminator(base: TypeDef, value: string): TypeDef | undefined {
    return this.byDiscriminator.get(value)?.find((t) => t === base || t.ancestors.has(base.name));
  }

  isA(t: TypeDef, ancestor: string): boolean {
    return t.name === ancestor || t.ancestors.has(ancestor);
  }

  private resolveAncestors(raw: Record<string, CatalogType>): void {
    const visit = (name: string, into: Set<string>) => {
      for (const b of raw[name]?.b ?? []) {
        if (into.has(b)) continue;
        into.add(b);
        visit(b, into);
      }
    };
    for (const t of this.types.values()) visit(t.name, t.ancestors);
  }

  private applyOverlay(overlay: Overlay, operations: OperationTable): void {
    // The overlay and the operations are written for every version: checked strictly against the
    // default version's types; another version lacks some of the types they name, and with them
    // what the overlay adds to those types.
    const strict = !this.tolerant;
    for (const [name, patch] of Object.entries(overlay.patches)) {
      const t = this.types.get(name);
      if (!t && !strict) continue;
      if (!t) throw new Error(`overlay names unknown type ${name}`);
      for (const p of patch.properties ?? []) addProp(t, toPropDef(p), true);
      for (const hidden of patch.hide ?? []) removeProp(t, hidden);
    }
    if (strict) for (const name of Object.keys(operations)) if (!this.types.has(name)) throw new Error(`operations are declared on unknown type ${name}`);
    // Properties and operations declared on a base type reach every subtype; the overlay's version of
    // a property replaces the catalog's, and the nearest patch wins.
    for (const t of this.types.values()) {
      const lineage = [t.name, ...t.ancestors];
      const patched = new Set((overlay.patches[t.name]?.properties ?? []).map((p) => p.n));
      for (const anc of lineage) {
        for (const op of Object.hasOwn(operations, anc) ? operations[anc]! : []) {
          if (!t.operations.has(op.name)) t.operations.set(op.name, { ...op, declaredBy: anc });
        }
        const patch = overlay.patches[anc];
        if (!patch) continue;
        if (anc !== t.name) {
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
        for (const [name, range] of Object.entries(patch.ranges ?? {})) applyRange(t, name, range, anc === t.name && strict);
      }
    }
  }

  private indexSubtypes(): void {
    for (const t of this.types.values()) {
      const list = this.byDiscriminator.get(t.discriminator) ?? [];
      list.push(t);
      this.byDiscriminator.set(t.discriminator, list);
      for (const a of t.ancestors) this.types.get(a)?.subtypes.push(t);
    }
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
