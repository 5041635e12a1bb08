// `describe`: what a bean's type offers: properties with type, default, legal values, writability
// and whether a change needs a restart; children; actions with their parameters; who may use it.
// The server's own description (`GET <path>?describe`, with the rights its trees judge) comes first;
// a server without one gets the bean described from the facts generated from the catalog this
// client was built with (the bean's `type` field picks the type).
import type { AppserverClient } from '../../client/index.js';
import { AppserverError } from '../../client/index.js';
import type { TypeFacts } from '../../client/facts-format.js';
import { table } from './output.js';
import { typeAt } from './type-facts.js';

const FLAG_NAMES: Record<string, string> = { w: 'writable', k: 'key', r: 'restart', s: 'secret' };

export interface Description {
  json: unknown;
  text: string;
}

const short = (javaType: string) => javaType.replace(/^java\.(lang|util)\./, '').replace(/^appserver\.[a-z.]+\./, '');

type Json = Record<string, unknown>;

export async function describePath(client: AppserverClient, path: string): Promise<Description> {
  const fromServer = await serverDescription(client, path);
  if (fromServer) return { json: { ...fromServer, source: 'server' }, text: renderServer(fromServer) };
  const body = await client.get(path, { links: [] });
  const items = (body as { items?: unknown }).items;
  const wireType = !Array.isArray(items) && typeof body.type === 'string' ? body.type : undefined;
  const t = await typeAt(path, wireType);
  if (!t) throw new AppserverError('notFound', `the catalog of this client knows no type for ${path}${wireType ? ` (type ${wireType})` : ''}`);
  return render(path, t.name, t.facts, t.collection);
}

function render(path: string, name: string, f: TypeFacts, collection: boolean): Description {
  const properties = f.p.map(([pname, javaType, flags, dflt, legal]) => ({
    name: pname,
    type: `${short(javaType)}${flags.includes('a') ? '[]' : ''}`,
    ...(flags.includes('@') ? { reference: true } : {}),
    writable: flags.includes('w'),
    ...(flags.includes('k') ? { key: true } : {}),
    restartNeeded: flags.includes('r'),
    ...(flags.includes('s') ? { secret: true } : {}),
    ...(dflt !== undefined && dflt !== null ? { default: dflt } : flags.includes('d') ? { default: '(derived at run time)' } : {}),
    ...(legal ? { legalValues: legal } : {}),
  }));
  const children = f.c.map(([cname, ctype, kind]) => ({ name: cname, type: short(ctype), kind: kind === 'c' ? 'collection' : kind === 'o' ? 'optional singleton' : 'singleton' }));
  const actions = f.a.map(([aname, overloads, roles, task]) => ({
    name: aname,
    overloads: overloads.map((ps) => ps.map((p) => ({ name: p.split(':')[0], type: short(p.slice(p.indexOf(':') + 1)) }))),
    roles: ['Admin', ...roles],
    ...(task ? { returnsTask: true } : {}),
  }));
  const writeRoles = ['Admin', ...f.r.filter((r) => r !== 'Monitor')];
  const json = { path, type: name, wireType: f.s, kind: f.k, collection, readRoles: ['Admin', 'Deployer', 'Operator', 'Monitor'], writeRoles, properties, children, actions, source: 'catalog' };
  let text = `${collection ? 'Collection of ' : ''}${f.s} (${name}), ${f.k}\n`;
  text += `Read by: any administrative role; changed by: ${writeRoles.join(', ')}\n`;
  text += '(described from the catalog this client was built with)\n\n';
  if (properties.length > 0) {
    text += table(
      ['PROPERTY', 'TYPE', 'DEFAULT', 'FLAGS', 'LEGAL VALUES'],
      f.p.map(([pname, javaType, flags, dflt, legal]) => [
        pname,
        `${flags.includes('@') ? '->' : ''}${short(javaType)}${flags.includes('a') ? '[]' : ''}`,
        dflt !== undefined && dflt !== null ? JSON.stringify(dflt) : flags.includes('d') ? '(derived)' : '',
        [...flags].map((c) => FLAG_NAMES[c]).filter(Boolean).join(',') || 'read-only',
        legal ? legal.map((v) => String(v)).join(', ') : '',
      ]),
    );
  }
  if (children.length > 0) text += '\n' + table(['CHILD', 'TYPE', 'KIND'], children.map((c) => [c.name, c.type, c.kind]));
  if (actions.length > 0) {
    text += '\n' + table(
      ['ACTION', 'PARAMETERS', 'ROLES'],
      actions.flatMap((a) => a.overloads.map((ps, i) => [i === 0 ? a.name : '', `(${ps.map((p) => `${p.name}: ${p.type}`).join(', ')})${a.returnsTask ? ' -> task' : ''}`, i === 0 ? a.roles.join(', ') : ''])),
    );
  }
  return { json, text };
}

/** The server's description of the path, or undefined when it has none (an older server reads `?describe` as a plain GET). */
async function serverDescription(client: AppserverClient, path: string): Promise<Json | undefined> {
  const q = path.includes('?') ? '&describe' : '?describe';
  let body: Json;
  try {
    body = (await client.request('GET', `${path}${q}`)).body as Json;
  } catch (err) {
    // A server that refuses the parameter has no descriptions; anything else (404, 401) is the answer.
    if (err instanceof AppserverError && err.status === 400 && /describe/.test(err.message)) return undefined;
    throw err;
  }
  const described = (typeof body.typeName === 'string' && Array.isArray(body.properties)) || Array.isArray(body.types) || Array.isArray(body.overloads);
  return described ? body : undefined;
}

const list = (v: unknown): string => (Array.isArray(v) ? v.map((x) => String(x)).join(', ') : '');
const str = (v: unknown): string => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v));

function renderServer(d: Json): string {
  if (Array.isArray(d.types)) {
    const head = `${str(d.kind)} ${str(d.child)} of ${str(d.of)}, holding ${d.types.length === 1 ? 'one type' : `${d.types.length} types`}\n`;
    return head + (d.types as Json[]).map((t) => `\n${renderServerBean(t)}`).join('');
  }
  if (Array.isArray(d.overloads)) return `Action ${str(d.name)} of ${str(d.on)}${d.description ? `: ${str(d.description)}` : ''}\n` + actionsTable([d]);
  return renderServerBean(d);
}

function renderServerBean(d: Json): string {
  const access = (d.access ?? {}) as Record<string, unknown>;
  let text = `${str(d.type)} (${str(d.typeName)}), ${str(d.kind)}${d.tree ? ` in ${str(d.tree)}` : ''}\n`;
  if (d.description) text += `${str(d.description)}\n`;
  const rights = Object.entries(access).map(([what, roles]) => `${what}: ${list(roles) || 'nobody'}`);
  if (rights.length > 0) text += `Access: ${rights.join('; ')}\n`;
  const props = (d.properties ?? []) as Json[];
  if (props.length > 0) {
    text += '\n' + table(
      ['PROPERTY', 'TYPE', 'DEFAULT', 'FLAGS', 'LEGAL VALUES'],
      props.map((p) => [
        str(p.name),
        `${p.references ? `->${str(p.references)}` : str(p.type)}${p.array ? '[]' : ''}${p.unit ? ` (${str(p.unit)})` : ''}`,
        p.default !== undefined ? JSON.stringify(p.default) : p.derivedDefault ? '(derived)' : '',
        [p.writable ? 'writable' : 'read-only', p.key ? 'key' : '', p.restartNeeded ? 'restart' : '', p.encrypted ? 'secret' : ''].filter(Boolean).join(','),
        p.legalValues ? list(p.legalValues) : p.min !== undefined || p.max !== undefined ? `${str(p.min)}..${str(p.max)}` : '',
      ]),
    );
  }
  const children = (d.children ?? []) as Json[];
  if (children.length > 0) text += '\n' + table(['CHILD', 'TYPE', 'KIND'], children.map((c) => [str(c.name), str(c.type), str(c.kind)]));
  const actions = (d.actions ?? []) as Json[];
  if (actions.length > 0) text += '\n' + actionsTable(actions);
  return text;
}

function actionsTable(actions: Json[]): string {
  return table(
    ['ACTION', 'PARAMETERS', 'ROLES'],
    actions.flatMap((a) =>
      ((a.overloads ?? []) as Json[]).map((o, i) => [
        i === 0 ? str(a.name) : '',
        `(${((o.parameters ?? []) as Json[]).map((p) => `${str(p.name)}: ${str(p.type)}${p.array ? '[]' : ''}`).join(', ')})${a.returnsTask ? ' -> task' : o.returns && o.returns !== 'void' ? ` -> ${str(o.returns)}` : ''}`,
        i === 0 ? list((a.access as Json | undefined)?.invoke) : '',
      ]),
    ),
  );
}
