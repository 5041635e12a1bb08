// What a bean is, said by the catalog: its type, its properties (type, default, legal values, unit,
// restart needed), its children, its actions with their parameters, and which roles may read,
// change, create and invoke what. Who may do what is not restated here: each right is found by
// asking the server's own authorization with a principal holding one role at a time, so the
// description cannot drift from what the server enforces.
import type { Catalog } from '../catalog/load.js';
import { visibleIn } from '../catalog/load.js';
import type { ApiVersion, OperationDef, PropDef, TypeDef } from '../catalog/model.js';
import type { OverlayOverload, Role } from '../catalog/overlay-format.js';
import { Problem } from '../core/problems.js';
import type { Principal } from '../security/service.js';
import { actionText, typeText } from './texts.js';
import { childTypes, kindWord, parameterKind, unitOf } from './values.js';

/** A check of the server's authorization: throws a `forbidden` problem when the principal may not. */
export type Check = (principal: Principal) => void;

/** The rights over a bean, as checks; an absent check means nobody may (the tree takes no such change). */
export interface AccessChecks {
  read: Check;
  update?: Check;
  /** Changing one property (a few only administrators may change, whatever the bean's roles say). */
  updateProperty?(p: PropDef): Check;
  delete?: Check;
  /** Reading a child (some children are for administrators only). */
  readChild(child: PropDef): Check;
  /** Creating in a child collection or an optional singleton, when the tree takes it. */
  create(child: PropDef): Check | undefined;
  invoke(op: OperationDef): Check;
}

const ROLES: readonly Role[] = ['Admin', 'Deployer', 'Operator', 'Monitor'];

/** The roles that pass a check, asked one role at a time. */
export function rolesPassing(check: Check | undefined): Role[] {
  if (!check) return [];
  return ROLES.filter((role) => {
    try {
      check({ user: '(describe)', roles: new Set([role]) });
      return true;
    } catch (err) {
      if (err instanceof Problem && err.kind === 'forbidden') return false;
      throw err;
    }
  });
}

export interface DescribeOptions {
  catalog: Catalog;
  version: ApiVersion;
  /** The tree the bean is in (`edit`, `domainRuntime`, `lifecycle`...). */
  tree: string;
  /** The tree takes changes: writable properties are writable here. */
  editable: boolean;
  access: AccessChecks;
  /** Children that exist only in another tree are left out. */
  childVisible(p: PropDef): boolean;
}

type Json = Record<string, unknown>;

/** The description of a bean of type `type`. */
export function describeBean(type: TypeDef, o: DescribeOptions): Json {
  const out: Json = {
    type: type.short,
    typeName: type.name,
    kind: type.kind,
  };
  const text = typeText(type.short);
  if (text) out.description = text;
  out.baseTypes = [...type.ancestors].filter((a) => o.catalog.types.has(a)).map((a) => o.catalog.type(a).short);
  out.tree = o.tree;
  const update = rolesPassing(o.access.update);
  out.access = {
    read: rolesPassing(o.access.read),
    update,
    delete: rolesPassing(o.access.delete),
  };
  // A property fewer roles may change than the bean's `access.update` names has an `access` of its own.
  const propertyUpdate = o.access.updateProperty;
  out.properties = type.fields[o.version].map((p) => {
    const described = describeProperty(o.catalog, p, o.editable);
    if (!propertyUpdate || described.writable !== true) return described;
    const roles = rolesPassing(propertyUpdate(p));
    return roles.length === update.length ? described : { ...described, access: { update: roles } };
  });
  out.children = type.children.filter((c) => !c.inline && visibleIn(c, o.version) && o.childVisible(c)).map((c) => describeChild(o, c));
  out.actions = [...type.operations.values()].filter((op) => visibleIn({ deprecatedIn: op.deprecatedIn } as PropDef, o.version)).map((op) => describeAction(o, op));
  return out;
}

export function describeProperty(catalog: Catalog, p: PropDef, editable: boolean): Json {
  const out: Json = { name: p.name, type: kindWord(p.valueKind) };
  if (p.array) out.array = true;
  if (p.shape === 'reference') out.references = catalog.types.has(p.javaType) ? catalog.type(p.javaType).short : p.javaType;
  if (p.hasDefault && !p.encrypted) out.default = p.defaultValue ?? null;
  if (p.productionDefault !== undefined) out.productionDefault = p.productionDefault;
  if (p.derivedDefault) out.derivedDefault = true;
  if (p.legalValues) out.legalValues = p.legalValues;
  if (p.min !== undefined) out.min = p.min;
  if (p.max !== undefined) out.max = p.max;
  const unit = unitOf(p);
  if (unit) out.unit = unit;
  out.writable = editable && p.writable;
  out.restartNeeded = p.restartNeeded;
  if (p.encrypted) out.encrypted = true;
  if (p.key) out.key = true;
  if (p.deprecatedIn) out.deprecatedIn = p.deprecatedIn;
  return out;
}

function describeChild(o: DescribeOptions, c: PropDef): Json {
  const declared = o.catalog.types.has(c.javaType) ? o.catalog.type(c.javaType).short : c.javaType;
  const out: Json = { name: c.name, kind: c.shape, type: declared };
  if (c.optional) out.optional = true;
  const create = o.access.create(c);
  if (create) {
    out.creatableTypes = childTypes(o.catalog, c).map((t) => t.discriminator);
    if (c.createForm) out.createForm = c.createForm;
  }
  out.access = { read: rolesPassing(o.access.readChild(c)), create: rolesPassing(create) };
  return out;
}

export function describeAction(o: DescribeOptions, op: OperationDef): Json {
  const out: Json = { name: op.name };
  const text = actionText(op.name);
  if (text) out.description = text;
  out.impact = op.impact ?? 'action';
  out.returnsTask = op.async === true;
  out.overloads = op.overloads.map((ov) => describeOverload(o.catalog, ov));
  out.access = { invoke: rolesPassing(o.access.invoke(op)) };
  return out;
}

function describeOverload(catalog: Catalog, ov: OverlayOverload): Json {
  return {
    parameters: ov.params.map((p) => {
      const kind = parameterKind(catalog, p.type);
      const param: Json = { name: p.name, type: kindWord(kind) };
      if (p.array) param.array = true;
      if (kind === 'bean') param.references = catalog.type(p.type).short;
      return param;
    }),
    returns: returnWord(catalog, ov),
  };
}

/** What an overload returns: `void`, a kind of value, or the short name of a bean type (a task). */
function returnWord(catalog: Catalog, ov: OverlayOverload): string {
  if (ov.returns === 'void') return 'void';
  const word = catalog.types.has(ov.returns) ? catalog.type(ov.returns).short : kindWord(parameterKind(catalog, ov.returns));
  return ov.returnsArray ? `${word}[]` : word;
}
