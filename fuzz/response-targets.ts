// Fuzz targets on the agent side: fromResponse and decode, on any status, headers in any shape, and
// bodies from adversarial pages to every JSON dialect, with a secret planted in stack traces.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { RETRY_WORDS } from '../generated/catalog.js';
import { decode } from '../src/agent/decode.js';
import { MAX_DELAY_SECONDS } from '../src/core/delay.js';
import { fromResponse, MAX_BODY_BYTES } from '../src/core/from-response.js';
import type { HeadersInput } from '../src/core/headers.js';
import { validateEnvelope } from '../src/core/validate.js';
import { assertValid, CODE_PATTERN, timed, type Target } from './check.js';
import { jsonBody, jsonText, page, responseHeaders, SECRET } from './inputs.js';

/** One response as fromResponse takes it. */
export interface ResponseInput {
  readonly status: number;
  readonly headers: unknown;
  readonly body: unknown;
  readonly now: number | undefined;
}

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

const body: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: page, weight: 6 },
  { arbitrary: jsonText, weight: 4 },
  { arbitrary: jsonBody, weight: 4 },
  { arbitrary: page.map(encode), weight: 1 },
  { arbitrary: jsonText.map((text) => encode(text).buffer), weight: 1 },
  { arbitrary: page.map((text) => new DataView(encode(text).buffer)), weight: 1 },
  { arbitrary: fc.uint8Array({ maxLength: 64 }), weight: 1 },
  { arbitrary: fc.anything({ maxDepth: 2 }), weight: 1 },
);

export const responseInput: fc.Arbitrary<ResponseInput> = fc.record({
  status: fc.oneof(
    { arbitrary: fc.integer({ min: 400, max: 599 }), weight: 6 },
    { arbitrary: fc.constantFrom(0, 100, 200, 202, 204, 302, 399, 600, 999, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY), weight: 1 },
    { arbitrary: fc.integer(), weight: 1 },
  ),
  headers: responseHeaders,
  body,
  now: fc.option(fc.oneof(fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2100, 0, 1) }), fc.double()), { nil: undefined }),
});

const options = (now: number | undefined) => (now === undefined ? {} : { now });
const isPlainObject = (value: unknown): value is object => value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;

/**
 * fromResponse: never throws; the envelope validates as received; the message is at most 200
 * characters; nothing planted in a stack trace or a debug member (the secret) reaches the envelope;
 * a JSON object body reads the same parsed, as text and as bytes.
 */
export const fromResponseTarget: Target<ResponseInput> = {
  name: 'fromResponse',
  arbitrary: responseInput,
  check({ status, headers, body: input, now }) {
    const [envelope, ms] = timed(() => fromResponse(status, headers as HeadersInput, input, options(now)));
    assertValid(validateEnvelope(envelope, { received: true }), 'the envelope', envelope);
    assert.ok(envelope.error.message.length <= 200, `a message of ${envelope.error.message.length} characters`);
    assert.ok(!JSON.stringify(envelope).includes(SECRET), `the planted secret reached the envelope: ${JSON.stringify(envelope)}`);
    if (isPlainObject(input)) {
      const text = JSON.stringify(input);
      if (text.length * 3 <= MAX_BODY_BYTES) {
        assert.deepEqual(fromResponse(status, headers as HeadersInput, text, options(now)), envelope, 'the body as JSON text reads differently');
        assert.deepEqual(fromResponse(status, headers as HeadersInput, encode(text), options(now)), envelope, 'the body as bytes reads differently');
      }
    }
    return ms;
  },
};

const ACTIONS: Readonly<Record<string, string>> = { fix_request: 'fix', wait: 'wait', give_up: 'give_up' };

/** decode: never throws; one of three actions; a delay only with wait, whole and capped; the same answer as fromResponse's envelope. */
export const decodeTarget: Target<ResponseInput> = {
  name: 'decode',
  arbitrary: responseInput,
  check({ status, headers, body: input, now }) {
    const [decoded, ms] = timed(() => decode({ status, headers: headers as HeadersInput, body: input }, now));
    assert.ok(['fix', 'wait', 'give_up'].includes(decoded.action), `action ${decoded.action}`);
    assert.ok(CODE_PATTERN.test(decoded.code), `code ${decoded.code}`);
    if (decoded.delay !== null) {
      assert.equal(decoded.action, 'wait', 'a delay on an action that does not wait');
      assert.ok(Number.isSafeInteger(decoded.delay) && decoded.delay >= 0 && decoded.delay <= MAX_DELAY_SECONDS, `delay ${decoded.delay}`);
    }
    assert.ok(decoded.param === null || (decoded.param.trim() !== '' && !decoded.param.includes(SECRET)), `param ${decoded.param}`);
    const { error } = fromResponse(status, headers as HeadersInput, input ?? null, options(now));
    assert.deepEqual(decoded, { action: ACTIONS[RETRY_WORDS[error.retry].next_step], delay: error.retry_after, param: error.field, code: error.code });
    return ms;
  },
};
