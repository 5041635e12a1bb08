// Action invocation: the overload is chosen by the argument names of the body, each argument is
// converted to its declared type, and the handler registered for the operation does the work.
import { badRequest, invalid } from '../core/problems.js';
import type { Catalog } from '../catalog/load.js';
import type { OperationDef, TypeDef } from '../catalog/model.js';
import type { OverlayOverload, OverlayParam } from '../catalog/overlay-format.js';
import { type Coerced, decimalValue, integerValue, propertiesValue, stringValue } from '../config/coerce.js';
import { parseReference } from '../core/identity.js';
import type { RenderContext } from '../render/entity.js';
import type { AuditNote } from '../security/audit.js';
import type { Principal } from '../security/service.js';
import type { BeanNode } from '../tree/resolve.js';

export interface ActionCall {
  node: BeanNode;
  op: OperationDef;
  overload: OverlayOverload;
  args: Record<string, unknown>;
  principal: Principal;
  /** Edit session chosen by the request. */
  session: string;
  /** Rendering context of the request (URLs, version), for handlers that answer with entities. */
  ctx: RenderContext;
  /** The request's `Prefer` header (asynchronous invocation), if any. */
  prefer: string | undefined;
  /** What the handler adds to the request's audit record. */
  audit: AuditNote;
  /** Aborted when the client goes away (for actions that wait). */
  signal?: AbortSignal;
}

/** What an action handler returns: a value for `{"return": ...}`, or a reply it shaped itself. */
export type ActionResult = { value: unknown } | { reply: { status: number; body: unknown; headers?: Record<string, string> } };

export type ActionHandler = (call: ActionCall) => Promise<ActionResult> | ActionResult;

const SCALAR_NAMES: Record<string, string> = {
  'java.lang.String': 'string',
  boolean: 'boolean',
  'java.lang.Boolean': 'boolean',
  int: 'int',
  'java.lang.Integer': 'int',
  long: 'long',
  'java.lang.Long': 'long',
  double: 'double',
  'java.util.Properties': '{key: string}',
  'java.util.Map': '{key: string}',
};

function typeLabel(p: OverlayParam): string {
  const base = SCALAR_NAMES[p.type] ?? 'reference';
  return p.array ? `[${base}]` : base;
}

export function signature(op: OperationDef, o: OverlayOverload): string {
  return `${op.name}(${o.params.map((p) => `${p.name}: ${typeLabel(p)}`).join(', ')})`;
}

/** Create and delete of items of a runtime collection whose items are not configuration beans. */
export interface CollectionHandler {
  create(owner: BeanNode, body: Record<string, unknown>, principal: Principal): Promise<string[]>;
  remove(node: BeanNode, principal: Principal): Promise<void>;
  /** Throws 403 unless the principal may create or remove items; checked before a body is read. */
  mayChange?(principal: Principal): void;
}

export class ActionRegistry {
  private readonly handlers = new Map<string, ActionHandler>();
  private readonly collections = new Map<string, CollectionHandler>();

  /** Registers create/delete of the items of the child collection `prop` of `ownerType`. */
  registerCollection(ownerType: string, prop: string, handler: CollectionHandler): void {
    this.catalog.type(ownerType);
    this.collections.set(`${ownerType}#${prop}`, handler);
  }

  collectionHandler(owner: TypeDef, prop: string): CollectionHandler | undefined {
    for (const name of [owner.name, ...owner.ancestors]) {
      const h = this.collections.get(`${name}#${prop}`);
      if (h) return h;
    }
    return undefined;
  }

  constructor(private readonly catalog: Catalog) {}

  /** Registers the handler of `op` declared on (or inherited by) the type `typeName`. */
  register(typeName: string, op: string, handler: ActionHandler): void {
    this.catalog.type(typeName);
    this.handlers.set(`${typeName}#${op}`, handler);
  }

  handlerFor(type: TypeDef, op: OperationDef): ActionHandler | undefined {
    for (const name of [type.name, op.declaredBy, ...type.ancestors]) {
      const h = this.handlers.get(`${name}#${op.name}`);
      if (h) return h;
    }
    return undefined;
  }

  /** Picks the overload whose parameter names are exactly the body's keys, and converts the arguments. */
  bind(op: OperationDef, body: Record<string, unknown>): { overload: OverlayOverload; args: Record<string, unknown> } {
    const keys = Object.keys(body).sort();
    const overload = op.overloads.find((o) => {
      const names = o.params.map((p) => p.name).sort();
      return names.length === keys.length && names.every((n, i) => n === keys[i]);
    });
    if (!overload) {
      const valid = op.overloads.map((o) => signature(op, o)).join(', ');
      const sent = keys.length === 0 ? 'no arguments' : `the arguments ${keys.join(', ')}`;
      throw badRequest(`The action '${op.name}' was called with ${sent}; valid signatures are: ${valid}.`);
    }
    const problems: { path: string; detail: string }[] = [];
    const args: Record<string, unknown> = {};
    for (const p of overload.params) {
      const r = convert(p, body[p.name]);
      if ('problem' in r) problems.push({ path: p.name, detail: `The argument '${p.name}' of '${op.name}' ${r.problem}.` });
      else args[p.name] = r.value;
    }
    if (problems.length > 0) throw invalid(problems);
    return { overload, args };
  }

  async invoke(call: Omit<ActionCall, 'overload' | 'args'>, body: Record<string, unknown>): Promise<ActionResult & { overload: OverlayOverload }> {
    const handler = this.handlerFor(call.node.type, call.op);
    if (!handler) {
      throw badRequest(`The action '${call.op.name}' of ${call.node.type.short} is known but not supported by this server.`);
    }
    const { overload, args } = this.bind(call.op, body);
    return { ...(await handler({ ...call, overload, args })), overload };
  }

  /** The JSON answer of an action: `{}` for void, `{"return": value}` otherwise (references as identities). */
  render(overload: OverlayOverload, value: unknown): Record<string, unknown> {
    if (overload.returns === 'void') return {};
    const isBean = this.catalog.types.has(overload.returns);
    if (isBean && overload.returnsArray && Array.isArray(value)) return { return: value.map((identity) => ({ identity })) };
    return { return: value ?? null };
  }
}

function convert(p: OverlayParam, value: unknown): { value: unknown } | { problem: string } {
  if (value === null || value === undefined) return { value: null };
  if (p.array) {
    if (!Array.isArray(value)) return { problem: `must be a JSON array` };
    const out: unknown[] = [];
    for (const v of value) {
      const r = convert({ ...p, array: false }, v);
      if ('problem' in r) return r;
      out.push(r.value);
    }
    return { value: out };
  }
  // The same rules as configuration values: no number taken for a string, no NUL, no lone
  // surrogate, no string over 64 KiB (users' descriptions and the like are stored).
  const checked = (r: Coerced) => (r.ok ? { value: r.value } : { problem: r.problem });
  switch (SCALAR_NAMES[p.type]) {
    case 'string':
      return checked(stringValue(value));
    case 'boolean':
      if (typeof value === 'boolean') return { value };
      return value === 'true' || value === 'false' ? { value: value === 'true' } : { problem: 'must be true or false' };
    case 'int':
    case 'long':
      return checked(integerValue(value, SCALAR_NAMES[p.type] as 'int' | 'long'));
    case 'double':
      return checked(decimalValue(value));
    case '{key: string}':
      return checked(propertiesValue(value));
    default: {
      const id = parseReference(value);
      return id ? { value: id } : { problem: 'must be a reference (an identity array such as ["servers", "ms1"])' };
    }
  }
}
