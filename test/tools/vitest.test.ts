// The vitest matchers against real responses from a loopback server, read three ways: a Fetch
// Response (platform fetch), a supertest response and a plain { status, headers, body } object; their
// arguments checked by name; and, in vitest runs of their own in a child process, a matcher nobody
// awaits failing its test, and the suite's warning check (test/setup/warnings.ts) failing a test
// that makes Node warn.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it, vi, type Assertion } from 'vitest';
import type { AnyCode } from '../../src/index.js';
import { agentErrorMatchers, registerAgentErrorMatchers, type AgentContractOptions } from '../../src/tools/vitest.js';
import { serve, type TestServer } from '../helpers/server.js';
import { EXAMPLES } from '../../src/index.js';
import { WARNINGS_DIR_ENV } from '../setup/warnings.js';
import defaultConfig from '../../vitest.config.js';
import slowConfig from '../../vitest.slow.config.js';

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
  it('throw a TypeError on something that is no response at all, with .not or without', async () => {
    expect(() => expect(42).toBeAgentError()).toThrow(
      new TypeError('toBeAgentError: the response must be a Fetch Response, a supertest response or a { status, headers, body } object (got 42)'),
    );
    expect(() => expect('oops').not.toSatisfyAgentContract()).toThrow(/^toSatisfyAgentContract: the response must be .* \(got "oops"\)$/);
    // The usual slip: the fetch promise itself, which JSON would show as {}.
    const pending = fetch(`${server.url}/rate-limited`);
    expect(() => expect(pending).toBeAgentError('rate_limited')).toThrow(
      /^toBeAgentError: the response must be .* \(got a Promise: await it first, or write await expect\(promise\)\.resolves\.toBeAgentError\("rate_limited"\)\)$/,
    );
    await (await pending).text();
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

// ---------------------------------------------------------------------------------------------
// Arguments, checked by name
// ---------------------------------------------------------------------------------------------

describe('the arguments', () => {
  const reply = { status: 429, headers: { ...JSON_TYPE, 'retry-after': '30' }, body: rateLimited };
  const CODE_TAKES = `a code of the catalog (like "rate_limited") or a site's own code in lowercase snake case`;
  /** `call` throws this TypeError, with .not as without, on a plain object and on a Fetch Response alike (at once: no promise to await). */
  async function refused(call: Call, message: string): Promise<void> {
    const response = await fetch(`${server.url}/rate-limited`);
    for (const received of [reply, response]) {
      expect(() => call(expect(received))).toThrow(new TypeError(message));
      expect(() => call(expect(received).not)).toThrow(new TypeError(message));
    }
    expect(response.bodyUsed).toBe(false);
  }

  it("toSatisfyAgentContract refuses an option it does not know, naming the closest it does", async () => {
    await refused((a) => a.toSatisfyAgentContract({ codes: 'rate_limited' } as never), 'toSatisfyAgentContract: unknown option "codes" (did you mean "code"?)');
    await refused((a) => a.toSatisfyAgentContract({ Now: 0 } as never), 'toSatisfyAgentContract: unknown option "Now" (did you mean "now"?)');
    // Nothing near enough to name: the options it takes, all three.
    await refused((a) => a.toSatisfyAgentContract({ cdoe: 'rate_limited' } as never), 'toSatisfyAgentContract: unknown option "cdoe" (did you mean "code"?)');
    await refused((a) => a.toSatisfyAgentContract({ status: 429 } as never), 'toSatisfyAgentContract: status must be "catalog" or "any" (got 429)');
    await refused((a) => a.toSatisfyAgentContract({ statuss: 'any' } as never), 'toSatisfyAgentContract: unknown option "statuss" (did you mean "status"?)');
    await refused((a) => a.toSatisfyAgentContract({ format: { code: 'code' } }), 'toSatisfyAgentContract: format must be an error format, JSON pointers for any of code, retry, message, delay, field ({ code: "/code" }) (got {"code":"code"})');
  });

  it('toSatisfyAgentContract refuses a bad value of each option, saying what it takes', async () => {
    await refused((a) => a.toSatisfyAgentContract({ code: 429 } as never), `toSatisfyAgentContract: code must be ${CODE_TAKES} (got 429)`);
    await refused((a) => a.toSatisfyAgentContract({ code: 'Rate Limited' }), `toSatisfyAgentContract: code must be ${CODE_TAKES} (got "Rate Limited")`);
    await refused((a) => a.toSatisfyAgentContract({ kind: 'json' } as never), 'toSatisfyAgentContract: kind must be "envelope" or "problem" (got "json")');
    for (const now of ['soon', Number.NaN, Infinity, 9e15]) {
      await refused((a) => a.toSatisfyAgentContract({ now } as never), `toSatisfyAgentContract: now must be a time in ms since the epoch, as Date.now() gives (got ${typeof now === 'string' ? `"${now}"` : String(now)})`);
    }
  });

  it('toSatisfyAgentContract refuses options that are no object, and a second argument', async () => {
    await refused((a) => a.toSatisfyAgentContract('rate_limited' as never), 'toSatisfyAgentContract: options must be an object (got "rate_limited")');
    await refused((a) => a.toSatisfyAgentContract(null as never), 'toSatisfyAgentContract: options must be an object (got null)');
    await refused((a) => a.toSatisfyAgentContract(['code'] as never), 'toSatisfyAgentContract: options must be an object (got ["code"])');
    await refused((a) => (a.toSatisfyAgentContract as (...args: unknown[]) => unknown)({}, { kind: 'envelope' }), 'toSatisfyAgentContract: the arguments must be at most one, the options (got [{"kind":"envelope"}])');
  });

  it('toSatisfyAgentContract takes each option with a good value, and undefined for any', () => {
    expect(reply).toSatisfyAgentContract({ code: 'rate_limited', kind: 'envelope', now: Date.now() });
    expect(reply).toSatisfyAgentContract({ code: undefined, kind: undefined, now: undefined });
    expect(reply).toSatisfyAgentContract(undefined);
    // A site's own code, in the catalog's syntax, is a code too.
    expect(() => expect(reply).toSatisfyAgentContract({ code: 'coupon_expired' })).toThrow(/code: expected "coupon_expired", received "rate_limited"/);
  });

  it('toBeAgentError refuses a code that is no code, and a second argument', async () => {
    await refused((a) => a.toBeAgentError(429 as never), `toBeAgentError: the code must be ${CODE_TAKES} (got 429)`);
    await refused((a) => a.toBeAgentError('RATE_LIMITED'), `toBeAgentError: the code must be ${CODE_TAKES} (got "RATE_LIMITED")`);
    await refused((a) => a.toBeAgentError({ code: 'rate_limited' } as never), `toBeAgentError: the code must be ${CODE_TAKES} (got {"code":"rate_limited"})`);
    await refused((a) => (a.toBeAgentError as (...args: unknown[]) => unknown)('rate_limited', 'internal'), 'toBeAgentError: the arguments must be at most one, the code (got ["internal"])');
  });

  it('check the arguments of the asymmetric forms too', () => {
    expect(() => expect({ reply }).toEqual({ reply: expect.toSatisfyAgentContract({ codes: 'x' } as never) })).toThrow(new TypeError('toSatisfyAgentContract: unknown option "codes" (did you mean "code"?)'));
    expect(() => expect({ reply }).toEqual({ reply: expect.toBeAgentError(404 as never) })).toThrow(/^toBeAgentError: the code must be/);
  });
});

// ---------------------------------------------------------------------------------------------
// vitest runs of their own, in a child process
// ---------------------------------------------------------------------------------------------

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');

interface Outcome {
  readonly status: string;
  /** The failure messages, with their stacks. */
  readonly failure: string;
}

interface Run {
  /** Each test's outcome by its name. */
  readonly tests: ReadonlyMap<string, Outcome>;
  /** Each file's status and the error of a file that failed outside its tests. */
  readonly files: ReadonlyMap<string, { status: string; message: string }>;
  /** What vitest printed. */
  readonly output: string;
}

/**
 * Runs vitest in a child process on `files`, written to a folder of their own (with this repo's
 * node_modules, and no config but `config`), and reads its JSON report.
 */
async function runVitest(files: Record<string, string>, config = 'export default {};\n'): Promise<Run> {
  const dir = await mkdtemp(join(tmpdir(), 'agent-errors-vitest-'));
  try {
    await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    await writeFile(join(dir, 'vitest.config.mjs'), config);
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
    // The child's warnings are its own to report (some of its tests make Node warn on purpose): not
    // this worker's, which test/setup/warnings.ts would otherwise be told of through NODE_OPTIONS.
    const env = { ...process.env, [WARNINGS_DIR_ENV]: '', NO_COLOR: '1', FORCE_COLOR: '0' };
    const output = await new Promise<string>((resolve) => {
      execFile(process.execPath, [VITEST, 'run', '--root', dir, '--reporter=json', '--reporter=default', '--outputFile.json=report.json'], { cwd: dir, env }, (_error, stdout, stderr) =>
        resolve(`${stdout}\n${stderr}`),
      );
    });
    const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as {
      testResults: { name: string; status: string; message: string; assertionResults: { title: string; status: string; failureMessages: string[] }[] }[];
    };
    const tests = new Map<string, Outcome>();
    const filesOut = new Map<string, { status: string; message: string }>();
    for (const file of report.testResults) {
      filesOut.set(file.name.slice(dir.length + 1), { status: file.status, message: file.message });
      for (const test of file.assertionResults) tests.set(test.title, { status: test.status, failure: test.failureMessages.join('\n') });
    }
    return { tests, files: filesOut, output };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('a matcher on a Fetch Response that nobody awaits', () => {
  const MATCHERS = join(ROOT, 'src', 'tools', 'vitest.ts');
  // One file of cases, each named by what it does; the lines the failures point at are found by their text.
  const CASES = `import { expect, it } from 'vitest';
import ${JSON.stringify(MATCHERS)};

const body = ${JSON.stringify(rateLimited)};
const busy = () => new Response(JSON.stringify(body), { status: 429, headers: { 'content-type': 'application/json', 'retry-after': '30' } });
const ok = () => new Response('{"id":42}', { status: 200, headers: { 'content-type': 'application/json' } });

it('passing, not awaited', () => {
  expect(busy()).toSatisfyAgentContract(); // LINE passing
});
it('failing, not awaited', () => {
  expect(ok()).toBeAgentError('rate_limited');
});
it('failing, not awaited, the test going on', async () => {
  expect(ok()).toSatisfyAgentContract({ kind: 'problem' });
  await new Promise((resolve) => setTimeout(resolve, 100));
});
it('negated, not awaited, on the expect of the test context', ({ expect }) => {
  expect(ok()).not.toBeAgentError();
});
it('failing, awaited', async () => {
  await expect(ok()).toBeAgentError();
});
it('passing, awaited', async () => {
  await expect(busy()).toBeAgentError('rate_limited');
  await expect(busy()).not.toBeAgentError('internal');
});
it('passing, its promise returned', () => expect(busy()).toSatisfyAgentContract().then(() => undefined));
it('passing, in Promise.all', async () => {
  await Promise.all([expect(busy()).toBeAgentError(), expect(busy()).toSatisfyAgentContract()]);
});
it('passing, behind .resolves', async () => {
  await expect(Promise.resolve(busy())).resolves.toSatisfyAgentContract();
});
it('failing, awaited, after one not awaited', async () => {
  const first = expect(busy()).toBeAgentError();
  await expect(ok()).toBeAgentError();
  await first;
});
`;
  let run: Run;
  beforeAll(async () => {
    run = await runVitest({ 'matchers.test.ts': CASES });
  }, 60_000);

  const outcome = (name: string): Outcome => {
    const found = run.tests.get(name);
    expect(found, `${name}\n${run.output}`).toBeDefined();
    return found!;
  };
  const line = (marker: string): number => CASES.split('\n').findIndex((l) => l.includes(marker)) + 1;

  it('fails the test that made it, saying to add await, and points at the line', () => {
    const { status, failure } = outcome('passing, not awaited');
    expect(status).toBe('failed');
    expect(failure).toMatch(
      /^Error: expect\(response\)\.toSatisfyAgentContract\(\) was not awaited: on a Fetch Response the matcher reads the body, so it returns a promise, and a promise nobody awaits checks nothing\. Add await:\n\n {2}await expect\(response\)\.toSatisfyAgentContract\(\)\n/,
    );
    // It would have passed: there is no failure to show.
    expect(failure).not.toMatch(/Awaited, it fails/);
    expect(failure).toMatch(new RegExp(`^ +at .*matchers\\.test\\.ts:${line('LINE passing')}:\\d+`, 'm'));
  });

  it('shows the failure it would have reported, awaited', () => {
    const failing = outcome('failing, not awaited');
    expect(failing.status).toBe('failed');
    expect(failing.failure).toMatch(/toBeAgentError\("rate_limited"\) was not awaited[\s\S]*Add await:\n\n {2}await expect\(response\)\.toBeAgentError\("rate_limited"\)\n\nAwaited, it fails:\n\nexpect\(response\)\.toBeAgentError\("rate_limited"\)\n\nExpected an agent error with code "rate_limited", but:/);
    const goingOn = outcome('failing, not awaited, the test going on');
    expect(goingOn.status).toBe('failed');
    expect(goingOn.failure).toMatch(/toSatisfyAgentContract\(\{"kind":"problem"\}\) was not awaited[\s\S]*Awaited, it fails:[\s\S]*kind: expected a problem, received neither/);
    const negated = outcome('negated, not awaited, on the expect of the test context');
    expect(negated.status).toBe('failed');
    expect(negated.failure).toMatch(/^Error: expect\(response\)\.not\.toBeAgentError\(\) was not awaited/);
  });

  it('leaves no unhandled rejection behind, even when the verdict comes while the test goes on', () => {
    expect(run.output).not.toMatch(/Unhandled/i);
    expect(run.files.get('matchers.test.ts')?.message).toBe('');
  });

  it('fails an awaited failing matcher as before, and passes an awaited passing one', () => {
    const failing = outcome('failing, awaited');
    expect(failing.status).toBe('failed');
    expect(failing.failure).toMatch(/^Error: expect\(response\)\.toBeAgentError\(\)\n\nExpected an agent error, but:\n {2}- status: expected an error status \(4xx or 5xx\), received 200/);
    expect(failing.failure).not.toMatch(/was not awaited/);
    expect(outcome('failing, awaited, after one not awaited').failure).toMatch(/^Error: expect\(response\)\.toBeAgentError\(\)\n\nExpected an agent error/);
    for (const name of ['passing, awaited', 'passing, its promise returned', 'passing, in Promise.all', 'passing, behind .resolves']) {
      expect({ name, ...outcome(name) }).toEqual({ name, status: 'passed', failure: '' });
    }
    expect(run.tests.size).toBe(10);
  });
});

describe("the suite's warning check (test/setup/warnings.ts)", () => {
  const SETUP = join(ROOT, 'test', 'setup', 'warnings.ts');
  const CONFIG = `export default { test: { setupFiles: [${JSON.stringify(SETUP)}] } };\n`;
  const CASES = `import { execFileSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const child = fileURLToPath(new URL('./child.mjs', import.meta.url));

it('quiet', () => {
  expect(1).toBe(1);
});
it('a deprecation', () => {
  process.emitWarning('the old way is deprecated', 'DeprecationWarning', 'DEP_TEST');
});
it('a listener leak', () => {
  const emitter = new EventEmitter();
  for (let i = 0; i < 11; i++) emitter.on('data', () => undefined);
});
it('a child process that warns', () => {
  execFileSync(process.execPath, [child], { stdio: 'ignore' });
});
it('quiet after them', () => {
  expect(1).toBe(1);
});
`;
  const CHILD = "process.emitWarning('the child is deprecated', 'DeprecationWarning', 'DEP_CHILD');\n";
  const AT_IMPORT = `import { it } from 'vitest';
process.emitWarning('warned at import', 'DeprecationWarning', 'DEP_IMPORT');
it('quiet, in a file that warned at import', () => undefined);
`;
  let run: Run;
  beforeAll(async () => {
    run = await runVitest({ 'warnings.test.ts': CASES, 'child.mjs': CHILD, 'import.test.ts': AT_IMPORT }, CONFIG);
  }, 60_000);

  const outcome = (name: string): Outcome => {
    const found = run.tests.get(name);
    expect(found, `${name}\n${run.output}`).toBeDefined();
    return found!;
  };

  it('is a setup file of both vitest configs', () => {
    expect(defaultConfig.test?.setupFiles).toContain('test/setup/warnings.ts');
    expect(slowConfig.test?.setupFiles).toContain('test/setup/warnings.ts');
  });

  it('fails a test during which Node warns, naming the warning and where it came from', () => {
    const deprecation = outcome('a deprecation');
    expect(deprecation.status).toBe('failed');
    expect(deprecation.failure).toMatch(/^Error: Node warned during this test \(test\/setup\/warnings\.ts fails a test on any warning, so that a new one is seen; fix its cause\):\n\nDeprecationWarning \[DEP_TEST\]: the old way is deprecated\n {4}at .*warnings\.test\.ts:\d+:\d+/);
    const leak = outcome('a listener leak');
    expect(leak.status).toBe('failed');
    expect(leak.failure).toMatch(/Node warned during this test[\s\S]*MaxListenersExceededWarning: Possible EventEmitter memory leak detected\. 11 data listeners added to \[EventEmitter\]/);
  });

  it("fails a test whose Node child process warns, naming the child's command", () => {
    const { status, failure } = outcome('a child process that warns');
    expect(status).toBe('failed');
    expect(failure).toMatch(/Node warned during this test[\s\S]*DeprecationWarning \[DEP_CHILD\]: the child is deprecated\n {4}in the child process \d+: node \S*child\.mjs/);
  });

  it('fails the file, not its first test, for a warning at import', () => {
    expect(outcome('quiet, in a file that warned at import').status).toBe('passed');
    expect(run.files.get('import.test.ts')).toEqual({
      status: 'failed',
      message: expect.stringMatching(/Node warned in this file, outside its tests \(at import, or in a beforeAll or afterAll hook\)[\s\S]*DeprecationWarning \[DEP_IMPORT\]: warned at import/),
    });
  });

  it('passes the quiet tests, before and after the ones that warned', () => {
    expect(outcome('quiet')).toEqual({ status: 'passed', failure: '' });
    expect(outcome('quiet after them')).toEqual({ status: 'passed', failure: '' });
  });
});

// A team's own format: the matcher judges the body at the format's places, with the app's status.
describe("toSatisfyAgentContract in the team's format", () => {
  const format = { code: '/code', message: '/message', retry: '/next_step', field: '/param', delay: '/retry_after_seconds' };
  const team = (status: number, body: unknown, headers: Record<string, string> = {}) => ({ status, headers: { ...JSON_TYPE, ...headers }, body });

  it('passes a body that keeps what an agent acts on where the format says, with any error status', () => {
    expect(team(423, { message: 'Order is locked', code: 'ORDER_LOCKED', next_step: 'refetch' })).toSatisfyAgentContract({ format });
    expect(team(423, { message: 'Order is locked', code: 'ORDER_LOCKED' })).toSatisfyAgentContract({ format, retryByCode: { ORDER_LOCKED: 'refetch' } });
    expect(team(429, { message: 'Slow down', code: 'rate_limited', retry_after_seconds: 7 }, { 'retry-after': '7' })).toSatisfyAgentContract({ format, code: 'rate_limited' });
  });

  it('fails a body that lacks a part, a word, or a wait without its delay in both places, saying which', () => {
    const fails = (response: unknown, options: object, text: RegExp) => expect(() => expect(response).toSatisfyAgentContract({ format, ...options })).toThrow(text);
    fails(team(423, { message: 'Order is locked', code: 'ORDER_LOCKED' }), {}, /retry: no retry word at \/next_step, and the code "ORDER_LOCKED" is neither the catalog's nor in retryByCode/);
    fails(team(423, { code: 'ORDER_LOCKED', next_step: 'refetch' }), {}, /message: nothing at \/message/);
    fails(team(423, { message: 'x', code: 'ORDER_LOCKED', next_step: 'later' }), {}, /retry: "later" at \/next_step is not a retry word/);
    fails(team(429, { message: 'Slow down', code: 'rate_limited' }), {}, /delay: the word after_delay needs its delay at \/retry_after_seconds/);
    fails(team(429, { message: 'Slow down', code: 'rate_limited', retry_after_seconds: 7 }, { 'retry-after': '9' }), {}, /Retry-After: the header asks for 9 s, but \/retry_after_seconds is 7/);
    fails(team(200, { message: 'ok', code: 'x_y', next_step: 'no' }), {}, /status: expected an error status/);
    // And the negation holds where the body keeps the contract.
    expect(team(423, { message: 'Order is locked', code: 'ORDER_LOCKED', next_step: 'refetch' })).not.toSatisfyAgentContract({ format, code: 'order_locked' });
  });
});
