// Import rules of src/ (see ARCHITECTURE in the README): arrows point down only. The client
// (src/client/, with the client commands in src/cli/client/) stands apart: it speaks HTTP only.
//   http -> api -> {domain, interchange} -> operations -> {config, runtime, lifecycle, security}
//        -> {tree, render} -> behaviour -> catalog -> store -> core
// `npm run deps` prints violations; test/architecture/imports.test.ts fails on any.
const below = (...layers) => `^src/(${layers.join('|')})/`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    { name: 'no-cycles', severity: 'error', comment: 'Modules must not import each other in a circle.', from: { path: '^src/' }, to: { circular: true } },
    { name: 'core-is-the-floor', severity: 'error', comment: 'core/ imports nothing else of ours.', from: { path: '^src/core/' }, to: { path: '^src/', pathNot: '^src/core/' } },
    { name: 'store-on-core-only', severity: 'error', comment: 'The store knows storage, nothing of the domain above it.', from: { path: '^src/store/' }, to: { path: '^src/', pathNot: '^src/(store|core)/' } },
    { name: 'catalog-on-core-only', severity: 'error', comment: 'The type catalog is data and its loader.', from: { path: '^src/catalog/' }, to: { path: '^src/', pathNot: '^src/(catalog|core)/' } },
    {
      name: 'model-below-services',
      severity: 'error',
      comment: 'Trees, rendering and type behaviour work on beans; services use them, not the other way round.',
      from: { path: '^src/(tree|render|behaviour)/' },
      to: { path: below('config', 'runtime', 'lifecycle', 'security', 'operations', 'domain', 'interchange', 'api', 'http', 'cli') },
    },
    {
      name: 'behaviour-below-trees',
      severity: 'error',
      comment: 'The resolver and the renderer consult type behaviour; behaviour sees beans through its own small view, never the trees.',
      from: { path: '^src/behaviour/' },
      to: { path: below('tree', 'render') },
    },
    {
      name: 'services-below-operations',
      severity: 'error',
      comment: 'Configuration, runtime, Lifecycle Manager and security are called by operations and the API.',
      from: { path: '^src/(config|runtime|lifecycle|security)/' },
      to: { path: below('operations', 'domain', 'interchange', 'api', 'http', 'cli') },
    },
    { name: 'operations-below-domain', severity: 'error', from: { path: '^src/operations/' }, to: { path: below('domain', 'api', 'http', 'cli') } },
    { name: 'domain-below-api', severity: 'error', from: { path: '^src/domain/' }, to: { path: below('api', 'http', 'cli') } },
    { name: 'interchange-below-api', severity: 'error', comment: 'Import and export read and write files; the API and the CLI call them.', from: { path: '^src/interchange/' }, to: { path: below('api', 'http', 'cli') } },
    {
      name: 'describe-reads-the-catalog',
      severity: 'error',
      comment: 'Descriptions (a bean\'s, the OpenAPI document) are computed from the catalog; rights are asked of checks the API hands in.',
      from: { path: '^src/describe/' },
      to: { path: below('store', 'domain', 'config', 'runtime', 'lifecycle', 'operations', 'tree', 'render', 'behaviour', 'interchange', 'api', 'http', 'cli') },
    },
    { name: 'api-below-http', severity: 'error', comment: 'The API is usable without HTTP.', from: { path: '^src/api/' }, to: { path: below('http', 'cli') } },
    { name: 'only-http-speaks-http', severity: 'error', comment: 'Nothing below http/ imports http/.', from: { path: '^src/', pathNot: '^src/(http|cli)/' }, to: { path: '^src/http/' } },
    {
      name: 'only-http-knows-fastify',
      severity: 'error',
      comment: 'Fastify is the HTTP adapter: nothing below http/ uses it.',
      from: { path: '^src/', pathNot: '^src/(http|cli)/' },
      to: { path: '(^|/)node_modules/(fastify|@fastify/[^/]+)/' },
    },
    {
      name: 'http-through-api',
      severity: 'error',
      comment: 'HTTP adapts the API: it reaches the domain, its services and the store only through it.',
      from: { path: '^src/http/' },
      to: { path: below('store', 'domain', 'config', 'runtime', 'lifecycle', 'security', 'operations', 'actions', 'tree', 'behaviour', 'interchange', 'describe') },
    },
    {
      name: 'metrics-through-api',
      severity: 'error',
      comment: 'Metrics read the runtime through the management API, as a scraping client would.',
      from: { path: '^src/metrics/' },
      to: { path: below('store', 'domain', 'config', 'runtime', 'lifecycle', 'security', 'operations', 'tree', 'behaviour', 'interchange', 'http', 'cli') },
    },
    { name: 'browse-is-presentation', severity: 'error', comment: 'The HTML view lays out JSON bodies; it knows nothing of the domain.', from: { path: '^src/browse/' }, to: { path: '^src/', pathNot: '^src/(browse|core)/' } },
    {
      name: 'watch-below-api',
      severity: 'error',
      comment: 'The watch journal and hub follow the domain; the API opens watches, HTTP streams them.',
      from: { path: '^src/watch/' },
      to: { path: below('api', 'http', 'cli', 'operations', 'domain') },
    },
    {
      name: 'client-speaks-http-only',
      severity: 'error',
      comment: 'The client (appserver-admin/client) talks to a server over HTTP: it imports nothing of the server, only its own files and the generated bean types.',
      from: { path: '^src/client/' },
      to: { path: '^src/', pathNot: '^src/client/' },
    },
    {
      name: 'client-cli-through-client',
      severity: 'error',
      comment: 'The client commands reach the server through the client, never through its internals.',
      from: { path: '^src/cli/client/' },
      to: { path: '^src/', pathNot: '^src/(client|cli/client)/' },
    },
    { name: 'nothing-imports-the-client', severity: 'error', comment: 'The server does not use its own client; only the client commands do.', from: { path: '^src/', pathNot: '^src/(client|cli)/' }, to: { path: '^src/client/' } },
    { name: 'cli-is-the-top', severity: 'error', comment: 'Only the composition root wires everything.', from: { path: '^src/', pathNot: '^src/cli/' }, to: { path: '^src/cli/' } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    includeOnly: ['^src/', 'node_modules/(fastify|@fastify)'],
  },
};
