// Fastify's schema compilers are made on first use: a route that declares a schema still has its
// body checked and its answer printed by them, as with Fastify's defaults.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify, { type FastifyServerOptions } from 'fastify';
import { lazySchemaCompilers } from '../../../src/http/schema-compilers.js';

test('a route declaring a schema is validated and serialized by the compilers made on first use', async () => {
  const app = Fastify({ schemaController: lazySchemaCompilers() as FastifyServerOptions['schemaController'] });
  app.post(
    '/items',
    {
      schema: {
        body: { type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 8 } } },
        response: { 200: { type: 'object', properties: { name: { type: 'string' } } } },
      },
    },
    async (request) => ({ name: (request.body as { name: string }).name, secret: 'not in the schema' }),
  );
  try {
    const ok = await app.inject({ method: 'POST', url: '/items', payload: { name: 'ms1' } });
    assert.equal(ok.statusCode, 200);
    assert.deepEqual(ok.json(), { name: 'ms1' }, 'the answer printed by its schema');
    const bad = await app.inject({ method: 'POST', url: '/items', payload: { name: 'far too long a name' } });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.json().message, /name/);
  } finally {
    await app.close();
  }
});
