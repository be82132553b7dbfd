// The vitest matchers against real responses from a loopback server, read three ways: a Fetch
// Response (platform fetch), a supertest response and a plain { status, headers, body } object.
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it, vi, type Assertion } from 'vitest';
import type { AnyCode } from '../../src/index.js';
import { agentErrorMatchers, registerAgentErrorMatchers, type AgentContractOptions } from '../../src/tools/vitest.js';
import { serve, type TestServer } from '../helpers/server.js';
import { EXAMPLES } from '../../src/index.js';

// ---------------------------------------------------------------------------------------------
// The routes
// ---------------------------------------------------------------------------------------------

const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };
const PROBLEM_TYPE = { 'content-type': 'application/problem+json' };

const rateLimited = { error: { code: 'rate_limited', message: 'Too many requests', field: null, retry: 'after_delay', retry_after: 30 } };
const notFound = {
  type: 'https://api.example.com/problems/not_found',
  title: 'Not found',
  status: 404,
  detail: 'No order 42',
  code: 'not_found',
  next_step: 'give_up',
  retry: 'no',
};
// The catalog's own rate_limited example, as the docs and OpenAPI components show it.
const rateLimitedProblem = EXAMPLES.rate_limited.problem;
const couponExpired = { error: { code: 'coupon_expired', message: 'The coupon has expired', field: 'coupon', retry: 'fix_input', retry_after: null } };
const HTML = '<!doctype html>\n<html><head><title>503 Service Unavailable</title></head><body><h1>Down for maintenance</h1></body></html>';

interface Route {
  readonly status: number;
  readonly headers: Record<string, string>;
  /** A JSON value, or a string sent as it is. */
  readonly body: unknown;
}

const ROUTES = {
  '/rate-limited': { status: 429, headers: { ...JSON_TYPE, 'retry-after': '30' }, body: rateLimited },
  '/problem': { status: 404, headers: PROBLEM_TYPE, body: notFound },
  '/problem-rate-limited': { status: 429, headers: { ...PROBLEM_TYPE, 'retry-after': '30' }, body: rateLimitedProblem },
  '/site-code': { status: 422, headers: JSON_TYPE, body: couponExpired },
  '/disagrees': { status: 429, headers: { ...JSON_TYPE, 'retry-after': '15' }, body: rateLimited },
  '/no-retry-after': { status: 429, headers: JSON_TYPE, body: rateLimited },
  '/problem-as-json': { status: 404, headers: JSON_TYPE, body: notFound },
  '/status-mismatch': { status: 404, headers: { ...JSON_TYPE, 'retry-after': '30' }, body: rateLimited },
  '/html': { status: 503, headers: { 'content-type': 'text/html; charset=utf-8' }, body: HTML },
  '/ok': { status: 200, headers: JSON_TYPE, body: { id: 42, name: 'Order 42' } },
} satisfies Record<string, Route>;
type Path = keyof typeof ROUTES;

const wire = (route: Route): string => (typeof route.body === 'string' ? route.body : JSON.stringify(route.body));

let server: TestServer;
beforeAll(async () => {
  server = await serve((req, res) => {
    const route: Route | undefined = (ROUTES as Record<string, Route>)[req.url ?? ''];
    if (!route) return void res.writeHead(500).end();
    res.writeHead(route.status, route.headers).end(wire(route));
  });
});
afterAll(() => server.close());

// ---------------------------------------------------------------------------------------------
// The shapes a test holds a response in
// ---------------------------------------------------------------------------------------------

const SHAPES = ['fetch', 'supertest', 'plain', 'plain with Headers and a string body'] as const;
type Shape = (typeof SHAPES)[number];

/** The response of `path` as `shape`: over the wire for fetch and supertest, from the route for the plain objects. */
async function responseOf(shape: Shape, path: Path): Promise<unknown> {
  const route: Route = ROUTES[path];
  switch (shape) {
    case 'fetch':
      return fetch(server.url + path);
    case 'supertest':
      return supertest(server.server).get(path);
    case 'plain':
      return { status: route.status, headers: route.headers, body: route.body };
    case 'plain with Headers and a string body':
      return { status: route.status, headers: new Headers(route.headers), body: wire(route) };
  }
}

type Call = (assertion: Assertion<unknown>) => unknown;

/** `call` passes: awaited for a Fetch Response (the matchers are async there), at once otherwise. */
async function passes(response: unknown, call: Call): Promise<void> {
  if (response instanceof Response) {
    const result = call(expect(response));
    expect(result).toBeInstanceOf(Promise);
    await result;
  } else {
    expect(call(expect(response))).not.toBeInstanceOf(Promise);
  }
}

/** `call` fails with a message matching every pattern. */
async function fails(response: unknown, call: Call, ...patterns: RegExp[]): Promise<void> {
  expect(patterns.length).toBeGreaterThan(0);
  for (const pattern of patterns) {
    if (response instanceof Response) await expect(call(expect(response))).rejects.toThrow(pattern);
    else expect(() => call(expect(response))).toThrow(pattern);
  }
}

// ---------------------------------------------------------------------------------------------
// What each route should give
// ---------------------------------------------------------------------------------------------

interface Expectation {
  /** true: toBeAgentError passes, carrying `code`; else the patterns its failure message matches. */
  readonly agentError: true | readonly RegExp[];
  readonly code?: string;
  /** true: toSatisfyAgentContract passes; else the patterns its failure message matches. */
  readonly contract: true | readonly RegExp[];
}

const EXPECTED: Record<Path, Expectation> = {
  '/rate-limited': { agentError: true, code: 'rate_limited', contract: true },
  '/problem': { agentError: true, code: 'not_found', contract: true },
  '/problem-rate-limited': { agentError: true, code: 'rate_limited', contract: true },
  '/site-code': { agentError: true, code: 'coupon_expired', contract: true },
  '/disagrees': {
    agentError: true,
    code: 'rate_limited',
    contract: [/Retry-After: the header "15" asks for 15 s, but the body's delay error\.retry_after is 30/],
  },
  '/no-retry-after': {
    agentError: true,
    code: 'rate_limited',
    contract: [/Retry-After: missing, but the body's delay error\.retry_after is 30/],
  },
  '/problem-as-json': {
    agentError: true,
    code: 'not_found',
    contract: [
      /content-type: expected application\/problem\+json for a problem body, received application\/json; charset=utf-8/,
      /body: a problem that validates, but content-type application\/json calls for an envelope/,
    ],
  },
  '/status-mismatch': {
    agentError: true,
    code: 'rate_limited',
    contract: [/status: expected 429, the catalog's status for code "rate_limited", received 404/],
  },
  '/html': {
    agentError: [/Expected an agent error, but:/, /body: not JSON: "<!doctype html> <html><head><title>503 Service Unavailable/],
    contract: [
      /body: not JSON/,
      /content-type: expected application\/json \(an envelope\) or application\/problem\+json \(a problem\), received text\/html; charset=utf-8/,
      /Received: 503, content-type text\/html/,
    ],
  },
  '/ok': {
    agentError: [/status: expected an error status \(4xx or 5xx\), received 200/, /body: neither an envelope nor a problem:\n\s+as an envelope:\n\s+\/error: error is required here/],
    contract: [
      /status: expected an error status \(4xx or 5xx\), received 200/,
      /body: not a valid envelope \(as content-type application\/json calls for\):\n\s+\/error: error is required here\n\s+\/id: id is not a member of this body/,
    ],
  },
};

// ---------------------------------------------------------------------------------------------
// The matchers, route by route and shape by shape
// ---------------------------------------------------------------------------------------------

describe.each(SHAPES)('on a %s response', (shape) => {
  describe.each(Object.keys(ROUTES) as Path[])('%s', (path) => {
    const expected = EXPECTED[path];

    if (expected.agentError === true) {
      const code = expected.code!;
      it(`is an agent error with code ${code}, and .not says so`, async () => {
        const response = await responseOf(shape, path);
        await passes(response, (a) => a.toBeAgentError());
        await passes(response, (a) => a.toBeAgentError(code));
        await passes(response, (a) => a.not.toBeAgentError('internal'));
        await fails(response, (a) => a.toBeAgentError('internal'), new RegExp(`code: expected "internal", received "${code}"`));
        await fails(
          response,
          (a) => a.not.toBeAgentError(),
          /^expect\(response\)\.not\.toBeAgentError\(\)/,
          new RegExp(`Expected the response not to be an agent error, but it is one: status ${ROUTES[path].status}, a valid (envelope|problem) with code "${code}"`),
        );
      });
    } else {
      const patterns = expected.agentError;
      it('is no agent error, and says why', async () => {
        const response = await responseOf(shape, path);
        await fails(response, (a) => a.toBeAgentError(), /^expect\(response\)\.toBeAgentError\(\)/, ...patterns);
        await fails(response, (a) => a.toBeAgentError('rate_limited'), /Expected an agent error with code "rate_limited", but:/, /code: expected "rate_limited", received no code/);
        await passes(response, (a) => a.not.toBeAgentError());
      });
    }

    if (expected.contract === true) {
      it('satisfies the contract, and .not says so', async () => {
        const response = await responseOf(shape, path);
        await passes(response, (a) => a.toSatisfyAgentContract());
        await passes(response, (a) => a.toSatisfyAgentContract({ code: expected.code! }));
        await fails(
          response,
          (a) => a.not.toSatisfyAgentContract(),
          /^expect\(response\)\.not\.toSatisfyAgentContract\(\)/,
          new RegExp(`Expected the response not to satisfy the agent error contract, but it does: status ${ROUTES[path].status}, .*code "${expected.code}"`),
        );
        await fails(response, (a) => a.toSatisfyAgentContract({ code: 'internal' }), new RegExp(`code: expected "internal", received "${expected.code}"`));
      });
    } else {
      const patterns = expected.contract;
      it('breaks the contract, and the message says what differed', async () => {
        const response = await responseOf(shape, path);
        await fails(response, (a) => a.toSatisfyAgentContract(), /^expect\(response\)\.toSatisfyAgentContract\(\)\n\nThe response breaks the agent error contract:\n {2}- /, ...patterns);
        await passes(response, (a) => a.not.toSatisfyAgentContract());
      });
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Details
// ---------------------------------------------------------------------------------------------

describe('a Fetch Response', () => {
  it('is read from a clone: the caller can still read the body', async () => {
    const response = await fetch(`${server.url}/rate-limited`);
    await expect(response).toBeAgentError('rate_limited');
    await expect(response).toSatisfyAgentContract();
    expect(response.bodyUsed).toBe(false);
    expect(await response.json()).toEqual(rateLimited);
  });

  it('works behind .resolves on the fetch promise itself', async () => {
    await expect(fetch(`${server.url}/rate-limited`)).resolves.toSatisfyAgentContract();
    await expect(expect(fetch(`${server.url}/status-mismatch`)).resolves.toSatisfyAgentContract()).rejects.toThrow(
      /^expect\(response\)\.resolves\.toSatisfyAgentContract\(\)[\s\S]*status: expected 429/,
    );
  });

  it('throws, with .not or without, when its body was already read', async () => {
    const response = await fetch(`${server.url}/rate-limited`);
    await response.text();
    expect(() => expect(response).toBeAgentError()).toThrow(/toBeAgentError: the Response's body was already read/);
    expect(() => expect(response).not.toSatisfyAgentContract()).toThrow(/toSatisfyAgentContract: the Response's body was already read/);
  });
});

describe('the matchers', () => {
  it('throw on something that is no response at all, with .not or without', () => {
    expect(() => expect(42).toBeAgentError()).toThrow(/expected a Fetch Response, a supertest response or a \{ status, headers, body \} object, received 42/);
    expect(() => expect('oops').not.toSatisfyAgentContract()).toThrow(/received "oops"/);
  });

  it('read a supertest response from the URL as well as from the server', async () => {
    const response = await supertest(server.url).get('/disagrees');
    expect(response).toBeAgentError('rate_limited');
    expect(() => expect(response).toSatisfyAgentContract()).toThrow(/the header "15" asks for 15 s/);
  });

  it("report an HTML page's body as text, not as supertest's empty parsed body", async () => {
    const response = await supertest(server.server).get('/html');
    expect(response.body).toEqual({});
    expect(() => expect(response).toBeAgentError()).toThrow(/Down for maintenance/);
  });

  it('count an HTTP-date Retry-After from the Date header', () => {
    const response = {
      status: 429,
      headers: { date: 'Sun, 06 Nov 1994 08:49:37 GMT', 'retry-after': 'Sun, 06 Nov 1994 08:50:07 GMT', 'content-type': 'application/json' },
      body: rateLimited,
    };
    expect(response).toSatisfyAgentContract();
    const late = { ...response, headers: { ...response.headers, 'retry-after': 'Sun, 06 Nov 1994 08:50:37 GMT' } };
    expect(() => expect(late).toSatisfyAgentContract()).toThrow(/Retry-After: the header "Sun, 06 Nov 1994 08:50:37 GMT" asks for 60 s, but the body's delay error\.retry_after is 30/);
  });

  it('refuse a Retry-After the body does not carry, and one that is no delay at all', () => {
    const body = { error: { code: 'not_found', message: 'No order 42', field: null, retry: 'no', retry_after: null } };
    expect({ status: 404, headers: JSON_TYPE, body }).toSatisfyAgentContract();
    expect(() => expect({ status: 404, headers: { ...JSON_TYPE, 'retry-after': '30' }, body }).toSatisfyAgentContract()).toThrow(
      /Retry-After: the header "30" asks for 30 s, but the body carries no delay \(error\.retry_after is null\)/,
    );
    expect(() => expect({ status: 429, headers: { ...JSON_TYPE, 'retry-after': 'soon' }, body: rateLimited }).toSatisfyAgentContract()).toThrow(
      /Retry-After: the header "soon" is neither delay-seconds nor an HTTP-date; the body's delay error\.retry_after is 30/,
    );
  });

  it('list each validation issue with its JSON pointer', () => {
    const body = { error: { ...rateLimited.error, retry_after: 1.5, field: 7 } };
    const response = { status: 429, headers: { ...JSON_TYPE, 'retry-after': '2' }, body };
    expect(() => expect(response).toBeAgentError()).toThrow(/body: not a valid envelope:\n\s+\/error\/retry_after: must be an integer\n\s+\/error\/field: must be a string or null/);
    expect(() => expect(response).toSatisfyAgentContract()).toThrow(/\/error\/retry_after: must be an integer[\s\S]*Retry-After: the header "2" asks for 2 s, but the body's delay error\.retry_after is 1\.5/);
  });

  it("take any 4xx or 5xx for a site's own code, and report what only violations() finds", () => {
    const own = { type: 'https://shop.example/problems/cart_locked', title: 'Cart locked', status: 409, code: 'cart_locked', next_step: 'give_up' };
    expect({ status: 409, headers: PROBLEM_TYPE, body: own }).toSatisfyAgentContract();
    expect(() => expect({ status: 200, headers: PROBLEM_TYPE, body: { ...own, status: 200 } }).toSatisfyAgentContract()).toThrow(
      /status: expected an error status \(4xx or 5xx\) for the site's own code "cart_locked", received 200/,
    );
    expect(() => expect({ status: 423, headers: PROBLEM_TYPE, body: own }).toSatisfyAgentContract()).toThrow(
      /violations status-disagrees: the status member is 409, but the response status is 423/,
    );
    const promising = { ...own, detail: 'The cart is locked; try again later.' };
    expect(() => expect({ status: 409, headers: PROBLEM_TYPE, body: promising }).toSatisfyAgentContract()).toThrow(/violations promise-without-delay: detail .* promises a retry/);
  });

  it('check the body kind when asked', () => {
    const problem = { status: 404, headers: PROBLEM_TYPE, body: notFound };
    expect(problem).toSatisfyAgentContract({ kind: 'problem', code: 'not_found' });
    expect(() => expect(problem).toSatisfyAgentContract({ kind: 'envelope' })).toThrow(/kind: expected an envelope, received a problem/);
  });

  it('work as asymmetric matchers on the synchronous shapes', () => {
    const reply = { status: 429, headers: { ...JSON_TYPE, 'retry-after': '30' }, body: rateLimited };
    expect({ reply }).toEqual({ reply: expect.toBeAgentError('rate_limited') });
    expect({ reply }).toEqual({ reply: expect.not.toBeAgentError('internal') });
    expect({ reply }).toEqual({ reply: expect.toSatisfyAgentContract() });
  });

  it('are exported as an object and registered by registerAgentErrorMatchers', () => {
    expect(Object.keys(agentErrorMatchers).sort()).toEqual(['toBeAgentError', 'toSatisfyAgentContract']);
    const extend = vi.fn();
    registerAgentErrorMatchers({ extend });
    expect(extend).toHaveBeenCalledExactlyOnceWith(agentErrorMatchers);
  });

  it('are typed: a code is a string, a Fetch Response gives a Promise, the other shapes nothing', () => {
    expectTypeOf<Parameters<Assertion<unknown>['toBeAgentError']>>().toEqualTypeOf<[code?: AnyCode]>();
    expectTypeOf<Parameters<Assertion<unknown>['toSatisfyAgentContract']>>().toEqualTypeOf<[options?: AgentContractOptions]>();
    expectTypeOf<ReturnType<Assertion<Response>['toBeAgentError']>>().toEqualTypeOf<Promise<void>>();
    expectTypeOf<ReturnType<Assertion<supertest.Response>['toBeAgentError']>>().toEqualTypeOf<void>();
    expectTypeOf<ReturnType<Assertion<{ status: number; body: unknown }>['toSatisfyAgentContract']>>().toEqualTypeOf<void>();
    const reply = { status: 429, headers: {}, body: rateLimited };
    // @ts-expect-error a code is a string, not a status
    const byStatus = () => expect(reply).toBeAgentError(429);
    // @ts-expect-error the contract options have no status
    const withStatus = () => expect(reply).toSatisfyAgentContract({ status: 429 });
    void byStatus;
    void withStatus;
  });
});
