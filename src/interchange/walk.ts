// Walking a bean tree for an export: the values each bean holds and its children, in catalog
// order, the same for every format; references turned into the names files use, each checked to
// name the same bean again when the file is read back.
import type { Catalog } from '../catalog/load.js';
import type { PropDef, TypeDef } from '../catalog/model.js';
import { childKey, identityOfKey, keyOfIdentity } from '../core/identity.js';
import type { BeanRecord, BeanTree } from '../tree/records.js';
import { NameIndex, notCarried } from './assemble.js';
import type { Finding, Location } from './findings.js';
import { Naming, carriedProps, defaultChildType } from './names.js';
import type { SecretOutput } from './secrets.js';

export interface ExportContext {
  catalog: Catalog;
  naming: Naming;
  tree: BeanTree;
  index: NameIndex;
  findings: Finding[];
  secrets: SecretOutput;
}

export function exportContext(catalog: Catalog, tree: BeanTree, secrets: SecretOutput): ExportContext {
  return { catalog, naming: new Naming(catalog), tree, index: new NameIndex(catalog, tree), findings: [], secrets };
}

export interface BeanView {
  key: string;
  type: TypeDef;
  record: BeanRecord | undefined;
  /** The item's name (undefined for singletons and the root). */
  name?: string;
  /** The type files name when it differs from the child's default type. */
  typeGiven: boolean;
}

export interface ChildGroup {
  prop: PropDef;
  beans: BeanView[];
}

/** Values a bean holds, in catalog order, without its key (files give names their own way). */
export function valuesOf(ctx: ExportContext, bean: BeanView, loc: Location): [PropDef, unknown][] {
  const values = bean.record?.values ?? {};
  const out: [PropDef, unknown][] = [];
  for (const p of carriedProps(bean.type)) {
    if (!Object.hasOwn(values, p.name) || p.shape === 'singleton' || p.shape === 'collection') continue;
    if (bean.name !== undefined && p.name === bean.type.keyProp) continue;
    const skip = notCarried(ctx.catalog, bean.type, p);
    if (skip) {
      ctx.findings.push({ severity: 'info', ...loc, message: `not exported: ${skip}.` });
      continue;
    }
    out.push([p, values[p.name]]);
  }
  for (const name of Object.keys(values)) {
    const p = bean.type.prop.get(name);
    if (!p || p.internal) ctx.findings.push({ severity: 'warning', ...loc, message: `not exported: ${bean.type.short} has no property '${name}' any more.` });
  }
  return out;
}

/** The children of a bean: singletons that are stored or hold stored beans, then collection items. */
export function childrenOf(ctx: ExportContext, key: string, type: TypeDef): ChildGroup[] {
  const out: ChildGroup[] = [];
  for (const p of type.children) {
    if (p.internal) continue;
    const at = childKey(key, p.name);
    if (p.shape === 'singleton') {
      const record = ctx.tree.bean(at);
      if (!record && ctx.tree.subtree(at).length === 0) continue;
      const childType = record ? ctx.catalog.type(record.type) : defaultChildType(ctx.catalog, p);
      out.push({ prop: p, beans: [{ key: at, type: childType, record, typeGiven: childType !== defaultChildType(ctx.catalog, p) }] });
      continue;
    }
    const names = ctx.tree.itemNames(at);
    if (names.length === 0) continue;
    const fallback = defaultChildType(ctx.catalog, p);
    out.push({
      prop: p,
      beans: names.map((name) => {
        const itemKey = `${at}/${encodeURIComponent(name)}`;
        const record = ctx.tree.bean(itemKey);
        const itemType = record ? ctx.catalog.type(record.type) : fallback;
        return { key: itemKey, type: itemType, record, name, typeGiven: itemType !== fallback };
      }),
    });
  }
  return out;
}

/** The names a reference value is written with; a name that would read back as another bean is reported. */
export function referenceNames(ctx: ExportContext, from: string, p: PropDef, value: unknown, loc: Location): string[] {
  const identities = (p.array ? (Array.isArray(value) ? value : []) : [value]) as unknown[];
  const out: string[] = [];
  for (const identity of identities) {
    if (!Array.isArray(identity) || identity.length === 0) {
      ctx.findings.push({ severity: 'warning', ...loc, message: `not exported: '${p.name}' holds ${JSON.stringify(identity)}, which is not a reference.` });
      continue;
    }
    const key = keyOfIdentity(identity as string[]);
    const target = ctx.tree.bean(key);
    const place = ctx.tree.placementOf(key);
    const name = place ? place[1] : target ? target.values[ctx.catalog.types.get(target.type)?.keyProp ?? 'name'] : undefined;
    if (typeof name !== 'string') {
      ctx.findings.push({ severity: 'warning', ...loc, message: `not exported: '${p.name}' refers to ${JSON.stringify(identity)}, which is not in the domain.` });
      continue;
    }
    const back = ctx.index.resolve(name, p.javaType, from);
    if (back.key !== key) {
      ctx.findings.push({
        severity: 'warning',
        ...loc,
        message: `'${p.name}' refers to ${JSON.stringify(identityOfKey(key))} by the name '${name}', which ${back.key !== undefined ? `reads back as ${JSON.stringify(identityOfKey(back.key))}` : back.why}.`,
      });
    }
    out.push(name);
  }
  return out;
}

/** A scalar as text, for XML and for the model's string forms. */
export function scalarText(p: PropDef, value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return p.valueKind === 'date' ? new Date(value).toISOString() : String(value);
  if (typeof value === 'boolean') return String(value);
  return undefined;
}

/** A system resource's descriptor child (`JDBCResource`, `JMSResource`), written to a file of its own. */
export function descriptorChild(type: TypeDef, catalog: Catalog): PropDef | undefined {
  if (!type.prop.has('descriptorFileName')) return undefined;
  return type.children.find((p) => p.shape === 'singleton' && catalog.types.get(p.javaType)?.kind === 'descriptor');
}
