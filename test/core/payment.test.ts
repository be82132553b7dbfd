// What a 402 asks to be paid, whatever a site puts in its payment headers: fromResponse never
// throws on them, keeps only checked and bounded values (the envelope, payment included, validates),
// and a payment a site sends reads back whole.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateEnvelope, type Payment } from '../../src/index.js';
import { fromResponse } from '../../src/core/from-response.js';
import { base64Json, paymentFrom, x402RequirementsOf } from '../../src/core/payment.js';
import { toHeaders } from '../../src/core/headers.js';
import { agentError } from '../../src/site/agent-error.js';

/** Base64 of a string's UTF-8, as a site would encode anything. */
const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

/** A value that is sometimes what x402 expects there and often not. */
const member = (good: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> => fc.oneof({ arbitrary: good, weight: 3 }, { arbitrary: fc.anything(), weight: 1 }, { arbitrary: fc.string({ maxLength: 400 }), weight: 1 });

const requirement = fc.record(
  {
    scheme: member(fc.constant('exact')),
    network: member(fc.constantFrom('eip155:8453', 'base-sepolia')),
    amount: member(fc.bigInt({ min: 0n, max: 10n ** 30n }).map(String)),
    maxAmountRequired: member(fc.bigInt({ min: 0n, max: 10n ** 30n }).map(String)),
    asset: member(fc.stringMatching(/^0x[0-9a-f]{40}$/)),
    payTo: member(fc.stringMatching(/^0x[0-9a-f]{40}$/)),
    maxTimeoutSeconds: member(fc.nat({ max: 86_400 })),
    extra: member(fc.dictionary(fc.string({ maxLength: 70 }), fc.oneof(fc.string({ maxLength: 300 }), fc.double(), fc.boolean(), fc.object()), { maxKeys: 40 })),
    resource: member(fc.webUrl()),
  },
  { requiredKeys: [] },
);
const paymentRequired = fc.record(
  {
    x402Version: member(fc.constantFrom(1, 2)),
    error: member(fc.constantFrom('Payment required', 'insufficient_funds', 'invalid_exact_evm_signature', 'nope')),
    resource: member(fc.record({ url: fc.webUrl(), description: fc.string(), mimeType: fc.string() })),
    accepts: member(fc.array(requirement, { maxLength: 40 })),
  },
  { requiredKeys: [] },
);

const checked = (status: number, headers: Record<string, string>, body: unknown): void => {
  const { error } = fromResponse(status, headers, body);
  expect(validateEnvelope({ error }, { received: true }).errors).toEqual([]);
  if (error.payment) {
    expect(error.payment.options.length).toBeLessThanOrEqual(16);
    expect(JSON.stringify(error.payment).length).toBeLessThan(64 * 1024);
  }
};

describe('payment headers, whatever a site sends', () => {
  it('never throw, and every payment kept validates, bounded (x402 PaymentRequired of any shape, base64 or not)', () => {
    fc.assert(
      fc.property(paymentRequired, fc.constantFrom(402, 403, 400, 500), fc.boolean(), (required, status, encode) => {
        const header = encode ? base64Json(required) : JSON.stringify(required);
        checked(status, { 'payment-required': header }, '{}');
        checked(status, {}, JSON.stringify(required));
      }),
      { numRuns: 1500 },
    );
  });

  it('never throw on any header value at all (PAYMENT-REQUIRED, PAYMENT-RESPONSE, X-PAYMENT-RESPONSE, crawler-price, crawler-error)', () => {
    const value = fc.oneof(fc.string({ maxLength: 300 }), fc.string({ maxLength: 300 }).map(b64), fc.json().map(b64), fc.constantFrom('USD 0.01', 'EUR 1', 'USD -1', 'usd 0.01', 'PaymentFailed', 'InvalidCrawlerExactPrice', '__proto__', 'constructor'));
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('payment-required', 'payment-response', 'x-payment-response', 'crawler-price', 'crawler-error'), value), fc.constantFrom(402, 403, 400), (headers, status) => {
        checked(status, headers, '');
        expect(() => paymentFrom(toHeaders(headers), undefined)).not.toThrow();
      }),
      { numRuns: 1500 },
    );
  });

  it('refuse a header past 16 KiB without decoding it, and say why the price could not be read', () => {
    const huge = base64Json({ x402Version: 2, resource: { url: 'https://a.example/' }, accepts: Array.from({ length: 400 }, () => ({ scheme: 'exact', network: 'eip155:8453', amount: '1', asset: 'a', payTo: 'b', maxTimeoutSeconds: 1, extra: {} })) });
    expect(huge.length).toBeGreaterThan(16 * 1024);
    const { error } = fromResponse(402, { 'payment-required': huge }, '');
    expect(error.payment).toBeUndefined();
    expect(error.message).toMatch(/PAYMENT-REQUIRED header is not the base64 JSON/);
  });

  it('keep at most 16 options and 16 members of extra, each checked', () => {
    const accepts = Array.from({ length: 30 }, (_, i) => ({ scheme: 'exact', network: 'eip155:8453', amount: String(i), asset: 'a', payTo: 'b', maxTimeoutSeconds: 1, extra: Object.fromEntries(Array.from({ length: 30 }, (_, k) => [`k${k}`, k])) }));
    const { error } = fromResponse(402, { 'payment-required': base64Json({ x402Version: 2, resource: { url: 'https://a.example/' }, accepts }) }, '');
    expect(error.payment!.options).toHaveLength(16);
    expect(Object.keys(error.payment!.options[0]!.extra!)).toHaveLength(16);
    // A __proto__ member is kept as data, never as the prototype.
    const sneaky = JSON.parse('{"x402Version":2,"resource":{"url":"https://a.example/"},"accepts":[{"scheme":"exact","network":"n","amount":"1","asset":"a","payTo":"b","maxTimeoutSeconds":1,"extra":{"__proto__":"x","name":"USDC"}}]}') as unknown;
    const extra = fromResponse(402, { 'payment-required': base64Json(sneaky) }, '').error.payment!.options[0]!.extra!;
    expect(Object.getPrototypeOf(extra)).toBe(Object.prototype);
    expect(Object.keys(extra)).toEqual(['__proto__', 'name']);
  });
});

const option = fc.record({
  scheme: fc.constantFrom('exact', 'upto'),
  network: fc.constantFrom('eip155:8453', 'eip155:84532', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'),
  asset: fc.stringMatching(/^0x[0-9a-f]{40}$/),
  amount: fc.bigInt({ min: 0n, max: 10n ** 40n }).map(String),
  pay_to: fc.stringMatching(/^0x[0-9a-f]{40}$/),
  max_timeout_seconds: fc.nat({ max: 3600 }),
  extra: fc.oneof(fc.constant(null), fc.dictionary(fc.stringMatching(/^[a-z]{1,10}$/), fc.oneof(fc.string({ maxLength: 50 }), fc.integer(), fc.boolean()), { minKeys: 1, maxKeys: 5 })),
});
const sentPayment = fc.oneof(
  fc.record({
    protocol: fc.constant('x402' as const),
    version: fc.constant(2),
    resource: fc.record({ url: fc.webUrl(), description: fc.oneof(fc.constant(null), fc.string({ minLength: 1, maxLength: 100 })), mime_type: fc.oneof(fc.constant(null), fc.constant('application/json')) }),
    options: fc.array(option, { minLength: 1, maxLength: 4 }),
  }),
  fc.record({
    protocol: fc.constant('pay-per-crawl' as const),
    version: fc.constant(1),
    options: fc.constant([]),
    price: fc.record({ amount: fc.stringMatching(/^[0-9]{1,4}\.[0-9]{2}$/), currency: fc.constantFrom('USD', 'EUR') }),
  }),
);

describe('a payment a site sends', () => {
  it('reads back whole from its header alone, from the JSON body and from the problem, and signs as the x402 client expects', () => {
    fc.assert(
      fc.property(sentPayment as fc.Arbitrary<Payment>, (payment) => {
        const error = agentError('payment_required', { payment });
        const headers = error.headers();
        const onlyPrice = Object.fromEntries(Object.entries(headers).filter(([name]) => name === 'payment-required' || name === 'crawler-price'));
        expect(fromResponse(402, onlyPrice, '').error.payment).toEqual(payment);
        for (const accept of ['application/json', 'application/problem+json', 'text/markdown']) {
          const sent = error.render(accept);
          expect(fromResponse(sent.status, sent.headers, sent.body).error.payment).toEqual(payment);
        }
        if (payment.protocol === 'x402') expect(x402RequirementsOf(payment)!.accepts.map((a) => a.amount)).toEqual(payment.options.map((o) => o.amount));
      }),
      { numRuns: 300 },
    );
  });

  it('is refused when an agent could not pay it', () => {
    const x402: Payment = { protocol: 'x402', version: 2, resource: { url: 'https://a.example/', description: null, mime_type: null }, options: [{ scheme: 'exact', network: 'eip155:8453', asset: '0xa', amount: '1', pay_to: '0xb', max_timeout_seconds: 60, extra: null }] };
    expect(() => agentError('payment_required', { payment: { ...x402, options: [] } })).toThrow(/at least one option/);
    expect(() => agentError('payment_required', { payment: { ...x402, options: [{ ...x402.options[0]!, amount: '0.01' }] } })).toThrow(/payment\/options\/0\/amount must match/);
    expect(() => agentError('payment_required', { payment: { ...x402, options: [{ ...x402.options[0]!, max_timeout_seconds: null }] } })).toThrow(/max_timeout_seconds/);
    expect(() => agentError('payment_required', { payment: { protocol: 'pay-per-crawl', version: 1, options: [] } })).toThrow(/needs its price/);
    expect(() => agentError('not_allowed', { payment: x402 } as never)).toThrow(/takes no payment/);
  });
});
