// An existing app adopts AgentFriendly: the orders shop (orders.openapi.yaml, its own JSON errors
// {"message", "code", ...}, its responses checked by a real OpenAPI response validator) on Express,
// Fastify and Hono, with its own axios client tests (client-suite.ts). Bare, every client test
// passes; with AgentFriendly installed in the shop's format (team.ts), the same tests, unchanged,
// must pass for axios's default Accept, for Accept: application/json and for a browser, while an
// agent using this package's client with no configuration reads the shop's codes, fields, retry
// words and delays.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve as serveHono } from '@hono/node-server';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { createAgentClient } from '../../src/agent/index.js';
import { agentFriendlyExpress, agentFriendlyExpressErrorHandler } from '../../src/site/express.js';
import { agentFriendlyFastify } from '../../src/site/fastify.js';
import { agentFriendlyHono } from '../../src/site/hono.js';
import { ACCEPTS, clientSuite, type Running } from './client-suite.js';
import { createExpressApp, type ExpressInstall } from './express-app.js';
import { createFastifyApp, type FastifyInstall } from './fastify-app.js';
import { createHonoApp, type HonoInstall } from './hono-app.js';
import { QUOTA } from './shop.js';
import { TEAM_FORMAT, TEAM_RETRY_BY_CODE } from './team.js';

/** A node server listening on a free loopback port, counting its requests. */
async function listening(server: Server): Promise<Running> {
  let calls = 0;
  server.on('request', () => void (calls += 1));
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls: () => calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const startExpress = (install?: ExpressInstall) => async () => listening(createServer(createExpressApp(install)));

const startFastify = (install?: FastifyInstall) => async (): Promise<Running> => {
  const app: FastifyInstance = await createFastifyApp(install);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const running = await listening(app.server);
  return { ...running, close: () => app.close() };
};

const startHono = (install?: HonoInstall) => async (): Promise<Running> => {
  const app = createHonoApp(install);
  const server = await new Promise<Server>((resolve) => {
    const made = serveHono({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(made as Server));
  });
  return listening(server);
};

describe('the orders shop, bare', () => {
  for (const [framework, start] of [
    ['Express', startExpress()],
    ['Fastify', startFastify()],
    ['Hono', startHono()],
  ] as const) {
    for (const [caller, accept] of ACCEPTS) clientSuite(`${framework}, ${caller}`, start, accept);
  }
});

describe("the orders shop with AgentFriendly and the team's format", () => {
  const options = { format: TEAM_FORMAT, retryByCode: TEAM_RETRY_BY_CODE };
  const frameworks = [
    ['Express', startExpress({ before: (app) => void app.use(agentFriendlyExpress(options)), after: (app) => void app.use(agentFriendlyExpressErrorHandler(options)) })],
    ['Fastify', startFastify((app) => app.register(agentFriendlyFastify, options))],
    // The middleware only: agentFriendlyHonoErrorHandler would take the place of the shop's app.onError.
    ['Hono', startHono({ before: (app) => void app.use(agentFriendlyHono(options)) })],
  ] as const;

  for (const [framework, start] of frameworks) {
    for (const [caller, accept] of ACCEPTS) clientSuite(`${framework}, ${caller}`, start, accept);

    describe(`${framework}, an agent with this package's client and no configuration`, () => {
      it('reads the 423 as ORDER_LOCKED, to refetch', async () => {
        const server = await start();
        try {
          const result = await createAgentClient().fetch(`${server.url}/orders/7/cancel`, { method: 'POST' });
          expect(result.ok).toBe(false);
          if (result.ok) return;
          expect(result.response?.status).toBe(423);
          expect(['order_locked', 'ORDER_LOCKED']).toContain(result.error.code);
          expect(result.error.retry).toBe('refetch');
          expect(server.calls()).toBe(1);
        } finally {
          await server.close();
        }
      });

      it('reads the 422 as naming the field sku, to fix', async () => {
        const server = await start();
        try {
          const result = await createAgentClient().fetch(`${server.url}/orders`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ sku: 'NOPE-9', quantity: 1 }),
          });
          expect(result.ok).toBe(false);
          if (result.ok) return;
          expect(result.response?.status).toBe(422);
          expect(result.error.field).toBe('sku');
          expect(result.error.retry).toBe('fix_input');
          expect(server.calls()).toBe(1);
        } finally {
          await server.close();
        }
      });

      it("waits the 429's retry_after_seconds out once, then gets the quota", async () => {
        const server = await start();
        try {
          // The client's clock and sleep, recorded: the wait it was told is the one it takes.
          const slept: number[] = [];
          let clock = Date.now();
          const client = createAgentClient({ now: () => clock, sleep: async (ms) => void (slept.push(ms), (clock += ms)) });
          const result = await client.fetch(`${server.url}/quota-once`);
          expect(result.ok).toBe(true);
          if (!result.ok) return;
          expect(await result.response.json()).toEqual(QUOTA);
          expect(server.calls()).toBe(2);
          // retry_after_seconds: 1 in the shop's body, and as the Retry-After AgentFriendly added: one wait of a second.
          expect(slept).toEqual([1000]);
        } finally {
          await server.close();
        }
      });
    });
  }
});
