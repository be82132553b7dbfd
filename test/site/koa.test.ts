// AgentFriendly for Koa beyond the conformance table: ctx.throw, a body Koa sends as JSON, the buffer
// cap on a streamed error, a failing stream, and Koa's error event, on one app over loopback.
import { Readable } from 'node:stream';
import createError from 'http-errors';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentError, isAgentError } from '../../src/site/agent-error.js';
import { agentFriendlyKoa } from '../../src/site/koa.js';
import { AGENT, BROWSER, CHUNK, PROBLEM, counted, expectAugmented, expectCappedError, expectEnvelope, expectRateLimited, ownJson } from '../helpers/agents.js';
import { serve, type TestServer } from '../helpers/server.js';

const CAP = 32 * 1024;
/** An error body already in this contract. */
const ALREADY = JSON.stringify({ error: { code: 'out_of_stock', message: 'Gone', field: null, retry: 'no', retry_after: null } });
const heard: unknown[] = [];
const events: unknown[] = [];
let stats = { pulled: 0, cancelled: false };
let server: TestServer;

beforeAll(async () => {
  const app = new Koa();
  app.on('error', (error: unknown) => events.push(error));
  app.use(agentFriendlyKoa({ bufferBytes: CAP, onError: (error) => heard.push(error) }));
  app.use(async (ctx) => {
    switch (ctx.path) {
      case '/limited':
        return ctx.throw(429, 'Slow down', { headers: { 'retry-after': '7', 'x-ratelimit-remaining': '0' } });
      case '/down':
        return ctx.throw(503);
      case '/exposed':
        throw createError(500, 'secret exposed', { expose: true });
      case '/json': {
        ctx.status = 409;
        ctx.body = { message: 'Order changed' };
        return;
      }
      case '/big': {
        const body = counted(4 * CAP, '<title>Broken stream</title>');
        stats = body.stats;
        ctx.status = 500;
        ctx.type = 'html';
        ctx.body = body.stream;
        return;
      }
      case '/failing': {
        ctx.status = 502;
        ctx.type = 'html';
        ctx.body = Readable.from(
          (async function* () {
            yield '<title>Bad gateway</title>';
            throw new Error('upstream reset');
          })(),
        );
        return;
      }
      case '/gone':
        throw agentError('out_of_stock');
      case '/already': {
        ctx.status = 409;
        ctx.type = 'json';
        ctx.body = Readable.from([ALREADY.slice(0, 10), ALREADY.slice(10)]);
        return;
      }
    }
  });
  server = await serve(app.callback());
});
afterAll(() => server?.close());

const get = (path: string, headers: Record<string, string>) => fetch(server.url + path, { headers });

describe('AgentFriendly for Koa', () => {
  it("ctx.throw(429) with headers: rate_limited for an agent, the error's own headers kept; Koa's text for a browser, with Vary: Accept", async () => {
    const agent = await get('/limited', AGENT);
    expect(agent.headers.get('retry-after')).toBe('7');
    expect(agent.headers.get('x-ratelimit-remaining')).toBe('0');
    await expectRateLimited(agent);
    const browser = await get('/limited', BROWSER);
    expect([browser.status, browser.headers.get('vary'), browser.headers.get('retry-after'), await browser.text()]).toEqual([429, 'Accept', '7', 'Slow down']);
  });

  it('ctx.throw(503) is the app saying it is down, not a failure of the code: temporarily_unavailable with a delay', async () => {
    await expectEnvelope(await get('/down', AGENT), 503, { code: 'temporarily_unavailable', retry: 'after_delay', retry_after: 60 });
    expect(await (await get('/down', BROWSER)).text()).toBe('Service Unavailable');
  });

  it('an error with an exposed message and a 5xx status never shows it to anyone', async () => {
    for (const headers of [AGENT, BROWSER]) {
      const res = await get('/exposed', headers);
      expect(res.status).toBe(500);
      expect(await res.text()).not.toContain('secret');
    }
  });

  it('a body Koa sends as JSON is read as one: kept for an agent, with the code and retry word its 409 means added; converted for one that asks for problem details', async () => {
    const original = await ownJson(await get('/json', BROWSER));
    expect(original.body).toEqual({ message: 'Order changed' });
    await expectAugmented(await get('/json', AGENT), 409, original, { code: 'conflict', retry: 'refetch' }, { code: 'conflict', message: 'Order changed', retry: 'refetch' });
    const problem = await get('/json', PROBLEM);
    expect([problem.status, problem.headers.get('content-type')]).toEqual([409, 'application/problem+json']);
    expect(await problem.json()).toMatchObject({ code: 'conflict', status: 409, detail: 'Order changed', retry: 'refetch' });
  });

  it('a streamed error is converted from its first bufferBytes; the rest is never read', async () => {
    await expectCappedError(await get('/big', AGENT), () => stats, CAP);
    expect(CAP).toBeGreaterThan(CHUNK);
  });

  it('a stream that fails is converted from what was read, and its error reaches onError', async () => {
    const before = heard.length;
    // The app's 502, kept: internal to the catalog, whose word waits a second.
    const res = await get('/failing', AGENT);
    expect(res.headers.get('retry-after')).toBe('1');
    await expectEnvelope(res, 502, { code: 'internal', message: 'Bad gateway', retry: 'once', retry_after: 1 });
    expect(heard.slice(before).map((e) => (e as Error).message)).toEqual(['upstream reset']);
  });

  it("a failure goes to onError in place of Koa's error event; a client error of Koa's fires the event as Koa would", async () => {
    const [heardBefore, eventsBefore] = [heard.length, events.length];
    for (const headers of [AGENT, BROWSER]) await (await get('/exposed', headers)).arrayBuffer();
    expect(heard.slice(heardBefore).map((e) => (e as Error).message)).toEqual(['secret exposed', 'secret exposed']);
    expect(events.slice(eventsBefore)).toEqual([]);
    for (const headers of [AGENT, BROWSER]) await (await get('/limited', headers)).arrayBuffer();
    expect(events.slice(eventsBefore).map((e) => (e as { status: number }).status)).toEqual([429, 429]);
    expect(heard.slice(heardBefore)).toHaveLength(2);
  });

  it('sends a streamed error body already in this contract whole, read to tell', async () => {
    const res = await get('/already', AGENT);
    expect([res.status, await res.text()]).toEqual([409, ALREADY]);
  });

  it("Koa's error event never fires for an AgentError", async () => {
    for (const headers of [AGENT, BROWSER]) expect((await get('/gone', headers)).status).toBe(409);
    expect(events.filter(isAgentError)).toEqual([]);
  });
});
