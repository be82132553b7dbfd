import fc from 'fast-check';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { CODES, RETRY_WORDS, validateEnvelope, validateProblem } from '../../src/index.js';
import { AgentError, agentError, isAgentError, siteError } from '../../src/site/agent-error.js';
import { pageOf } from '../../src/site/friendly.js';

describe('agentError at compile time', () => {
  it('refuses what an agent could not act on', () => {
    // @ts-expect-error a fix_input code must name its field
    expect(() => agentError('missing_field')).toThrow(TypeError);
    // @ts-expect-error an after_delay code must say how long to wait
    expect(() => agentError('rate_limited', {})).toThrow(TypeError);
    // @ts-expect-error an unknown code needs siteError
    expect(() => agentError('coupon_expired')).toThrow(TypeError);
    // @ts-expect-error a catalog code is not a site code
    expect(() => siteError('not_found', { status: 404, retry: 'no' })).toThrow(TypeError);
    expectTypeOf(agentError('not_found').code).toEqualTypeOf<'not_found'>();
  });
});

describe('agentError at run time', () => {
  const refusals: [string, () => unknown, RegExp][] = [
    ['a fix without a field', () => (agentError as (c: string, o?: object) => unknown)('invalid_input'), /agentError\("invalid_input"\): a fix_input error must name the field/],
    ['a wait without a delay', () => (agentError as (c: string, o?: object) => unknown)('temporarily_unavailable', {}), /must say how long to wait/],
    ['a fractional delay', () => agentError('rate_limited', { retryAfter: 1.5 }), /whole, non-negative number of seconds/],
    ['a negative delay', () => agentError('rate_limited', { retryAfter: -1 }), /whole, non-negative/],
    ['a delay as a string', () => agentError('rate_limited', { retryAfter: '30' as unknown as number }), /whole, non-negative/],
    ['a delay on a code that does not wait', () => agentError('not_found', { retryAfter: 5 } as never), /does not wait/],
    ['an empty field', () => agentError('missing_field', { field: ' ' }), /field must be a non-empty string/],
    ['a code that is not snake case', () => siteError('Coupon-Expired', { status: 409, retry: 'refetch' }), /lowercase snake case/],
    ['a site code with a success status', () => siteError('coupon_expired', { status: 200, retry: 'refetch' }), /400 to 599/],
    ['a site code with an unknown retry word', () => siteError('coupon_expired', { status: 409, retry: 'later' as never }), /retry must be one of/],
    ['a catalog code given its own status', () => new AgentError('not_found', { status: 410 }), /takes its status and retry word from the catalog/],
    // Found by npm run fuzz: each of these built an error whose body failed its own validator.
    ['an empty title', () => siteError('shop_closed', { status: 503, retry: 'once', title: '' }), /title must be a non-empty string/],
    ['a detail that is not a string', () => agentError('not_found', { detail: 42 as never }), /detail must be a string/],
    ['an instance that is not a string', () => agentError('not_found', { instance: 42 as never }), /instance must be a string/],
    ['errors that are not an array', () => agentError('not_found', { errors: 'abc' as never }), /errors must be an array/],
    ['a field error without its members', () => agentError('not_found', { errors: [{}] as never }), /agentError\("not_found"\): errors\[0\] must be \{ field, code, message \}/],
    ['a delay past the safe integers, which Retry-After would write as 1e+21', () => agentError('rate_limited', { retryAfter: 1e21 }), /whole, non-negative number of seconds/],
  ];
  it.each(refusals)('refuses %s with a TypeError naming the code and the rule', (_name, build, message) => {
    expect(build).toThrow(TypeError);
    expect(build).toThrow(message);
  });

  // The whole message: the builder the user called, the value's name, what it takes, and the value, quoted.
  const messages: [() => unknown, string][] = [
    [() => (agentError as (c: string) => unknown)('no_such_code'), `agentError("no_such_code"): the catalog has no such code; a site's own code is built with siteError(code, { status, retry })`],
    [() => agentError('rate_limited', { retryAfter: '30' as never }), 'agentError("rate_limited"): retryAfter must be a whole, non-negative number of seconds, as Retry-After is (got "30")'],
    [() => agentError('rate_limited', { retryAfter: 1.5 }), 'agentError("rate_limited"): retryAfter must be a whole, non-negative number of seconds, as Retry-After is (got 1.5)'],
    [() => agentError('missing_field', { field: 42 as never }), 'agentError("missing_field"): field must be a non-empty string (got 42)'],
    [() => siteError('coupon_expired', { status: 200, retry: 'refetch' }), 'siteError("coupon_expired"): status must be an HTTP error status, 400 to 599 (got 200)'],
    [() => siteError('coupon_expired', { status: '409' as never, retry: 'refetch' }), 'siteError("coupon_expired"): status must be an HTTP error status, 400 to 599 (got "409")'],
    [() => siteError('coupon_expired', { status: 409, retry: 'later' as never }), `siteError("coupon_expired"): retry must be one of ${Object.keys(RETRY_WORDS).join(', ')} (got "later")`],
    [() => siteError('coupon_expired', { status: 409, retry: 'refetch', message: ' ' }), 'siteError("coupon_expired"): message must be a non-empty string (got " ")'],
    [() => siteError('not_found' as never, { status: 404, retry: 'no' }), 'siteError("not_found"): the catalog has this code; use agentError'],
  ];
  it.each(messages)('says what the builder the user called refused, quoting the value: %#', (build, message) => {
    expect(build).toThrow(TypeError);
    expect(build).toThrow(new TypeError(message));
  });

  it('renders only the members a field error has, and a delay of -0 as 0', () => {
    const extra = { field: 'email', code: 'too_long', message: 'Too long', path: ['email'] };
    const e = agentError('invalid_input', { field: 'email', errors: [extra] });
    expect(e.toEnvelope().error.errors).toEqual([{ field: 'email', code: 'too_long', message: 'Too long' }]);
    expect(validateEnvelope(e.toEnvelope()).errors).toEqual([]);
    expect(Object.is(agentError('rate_limited', { retryAfter: Math.ceil(-0.5) }).retryAfter, 0)).toBe(true);
  });

  it('fills status and retry word from the catalog, and a once code its default delay', () => {
    const e = agentError('internal');
    expect(e).toMatchObject({ status: CODES.internal.status, retry: CODES.internal.retry, retryAfter: (RETRY_WORDS.once as { default_retry_after: number }).default_retry_after });
    expect(e.message).toBe(CODES.internal.title);
  });

  it('renders both bodies valid for every catalog code, with one delay in body and header', () => {
    for (const code of Object.keys(CODES) as (keyof typeof CODES)[]) {
      const e = new AgentError(code, { field: 'f', retryAfter: RETRY_WORDS[CODES[code].retry].next_step === 'wait' ? 30 : undefined });
      expect(validateEnvelope(e.toEnvelope()).errors, code).toEqual([]);
      const problem = e.toProblem({ base: 'https://shop.example' });
      expect(validateProblem(problem).errors, code).toEqual([]);
      expect(problem.type).toBe(`https://shop.example/problems/${code}`);
      expect(e.headers().hasOwnProperty('retry-after') ? Number(e.headers()['retry-after']) : null).toBe(e.toEnvelope().error.retry_after);
    }
  });

  it('keeps the cause for the site and never renders it', async () => {
    const e = agentError('internal', { cause: new Error('db password hunter2') });
    expect((e.cause as Error).message).toBe('db password hunter2');
    const text = await e.toResponse(new Request('https://a.example/', { headers: { accept: 'application/problem+json' } })).text();
    expect(text).not.toContain('hunter2');
    expect(JSON.stringify(e.toEnvelope())).not.toContain('hunter2');
  });

  it('negotiates: problem details for a caller that prefers them, Markdown for one that ranks it first, the envelope otherwise', async () => {
    const e = agentError('rate_limited', { retryAfter: 30 });
    const asked = (accept: string) => e.toResponse(new Request('https://a.example/x', { headers: { accept } }));
    expect((await asked('application/problem+json')).headers.get('content-type')).toBe('application/problem+json');
    expect((await asked('application/json, application/problem+json;q=0.5')).headers.get('content-type')).toMatch(/^application\/json/);
    expect((await asked('text/markdown')).headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect((await asked('application/json, text/markdown')).headers.get('content-type')).toMatch(/^application\/json/);
    const res = await asked('*/*');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('30');
    expect(res.headers.get('vary')).toBe('Accept');
  });

  it('cannot split a header with CR/LF in a message or field', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (message, field) => {
        try {
          const e = agentError('missing_field', { message: `a\r\nSet-Cookie: x=${message}`, field: `f\r\n${field}` });
          const response = e.toResponse();
          for (const [, value] of response.headers) expect(value).not.toMatch(/[\r\n]/);
        } catch (error) {
          expect(error).toBeInstanceOf(TypeError);
        }
      }),
    );
  });

  it("renders a browser's page: escaped, the code's advice, a link to its page under the docs prefix, never a stack; getResponse sends it", async () => {
    const e = agentError('rate_limited', { retryAfter: 30, message: '<script>alert("x")</script> & more' });
    const res = e.getResponse();
    expect([res.status, res.headers.get('retry-after'), res.headers.get('vary'), res.headers.get('content-type')]).toEqual([429, '30', 'Accept', 'text/html; charset=utf-8']);
    const html = await res.text();
    expect(html).toContain(`<title>${CODES.rate_limited.title}</title>`);
    expect(html).toContain('&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; more');
    expect(html).not.toContain('<script>');
    expect(html).toContain(CODES.rate_limited.advice);
    expect(html).toContain('href="/problems/rate_limited"');
    expect(html).not.toMatch(/\n\s*at |\.ts:\d/);
    expect(await pageOf(e, { base: 'https://shop.example/api/' }).body).toContain('href="/api/problems/rate_limited"');
    expect(await pageOf(e, { docs: false }).body).not.toContain('href');
    // A site's own code has no documentation page: its word's advice, and no link.
    const own = await siteError('coupon_expired', { status: 409, retry: 'refetch', title: 'Coupon <expired>' }).toPage().body;
    expect(own).toContain('<title>Coupon &#60;expired&#62;</title>');
    expect(own).toContain(RETRY_WORDS.refetch.advice);
    expect(own).not.toContain('href');
    expect(await agentError('missing_field', { field: 'a"b' }).toPage().body).toContain('<code>a&#34;b</code>');
  });

  it('is recognised by shape and brand across copies of the package, and only then', () => {
    const e = agentError('not_found');
    expect(isAgentError(e)).toBe(true);
    expect(isAgentError(Object.assign(Object.create(null), { name: 'AgentError', code: 'x', status: 404, toEnvelope: () => ({}) }))).toBe(false);
    expect(isAgentError(new Error('AgentError'))).toBe(false);
    const copy = Object.assign(Object.create(Error.prototype), { name: 'AgentError', code: 'x', status: 404, toEnvelope: () => ({}) });
    Object.defineProperty(copy, Symbol.for('@agent-index/errors.AgentError'), { value: true });
    expect(isAgentError(copy)).toBe(true);
  });
});
