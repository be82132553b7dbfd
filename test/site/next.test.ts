// agentFriendlyNext called as Next calls a route handler, without Next: a Request and { params }.
// test/next/next.test.ts runs the same cases in a real `next build` and `next start`.
import type { NextRequest } from 'next/server.js';
import { describe, expect, it } from 'vitest';
import { validateEnvelope } from '../../src/index.js';
import { agentError } from '../../src/site/agent-error.js';
import { agentFriendlyNextDocs, isNextControlFlow, agentFriendlyNext } from '../../src/site/next.js';
import { AGENT, BROWSER, PROBLEM, expectAugmented, expectEnvelope, ownJson } from '../helpers/agents.js';

/** Next's control-flow errors as next/dist makes them: only their digest (or code) marks them. */
const flagged = (digest: string): Error => Object.assign(new Error(digest), { digest });
const NOT_FOUND = flagged('NEXT_HTTP_ERROR_FALLBACK;404');
const REDIRECT = flagged('NEXT_REDIRECT;replace;/orders/42;307;');

type Context = { params: Promise<{ id: string }> };
const errors: unknown[] = [];

const GET = agentFriendlyNext(
  async (request: NextRequest, { params }: Context): Promise<Response> => {
    const { id } = await params;
    switch (id) {
      case 'busy':
        throw agentError('rate_limited', { retryAfter: 30 });
      case 'missing-json':
        return Response.json({ message: 'Order not found' }, { status: 404 });
      case 'missing-html':
        return new Response('<title>Order not found</title>', { status: 404, headers: { 'content-type': 'text/html' } });
      case 'gone':
        throw NOT_FOUND;
      case 'moved':
        throw REDIRECT;
      case 'boom':
        throw new Error('secret db password');
      default:
        return Response.json({ id, path: request.url });
    }
  },
  { onError: (error) => errors.push(error) },
);

const call = (id: string, headers: Record<string, string>, init: RequestInit = {}): Promise<Response> =>
  GET(new Request(`http://localhost:3000/api/orders/${id}`, { headers: { host: 'shop.example', ...headers }, ...init }) as NextRequest, { params: Promise.resolve({ id }) });

describe('agentFriendlyNext', () => {
  it('passes a success through, the handler getting the request as Next gave it', async () => {
    const response = await call('42', AGENT);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ id: '42', path: 'http://localhost:3000/api/orders/42' });
  });

  it('renders a thrown AgentError for an agent, its type URI on the Host the caller named', async () => {
    const response = await call('busy', AGENT);
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('30');
    const body = await response.json();
    expect(validateEnvelope(body).valid).toBe(true);
    expect(body.error).toMatchObject({ code: 'rate_limited', retry_after: 30 });
    const problem = await call('busy', PROBLEM);
    expect((await problem.json()).type).toBe('http://shop.example/problems/rate_limited');
  });

  it("gives a browser a thrown AgentError's page: status, Retry-After, Vary: Accept, HTML", async () => {
    const response = await call('busy', BROWSER);
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('30');
    expect(response.headers.get('vary')).toBe('Accept');
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await response.text()).toContain('<title>Too many requests</title>');
  });

  it("converts the handler's own error page for an agent, adds to its own JSON error what an agent needs, and leaves both to a browser", async () => {
    await expectEnvelope(await call('missing-html', AGENT), 404, { code: 'not_found', message: 'Order not found', retry: 'no', field: null, retry_after: null });
    const json = await call('missing-json', BROWSER);
    expect(json.headers.get('vary')).toBe('Accept');
    const original = await ownJson(json);
    expect(original.body).toEqual({ message: 'Order not found' });
    await expectAugmented(await call('missing-json', AGENT), 404, original, { code: 'not_found', retry: 'no' }, { code: 'not_found', message: 'Order not found', retry: 'no' });
    for (const id of ['missing-json', 'missing-html']) {
      const problem = await call(id, PROBLEM);
      expect([problem.status, problem.headers.get('content-type')]).toEqual([404, 'application/problem+json']);
      expect(await problem.json()).toMatchObject({ type: 'http://shop.example/problems/not_found', code: 'not_found', status: 404, detail: 'Order not found' });
    }
    const html = await call('missing-html', BROWSER);
    expect(await html.text()).toBe('<title>Order not found</title>');
  });

  it("re-throws Next's control-flow errors untouched, for agents and browsers, and never to onError", async () => {
    errors.length = 0;
    for (const headers of [AGENT, BROWSER]) {
      await expect(call('gone', headers)).rejects.toBe(NOT_FOUND);
      await expect(call('moved', headers)).rejects.toBe(REDIRECT);
    }
    expect(errors).toEqual([]);
  });

  it('re-throws a control-flow error thrown synchronously or raised while the wrapper reads the request', async () => {
    const bailout = Object.assign(new Error('used request.headers'), { code: 'NEXT_STATIC_GEN_BAILOUT' });
    const sync = agentFriendlyNext(() => {
      throw REDIRECT;
    });
    await expect(sync(new Request('http://localhost/x', { headers: AGENT }), {})).rejects.toBe(REDIRECT);
    const request = new Request('http://localhost/x');
    Object.defineProperty(request, 'headers', {
      get() {
        throw bailout;
      },
    });
    await expect(agentFriendlyNext(() => new Response('no', { status: 500 }))(request, {})).rejects.toBe(bailout);
  });

  it('turns any other thrown error into a generic 500 for both, handed to onError', async () => {
    errors.length = 0;
    const agent = await call('boom', AGENT);
    expect(agent.status).toBe(500);
    const text = await agent.text();
    expect(text).not.toContain('secret');
    expect(JSON.parse(text).error.code).toBe('internal');
    const browser = await call('boom', BROWSER);
    expect(browser.status).toBe(500);
    expect(browser.headers.get('vary')).toBe('Accept');
    expect(await browser.text()).toBe('Internal Server Error');
    const head = await call('boom', BROWSER, { method: 'HEAD' });
    expect(await head.text()).toBe('');
    expect(errors.map((error) => (error as Error).message)).toEqual(['secret db password', 'secret db password', 'secret db password']);
  });

  it('keeps the request URL as it is when base is set', async () => {
    const pinned = agentFriendlyNext(
      () => {
        throw agentError('rate_limited', { retryAfter: 5 });
      },
      { base: 'https://shop.example/api' },
    );
    const response = await pinned(new Request('http://localhost:3000/x', { headers: { ...PROBLEM, host: 'evil.example' } }), undefined);
    expect((await response.json()).type).toBe('https://shop.example/api/problems/rate_limited');
  });
});

describe('isNextControlFlow', () => {
  it("knows Next's digests, React's postpone and a cause chain, and nothing else", () => {
    for (const digest of ['NEXT_NOT_FOUND', 'NEXT_HTTP_ERROR_FALLBACK;403', 'NEXT_REDIRECT;push;/a;308;', 'DYNAMIC_SERVER_USAGE', 'BAILOUT_TO_CLIENT_SIDE_RENDERING', 'HANGING_PROMISE_REJECTION']) {
      expect(isNextControlFlow(flagged(digest)), digest).toBe(true);
    }
    expect(isNextControlFlow({ $$typeof: Symbol.for('react.postpone') })).toBe(true);
    expect(isNextControlFlow(new Error('wrapped', { cause: NOT_FOUND }))).toBe(true);
    for (const value of [new Error('NEXT_REDIRECT'), flagged('1234567890'), agentError('rate_limited', { retryAfter: 1 }), null, 'NEXT_REDIRECT', undefined]) {
      expect(isNextControlFlow(value)).toBe(false);
    }
  });
});

describe('agentFriendlyNextDocs', () => {
  const docs = agentFriendlyNextDocs();
  const page = (path: string, headers: Record<string, string>): Promise<Response> => docs(new Request(`http://localhost:3000${path}`, { headers: { host: 'shop.example', ...headers } }));

  it("serves a code's page to a browser and its catalog entry to an agent", async () => {
    const html = await page('/problems/rate_limited', BROWSER);
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await html.text()).toContain('http://shop.example/problems/rate_limited');
    const json = await page('/problems/rate_limited', AGENT);
    expect(await json.json()).toMatchObject({ code: 'rate_limited', status: 429 });
  });

  it('answers a code the catalog does not have with a 404, converted for an agent', async () => {
    const agent = await page('/problems/no_such_code', AGENT);
    expect(agent.status).toBe(404);
    expect((await agent.json()).error.code).toBe('not_found');
    const browser = await page('/problems/no_such_code', BROWSER);
    expect(browser.status).toBe(404);
    expect(browser.headers.get('vary')).toBe('Accept');
  });
});
