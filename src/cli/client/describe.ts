// `describe`: what a bean's type offers: properties with type, default, legal values, writability
// and whether a change needs a restart; children; actions with their parameters; who may use it.
// It reads the bean (for its `type`) and describes it from the facts generated from the catalog
// this client was built with.
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

export async function describePath(client: AppserverClient, path: string): Promise<Description> {
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
