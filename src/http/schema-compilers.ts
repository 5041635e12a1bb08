// Fastify's schema compilers (ajv for validation, fast-json-stringify for answers), loaded when a
// route first declares a schema. Fastify loads both whenever an instance is made, which costs a
// start about 40 ms; no route of this server declares a schema, so a start does without them.
import { createRequire } from 'node:module';

// Fastify's own dependencies: resolved from where Fastify is, as Fastify itself would.
const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));

type Factory = (...args: unknown[]) => unknown;

function onFirstUse(name: string): Factory {
  let factory: Factory | undefined;
  return (...args) => {
    factory ??= (fromFastify(name) as () => Factory)();
    return factory(...args);
  };
}

/** The `schemaController` option of a Fastify instance: its default compilers, made on first use. */
export function lazySchemaCompilers(): { compilersFactory: { buildValidator: Factory; buildSerializer: Factory } } {
  return { compilersFactory: { buildValidator: onFirstUse('@fastify/ajv-compiler'), buildSerializer: onFirstUse('@fastify/fast-json-stringify-compiler') } };
}
