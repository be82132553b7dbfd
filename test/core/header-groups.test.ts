// fromResponse looks a response's header names up once and skips every header rule none of whose
// headers is there. That is only right if each group names every header its rule asks for, and if
// skipping changes nothing: a response read from a plain record or entry pairs (whose names are
// looked up) reads exactly as the same response read from a Headers (which is asked by name, every
// rule run), a WHATWG one or one of another fetch implementation's shape.
import fc from 'fast-check';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DELAY_HEADERS, delayFrom } from '../../src/core/delay.js';
import { explainResponse } from '../../src/core/from-response.js';
import type { Fields, HeadersInput } from '../../src/core/headers.js';
import { PAYMENT_HEADERS, paymentFrom } from '../../src/core/payment.js';
import { CHALLENGE_HEADERS, headerChallenge } from '../../src/core/signals.js';

/** Fields that hold nothing and keep every name they are asked for. */
function recorder(): Fields & { readonly asked: Set<string> } {
  const asked = new Set<string>();
  return {
    asked,
    get(name: string) {
      asked.add(name.toLowerCase());
      return null;
    },
    has(name: string) {
      asked.add(name.toLowerCase());
      return false;
    },
    *[Symbol.iterator]() {},
  };
}

describe('header groups', () => {
  it('name every header their rule asks for, and no other', () => {
    const challenge = recorder();
    headerChallenge(challenge, true);
    expect([...challenge.asked].sort()).toEqual([...CHALLENGE_HEADERS].sort());
    const payment = recorder();
    paymentFrom(payment, {});
    expect([...payment.asked].sort()).toEqual([...PAYMENT_HEADERS].sort());
    const delay = recorder();
    delayFrom(delay, {});
    expect([...delay.asked].sort()).toEqual([...DELAY_HEADERS].sort());
  });

  const corpusDir = new URL('../fixtures/responses/', import.meta.url);
  const corpus = readdirSync(corpusDir)
    .filter((file) => file.endsWith('.json'))
    .map((file) => JSON.parse(readFileSync(new URL(file, corpusDir), 'utf8')) as { status: number; headers: Record<string, string>; body: unknown });
  const bodyOf = (body: unknown): string | null => (typeof body === 'string' ? body : body === null || body === undefined ? null : JSON.stringify(body));
  const now = Date.parse('2026-12-01T00:00:00Z');

  /** A Headers of another implementation's shape: get, has and its entries, nothing else. */
  const byNameOnly = (headers: Headers): HeadersInput => ({ get: (name: string) => headers.get(name), has: (name: string) => headers.has(name), [Symbol.iterator]: () => headers.entries() }) as unknown as HeadersInput;

  /** The same response read from Headers, with every rule run, and from a record and entry pairs, whose names are looked up. */
  function readAllWays(status: number, headers: Record<string, string>, body: string | null): void {
    const everyRule = explainResponse(status, byNameOnly(new Headers(headers)), body, { now });
    expect(explainResponse(status, headers, body, { now })).toEqual(everyRule);
    expect(explainResponse(status, Object.entries(headers), body, { now })).toEqual(everyRule);
    expect(explainResponse(status, new Headers(headers), body, { now })).toEqual(everyRule);
  }

  it('leave every response of the corpus as it reads with every rule run', () => {
    for (const response of corpus) readAllWays(response.status, response.headers, bodyOf(response.body));
  });

  // Every header a rule of fromResponse reads, written out here rather than taken from the groups under test.
  const read = [
    ...['cf-mitigated', 'x-amzn-waf-action', 'x-vercel-mitigated', 'set-cookie', 'x-dd-b', 'x-datadome', 'www-authenticate', 'x-amzn-errortype', 'date'],
    ...['payment-required', 'payment-response', 'x-payment-response', 'crawler-price', 'crawler-error', 'retry-after', 'retry-after-ms', 'x-ms-retry-after-ms'],
    ...['ratelimit', 'ratelimit-policy', 'ratelimit-reset', 'x-ratelimit-reset', 'x-rate-limit-reset', 'x-ratelimit-reset-requests', 'x-ratelimit-reset-tokens'],
    ...['x-ratelimit-remaining', 'x-ratelimit-remaining-requests', 'x-ratelimit-remaining-tokens', 'content-type'],
  ];
  const names = [...new Set([...read, ...CHALLENGE_HEADERS, ...PAYMENT_HEADERS, ...DELAY_HEADERS])];
  const values = [
    ...['challenge', 'captcha', '30', '1.5', '0', '1700000000', 'Thu, 01 Jan 2026 00:00:00 GMT', '"default";r=0;t=42', 'limit=10, remaining=0, reset=20', '_fs_ch_st_x=1; Path=/'],
    ...['Bearer error="insufficient_scope", scope="repo"', 'Bearer error="invalid_token", error_description="expired"', 'ThrottlingException', 'USD 0.01', 'InsufficientFunds', 'application/json', '2s', '1m30s'],
  ];
  const statuses = [200, 202, 400, 401, 402, 403, 404, 405, 422, 429, 500, 502, 503];

  it('leave a response with any one of the watched headers as it reads with every rule run', () => {
    for (const name of names) for (const text of values) for (const status of statuses) readAllWays(status, { [name]: text }, null);
  });

  it('leave any response as it reads with every rule run, whichever of the watched headers it has', () => {
    const value = fc.oneof(fc.constantFrom(...values), fc.stringMatching(/^[ -~]{0,20}$/));
    const headers = fc.dictionary(fc.constantFrom(...names), value, { maxKeys: 6 });
    const body = fc.oneof(fc.constant(null), fc.constantFrom(...corpus.map((response) => bodyOf(response.body))), fc.json());
    fc.assert(
      fc.property(fc.constantFrom(...statuses), headers, body, (status, fields, text) => readAllWays(status, fields, text)),
      { numRuns: 800 },
    );
  });
});
