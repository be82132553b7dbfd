// For any JSON error body and status an app sends, through a real server with AgentFriendly: the
// status and every member reach an agent, and a browser gets the bytes the app sent.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve as serveHono } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import fc from 'fast-check';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentFriendlyExpress } from '../../src/site/express.js';
import { agentFriendlyFastify } from '../../src/site/fastify.js';
import { agentFriendlyHono } from '../../src/site/hono.js';
import { keeps } from '../helpers/conformance.js';
import { TEAM_FORMAT, TEAM_RETRY_BY_CODE } from './team.js';

/** What each request answers: its status and JSON text, by the id in its path. */
const answers = new Map<string, { status: number; text: string }>();
const answerOf = (id: string) => answers.get(id) ?? { status: 500, text: '{}' };
const options = { format: TEAM_FORMAT, retryByCode: TEAM_RETRY_BY_CODE };

interface Running {
  readonly url: string;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<Running> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const servers: Record<string, () => Promise<Running>> = {
  async Express() {
    const app = express();
    app.use(agentFriendlyExpress(options));
    app.get('/r/:id', (req, res) => {
      const { status, text } = answerOf(req.params.id);
      res.status(status).type('application/json').send(text);
    });
    return listen(createServer(app));
  },
  async Fastify() {
    const app = Fastify();
    await app.register(agentFriendlyFastify, options);
    app.get('/r/:id', (req, reply) => {
      const { status, text } = answerOf((req.params as { id: string }).id);
      void reply.code(status).type('application/json').send(text);
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, close: () => app.close() };
  },
  async Hono() {
    const app = new Hono();
    app.use(agentFriendlyHono(options));
    app.get('/r/:id', (c) => {
      const { status, text } = answerOf(c.req.param('id'));
      // c.json, as Hono apps answer: on @hono/node-server its headers reach AgentFriendly as { 'Content-Type': ... }.
      return c.json(JSON.parse(text) as object, status as 400);
    });
    const server = await new Promise<Server>((resolve) => {
      const made = serveHono({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(made as Server));
    });
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
  },
};

const AGENTS = ['application/json', 'application/json, text/plain, */*'];
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

for (const [name, start] of Object.entries(servers)) {
  describe(`any JSON error an app sends on ${name}, with AgentFriendly in the team's format`, () => {
    let running: Running;
    beforeAll(async () => void (running = await start()));
    afterAll(() => running.close());

    it('keeps its status and every member for an agent, and its bytes for a browser (property)', async () => {
      let next = 0;
      await fc.assert(
        fc.asyncProperty(
          // Bodies of the team's format and any other JSON object, with any error status but 407 (the Fetch standard makes it a network error).
          fc.oneof(
            fc.record({ message: fc.string({ maxLength: 20 }), code: fc.constantFrom('ORDER_LOCKED', 'BAD_SKU', 'NOT_FOUND', 'SOMETHING_ELSE'), param: fc.option(fc.string({ maxLength: 8 }), { nil: undefined }), retry_after_seconds: fc.option(fc.nat(3600), { nil: undefined }) }, { requiredKeys: ['message', 'code'] }),
            fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }),
          ),
          fc.integer({ min: 400, max: 599 }).filter((status) => status !== 407),
          fc.constantFrom(...AGENTS),
          async (body, status, accept) => {
            const id = String((next += 1));
            const text = JSON.stringify(Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)));
            answers.set(id, { status, text });
            const agent = await fetch(`${running.url}/r/${id}`, { headers: { accept } });
            expect(agent.status).toBe(status);
            expect(agent.headers.get('content-type')).toMatch(/^application\/json/);
            expect(keeps(JSON.parse(text), await agent.json())).toBe(true);
            const browser = await fetch(`${running.url}/r/${id}`, { headers: { accept: BROWSER } });
            expect([browser.status, await browser.text()]).toEqual([status, text]);
            answers.delete(id);
          },
        ),
        { numRuns: 40 },
      );
    });
  });
}
