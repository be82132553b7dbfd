// One behaviour on every adapter: each case of the conformance table (test/helpers/conformance.ts)
// against each adapter and documented setup, over real loopback servers with the platform's fetch.
// A behaviour is specified once, there; an adapter is one entry of its list.
import type { HttpAdapterHost } from '@nestjs/core';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest';
import { agentFriendlyExpressErrorHandler, agentFriendlyExpress } from '../../src/site/express.js';
import { agentFriendlyFastify } from '../../src/site/fastify.js';
import { agentFriendlyFetch } from '../../src/site/fetch.js';
import type { AgentFriendlyOptions } from '../../src/site/friendly.js';
import { agentFriendlyHonoErrorHandler, agentFriendlyHono } from '../../src/site/hono.js';
import { agentFriendlyKoa } from '../../src/site/koa.js';
import { AgentFriendlyFilter, AgentFriendlyModule, agentFriendlyNest } from '../../src/site/nest.js';
import { agentFriendlyNextDocs, agentFriendlyNext } from '../../src/site/next.js';
import { agentFriendlyNode } from '../../src/site/node.js';
import { AGENT, expectEnvelope } from '../helpers/agents.js';
import { CASES, ROUTES, SETUPS, type Running, type Site } from '../helpers/conformance.js';

describe.each(SETUPS)('AgentFriendly conformance: $label', (setup) => {
  const heard: unknown[] = [];
  // What the setup logs: console.error's calls, and the framework's own logger's (SiteSpec.log).
  const logs: unknown[][] = [];
  const log = (...args: unknown[]): void => void logs.push(args);
  let site: Site;
  let errors: MockInstance<typeof console.error>;
  const start = (options: Record<string, unknown>): Promise<Site> => setup.start({ routes: ROUTES, options, ownPage: setup.ownPage, log });
  beforeAll(async () => {
    // What is logged is part of the contract: recorded, and kept out of the test output.
    errors = vi.spyOn(console, 'error').mockImplementation(log);
    site = await start({ onError: (error: unknown) => heard.push(error) });
  });
  afterAll(async () => {
    errors.mockRestore();
    await site?.close();
  });
  const running = (): Running => ({
    url: site.url,
    ownPage: setup.ownPage,
    httpErrors: setup.httpErrors,
    get: (path, headers, method = 'GET') => fetch(`${site.url}${path}`, { headers, method }),
    heard,
    logged: () => logs,
    start,
  });

  it.each(CASES)('$name', ({ run }) => run(running()));
});

describe('the retryAfter option', () => {
  const down = () => new Response('<title>Down</title>', { status: 503, headers: { 'content-type': 'text/html' } });

  it("is the delay of a converted wait whose page named none, in the body and in Retry-After; a retry-once error keeps its word's default", async () => {
    const site = agentFriendlyFetch(down, { retryAfter: 120 });
    const res = await site(new Request('http://shop.test/', { headers: AGENT }));
    expect(res.headers.get('retry-after')).toBe('120');
    await expectEnvelope(res, 503, { code: 'temporarily_unavailable', retry_after: 120 });
    const failing = agentFriendlyFetch(() => new Response('<title>Oops</title>', { status: 500 }), { retryAfter: 120 });
    await expectEnvelope(await failing(new Request('http://shop.test/', { headers: AGENT })), 500, { code: 'internal', retry_after: 1 });
  });
});

describe('the options, checked when an adapter is made', () => {
  const down = () => new Response('<title>Down</title>', { status: 503 });
  const host = { httpAdapter: {} } as HttpAdapterHost;
  /** Each adapter's maker, by the name its refusals give: the function the user called. */
  const makers: readonly (readonly [string, (options: unknown) => unknown])[] = [
    ['agentFriendlyNode', (o) => agentFriendlyNode(() => undefined, o as AgentFriendlyOptions)],
    ['agentFriendlyExpress', (o) => agentFriendlyExpress(o as AgentFriendlyOptions)],
    ['agentFriendlyExpressErrorHandler', (o) => agentFriendlyExpressErrorHandler(o as AgentFriendlyOptions)],
    ['agentFriendlyFastify', (o) => Fastify().register(agentFriendlyFastify, o as AgentFriendlyOptions)],
    ['agentFriendlyHono', (o) => agentFriendlyHono(o as AgentFriendlyOptions)],
    ['agentFriendlyHonoErrorHandler', (o) => agentFriendlyHonoErrorHandler(o as AgentFriendlyOptions)],
    ['agentFriendlyFetch', (o) => agentFriendlyFetch(down, o as AgentFriendlyOptions)],
    ['agentFriendlyKoa', (o) => agentFriendlyKoa(o as AgentFriendlyOptions)],
    ['AgentFriendlyFilter', (o) => new AgentFriendlyFilter(o as AgentFriendlyOptions, host)],
    ['AgentFriendlyModule.forRoot', (o) => AgentFriendlyModule.forRoot(o as AgentFriendlyOptions)],
    ['agentFriendlyNest', (o) => agentFriendlyNest(o as AgentFriendlyOptions)],
    ['agentFriendlyNext', (o) => agentFriendlyNext(down, o as AgentFriendlyOptions)],
    ['agentFriendlyNextDocs', (o) => agentFriendlyNextDocs(o as AgentFriendlyOptions)],
  ];
  /** What making it did: the error it threw (or its promise rejected with), or 'made'. */
  const outcome = (make: (options: unknown) => unknown, options: unknown): Promise<unknown> =>
    Promise.resolve()
      .then(() => make(options))
      .then(
        () => 'made',
        (error: unknown) => error,
      );
  const bad: readonly (readonly [string, unknown, string])[] = [
    ['onError', 'log', 'a function'],
    ['onError', { error: 'log' }, 'a function'],
    ['base', 'not a url', 'an absolute http or https URL, without query or fragment'],
    ['base', '/api', 'an absolute http or https URL, without query or fragment'],
    ['base', 'ftp://files.example.com', 'an absolute http or https URL, without query or fragment'],
    ['base', 'https://api.example.com/?v=1', 'an absolute http or https URL, without query or fragment'],
    ['docs', 'yes', 'true or false'],
    ['bufferBytes', -1, 'a whole, non-negative number of bytes'],
    ['bufferBytes', '65536', 'a whole, non-negative number of bytes'],
    ...[1.5, -1, '30', 1e21, Number.NaN, { seconds: 30 }].map((value) => ['retryAfter', value, 'a whole, non-negative number of seconds, as Retry-After is'] as const),
  ];

  it.each(makers)('%s refuses a value an option does not take with a TypeError naming itself, the option, what it takes and the value, quoted', async (name, make) => {
    for (const [option, value, takes] of bad) {
      const error = await outcome(make, { [option]: value });
      expect(error).toBeInstanceOf(TypeError);
      const got = typeof value === 'number' ? String(value) : JSON.stringify(value);
      expect((error as Error).message).toBe(`${name}: ${option} must be ${takes} (got ${got})`);
    }
    if (name !== 'agentFriendlyFastify') expect(((await outcome(make, null)) as Error).message).toBe(`${name}: options must be an object (got null)`);
    const good = { onError: () => undefined, base: 'https://api.example.com/v1', docs: false, bufferBytes: 0, retryAfter: 0 };
    expect(await outcome(make, good)).toBe('made');
  });
});
