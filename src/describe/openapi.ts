// The OpenAPI 3.1 document of a version of the interface, computed from the catalog: every URL
// pattern of every tree, a schema per bean type, every action with its overloads and its task, the
// error envelope, the headers and query parameters, basic authentication. Shared parts (schemas,
// parameters, responses, request bodies) are components, referred to from each operation, which
// keeps a document of several thousand paths to a few megabytes.
import type { Catalog } from '../catalog/load.js';
import type { ApiVersion, OperationDef, TypeDef } from '../catalog/model.js';
import type { OverlayOverload } from '../catalog/overlay-format.js';
import { pathOf, type Place, placesOf, type TreeSpec } from './patterns.js';
import { actionText, typeText } from './texts.js';
import { childTypes, parameterKind, propertySchema, schemaRef, valueSchema } from './values.js';

type Json = Record<string, unknown>;

export interface OpenApiInput {
  catalog: Catalog;
  version: ApiVersion;
  /** The product version the document describes (`12.2.1.3.0`). */
  productVersion: string;
  /** The trees, in the order their operations are listed. */
  trees: readonly TreeSpec[];
  /** Header naming a request's edit session. */
  sessionHeader: string;
  /** Keep only the components the paths use (a document of one tree); default: a schema for every type. */
  onlyUsed?: boolean;
}

const ref = (kind: string, name: string): Json => ({ $ref: `#/components/${kind}/${name}` });
/** The progress object a deployment or an undeployment runs as. */
const PROGRESS_OBJECT = 'appserver.management.runtime.DeploymentProgressObjectMBean';

/** Component names: a type's short name, or its full name when another type has the same short one. */
function componentNames(catalog: Catalog): Map<string, string> {
  const count = new Map<string, number>();
  for (const t of catalog.types.values()) count.set(t.short, (count.get(t.short) ?? 0) + 1);
  const out = new Map<string, string>();
  for (const t of catalog.types.values()) out.set(t.name, count.get(t.short) === 1 ? t.short : t.name);
  return out;
}

/**
 * Builds the document; `pause` is awaited now and then (every few hundred paths) so that a server
 * building it goes on answering other requests.
 */
export async function buildOpenApi(input: OpenApiInput, pause: () => Promise<void> = async () => {}): Promise<Json> {
  const { catalog, version } = input;
  const names = componentNames(catalog);
  const nameOf = (t: TypeDef) => names.get(t.name)!;
  const schemas: Json = { ...commonSchemas() };
  const responses: Json = { ...commonResponses() };
  const requestBodies: Json = {};
  const parameters: Json = commonParameters(input.sessionHeader);

  // A schema per bean type of the catalog, reachable or not.
  let count = 0;
  for (const t of catalog.types.values()) {
    schemas[nameOf(t)] = typeSchema(t, version);
    if (++count % 100 === 0) await pause();
  }

  /** The response of a bean read: the type, or any of its subtypes when it has some. */
  const beanResponse = (t: TypeDef): Json => {
    const key = nameOf(t);
    if (!responses[key]) {
      const schema = t.subtypes.length > 0 ? { anyOf: [schemaRef(key), ...t.subtypes.map((s) => schemaRef(nameOf(s)))] } : schemaRef(key);
      responses[key] = { description: `A ${t.short} bean.`, headers: { ETag: ref('headers', 'ETag') }, content: json(schema) };
    }
    return ref('responses', key);
  };
  const listResponse = (t: TypeDef): Json => {
    const key = `${nameOf(t)}.list`;
    if (!responses[key]) {
      const item = t.subtypes.length > 0 ? { anyOf: [schemaRef(nameOf(t)), ...t.subtypes.map((s) => schemaRef(nameOf(s)))] } : schemaRef(nameOf(t));
      responses[key] = {
        description: `A collection of ${t.short} beans.`,
        headers: { ETag: ref('headers', 'ETag') },
        content: json({ type: 'object', properties: { links: schemaRef('Links'), items: { type: 'array', items: item } } }),
      };
    }
    return ref('responses', key);
  };
  const taskResponse = (t: TypeDef, accepted: boolean): Json => {
    const key = `${nameOf(t)}.${accepted ? 'accepted' : 'done'}`;
    if (!responses[key]) {
      responses[key] = accepted
        ? { description: `Still running when the wait ended: the ${t.short} to poll, also named by Location.`, headers: { Location: ref('headers', 'Location') }, content: json(schemaRef(nameOf(t))) }
        : { description: `Done within the wait: the ${t.short}, with its outcome.`, content: json(schemaRef(nameOf(t))) };
    }
    return ref('responses', key);
  };
  /** The body that changes a bean, or creates one of the types a child admits. */
  const beanBody = (types: TypeDef[]): Json => {
    const key = types.map(nameOf).join('.or.');
    if (!requestBodies[key]) {
      const schema = types.length === 1 ? schemaRef(nameOf(types[0]!)) : { anyOf: types.map((t) => schemaRef(nameOf(t))) };
      requestBodies[key] = { required: false, content: json(schema), description: 'Properties to set: read-only ones are ignored, the others are checked against the type.' };
    }
    return ref('requestBodies', key);
  };
  /** A deployment's body: the bean's properties as JSON, or an upload of its model and archive. */
  const deployBody = (t: TypeDef): Json => {
    const key = `${nameOf(t)}.deployment`;
    if (!requestBodies[key]) {
      requestBodies[key] = {
        required: true,
        description: `The new ${t.short}: its properties as JSON with 'sourcePath' naming a path on the server, or an upload whose 'model' part holds them and whose 'sourcePath' part is the archive ('deploymentPlan' optionally its plan).`,
        content: {
          ...json(schemaRef(nameOf(t))),
          'multipart/form-data': {
            schema: {
              type: 'object',
              required: ['model', 'sourcePath'],
              properties: {
                model: { type: 'string', description: `The ${t.short}'s properties as JSON (sent first).` },
                sourcePath: { type: 'string', format: 'binary', description: 'The archive.' },
                deploymentPlan: { type: 'string', format: 'binary', description: 'Its deployment plan.' },
              },
            },
          },
        },
      };
    }
    return ref('requestBodies', key);
  };
  const progress = catalog.types.get(PROGRESS_OBJECT);
  const actionParts = (op: OperationDef): { body: Json; result?: Json; task?: TypeDef } => {
    const owner = catalog.types.get(op.declaredBy);
    const key = `${owner ? nameOf(owner) : op.declaredBy}.${op.name}`;
    if (!requestBodies[key]) requestBodies[key] = { required: false, content: json(argumentsSchema(catalog, op.overloads)) };
    const returns = op.overloads.find((o) => o.returns !== 'void');
    const task = op.async && returns && catalog.types.has(returns.returns) ? catalog.type(returns.returns) : undefined;
    if (task || !returns) return { body: ref('requestBodies', key), ...(task ? { task } : {}) };
    if (!responses[key]) {
      const value = resultSchema(catalog, op.overloads, nameOf);
      responses[key] = { description: `What '${op.name}' returns.`, content: json({ type: 'object', properties: { return: value } }) };
    }
    return { body: ref('requestBodies', key), result: ref('responses', key) };
  };

  const paths: Json = {};
  const pathParams = new Map<string, string>();
  for (const spec of input.trees) {
    const editTree = spec.only === 'edit';
    const places = placesOf(catalog, spec, version);
    await pause();
    for (const [index, place] of places.entries()) {
      if (index % 200 === 199) await pause();
      const path = pathOf(place.at);
      const item: Json = (paths[path] as Json | undefined) ?? {};
      paths[path] = item;
      if (place.at.params.length > 0 && !item.parameters) {
        item.parameters = place.at.params.map((p) => {
          if (!pathParams.has(p.name)) pathParams.set(p.name, p.of);
          return ref('parameters', `path.${p.name}`);
        });
      }
      const tags = [spec.name];
      const writeParams = [ref('parameters', 'X-Requested-By'), ...(editTree ? [ref('parameters', 'session')] : [])];
      const readParams = editTree ? [ref('parameters', 'session')] : [];
      const error = { default: ref('responses', 'Error') };
      // Conditional requests: reads of what has a tag may be revalidated, changes made conditional.
      const ifNoneMatch = ref('parameters', 'If-None-Match');
      const conditional = [ref('parameters', 'If-Match'), ifNoneMatch];
      const notModified = { '304': ref('responses', 'NotModified') };
      const stale = { '412': ref('responses', 'PreconditionFailed') };
      operationsOf(place);
      function operationsOf(p: Place): void {
        switch (p.kind) {
          case 'bean': {
            const text = typeText(p.type.short);
            item.get = {
              tags,
              summary: `Read ${article(p.type.short)}`,
              ...(text ? { description: text } : {}),
              parameters: [...SHAPE, ...readParams, ifNoneMatch],
              responses: { '200': beanResponse(p.type), ...notModified, ...error },
            };
            if (p.updates || p.creates) {
              item.post = {
                tags,
                summary: p.updates ? `Change ${article(p.type.short)}${p.creates ? ' (creates it when absent)' : ''}` : `Create ${article(p.type.short)}`,
                parameters: [...writeParams, ...conditional],
                requestBody: beanBody(p.via && p.creates ? childTypes(catalog, p.via) : [p.type]),
                responses: { '200': ref('responses', 'Done'), ...(p.creates ? { '201': ref('responses', 'Created') } : {}), ...stale, ...error },
              };
            }
            if (p.deploys && progress) {
              item.delete = {
                tags,
                summary: `Undeploy ${article(p.type.short)}`,
                description: 'Outside an edit session the undeployment runs as a progress object: done within the wait, 200; otherwise 202 with the object. Inside one, the activation undeploys it.',
                parameters: [...writeParams, ref('parameters', 'Prefer'), ...conditional],
                responses: { '200': ref('responses', 'Done'), '202': taskResponse(progress, true), ...stale, ...error },
              };
            } else if (p.deletes) item.delete = { tags, summary: `Delete ${article(p.type.short)}`, parameters: [...writeParams, ...conditional], responses: { '200': ref('responses', 'Done'), ...stale, ...error } };
            return;
          }
          case 'collection':
            item.get = { tags, summary: `List ${p.prop.name}`, parameters: [...SHAPE, ...readParams, ifNoneMatch], responses: { '200': listResponse(p.item), ...notModified, ...error } };
            if (p.deploys && progress) {
              item.post = {
                tags,
                summary: `Deploy ${article(p.item.short)}`,
                description: 'Outside an edit session the deployment runs as a progress object: done within the wait, 201 with Location; otherwise 202 with the object. Inside one, the activation deploys it.',
                parameters: [...writeParams, ref('parameters', 'Prefer'), ...conditional],
                requestBody: deployBody(p.item),
                responses: { '201': ref('responses', 'Created'), '202': taskResponse(progress, true), ...stale, ...error },
              };
            } else if (p.creates) {
              item.post = {
                tags,
                summary: `Create in ${p.prop.name}`,
                parameters: [...writeParams, ...conditional],
                requestBody: beanBody(childTypes(catalog, p.prop)),
                responses: { '201': ref('responses', 'Created'), ...stale, ...error },
              };
            }
            return;
          case 'createForm':
            item.get = {
              tags,
              summary: `The form for a new item of ${p.prop.name}`,
              parameters: readParams,
              responses: { '200': beanResponse(catalog.type(p.prop.creators[0] ?? p.item.name)), ...error },
            };
            return;
          case 'action': {
            const parts = actionParts(p.op);
            const text = actionText(p.op.name);
            const offered = p.types.map((t) => t.short);
            item.post = {
              tags,
              summary: p.op.name,
              description: `${text ? `${text} ` : ''}Offered by ${offered.join(', ')}.`,
              parameters: [...writeParams, ...(p.op.async ? [ref('parameters', 'Prefer')] : []), ...conditional],
              requestBody: parts.body,
              responses: {
                ...(parts.task ? { '200': taskResponse(parts.task, false), '202': taskResponse(parts.task, true) } : { '200': parts.result ?? ref('responses', 'Done') }),
                ...stale,
                ...error,
              },
              'x-appserver-action': p.op.name,
              'x-appserver-types': p.types.map(nameOf),
            };
            return;
          }
          case 'search':
            item.post = {
              tags,
              summary: `Search below ${article(p.type.short)}`,
              parameters: writeParams,
              requestBody: { required: true, content: json(schemaRef('SearchQuery')) },
              responses: { '200': { description: 'The beans the query selects, shaped as it asks.', content: json({ type: 'object' }) }, ...error },
            };
        }
      }
    }
  }
  for (const [name, of] of pathParams) {
    parameters[`path.${name}`] = { name, in: 'path', required: true, description: `The name of an item of ${of}.`, schema: { type: 'string' } };
  }

  const components: Json = {
    schemas,
    responses,
    parameters,
    requestBodies,
    headers: {
      Location: { description: 'The URL of what was made, or of the task to poll.', schema: { type: 'string', format: 'uri' } },
      ETag: { description: 'The entity tag of what was read: a digest of its state, the same whatever fields or links were asked for. Send it back in If-None-Match (304 while unchanged) or If-Match (412 if it changed since).', schema: { type: 'string', examples: ['"tE2aK1c9sV0m3hP8yQ4rWx"'] } },
    },
    securitySchemes: { basic: { type: 'http', scheme: 'basic', description: 'Every request needs a user of the domain: HTTP basic authentication.' } },
  };
  if (input.onlyUsed) keepUsed(components, paths);
  return {
    openapi: '3.1.0',
    info: {
      title: 'appserver Domain Administration REST Interface',
      version: input.productVersion,
      description: INFO,
    },
    servers: [{ url: '/management', description: 'This server' }],
    security: [{ basic: [] }],
    tags: [...new Set(input.trees.map((t) => t.name))].map((name) => ({ name, description: TREE_TEXT[name] ?? `The ${name} tree.` })),
    paths,
    components,
  };
}

/** Drops the components that nothing reachable from the paths refers to. */
function keepUsed(components: Json, paths: Json): void {
  const used = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const v of value) visit(v);
      return;
    }
    if (value === null || typeof value !== 'object') return;
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith('#/components/') && !used.has(v)) {
        used.add(v);
        const [, , kind, name] = v.split('/');
        visit((components[kind!] as Json | undefined)?.[name!]);
      } else visit(v);
    }
  };
  visit(paths);
  for (const kind of ['schemas', 'responses', 'parameters', 'requestBodies', 'headers']) {
    const table = components[kind] as Json;
    for (const name of Object.keys(table)) if (!used.has(`#/components/${kind}/${name}`)) delete table[name];
  }
}

const json = (schema: Json) => ({ 'application/json': { schema } });

/** `a Server`, `an AppDeployment`. */
function article(word: string): string {
  return /^[AEIOU]/.test(word) ? `an ${word}` : `a ${word}`;
}

// `describe` applies to every URL: the document says so once (in its description) and defines it.
const SHAPE = ['fields', 'excludeFields', 'links', 'excludeLinks'].map((n) => ref('parameters', n));

const INFO = [
  'The administration interface of an appserver domain: the configuration trees (`edit` takes changes in an edit session; `serverConfig` and `domainConfig` show what is activated), the runtime trees (`domainRuntime`, and `serverRuntime` of the server answering) and the Lifecycle Manager.',
  '',
  'Every request needs HTTP basic authentication; every POST and DELETE needs an `X-Requested-By` header (any value). A change in the `edit` tree joins the caller\'s edit session (`edit/changeManager/startEdit`, then `activate`). Actions that start work return a task: `Prefer: respond-async` answers at once (202 with `Location`), `Prefer: wait=N` waits up to N seconds.',
  '',
  'Every bean and collection read carries an `ETag`. `If-None-Match` with it answers 304 while nothing changed; `If-Match` with it makes an update, delete, create or action happen only if nothing changed since (412 otherwise). `edit/changeManager` shows the pending changes of the session (`pendingChanges`), and `activate` with `{"dryRun": true}` answers what an activation would record without applying anything.',
  '',
  'Add `describe` to the query of any URL for a description of what it names: properties with types, defaults, legal values, units and restart, children, actions, and which roles may read, change and invoke.',
].join('\n');

const TREE_TEXT: Record<string, string> = {
  versions: 'The versions of the interface.',
  edit: 'The configuration being edited: changes are made in an edit session and take effect when activated.',
  serverConfig: 'The activated configuration, as the server answering sees it (read-only).',
  domainConfig: 'The activated configuration of the whole domain (read-only).',
  domainRuntime: "The domain's runtime: lifecycles, deployments, tasks, and each running server's runtime.",
  serverRuntime: 'The runtime of the server answering.',
  lifecycle: 'The Lifecycle Manager: environments, runtimes, partitions, tenants, services and PDBs.',
};

function typeSchema(t: TypeDef, version: ApiVersion): Json {
  const properties: Json = {
    links: schemaRef('Links'),
    ...(t.kind === 'rest' ? {} : { identity: { ...schemaRef('Identity'), readOnly: true } }),
  };
  for (const p of t.fields[version]) properties[p.name] = propertySchema(p, p.writable);
  const out: Json = { type: 'object', title: t.short };
  const text = typeText(t.short);
  if (text) out.description = text;
  out.properties = properties;
  out['x-appserver-type'] = t.name;
  const children = t.children.filter((c) => !c.inline).map((c) => c.name);
  if (children.length > 0) out['x-appserver-children'] = children;
  const actions = [...t.operations.keys()];
  if (actions.length > 0) out['x-appserver-actions'] = actions;
  return out;
}

function parameterSchema(catalog: Catalog, type: string, array: boolean): Json {
  const kind = parameterKind(catalog, type);
  // A reference argument is an identity, bare or wrapped as `{identity: [...]}`.
  if (kind === 'bean') return array ? { type: 'array', items: schemaRef('ReferenceArgument') } : schemaRef('ReferenceArgument');
  return valueSchema(kind, array);
}

/** The arguments of an action: one object per overload, told apart by their keys. */
function argumentsSchema(catalog: Catalog, overloads: readonly OverlayOverload[]): Json {
  const one = (o: OverlayOverload): Json => ({
    type: 'object',
    properties: Object.fromEntries(o.params.map((p) => [p.name, parameterSchema(catalog, p.type, p.array === true)])),
    ...(o.params.length > 0 ? { required: o.params.map((p) => p.name) } : {}),
    additionalProperties: false,
  });
  return overloads.length === 1 ? one(overloads[0]!) : { oneOf: overloads.map(one) };
}

function resultSchema(catalog: Catalog, overloads: readonly OverlayOverload[], nameOf: (t: TypeDef) => string): Json {
  const o = overloads.find((x) => x.returns !== 'void')!;
  if (catalog.types.has(o.returns)) {
    const bean = schemaRef(nameOf(catalog.type(o.returns)));
    return o.returnsArray ? { type: 'array', items: bean } : bean;
  }
  return valueSchema(parameterKind(catalog, o.returns), o.returnsArray === true);
}

function commonSchemas(): Json {
  const identity = { type: 'array', items: { type: 'string' }, description: 'The path of a bean below its tree, one name per segment: ["servers", "ms1"].' };
  return {
    Identity: identity,
    Reference: { type: ['array', 'null'], items: { type: 'string' }, description: 'The identity of the bean referred to, or null.' },
    ReferenceItem: { type: 'object', properties: { identity: identity }, required: ['identity'] },
    ReferenceArgument: { anyOf: [identity, { type: 'object', properties: { identity }, required: ['identity'] }] },
    Links: {
      type: 'array',
      items: { type: 'object', properties: { rel: { type: 'string' }, href: { type: 'string', format: 'uri' }, title: { type: 'string' } }, required: ['rel', 'href'] },
    },
    HealthState: {
      type: ['object', 'null'],
      properties: {
        state: { type: 'string', enum: ['ok', 'warning', 'critical', 'failed', 'overloaded'] },
        subsystemName: { type: ['string', 'null'] },
        partitionName: { type: ['string', 'null'] },
        symptoms: { type: 'array', items: { type: 'object' } },
      },
    },
    SearchQuery: {
      type: 'object',
      description: 'What to return: fields and links of this bean, and the children to descend into, each with a query of its own.',
      properties: {
        fields: { type: 'array', items: { type: 'string' } },
        excludeFields: { type: 'array', items: { type: 'string' } },
        links: { type: 'array', items: { type: 'string' } },
        excludeLinks: { type: 'array', items: { type: 'string' } },
        name: { type: 'array', items: { type: 'string' }, description: 'Only the items of these names (in a collection).' },
        children: { type: 'object', additionalProperties: { $ref: '#/components/schemas/SearchQuery' } },
      },
    },
    Error: {
      type: 'object',
      description: 'Every error: one problem as `detail`, several (or one naming a property) as a list.',
      properties: {
        status: { type: 'integer' },
        type: { type: 'string' },
        title: { type: 'string', enum: ['FAILURE', 'ERRORS'] },
        detail: { type: 'string' },
        'appserver:errorsDetails': {
          type: 'array',
          items: { type: 'object', properties: { 'o:errorPath': { type: 'string' }, type: { type: 'string' }, title: { type: 'string' }, detail: { type: 'string' } }, required: ['detail'] },
        },
      },
      required: ['status', 'type', 'title'],
    },
  };
}

function commonResponses(): Json {
  return {
    Error: { description: 'The request was refused or failed: the status says how, the body why.', content: json(schemaRef('Error')) },
    Done: { description: 'Done.', content: json({ type: 'object', maxProperties: 0 }) },
    Created: { description: 'Created: Location names the new bean.', headers: { Location: ref('headers', 'Location') }, content: json({ type: 'object', maxProperties: 0 }) },
    NotModified: { description: 'Not modified: If-None-Match names the current tag; no body.', headers: { ETag: ref('headers', 'ETag') } },
    PreconditionFailed: { description: 'A condition failed (If-Match names an older tag, or If-None-Match the current one): nothing was done. ETag gives the current tag.', headers: { ETag: ref('headers', 'ETag') }, content: json(schemaRef('Error')) },
  };
}

function commonParameters(sessionHeader: string): Json {
  const list = (name: string, what: string): Json => ({ name, in: 'query', required: false, description: what, schema: { type: 'string' }, explode: false });
  return {
    fields: list('fields', 'Only these properties (comma-separated). Not with excludeFields.'),
    excludeFields: list('excludeFields', 'All properties but these (comma-separated).'),
    links: list('links', 'Only these link relations (comma-separated); `none` drops the links.'),
    excludeLinks: list('excludeLinks', 'All link relations but these (comma-separated).'),
    describe: { name: 'describe', in: 'query', required: false, allowEmptyValue: true, description: 'Answer with a description of what the URL names instead of its content.', schema: { type: 'string' } },
    'X-Requested-By': { name: 'X-Requested-By', in: 'header', required: true, description: 'Any value: proves the request was not forged by a page in a browser.', schema: { type: 'string', minLength: 1 } },
    session: { name: sessionHeader, in: 'header', required: false, description: 'The named edit session to work in (the default session when absent).', schema: { type: 'string' } },
    Prefer: {
      name: 'Prefer',
      in: 'header',
      required: false,
      description: '`respond-async`: answer at once with the task; `wait=N`: wait up to N seconds for it.',
      schema: { type: 'string', examples: ['respond-async', 'wait=30'] },
    },
    'If-Match': {
      name: 'If-Match',
      in: 'header',
      required: false,
      description: 'Entity tags (from ETag) or `*`: do it only if the target (the bean of an action, the collection of a create) still has one of them; 412 otherwise.',
      schema: { type: 'string' },
    },
    'If-None-Match': {
      name: 'If-None-Match',
      in: 'header',
      required: false,
      description: 'Entity tags or `*`: a read answers 304 while the target has one of them; a change is refused (412) if it has.',
      schema: { type: 'string' },
    },
  };
}
