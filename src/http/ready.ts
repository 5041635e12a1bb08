// GET /appserver/ready: whether the server answering takes work, for container probes and load
// balancers. It asks no credentials (probes have none) and says nothing but the server's name and
// state: 200 while the server is RUNNING, 503 otherwise (starting, suspended, stopping).
import type { FastifyInstance } from 'fastify';
import type { ManagementApi } from '../api/management-api.js';
import { sendJson } from './send.js';

export const READY_PATH = '/appserver/ready';

/** True for the readiness path, with or without a query. */
export function isReady(url: string): boolean {
  return url === READY_PATH || url.startsWith(`${READY_PATH}?`);
}

export function readyRoute(app: FastifyInstance, api: ManagementApi): void {
  app.get(READY_PATH, async (_request, reply) => {
    const { server, state, ready } = api.readiness();
    return sendJson(reply, ready ? 200 : 503, { server, state }, ready ? {} : { 'retry-after': '5' });
  });
}
