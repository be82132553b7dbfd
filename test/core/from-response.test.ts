import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CODES, READERS, validateEnvelope } from '../../src/index.js';
import { explainResponse, fromResponse, MAX_BODY_BYTES } from '../../src/core/from-response.js';
import { retryAfterSeconds } from '../../src/core/delay.js';

const STACKS = [
  'Error: boom\n    at Object.<anonymous> (/home/deploy/app/server.js:12:9)\n    at Module._compile (node:internal/modules/cjs/loader:1364:14)',
  'Traceback (most recent call last):\n  File "/srv/app/views.py", line 41, in checkout\n    total = price / qty\nZeroDivisionError: division by zero',
  'java.lang.NullPointerException\n\tat com.example.shop.CartController.add(CartController.java:57)\n\tat org.springframework.web.servlet.FrameworkServlet.service(FrameworkServlet.java:897)',
  "NoMethodError (undefined method `name' for nil:NilClass):\n  app/controllers/orders_controller.rb:14:in `show'",
];
const LEAKS = ['/home/deploy', 'server.js:12', 'Traceback', 'views.py', 'CartController.java', 'org.springframework', 'orders_controller.rb', 'node:internal'];

/** The message fromResponse gives, after checking that the envelope is valid. */
function read(status: number, headers: Record<string, string> | null, body: unknown) {
  const envelope = fromResponse(status, headers, body, { now: Date.UTC(2026, 10, 30) });
  expect(validateEnvelope(envelope, { received: true }).errors).toEqual([]);
  return envelope.error;
}

describe('fromResponse on structured bodies', () => {
  it('fills a missing retry word of an envelope from the catalog', () => {
    expect(read(409, null, { error: { code: 'out_of_stock', message: 'Sold out', field: 'product_id', retry_after: null } })).toEqual({
      code: 'out_of_stock', message: 'Sold out', field: 'product_id', retry: CODES.out_of_stock.retry, retry_after: null,
    });
  });

  it("keeps a known code's catalog retry word even when the body says another", () => {
    expect(read(404, null, { error: { code: 'not_found', message: 'x', field: null, retry: 'after_delay', retry_after: 5 } }).retry).toBe(CODES.not_found.retry);
  });

  it("passes a site's own code through, with the retry word its body gave, else its retryByCode's, else its status's", () => {
    expect(read(409, null, { error: { code: 'coupon_expired', message: 'x', field: null, retry: 'refetch', retry_after: null } })).toMatchObject({ code: 'coupon_expired', retry: 'refetch' });
    expect(read(409, null, { error: { code: 'coupon_expired', message: 'x', field: null } })).toMatchObject({ code: 'coupon_expired', retry: CODES.conflict.retry });
    expect(read(410, null, { error: { code: 'coupon_expired', message: 'x', field: null } })).toMatchObject({ code: 'coupon_expired', retry: CODES.not_found.retry });
    expect(read(503, null, { code: 'ORDER_LOCKED', field: 'id' })).toMatchObject({ code: 'order_locked', retry: CODES.temporarily_unavailable.retry });
    const byCode = { ORDER_LOCKED: 'refetch', coupon_expired: 'ask_human' } as const;
    expect(fromResponse(423, null, { code: 'ORDER_LOCKED', message: 'Locked' }, { retryByCode: byCode }).error).toMatchObject({ code: 'order_locked', retry: 'refetch' });
    expect(fromResponse(410, null, { error: { code: 'coupon_expired', message: 'x', field: null } }, { retryByCode: byCode }).error.retry).toBe('ask_human');
    // The body's own word wins over the map, and a catalog code keeps the catalog's.
    expect(fromResponse(423, null, { code: 'ORDER_LOCKED', retry: 'no' }, { retryByCode: byCode }).error.retry).toBe('no');
    expect(fromResponse(404, null, { code: 'not_found' }, { retryByCode: { not_found: 'once' } }).error.retry).toBe(CODES.not_found.retry);
  });

  it('reads a problem by its code member, else by a catalog code in its type URI, else by status', () => {
    expect(read(429, { 'retry-after': '7' }, { type: 'https://a.example/problems/x', title: 'T', status: 429, code: 'rate_limited' })).toMatchObject({ code: 'rate_limited', retry_after: 7 });
    expect(read(409, null, { type: 'https://a.example/problems/conflict', title: 'T', status: 409 }).code).toBe('conflict');
    expect(read(403, null, { type: 'https://example.com/probs/out-of-credit', title: 'You do not have enough credit.', status: 403 }).code).toBe('not_allowed');
  });

  it('ignores problem members of the wrong JSON type (RFC 9457 section 3.1)', () => {
    expect(read(400, null, { type: 'about:blank', title: 42, status: '400', detail: 'bad', param: ['x'], code: 7 })).toMatchObject({ code: 'invalid_input', field: null, message: 'bad' });
  });

  it("gives a site's own problem code the word for its next_step", () => {
    expect(read(503, null, { type: 'about:blank', title: 'Closed', status: 503, code: 'shop_closed', next_step: 'wait', retry_after_seconds: 60 })).toMatchObject({
      code: 'shop_closed', retry: READERS.next_step.wait, retry_after: 60,
    });
  });

  it('reads google.rpc.Status: the status enum, the BadRequest field and the RetryInfo delay', () => {
    const body = { error: { code: 400, message: 'Invalid currency', status: 'INVALID_ARGUMENT', details: [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: 'currency', description: 'required' }] }] } };
    expect(read(400, null, body)).toMatchObject({ code: 'invalid_input', field: 'currency', message: 'Invalid currency' });
  });

  it('reads OpenAI insufficient_quota as a billing stop, not a rate limit', () => {
    expect(read(429, { 'retry-after': '20' }, { error: { message: 'You exceeded your current quota', type: 'insufficient_quota', param: null, code: 'insufficient_quota' } }).code).toBe(READERS.openai_code.insufficient_quota);
  });

  it('reads a Stripe decline and an OAuth error string', () => {
    expect(read(402, null, { error: { type: 'card_error', code: 'card_declined', decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.' } }).code).toBe('payment_declined');
    expect(read(400, null, { error: 'invalid_grant', error_description: 'Authorization code expired' })).toMatchObject({ code: 'invalid_input', message: 'Authorization code expired' });
  });

  it('reads a 403 with an exhausted GitHub rate limit as rate_limited, counting the reset from the Date header', () => {
    const date = 'Mon, 30 Nov 2026 12:00:00 GMT';
    const reset = String(Date.UTC(2026, 10, 30, 12, 0, 45) / 1000);
    expect(read(403, { date, 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset }, { message: 'API rate limit exceeded for 1.2.3.4.', documentation_url: 'https://docs.github.com/rest' })).toMatchObject({
      code: 'rate_limited', retry_after: 45,
    });
    expect(read(403, null, { message: 'Must have admin rights to Repository.', documentation_url: 'https://docs.github.com/rest' }).code).toBe('not_allowed');
  });
});

describe('fromResponse on pages', () => {
  it('takes the title, else the main heading, else the status phrase', () => {
    expect(read(502, null, '<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>').message).toBe('502 Bad Gateway');
    expect(read(404, null, '<html><head><title>Error</title></head><body><h1>No &amp; such &#8212; page</h1></body></html>').message).toBe('No & such — page');
    expect(read(404, null, '<html><head><title>Error</title></head><body><pre>Cannot GET /x</pre></body></html>').message).toBe('Not Found');
  });

  it('keeps a 5xx internal whatever its page says', () => {
    expect(read(500, null, '<title>Rate limit exceeded, try again in 30 seconds</title>')).toMatchObject({ code: 'internal', retry_after: null });
    expect(read(502, null, '<title>Sold out</title>').code).toBe('internal');
  });

  it('reads sold out only from the title or main heading of a 4xx page', () => {
    expect(read(410, null, '<title>Shop</title><h1>Sold out</h1>').code).toBe(READERS.signals.sold_out);
    expect(read(404, null, '<title>Page not found</title><h1>Not found</h1><div class="carousel"><span>Sold out</span></div>').code).toBe('not_found');
  });

  it('finds a challenge from vendor headers on any status, and from interstitial markers only on errors', () => {
    expect(read(403, { 'cf-mitigated': 'challenge' }, '<title>Just a moment...</title>').code).toBe(READERS.signals.challenge);
    expect(read(202, { 'x-amzn-waf-action': 'challenge' }, '').code).toBe(READERS.signals.challenge);
    const interstitial = '<title>Just a moment...</title><script>window._cf_chl_opt={};</script><script src="/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1"></script>';
    expect(read(503, null, interstitial).code).toBe(READERS.signals.challenge);
    expect(read(401, null, '<title>Sign in</title><div class="g-recaptcha" data-sitekey="x"></div>').code).toBe('auth_required');
    expect(read(404, { 'content-security-policy': "script-src https://www.google.com/recaptcha/ https://challenges.cloudflare.com" }, '<title>Not here</title>').code).toBe('not_found');
    expect(read(404, { server: 'cloudflare' }, '<title>Missing</title><script src="/cdn-cgi/challenge-platform/scripts/jsd/main.js"></script>').code).toBe('not_found');
  });

  it.each(STACKS)('never puts a stack trace in the message: %#', (stack) => {
    const pages = [
      `<html><head><title>Error</title></head><body><pre>${stack}</pre></body></html>`,
      `<html><head><title>${stack}</title></head></html>`,
      `<h1>${stack}</h1>`,
      stack,
      { message: stack },
      { error: { code: 'internal', message: stack, field: null } },
      { type: 'about:blank', title: stack, status: 500 },
    ];
    for (const body of pages) {
      const { message } = read(500, { 'content-type': 'text/plain' }, body);
      for (const leak of LEAKS) expect(message).not.toContain(leak);
    }
  });

  // Each found by npm run fuzz (fuzz/): the secret sits where a stack's message line or frames do.
  const hidden: [string, unknown][] = [
    ['an exception message long enough to push the frames past the first 4000 characters', { message: `Error: hunter2 ${'x '.repeat(2500)}\n    at Object.<anonymous> (/home/deploy/app/server.js:12:9)` }],
    ['the first line of a plain-text stack', 'TypeError: hunter2\n    at handler (/srv/app/index.js:3:7)'],
    ['a plain-text stack whose frames are all node:internal', 'Error: hunter2\n    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)'],
    ['a title holding a stack of file:// ES module frames', '<title>TypeError: hunter2\n    at handler (file:///Users/dev/shop/x.mjs:3:7)</title>'],
    ['a title whose frames come after its first 200 characters', `<title>Error: hunter2 ${'y '.repeat(150)}\n    at f (/home/deploy/app/x.js:1:1)</title>`],
    ['an unclosed title whose frames come after its first 800 characters', `<title>Error: hunter2 ${'y '.repeat(500)}\n    at f (/home/deploy/app/x.js:1:1)`],
    ['a Django debug page whose exception is not named ...Error', 'DoesNotExist at /orders/42/\nOrder hunter2 does not exist\n\nTraceback (most recent call last):\n  File "/srv/shop/orders/views.py", line 27'],
    ['JSON cut short, which is no sentence', '{"error": "Server Error", "stack": "Error: hunter2'],
    ['JSON cut short with a tag in a string, which is no page', '{"error": "<title>", "message": "Error: hunter2'],
  ];
  it.each(hidden)('never shows part of a dump: %s', (_name, body) => {
    expect(read(500, null, body).message).toBe('Internal Server Error');
  });

  it('keeps a title with a time in parentheses, which is no frame location', () => {
    expect(read(503, null, '<title>Back at (10:30:00)</title>').message).toBe('Back at (10:30:00)');
  });

  it('reads at most a fixed prefix of a 10 MB page', () => {
    const huge = `<title>Too big</title>${'x'.repeat(10 * 1024 * 1024)}`;
    expect(read(413, null, huge)).toMatchObject({ code: 'invalid_input', message: 'Too big' });
    expect(read(503, null, new TextEncoder().encode(`${' '.repeat(MAX_BODY_BYTES)}<title>Beyond the prefix</title>`)).message).toBe('Service Unavailable');
  });
});

describe('fromResponse on anything at all', () => {
  it('does not throw on odd statuses, binary, truncated, deep or hostile bodies', () => {
    const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    const deepObject = `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`;
    const hostile = { get error() { throw new Error('getter'); } };
    for (const [status, body] of [
      [0, null], [999, 'x'], [-1, undefined], [Number.NaN, ''], [500, new Uint8Array([0xff, 0xfe, 0, 1])], [500, new ArrayBuffer(8)],
      [500, '{"error": {"code": "x"'], [500, deep], [400, deepObject], [400, hostile], [400, [1, 2]], [400, 42], [400, true],
      [400, '{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}, "error": "bad"}'],
    ] as [number, unknown][]) {
      expect(() => read(status, null, body)).not.toThrow();
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('never throws, always validates, and never leaks a planted stack frame (10,000 runs)', () => {
    const frame = fc.constantFrom(...STACKS);
    const text = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), frame, fc.constantFrom('<title>', '</h1>', '&#x0;', '&amp;', '\r\n'));
    const html = fc.array(text, { maxLength: 8 }).map((parts) => parts.join(''));
    const jsonBody = fc.oneof(
      fc.jsonValue(),
      fc.record({ error: fc.record({ code: fc.oneof(fc.string(), fc.constantFrom('rate_limited', 'invalid_input', 'site_code')), message: text, field: fc.option(text), retry: fc.string(), retry_after: fc.jsonValue() }, { requiredKeys: [] }) }),
      fc.record({ type: text, title: text, status: fc.jsonValue(), code: fc.string(), next_step: fc.constantFrom('wait', 'give_up', 'fix_request', 'x'), retry_after_seconds: fc.jsonValue(), param: fc.jsonValue() }, { requiredKeys: [] }),
      fc.record({ error: fc.record({ code: fc.integer(), status: fc.string(), message: text, details: fc.array(fc.jsonValue()) }, { requiredKeys: [] }) }),
      fc.record({ message: text, documentation_url: fc.string(), errors: fc.array(fc.jsonValue()) }, { requiredKeys: [] }),
    );
    const body = fc.oneof(html, jsonBody, jsonBody.map((v) => JSON.stringify(v)), fc.uint8Array({ maxLength: 64 }), fc.constant(null));
    const headers = fc.dictionary(
      fc.constantFrom('retry-after', 'date', 'x-ratelimit-reset', 'x-ratelimit-remaining', 'ratelimit', 'cf-mitigated', 'content-type', 'retry-after-ms', 'x-ratelimit-reset-requests'),
      fc.oneof(fc.string(), fc.integer().map(String), fc.constantFrom('0', 'challenge', 'Sun, 06 Nov 1994 08:49:37 GMT', '"default";r=0;t=30')),
    );
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: 400, max: 599 }), fc.integer()), headers, body, (status, h, b) => {
        const error = read(status, h, b);
        for (const leak of LEAKS) expect(error.message).not.toContain(leak);
        expect(error.message.length).toBeLessThanOrEqual(200);
      }),
      { numRuns: 10_000 },
    );
  });
});

describe("a vendor's catch-all type", () => {
  it.each([
    [503, 'temporarily_unavailable'],
    [500, 'internal'],
  ])("reads Stripe's api_error with a %i by its status", (status, code) => {
    const body = { error: { type: 'api_error', message: 'Something went wrong on our end.' } };
    expect(fromResponse(status, { 'content-type': 'application/json' }, JSON.stringify(body)).error.code).toBe(code);
  });
});

describe('explainResponse', () => {
  it('names a malformed Retry-After as malformed, quoted, and a well-formed one not', () => {
    const because = (value: string) => explainResponse(503, { 'retry-after': value }, '').because;
    expect(because('soon')).toContain('Retry-After "soon" is malformed (neither a number of seconds nor an HTTP date), so it was ignored');
    expect(because('1e3').some((line) => line.includes('malformed'))).toBe(true);
    for (const fine of ['30', '2.0', 'Wed, 21 Oct 2015 07:28:00 GMT']) expect(because(fine).some((line) => line.includes('malformed'))).toBe(false);
    // No Retry-After at all, in each shape headers come in: a Headers-like whose absent name reads undefined (axios's AxiosHeaders), not null, included.
    const axiosLike = { get: (_name: string) => undefined, has: () => false, forEach() {}, [Symbol.iterator]: function* () {} };
    for (const headers of [{}, { 'x-other': '1' }, new Headers(), [] as [string, string][], axiosLike as never]) expect(explainResponse(503, headers, '').because.some((line) => line.includes('malformed'))).toBe(false);
  });

  it('says so for every value retryAfterSeconds refuses, and only those', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (value) => {
        fc.pre(!/[\r\n\0]/.test(value) && value.trim() === value && value !== '');
        const said = explainResponse(503, { 'retry-after': value }, '').because.some((line) => line.includes('malformed'));
        expect(said).toBe(retryAfterSeconds(value, Date.now()) === null);
      }),
    );
  });
});

// Seed 002: "Do not invent a format when your API already has one that clients parse. Add the four
// fields to the format you have." A site's own JSON with the fields beside its own members.
describe("fromResponse on seed 002's four fields in a site's own format", () => {
  it('reads them at the top of the body: the code as the envelope spells codes, param or field, next_step or retry, and the delay', () => {
    expect(read(422, null, { message: 'Bad sku', code: 'BAD_SKU', next_step: 'fix_request', param: 'sku' })).toEqual({
      code: 'bad_sku', message: 'Bad sku', field: 'sku', retry: READERS.next_step.fix_request, retry_after: null,
    });
    expect(read(423, null, { code: 'ORDER_LOCKED', next_step: 'give_up' })).toMatchObject({ code: 'order_locked', retry: READERS.next_step.give_up });
    expect(read(409, null, { code: 'ORDER_CHANGED', retry: 'refetch' })).toMatchObject({ code: 'order_changed', retry: 'refetch' });
    expect(read(400, null, { code: 'invalid_input', message: 'Quantity must be positive', field: 'quantity' })).toMatchObject({ code: 'invalid_input', field: 'quantity', retry: CODES.invalid_input.retry });
    expect(read(429, null, { code: 'SLOW_DOWN', message: 'Easy', next_step: 'wait', retry_after_seconds: 30 })).toMatchObject({ code: 'slow_down', retry: READERS.next_step.wait, retry_after: 30 });
    // The lint's top-level format, {code, message, field}: read the same way here.
    expect(read(400, null, { code: 'BAD_QUANTITY', message: 'Quantity must be positive', field: 'quantity' })).toMatchObject({ code: 'bad_quantity', field: 'quantity', message: 'Quantity must be positive' });
    // Without a code, a field and a word still say what to do, and the status names the code.
    expect(read(400, null, { message: 'Bad sku', param: 'sku', next_step: 'fix_request' })).toMatchObject({ code: 'invalid_input', field: 'sku', retry: 'fix_input' });
  });

  it('reads them inside an error member of the site\'s own, under seed 002\'s names too', () => {
    expect(read(423, null, { error: { code: 'ORDER_LOCKED', message: 'Order is locked', next_step: 'give_up' } })).toMatchObject({ code: 'order_locked', message: 'Order is locked', retry: READERS.next_step.give_up });
    expect(read(422, null, { error: { code: 'BAD_SKU', message: 'Bad sku', param: 'sku', next_step: 'fix_request' } })).toMatchObject({ code: 'bad_sku', field: 'sku', retry: 'fix_input' });
  });

  it('reads them in the first error of a list, and in its JSON:API meta, with the delay where each keeps it', () => {
    expect(read(423, null, { errors: [{ code: 'ORDER_LOCKED', message: 'Order is locked', retry: 'refetch' }] })).toMatchObject({ code: 'order_locked', message: 'Order is locked', retry: 'refetch' });
    expect(read(422, null, { errors: [{ code: 'BAD_SKU', message: 'Bad sku', field: 'sku', next_step: 'fix_request' }] })).toMatchObject({ code: 'bad_sku', field: 'sku', retry: 'fix_input' });
    expect(read(429, null, { errors: [{ status: '429', code: 'SLOW_DOWN', detail: 'Slow down', meta: { next_step: 'wait', retry_after: 12 } }] })).toMatchObject({ code: 'slow_down', message: 'Slow down', retry: 'after_delay', retry_after: 12 });
    expect(read(429, null, { errors: [{ code: 'SLOW_DOWN', message: 'Slow down', retry: 'after_delay', retry_after_seconds: 7 }] })).toMatchObject({ retry_after: 7 });
    expect(read(503, null, { error: { code: 'MAINTENANCE', message: 'Back soon', next_step: 'wait', retry_after_seconds: 60 } })).toMatchObject({ code: 'maintenance', retry: 'after_delay', retry_after: 60 });
    // A GraphQL error keeps its code in extensions: still GraphQL's to read.
    expect(read(200, null, { errors: [{ message: 'Throttled', extensions: { code: 'THROTTLED' } }] }).code).not.toBe('throttled');
  });

  it("reads a site's declared format (the lint config's format) first, at its own places, with its retryByCode", () => {
    const format = { code: '/fault/id', message: '/fault/text', field: '/fault/where', retry: '/fault/then', delay: '/fault/wait' } as const;
    const body = { fault: { id: 'ORDER_LOCKED', text: 'Order is locked', where: 'order', then: 'refetch', wait: 5 } };
    expect(fromResponse(423, null, body, { format }).error).toEqual({ code: 'order_locked', message: 'Order is locked', field: 'order', retry: 'refetch', retry_after: null });
    // A word that waits takes the delay at the format's place when no header gives one; a header wins.
    const wait = { fault: { id: 'SLOW_DOWN', text: 'Slow down', then: 'after_delay', wait: 9 } };
    expect(fromResponse(429, null, wait, { format }).error.retry_after).toBe(9);
    expect(fromResponse(429, { 'retry-after': '3' }, wait, { format }).error.retry_after).toBe(3);
    // Without the format, the same body is a 423 with nothing to go on but its status.
    expect(fromResponse(423, null, body).error.code).toBe('conflict');
    // The word from the map, by the code as the body spells it.
    expect(fromResponse(423, null, { fault: { id: 'ORDER_LOCKED' } }, { format, retryByCode: { ORDER_LOCKED: 'ask_human' } }).error.retry).toBe('ask_human');
    // A body the format finds nothing in is read as any other.
    expect(fromResponse(404, null, { error: { code: 'not_found', message: 'No such order', field: null, retry: 'no', retry_after: null } }, { format }).error.code).toBe('not_found');
    // A list's places read its first item.
    expect(fromResponse(422, null, { problems: [{ kind: 'BAD_SKU', at: 'sku' }] }, { format: { code: '/problems/*/kind', field: '/problems/*/at' } }).error).toMatchObject({ code: 'bad_sku', field: 'sku' });
  });

  it('refuses a format or a retryByCode it cannot use, by name', () => {
    expect(() => fromResponse(400, null, '', { format: { code: 'code' } })).toThrow(/fromResponse: format must be an error format, JSON pointers for any of code, retry, message, delay, field/);
    expect(() => fromResponse(400, null, '', { format: { kode: '/code' } as never })).toThrow(/format must be/);
    expect(() => fromResponse(400, null, '', { retryByCode: { ORDER_LOCKED: 'wait' } as never })).toThrow(/fromResponse: retryByCode must be a map of the site's own codes to retry words/);
  });

  it("takes no vendor's number for a code, nor a framework's internal code alone, nor a typed error's param for a site's field", () => {
    // Twilio's numeric code (https://www.twilio.com/docs/api/errors/21211): the status decides.
    expect(read(400, null, { code: 21211, message: "The 'To' number +1555 is not a valid phone number.", more_info: 'https://www.twilio.com/docs/errors/21211', status: 400 }).code).toBe('invalid_input');
    // Fastify's own error body: FST_ERR_VALIDATION says where it failed, the message what.
    const fastify = read(400, null, { statusCode: 400, code: 'FST_ERR_VALIDATION', error: 'Bad Request', message: "body must have required property 'name'" });
    expect(fastify.code).not.toBe('fst_err_validation');
    expect(Object.hasOwn(CODES, fastify.code)).toBe(true);
    // Stripe's error object keeps its own reading (the code table), its param the field.
    expect(read(400, null, { error: { type: 'invalid_request_error', code: 'parameter_missing', param: 'amount', message: 'Missing required param: amount.' } })).toMatchObject({ field: 'amount' });
  });

  it('reads any code, next step and field a site puts at the top of its body, valid as received', () => {
    const steps = Object.keys(READERS.next_step) as (keyof typeof READERS.next_step)[];
    fc.assert(
      fc.property(
        fc.integer({ min: 400, max: 599 }),
        fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,10}(?:_[A-Za-z0-9]{1,10}){0,3}$/),
        fc.constantFrom(...steps),
        fc.stringMatching(/^[a-z][a-z_.]{0,20}$/),
        fc.dictionary(fc.constantFrom('message', 'request_id', 'docs'), fc.string({ maxLength: 40 })),
        (status, code, step, param, extra) => {
          const error = read(status, null, { ...extra, code, next_step: step, param });
          const snake = code.toLowerCase();
          expect(error.code).toBe(snake);
          expect(error.field).toBe(param);
          expect(error.retry).toBe(Object.hasOwn(CODES, snake) ? CODES[snake as keyof typeof CODES].retry : READERS.next_step[step]);
        },
      ),
    );
  });
});
