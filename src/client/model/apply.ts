// Applying a model: one edit session, one activation. The beans to create are made level by level
// (after each level the edit tree is searched again inside the session, so what a new bean brought
// with it is compared like anything else), then every property is set, references last, then with
// `prune` what the model does not name is deleted. Any refused request is collected with its place
// in the model; one or more cancel the session, so the domain is left as it was. A lock held by
// someone else is named and left alone.
import type { AppserverClient } from '../client.js';
import { AppserverError } from '../errors.js';
import { uploadForm } from './archives.js';
import { typeInfo } from './format.js';
import { addRealm, readLive } from './live.js';
import { type Change, NameIndex, type Plan, type PlanOptions, plan } from './plan.js';
import { type RealmStep, deleteSteps, realmSteps, runSteps, takeBack } from './realm.js';
import { type Node, type Place, type Problem, problemText } from './tree.js';

export interface ApplyResult {
  /** The plan as first computed (what was applied). */
  plan: Plan;
  created: number;
  updated: number;
  deleted: number;
  /** Requests sent inside the session. */
  requests: number;
  activated: boolean;
  /** Users and groups created, changed or removed (through the authenticator, outside the session). */
  realm: number;
}

/** A lock the CLI takes lapses after this long, should it be killed before it lets go. */
const LOCK_LAPSE_MS = 10 * 60_000;
/** Levels of nesting created at most (a JMS module's queue is three below the domain). */
const MAX_LEVELS = 10;

export class ApplyError extends AppserverError {
  constructor(
    message: string,
    readonly problems: Problem[],
    kind: AppserverError['kind'] = 'rejected',
  ) {
    super(kind, message, undefined, problems.map(problemText));
  }
}

function wire(value: unknown, index: NameIndex, reference: boolean, array: boolean, javaType: string): unknown {
  if (!reference) return value;
  const resolve = (n: string) => {
    const r = index.resolve(n, javaType);
    if (typeof r === 'string') throw new Error(r);
    return r;
  };
  if (array) return ((value as string[]) ?? []).map((n) => ({ identity: resolve(n) }));
  return value === null || value === undefined ? null : resolve(value as string);
}

/** What a refused request said, as problems at a place. */
function refused(err: unknown, at: Place, what: string): Problem[] {
  if (err instanceof AppserverError) {
    if (err.kind === 'auth' && err.status === 403) return [{ at, message: `${what}: the user may not change the configuration (403): it needs the Admin role (Deployer for applications)` }];
    const details = err.details.length > 0 ? err.details : [err.message];
    return details.map((d) => ({ at, message: `${what}: ${d}` }));
  }
  return [{ at, message: `${what}: ${err instanceof Error ? err.message : String(err)}` }];
}

export interface ApplyOptions extends PlanOptions {
  /** Shown the plan before anything is changed: false stops there. */
  onPlan?: (p: Plan) => boolean | Promise<boolean>;
  /** The live domain's configuration, read already (or being read: `readLive(client)` without the realm). */
  live?: Promise<Node>;
}

export async function apply(client: AppserverClient, model: Node, opts: ApplyOptions = {}): Promise<ApplyResult> {
  const live = opts.live ? await opts.live : await readLive(client);
  if (model.realm !== undefined && !live.realm) await addRealm(client, live);
  opts = { ...opts, self: opts.self ?? client.options.user };
  const first = plan(model, live, opts);
  if (first.problems.length > 0) throw new ApplyError(`the model has ${first.problems.length} problem${first.problems.length === 1 ? '' : 's'}: nothing was changed`, first.problems);
  const result: ApplyResult = { plan: first, created: 0, updated: 0, deleted: 0, requests: 0, activated: false, realm: 0 };
  if (first.changes.length === 0) return result;
  if (opts.onPlan && !(await opts.onPlan(first))) return result;
  const realmChanges = first.changes.filter((c) => c.realm !== undefined);
  const realmPath = live.realm?.path ?? '';
  const count = (changes: readonly Change[]) => {
    for (const c of changes) {
      result.realm++;
      if (c.op === 'create') result.created++;
      else if (c.op === 'update') result.updated++;
      else result.deleted++;
    }
  };
  /** The realm's creates and changes: all made, or none (each taken back when one is refused). */
  const realmFirst = async (done: RealmStep[], cancelled: string): Promise<void> => {
    const failed = await runSteps(realmSteps(client, realmPath, realmChanges), done);
    if (!failed) return;
    const problems = refused(failed.error, failed.step.change.at ?? { path: failed.step.change.path.join('/') }, failed.step.what);
    for (const f of failed.notUndone) problems.push({ at: { path: '' }, message: `not taken back: ${f}` });
    throw new ApplyError(`${problems.length} problem${problems.length === 1 ? '' : 's'}: ${cancelled}${failed.notUndone.length > 0 ? '' : ', nothing was changed'}`, problems);
  };
  /** --prune in the realm, once everything else is done (a removed user's password cannot be given back). */
  const realmLast = async (): Promise<void> => {
    const problems: Problem[] = [];
    for (const step of deleteSteps(client, realmPath, realmChanges)) {
      try {
        await step.run();
      } catch (err) {
        problems.push(...refused(err, { path: step.change.path.join('/') }, step.what));
      }
    }
    if (problems.length > 0) throw new ApplyError(`${problems.length} problem${problems.length === 1 ? '' : 's'}: everything else was applied${result.activated ? ' and activated' : ''}, but these users or groups were not removed`, problems);
  };
  if (first.changes.every((c) => c.realm !== undefined)) {
    // Users and groups only: no edit session.
    await realmFirst([], 'the users and groups were left as they were');
    count(realmChanges.filter((c) => c.op !== 'delete'));
    await realmLast();
    count(realmChanges.filter((c) => c.op === 'delete'));
    return result;
  }

  const cm = await client.changeManager();
  if (cm.locked && cm.lockOwner !== undefined && cm.lockOwner !== client.options.user) {
    throw new AppserverError('rejected', `the edit lock is held by ${cm.lockOwner}: nothing was changed (the lock was left alone)`);
  }
  if (cm.locked && cm.hasChanges) throw new AppserverError('rejected', 'you hold an edit session with changes not activated: activate or cancel it first (nothing was changed)');
  try {
    await client.startEdit(LOCK_LAPSE_MS);
  } catch (err) {
    if (err instanceof AppserverError && err.kind === 'auth') throw new AppserverError('auth', `${client.options.user ?? 'this user'} may not start an edit session: ${err.message}`, err.status);
    throw err;
  }
  const problems: Problem[] = [];
  const send = async (c: Change, method: () => Promise<unknown>, what: string): Promise<boolean> => {
    result.requests++;
    try {
      await method();
      return true;
    } catch (err) {
      problems.push(...refused(err, c.at ?? { path: c.path.join('/') }, what));
      return false;
    }
  };
  try {
    // Creates, level by level, until the session holds every bean the model names.
    let current = live;
    let pending = first;
    for (let level = 0; level < MAX_LEVELS; level++) {
      const creates = pending.changes.filter((c) => c.op === 'create' && c.realm === undefined);
      if (creates.length === 0) break;
      const index = new NameIndex([current]);
      for (const c of creates) {
        const body: Record<string, unknown> = {};
        if (c.child?.shape === 'collection') body.name = c.path[c.path.length - 1];
        if (c.node && c.child && c.node.type !== (c.child.creators[0] ?? c.child.type)) {
          const f = typeInfo(c.node.type);
          if (f) body.type = f.discriminator;
        }
        for (const pc of c.props) {
          if (pc.reference) {
            // A reference to a bean that exists already goes in now; the others once everything is made.
            const prop = typeInfo(c.type)?.props.get(pc.name);
            try {
              body[pc.name] = wire(pc.new, index, true, pc.array, prop?.javaType ?? '');
            } catch {
              continue;
            }
          } else body[pc.name] = pc.new;
        }
        const collection = c.child?.shape === 'collection' ? c.path.slice(0, -1).join('/') : c.path.join('/');
        const archives = c.node?.archives;
        const made = archives && archives.size > 0
          ? () => client.request('POST', `edit/${collection}`, { form: uploadForm(body, archives) })
          : () => client.create(`edit/${collection}`, body);
        if (await send(c, made, `${archives && archives.size > 0 ? 'uploading' : 'creating'} ${c.path.join('/')}`)) result.created++;
      }
      if (problems.length > 0) break;
      current = await readLive(client);
      if (live.realm) current.realm = live.realm;
      result.requests++;
      pending = plan(model, current, opts);
      if (pending.problems.length > 0) {
        problems.push(...pending.problems);
        break;
      }
    }
    if (problems.length === 0 && pending.changes.some((c) => c.op === 'create' && c.realm === undefined)) {
      problems.push({ at: { path: '' }, message: `beans were still missing after ${MAX_LEVELS} levels of creates` });
    }
    if (problems.length === 0) {
      const index = new NameIndex([current]);
      for (const c of pending.changes.filter((x) => x.op === 'update' && x.realm === undefined)) {
        const body: Record<string, unknown> = {};
        for (const pc of c.props) {
          const prop = typeInfo(c.type)?.props.get(pc.name);
          try {
            body[pc.name] = wire(pc.new, index, pc.reference, pc.array, prop?.javaType ?? '');
          } catch (err) {
            problems.push({ at: c.node?.valueAt?.get(pc.name) ?? c.at ?? { path: c.path.join('/') }, message: (err as Error).message });
          }
        }
        if (await send(c, () => client.update(`edit/${c.path.join('/')}`, body), `changing ${c.path.join('/')}`)) result.updated++;
      }
      for (const c of pending.changes.filter((x) => x.op === 'delete' && x.realm === undefined)) {
        if (await send(c, () => client.delete(`edit/${c.path.join('/')}`), `deleting ${c.path.join('/')}`)) result.deleted++;
      }
    }
    if (problems.length > 0) throw new ApplyError(`${problems.length} problem${problems.length === 1 ? '' : 's'}: the edit session was cancelled, nothing was changed`, problems);
    // The users and groups, just before the activation: taken back if it is refused.
    const done: RealmStep[] = [];
    await realmFirst(done, 'the edit session was cancelled and the users and groups taken back');
    try {
      await client.activate();
      result.requests++;
    } catch (err) {
      const notUndone = await takeBack(done);
      throw new ApplyError(`the activation was refused: the edit session was cancelled${notUndone.length > 0 ? '' : ', nothing was changed'}`, [
        ...refused(err, { path: '' }, 'activate'),
        ...notUndone.map((f) => ({ at: { path: '' }, message: `not taken back: ${f}` })),
      ]);
    }
    result.activated = true;
    count(realmChanges.filter((c) => c.op !== 'delete'));
    await realmLast();
    count(realmChanges.filter((c) => c.op === 'delete'));
    return result;
  } catch (err) {
    if (!result.activated) await client.cancelEdit().catch(() => undefined);
    throw err;
  }
}

