// Fuzz targets on the site side's builders, agentError and siteError: options that fit the code's
// retry word (so the rendering is exercised) and options of any value and type (so the refusals are).
import { strict as assert } from 'node:assert';
import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { parse as parseYaml } from 'yaml';
import { CODES, RETRY_WORDS } from '../generated/catalog.js';
import type { RetryWord } from '../generated/types.js';
import { validateEnvelope, validateProblem } from '../src/core/validate.js';
import { AgentError, agentError, isAgentError, siteError, type SiteErrorOptions } from '../src/site/agent-error.js';
import { assertValid, type Target } from './check.js';
import { acceptValue, run, SECRET } from './inputs.js';

/** One call of a builder, and how its error is then rendered. */
export interface BuilderInput {
  readonly code: string;
  readonly options: Record<string, unknown>;
  readonly base: string | undefined;
  readonly accept: string | null | undefined;
}

const CATALOG_CODES = Object.keys(CODES) as (keyof typeof CODES)[];
const WORDS = Object.keys(RETRY_WORDS) as RetryWord[];

// Values a builder takes, and values of any kind it must refuse by name.
const goodText = fc.oneof(
  { arbitrary: fc.constantFrom('Too many requests', 'Coupon expired', 'currency', 'items[0].sku', 'Ünïcödé ✓', 'a\r\nSet-Cookie: x=1', 'line\nbreak'), weight: 4 },
  { arbitrary: fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim() !== ''), weight: 4 },
  { arbitrary: run([' ', 'a', '\n', '\r\n'], false).map((s) => `x${s}`), weight: 1 },
);
const anyText = fc.oneof(
  { arbitrary: goodText, weight: 6 },
  { arbitrary: fc.constantFrom('', ' ', '\u00a0\u2028\ufeff', '\r\n'), weight: 2 },
  { arbitrary: fc.constantFrom<unknown>(42, null, true, {}, ['a'], Number.NaN), weight: 1 },
);
const goodDelay = fc.oneof(fc.nat(100_000), fc.constantFrom(0, -0, 2 ** 31 - 1, 2 ** 31, Number.MAX_SAFE_INTEGER));
const anyDelay = fc.oneof(
  { arbitrary: goodDelay, weight: 6 },
  { arbitrary: fc.constantFrom<unknown>(-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, 2 ** 53 + 2, 1e21, 1e300, '30', null), weight: 2 },
  { arbitrary: fc.integer(), weight: 1 },
);
const goodFieldError = fc.record({ field: goodText, code: fc.constantFrom('invalid_input', 'missing_field', 'too_long'), message: goodText });
const anyFieldError = fc.oneof(
  { arbitrary: goodFieldError, weight: 6 },
  { arbitrary: fc.record({ field: anyText, code: fc.oneof(fc.constantFrom('invalid_input', 'Bad-Code', ''), fc.string({ maxLength: 6 })), message: anyText, extra: fc.string({ maxLength: 4 }) }, { requiredKeys: [] }), weight: 2 },
  { arbitrary: fc.anything({ maxDepth: 1 }), weight: 1 },
);
const anyErrors = fc.oneof(
  { arbitrary: fc.array(anyFieldError, { maxLength: 3 }), weight: 6 },
  { arbitrary: fc.constantFrom<unknown>('abc', {}, null, 42, { length: 2 }), weight: 1 },
);
/** A cause holding the secret: it is for the site's logs and must never be rendered. */
const cause = fc.constantFrom<unknown>(new Error(`db password ${SECRET}`), { token: SECRET }, SECRET, undefined);

const goodOptions = fc.record(
  { message: goodText, field: goodText, retryAfter: goodDelay, errors: fc.array(goodFieldError, { maxLength: 3 }), detail: fc.string({ maxLength: 20 }), instance: fc.string({ maxLength: 20 }), title: goodText, cause },
  { requiredKeys: [] },
);
const anyOptions = fc.record(
  { message: anyText, field: anyText, retryAfter: anyDelay, errors: anyErrors, detail: anyText, instance: anyText, title: anyText, cause },
  { requiredKeys: [] },
);

/** Options made to fit a retry word: the field and delay it requires added, a delay it refuses removed. */
function fit(options: Record<string, unknown>, retry: RetryWord): Record<string, unknown> {
  const word = RETRY_WORDS[retry];
  const fitted = { ...options };
  if ((word.requires as readonly string[]).includes('field') && fitted.field === undefined) fitted.field = 'currency';
  if ((word.requires as readonly string[]).includes('retry_after') && fitted.retryAfter === undefined) fitted.retryAfter = 30;
  if (word.next_step !== 'wait') delete fitted.retryAfter;
  return fitted;
}

const base = fc.option(fc.oneof(fc.constantFrom('https://api.example.com', 'https://api.example.com/v1/', '', '/'), fc.string({ maxLength: 10 })), { nil: undefined });
const siteCode = fc.stringMatching(/^[a-z][a-z0-9]{0,8}(_[a-z0-9]{1,6}){0,2}$/).filter((code) => !Object.hasOwn(CODES, code));

/** What a built error must satisfy: both bodies validate strictly, headers are single lines, Retry-After is the body's delay in digits, the cause never shows. */
function checkBuilt(error: AgentError, input: BuilderInput): void {
  assert.ok(error instanceof AgentError && isAgentError(error), 'not an AgentError');
  assert.equal(error.code, input.code);
  const envelope = error.toEnvelope();
  assertValid(validateEnvelope(envelope), 'toEnvelope()', envelope);
  const problem = error.toProblem({ base: input.base });
  assertValid(validateProblem(problem), 'toProblem()', problem);
  assert.equal(problem.status, error.status);
  for (const kind of ['envelope', 'problem'] as const) {
    const headers = error.headers(kind);
    for (const [name, value] of Object.entries(headers)) assert.ok(!/[\r\n]/.test(value), `header ${name} holds a line break`);
    if (error.retryAfter === null) assert.ok(!('retry-after' in headers), 'a Retry-After without a delay');
    else {
      assert.match(headers['retry-after'] ?? '', /^\d+$/, 'Retry-After is not delay-seconds (RFC 9110 10.2.3)');
      assert.equal(Number(headers['retry-after']), envelope.error.retry_after, 'Retry-After and the body disagree');
    }
  }
  const rendered = error.render(input.accept, input.base);
  if (rendered.headers['content-type']?.startsWith('text/markdown')) {
    // Markdown: the problem's members as YAML front matter, which a YAML parser reads to the problem itself.
    const front = /^---\n([^]*?)\n---\n/.exec(rendered.body);
    assert.ok(front, 'render() as Markdown has no front matter');
    assert.deepEqual(parseYaml(front[1]!), problem, 'the Markdown front matter is not the problem');
  } else {
    const sent: unknown = JSON.parse(rendered.body);
    if (rendered.headers['content-type'] === 'application/problem+json') assertValid(validateProblem(sent), 'render() as a problem', sent);
    else assertValid(validateEnvelope(sent), 'render() as an envelope', sent);
  }
  assert.ok(!rendered.body.includes(SECRET) && !JSON.stringify(problem).includes(SECRET), 'the cause was rendered');
  assert.equal(error.toResponse().status, error.status);
}

/** What a refusal must be: a TypeError naming the builder, the code and the rule. */
function checkRefusal(thrown: unknown, code: string): void {
  assert.ok(thrown instanceof TypeError, `threw ${String(thrown)}, not a TypeError`);
  const prefix = [`agentError(${JSON.stringify(code)}): `, `siteError(${JSON.stringify(code)}): `].find((p) => thrown.message.startsWith(p));
  assert.ok(prefix !== undefined && thrown.message.length > prefix.length + 8, `the TypeError does not name the code and the rule: ${thrown.message}`);
}

function builderTarget(name: string, arbitrary: fc.Arbitrary<BuilderInput>, build: (input: BuilderInput) => AgentError): Target<BuilderInput> {
  return {
    name,
    arbitrary,
    check(input) {
      const start = performance.now();
      let built: AgentError;
      try {
        built = build(input);
      } catch (thrown) {
        const ms = performance.now() - start;
        checkRefusal(thrown, input.code);
        return ms;
      }
      const ms = performance.now() - start;
      checkBuilt(built, input);
      return ms;
    },
  };
}

/** agentError with a catalog code (sometimes not one) and any options: a valid error, or a TypeError naming the code and the rule. */
export const agentErrorTarget = builderTarget(
  'agentError',
  fc.oneof(
    {
      arbitrary: fc.record({ code: fc.constantFrom(...CATALOG_CODES), options: goodOptions, base, accept: acceptValue }).map((input) => ({ ...input, options: fit(input.options, CODES[input.code].retry) })),
      weight: 3,
    },
    {
      arbitrary: fc.record({
        code: fc.oneof({ arbitrary: fc.constantFrom(...CATALOG_CODES), weight: 8 }, { arbitrary: fc.constantFrom('coupon_expired', '__proto__', 'constructor', 'Rate_Limited'), weight: 1 }),
        options: fc.oneof(
          { arbitrary: anyOptions, weight: 8 },
          { arbitrary: fc.record({ status: fc.integer({ min: 400, max: 599 }), retry: fc.constantFrom(...WORDS) }, { requiredKeys: [] }), weight: 1 },
        ),
        base,
        accept: acceptValue,
      }),
      weight: 2,
    },
  ),
  ({ code, options }) => (agentError as (code: string, options?: unknown) => AgentError)(code, options),
);

/** siteError with a site's own code (sometimes a catalog code, or no code at all) and any options: the same promise. */
export const siteErrorTarget = builderTarget(
  'siteError',
  fc.oneof(
    {
      arbitrary: fc
        .record({ code: siteCode, options: goodOptions, status: fc.integer({ min: 400, max: 599 }), retry: fc.constantFrom(...WORDS), base, accept: acceptValue })
        .map(({ options, status, retry, ...input }) => ({ ...input, options: { ...fit(options, retry), status, retry } })),
      weight: 3,
    },
    {
      arbitrary: fc.record({
        code: fc.oneof(
          { arbitrary: siteCode, weight: 6 },
          { arbitrary: fc.constantFrom(...CATALOG_CODES, 'toString', '__proto__', 'constructor', 'hasOwnProperty', 'Shop-Closed', 'a__b', ''), weight: 2 },
          { arbitrary: fc.string({ maxLength: 10 }), weight: 1 },
        ),
        options: fc
          .tuple(
            anyOptions,
            fc.oneof({ arbitrary: fc.integer({ min: 400, max: 599 }), weight: 8 }, { arbitrary: fc.constantFrom<unknown>(399, 600, 200, 1.5, '429', Number.NaN, undefined), weight: 1 }),
            fc.oneof({ arbitrary: fc.constantFrom<unknown>(...WORDS), weight: 8 }, { arbitrary: fc.constantFrom<unknown>('toString', 'nope', '', undefined, 3), weight: 1 }),
          )
          .map(([options, status, retry]) => ({ ...options, status, retry })),
        base,
        accept: acceptValue,
      }),
      weight: 2,
    },
  ),
  ({ code, options }) => siteError(code as never, options as unknown as SiteErrorOptions),
);
