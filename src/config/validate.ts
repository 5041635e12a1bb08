// Checks a write against the catalog and reports every problem at once, each naming its property.
import { ProblemList } from '../core/problems.js';
import type { Catalog } from '../catalog/load.js';
import type { TypeDef } from '../catalog/model.js';
import { isCreateOnly } from '../behaviour/create-only.js';
import type { BehaviourRegistry } from '../behaviour/registry.js';
import { toWire, zeroOf } from '../render/values.js';
import type { BeanRecord } from '../tree/records.js';
import { keyOfIdentity } from '../core/identity.js';
import { coerce } from './coerce.js';
import type { Secrets } from './secrets.js';

export interface WriteValues {
  set: Record<string, unknown>;
  unset: string[];
}

export interface WriteContext {
  catalog: Catalog;
  behaviours: BehaviourRegistry;
  secrets: Secrets;
  /** Looks a bean up in the session's view (for reference checks). */
  lookup: (key: string) => BeanRecord | undefined;
}

/** Most missing references one problem names (the others are counted). */
const NAMED_REFERENCES = 10;

/** Keys a client may echo back from a GET body; they carry no change. */
const IGNORED = new Set(['links', 'identity']);

import { nameProblem } from '../core/text.js';

export { nameProblem };

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}


/**
 * Validates the properties of a create or update body for a bean of `type`.
 * `current` holds the bean's present values (undefined when creating).
 */
export function validateWrite(
  ctx: WriteContext,
  type: TypeDef,
  body: Record<string, unknown>,
  current: Record<string, unknown> | undefined,
): WriteValues {
  const problems = new ProblemList();
  const out: WriteValues = { set: {}, unset: [] };
  for (const [name, raw] of Object.entries(body)) {
    if (IGNORED.has(name)) continue;
    const p = type.prop.get(name);
    if (name === 'type' && (!p || p.shape === 'scalar')) {
      if (current !== undefined && raw !== type.discriminator) {
        problems.add(name, () => `The type of an existing ${type.short} cannot be changed to ${JSON.stringify(raw)}.`);
      }
      continue;
    }
    if (!p) {
      problems.add(name, () => `${type.short} has no property '${name}'.`);
      continue;
    }
    if (p.shape === 'singleton' || p.shape === 'collection') {
      problems.add(name, () => `'${name}' is a child of ${type.short}, not a property: write it at its own URL ('.../${name}').`);
      continue;
    }
    if (name === type.keyProp) {
      if (current === undefined) {
        const problem = nameProblem(raw);
        if (problem) problems.add(name, () => `The ${name} ${problem}.`);
        else out.set[name] = raw;
      } else if (raw !== current[name] && raw !== undefined) {
        problems.add(name, () => `The ${name} of an existing ${type.short} cannot be changed (it is ${JSON.stringify(current[name])}).`);
      }
      continue;
    }
    // Read-only properties a create may still set (create-only) are set once, when the bean is made.
    if (!p.writable && !(current === undefined && isCreateOnly(ctx.behaviours, type, name))) {
      // Echoing back what a GET showed changes nothing and is not an error.
      if (current !== undefined && (raw === null || same(raw, toWire(p, name in current ? current[name] : p.hasDefault ? p.defaultValue : zeroOf(p))))) continue;
      problems.add(name, () => `The property '${name}' of ${type.short} is read-only.`);
      continue;
    }
    // Secrets are shown as null: a null sent back keeps the secret rather than erasing it.
    if (raw === null && p.encrypted) continue;
    if (raw === null) {
      out.unset.push(name);
      continue;
    }
    const result = coerce(p, raw);
    if (!result.ok) {
      problems.add(name, () => `The property '${name}' of ${type.short} ${result.problem}.`);
      continue;
    }
    if (p.shape === 'reference') {
      const ids = (p.array ? result.value : [result.value]) as string[][];
      const dangling = ids.filter((id) => !referenceOk(ctx, id, p.javaType));
      if (dangling.length > 0) {
        // A long list names a few and counts the rest.
        const named = dangling.slice(0, NAMED_REFERENCES).map((id) => JSON.stringify(id)).join(', ');
        const list = dangling.length > NAMED_REFERENCES ? `${named} and ${dangling.length - NAMED_REFERENCES} more` : named;
        problems.add(name, () => `The property '${name}' of ${type.short} refers to ${list}, which does not exist or is not a ${ctx.catalog.type(p.javaType).short}.`);
        continue;
      }
    }
    out.set[name] = p.encrypted && typeof result.value === 'string' ? ctx.secrets.seal(result.value) : result.value;
  }
  problems.throwIfAny();
  return out;
}

function referenceOk(ctx: WriteContext, identity: string[], javaType: string): boolean {
  const target = ctx.lookup(keyOfIdentity(identity));
  if (!target) return false;
  const t = ctx.catalog.types.get(target.type);
  return t !== undefined && ctx.catalog.isA(t, javaType);
}
