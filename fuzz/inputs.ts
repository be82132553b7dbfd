// Adversarial input generators shared by the fuzz targets: pages with unterminated tags, 1 MB
// attributes, nested comments and long whitespace runs; JSON bodies in every dialect with stack
// traces (fuzz/stacks.ts) where messages and debug members go; response headers in every shape;
// 64 KB Accept values with thousands of q-values. Large inputs are one repeat of a short unit.
import fc from 'fast-check';
import { SECRET, stackTrace } from './stacks.js';

export { SECRET } from './stacks.js';

/**
 * Copies of one of `units`, weighted so that short runs are common and runs up to 64 KB appear;
 * with `huge`, 1 MB runs too. Header values stay under 64 KB: Node's HTTP clients refuse a header
 * section over 16 KiB, so no response brings more, where a body has no such cap.
 */
export function run(units: readonly string[], huge = true): fc.Arbitrary<string> {
  const count = fc.oneof(
    { arbitrary: fc.nat(64), weight: 30 },
    { arbitrary: fc.integer({ min: 65, max: 66_000 }), weight: 4 },
    { arbitrary: fc.integer({ min: 1_000_000, max: 1_100_000 }), weight: huge ? 1 : 0 },
  );
  return fc.tuple(fc.constantFrom(...units), count).map(([unit, n]) => unit.repeat(Math.ceil(n / unit.length)));
}

// ---------------------------------------------------------------------------------------------
// Pages

const TOKENS = [
  '<title>', '</title>', '<TITLE data-x=', '<title', '<title >', '<h1>', '</h1>', '<h1 class="', '</h1', '<H1>', '<titles>', '<h1x>',
  '<!--', '-->', '<!-- <!-- nested -->', '-- >', '<', '>', '</', '<script>', '</script>', '<pre>', '</pre>', '<br>', '<![CDATA[', ']]>',
  '&amp;', '&#0;', '&#xD800;', '&#x110000;', '&#1114111;', '&nbsp;', '&bogus;', '&#x', '\r\n', '\n', '\t', '\u0130', '\uFFFD', '\u0000', '\u2028',
  'Sold out', 'Out of Stock', 'Just a moment...', 'Error', '404', 'window._cf_chl_opt', '/cdn-cgi/challenge-platform/', 'px-captcha',
  'window._pxAppId', 'geo.captcha-delivery.com', 'datadome', 'sec-if-cpt-container', '_Incapsula_Resource',
];

/** One piece of a page. */
const pagePart = fc.oneof(
  { arbitrary: fc.constantFrom(...TOKENS), weight: 8 },
  { arbitrary: fc.string({ maxLength: 12 }), weight: 3 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 6 }), weight: 1 },
  { arbitrary: run([' ', '\t', '\n', '\r\n', '\u00a0', ' \n\t', 'a', 'ab', '<', '<!--', '<title>', '</title', '<h1', '&amp;', '&#x20;', '\u0130', '-', '<a ', '>']), weight: 4 },
  // An attribute of any length, up to 1 MB, closed or not.
  { arbitrary: fc.tuple(run(['a', 'x y', '"', '&quot;']), fc.boolean()).map(([value, closed]) => `<div data-x="${value}${closed ? '">' : ''}`), weight: 1 },
  { arbitrary: stackTrace, weight: 2 },
);

/** An HTML (or any text) page, biased to the shapes error pages take and to the ones that break readers. */
export const page: fc.Arbitrary<string> = fc.oneof(
  fc.array(pagePart, { maxLength: 10 }).map((parts) => parts.join('')),
  fc.tuple(stackTrace, fc.constantFrom('<title>%</title>', '<title>Error</title><pre>%</pre>', '<h1>%</h1>', '%', '  %\n', '<title>%')).map(([stack, shape]) => shape.replace('%', stack)),
);

// ---------------------------------------------------------------------------------------------
// JSON bodies

/** A string member of a JSON body: prose, a stack trace, long whitespace, or anything. */
const prose = fc.oneof(
  { arbitrary: fc.constantFrom('Too many requests', 'Sold out', 'Invalid currency', 'Not Found', 'No message available', 'error', 'Error', '  ', ''), weight: 4 },
  { arbitrary: fc.string({ maxLength: 20 }), weight: 3 },
  { arbitrary: stackTrace, weight: 3 },
  { arbitrary: run([' ', 'a', '\n', '<title>']), weight: 1 },
);
const code = fc.oneof(
  fc.constantFrom('rate_limited', 'invalid_input', 'not_found', 'internal', 'temporarily_unavailable', 'coupon_expired', 'Rate-Limited', 'card_declined', 'insufficient_quota', '__proto__', 'constructor', 'toString'),
  fc.string({ maxLength: 12 }),
  fc.integer(),
);
const retryWord = fc.oneof(fc.constantFrom('fix_input', 'no', 'refetch', 'get_grant', 'pay', 'ask_human', 'after_delay', 'once', 'hasOwnProperty'), fc.string({ maxLength: 8 }));
const delay = fc.oneof(fc.nat(100_000), fc.integer(), fc.double(), fc.constantFrom('30', '2.5s', '1e3', null, 2 ** 31, Number.MAX_SAFE_INTEGER), fc.record({ seconds: fc.oneof(fc.integer(), fc.string({ maxLength: 4 })), nanos: fc.integer() }, { requiredKeys: [] }));
/** Where servers put debug output: members that are never a message, each holding a stack or the secret. */
const debug = fc.record(
  {
    stack: stackTrace, trace: stackTrace, exception: stackTrace, backtrace: fc.array(stackTrace, { maxLength: 2 }),
    debug: fc.record({ sql: fc.constant(`SELECT * FROM users WHERE token = '${SECRET}'`), stack: stackTrace }),
    stackEntries: fc.array(stackTrace, { maxLength: 2 }),
  },
  { requiredKeys: [] },
);
const field = fc.oneof(fc.constantFrom('currency', 'email', ' ', ''), fc.string({ maxLength: 10 }), fc.constant(null), fc.integer());
const merge = <T extends object>(arb: fc.Arbitrary<T>) => fc.tuple(arb, debug).map(([body, extra]) => ({ ...extra, ...body }));

/** JSON bodies in every dialect fromResponse reads, with debug members beside them. */
export const jsonBody: fc.Arbitrary<unknown> = fc.oneof(
  merge(fc.record({ error: merge(fc.record({ code, message: prose, field, retry: retryWord, retry_after: delay }, { requiredKeys: [] })) })),
  merge(
    fc.record({
      error: fc.record(
        {
          code: fc.integer(), message: prose, status: fc.constantFrom('INVALID_ARGUMENT', 'RESOURCE_EXHAUSTED', 'UNAVAILABLE', 'nope'),
          details: fc.array(
            fc.oneof(
              fc.record({ '@type': fc.constant('type.googleapis.com/google.rpc.BadRequest'), fieldViolations: fc.array(fc.record({ field, description: prose }), { maxLength: 2 }) }),
              fc.record({ '@type': fc.constant('type.googleapis.com/google.rpc.RetryInfo'), retryDelay: delay }),
              fc.record({ '@type': fc.constant('type.googleapis.com/google.rpc.DebugInfo'), stackEntries: fc.array(stackTrace, { maxLength: 3 }), detail: stackTrace }),
            ),
            { maxLength: 3 },
          ),
        },
        { requiredKeys: [] },
      ),
    }),
  ),
  merge(fc.record({ error: merge(fc.record({ type: fc.constantFrom('invalid_request_error', 'card_error', 'insufficient_quota', 'x'), code, param: field, message: prose, decline_code: fc.string({ maxLength: 6 }) }, { requiredKeys: ['type'] })) })),
  merge(
    fc.record(
      {
        type: fc.oneof(fc.constantFrom('about:blank', 'https://a.example/problems/rate_limited', 'https://a.example/problems/__proto__', '#conflict'), fc.string({ maxLength: 10 })),
        title: prose, status: fc.oneof(fc.integer(), fc.string({ maxLength: 3 })), detail: prose, code, next_step: fc.constantFrom('wait', 'give_up', 'fix_request', 'x'), retry: retryWord,
        retry_after_seconds: delay, param: field, instance: prose, errors: fc.array(fc.record({ param: field, field, detail: prose, code }, { requiredKeys: [] }), { maxLength: 2 }),
      },
      { requiredKeys: [] },
    ),
  ),
  merge(fc.record({ message: prose, documentation_url: fc.constant('https://docs.github.com/rest'), errors: fc.array(fc.record({ resource: fc.string({ maxLength: 5 }), field, code }, { requiredKeys: [] }), { maxLength: 2 }) }, { requiredKeys: [] })),
  // Spring Boot ({timestamp, status, error, trace, message, path}), Rails, OAuth, FastAPI.
  merge(fc.record({ status: fc.integer(), error: prose, message: prose, error_description: prose, path: fc.constant('/orders/42') }, { requiredKeys: [] })),
  merge(fc.record({ detail: fc.oneof(prose, fc.array(fc.record({ loc: fc.array(fc.oneof(fc.string({ maxLength: 6 }), fc.integer()), { maxLength: 3 }), msg: prose }), { maxLength: 2 })) })),
  // Anything at all, with the keys that pollute prototypes when code assigns through them.
  fc.jsonValue({ maxDepth: 3 }),
  fc.dictionary(fc.constantFrom('__proto__', 'constructor', 'prototype', 'error', 'message', 'polluted'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
);

/** JSON text as servers send it, sometimes broken: truncated, nested 20,000 deep, prefixed with whitespace. */
export const jsonText: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: jsonBody.map((value) => JSON.stringify(value) ?? 'null'), weight: 6 },
  { arbitrary: fc.tuple(jsonBody, fc.nat()).map(([value, cut]) => { const text = JSON.stringify(value) ?? '{'; return text.slice(0, cut % (text.length + 1)); }), weight: 1 },
  { arbitrary: fc.tuple(fc.integer({ min: 1, max: 20_000 }), fc.constantFrom('[', '{"a":')).map(([depth, open]) => `{"error":${open.repeat(depth)}1${(open === '[' ? ']' : '}').repeat(depth)}}`), weight: 1 },
  { arbitrary: fc.tuple(run([' ', '\n', '\t']), jsonBody).map(([space, value]) => `${space}${JSON.stringify(value) ?? ''}`), weight: 1 },
  { arbitrary: fc.constantFrom('{"__proto__": {"polluted": true}, "error": "bad"}', '{"constructor": {"prototype": {"polluted": true}}, "message": "x"}'), weight: 1 },
);

// ---------------------------------------------------------------------------------------------
// Response headers

const HEADER_NAMES = [
  'retry-after', 'retry-after-ms', 'date', 'ratelimit', 'ratelimit-reset', 'x-ratelimit-reset', 'x-rate-limit-reset', 'x-ratelimit-remaining',
  'x-ratelimit-reset-requests', 'x-ratelimit-reset-tokens', 'x-ratelimit-remaining-requests', 'x-ratelimit-remaining-tokens', 'cf-mitigated',
  'x-amzn-waf-action', 'x-vercel-mitigated', 'x-datadome', 'content-type', 'Retry-After', '__proto__', 'constructor', 'bad name', 'x\r\ny',
];
const headerValue = fc.oneof(
  { arbitrary: fc.constantFrom('0', '30', '030', '-1', '1.5', '0x10', 'challenge', 'captcha', 'Sun, 06 Nov 1994 08:49:37 GMT', 'Sunday, 06-Nov-94 08:49:37 GMT', 'Sun Nov  6 08:49:37 1994', '"default";r=0;t=30', 'limit=100, remaining=0, reset=30', '6m0s', '1h2m3.5s', '1470173023.123', '\r\n', 'é', '\u0100'), weight: 6 },
  { arbitrary: fc.string({ maxLength: 16 }), weight: 3 },
  { arbitrary: fc.oneof(fc.integer(), fc.double(), fc.constant(null), fc.constant(undefined), fc.array(fc.oneof(fc.string({ maxLength: 6 }), fc.integer()), { maxLength: 3 })), weight: 2 },
  // 64 KB values: digits, whitespace, thousands of RateLimit policies, endless durations.
  { arbitrary: run(['9', ' ', '\t', '"p";r=0;t=1, ', '1h', 'a=1;b, ', 'Sun, '], false), weight: 1 },
);

/** Response headers in every shape a caller holds them: a record, entry pairs, a Headers object, nothing. */
export const responseHeaders: fc.Arbitrary<unknown> = fc
  .tuple(fc.array(fc.tuple(fc.oneof({ arbitrary: fc.constantFrom(...HEADER_NAMES), weight: 6 }, { arbitrary: fc.string({ maxLength: 8 }), weight: 1 }), headerValue), { maxLength: 6 }), fc.constantFrom('record', 'entries', 'Headers', 'null', 'undefined'))
  .map(([pairs, shape]) => {
    if (shape === 'record') return Object.fromEntries(pairs);
    if (shape === 'entries') return pairs.map(([name, value]) => [name, String(value)]);
    if (shape === 'Headers') {
      const headers = new Headers();
      for (const [name, value] of pairs) {
        try {
          headers.append(name, String(value));
        } catch {
          // A name or value the platform refuses cannot reach a caller in a Headers object.
        }
      }
      return headers;
    }
    return shape === 'null' ? null : undefined;
  });

// ---------------------------------------------------------------------------------------------
// Accept values

const MEDIA = ['text/html', 'application/json', 'application/problem+json', 'text/markdown', '*/*', 'text/*', 'application/*', 'application/xhtml+xml', 'application/xml', 'image/webp', 'Application/JSON', 'TEXT/HTML'];
const QVALUES = ['1', '1.0', '1.000', '0', '0.0', '0.001', '0.5', '0.9', '0.8', '0.10', '1.001', '2', '-1', '.5', 'abc', '', '0.0000'];

/** One media range as a header writes it, with a q-value (valid or not) and other parameters. */
export const mediaRange = fc
  .tuple(fc.constantFrom(...MEDIA), fc.option(fc.constantFrom(...QVALUES), { nil: undefined }), fc.constantFrom('', ';level=1', '; charset=utf-8', ';Q=0.5', ';q', ';;'), fc.constantFrom('', ' ', '\t'))
  .map(([media, q, param, space]) => `${space}${media}${param}${q === undefined ? '' : `;${space}q=${q}`}${space}`);

/** Accept values: the ones browsers and agents send, random ones, and 64 KB ones with thousands of q-values. */
export const acceptValue: fc.Arbitrary<string | null | undefined> = fc.oneof(
  { arbitrary: fc.constantFrom('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'application/json', '*/*', 'text/markdown, text/html;q=0.9', 'application/problem+json', '', null, undefined), weight: 3 },
  { arbitrary: fc.array(mediaRange, { maxLength: 8 }).map((ranges) => ranges.join(',')), weight: 6 },
  { arbitrary: fc.string({ maxLength: 40 }), weight: 2 },
  // About 4 KB, where the parser stops reading: the last range, or one appended to the value, is cut.
  {
    arbitrary: fc.tuple(fc.array(mediaRange, { maxLength: 4 }), fc.constantFrom(' ', 'x', ',', ';q=0.5,'), fc.integer({ min: 4070, max: 4100 }), fc.array(mediaRange, { maxLength: 2 })).map(
      ([head, filler, length, tail]) => {
        const start = `${head.join(',')},`;
        return `${start}${filler.repeat(Math.ceil(Math.max(0, length - start.length) / filler.length))}`.slice(0, length) + (tail.length > 0 ? `,${tail.join(',')}` : '');
      },
    ),
    weight: 1,
  },
  // 64 KB: thousands of ranges, thousands of q parameters on one range, one endless token, whitespace.
  { arbitrary: fc.tuple(run(['text/plain;q=0.1,', ';q=0.5', 'a', ' ', ',', 'application/json;q=0.001, ', '*/*;q=0,']), fc.constantFrom('', 'application/json', 'text/html')).map(([bulk, tail]) => `text/html;${bulk}${tail}`), weight: 1 },
);
