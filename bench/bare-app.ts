// The baseline of the start-up benchmark: a bare Fastify app in a process of its own, answering
// every GET with a small JSON object. `node dist/bench/bare-app.js PORT`.
import Fastify from 'fastify';

const app = Fastify();
app.get('/*', async () => ({ name: 'AdminServer', state: 'RUNNING' }));
await app.listen({ host: '127.0.0.1', port: Number(process.argv[2]) });
