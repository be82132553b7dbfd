// One behaviour on every adapter: each case of the conformance table (test/helpers/conformance.ts)
// against each adapter and documented setup, over real loopback servers with the platform's fetch.
// A behaviour is specified once, there; an adapter is one entry of its list.
import { afterAll, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest';
import { agentErrorHandler, agentFriendlyExpress } from '../../src/site/express.js';
import { agentFriendlyFetch } from '../../src/site/fetch.js';
import { agentErrorHandlerHono, agentFriendlyHono } from '../../src/site/hono.js';
import { agentFriendly } from '../../src/site/node.js';
import { AGENT, expectEnvelope } from '../helpers/agents.js';
import { CASES, ROUTES, SETUPS, type Running, type Site } from '../helpers/conformance.js';

describe.each(SETUPS)('AgentFriendly conformance: $label', (setup) => {
  const heard: unknown[] = [];
  let site: Site;
  let errors: MockInstance<typeof console.error>;
  beforeAll(async () => {
    // What is logged is part of the contract: recorded, and kept out of the test output.
    errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    site = await setup.start({ routes: ROUTES, options: { onError: (error) => heard.push(error) }, ownPage: setup.ownPage });
  });
  afterAll(async () => {
    errors.mockRestore();
    await site?.close();
  });
  const running = (): Running => ({
    url: site.url,
    ownPage: setup.ownPage,
    get: (path, headers, method = 'GET') => fetch(`${site.url}${path}`, { headers, method }),
    heard,
    logged: () => errors.mock.calls,
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

  it('is refused when Retry-After could not carry it, by every adapter, when it is made', () => {
    const makers = [
      (o: object) => agentFriendly(() => undefined, o),
      (o: object) => agentFriendlyExpress(o),
      (o: object) => agentErrorHandler(o),
      (o: object) => agentFriendlyHono(o),
      (o: object) => agentErrorHandlerHono(o),
      (o: object) => agentFriendlyFetch(down, o),
    ];
    for (const make of makers) {
      for (const retryAfter of [1.5, -1, '30', 1e21]) expect(() => make({ retryAfter })).toThrow(/retryAfter must be a whole, non-negative number of seconds/);
      expect(() => make({ retryAfter: 0 })).not.toThrow();
    }
  });
});
