import fc from 'fast-check';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { CODES, RETRY_WORDS, STATUS_DEFAULTS, UNKNOWN_CODE, adviceFor, codeForStatus, isKnownCode, lookup, type Code, type CodeEntry, type CodeInfo, type RetryWord } from '../../src/index.js';

describe('lookup', () => {
  it.each(Object.keys(CODES) as Code[])('gives %s its catalog status, retry word and next step', (code) => {
    const info = lookup(code);
    const entry = CODES[code];
    expect(info).toMatchObject({ code, known: true, status: entry.status, retry: entry.retry, advice: entry.advice, family: entry.family });
    expect(info.draft).toBe('draft' in entry && entry.draft === true);
    expect(info.next_step).toBe(RETRY_WORDS[CODES[code].retry].next_step);
  });

  it("treats a site's own code as the catalog's unknown-code rule says, keeping its name", () => {
    const info = lookup('coupon_expired');
    expect(info).toMatchObject({ code: 'coupon_expired', known: false, status: CODES[UNKNOWN_CODE].status, retry: CODES[UNKNOWN_CODE].retry });
    expect(info.advice).toBe(RETRY_WORDS[CODES[UNKNOWN_CODE].retry].advice);
  });

  it('says a code the catalog does not list has no family it knows: family null, not the family of the unknown-code rule', () => {
    expect(lookup('coupon_expired')).toMatchObject({ known: false, family: null, draft: false, title: 'coupon_expired' });
    fc.assert(fc.property(fc.string(), (code) => void expect(lookup(code).family === null).toBe(!isKnownCode(code))));
  });

  it('does not mistake members of Object.prototype for codes', () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect(isKnownCode(name)).toBe(false);
      expect(lookup(name).known).toBe(false);
    }
  });

  it('answers for any string without throwing', () => {
    fc.assert(
      fc.property(fc.string(), (code) => {
        const info = lookup(code);
        expect(info.code).toBe(code);
        expect(Object.keys(RETRY_WORDS)).toContain(info.retry);
        expect(info.known).toBe(isKnownCode(code));
      }),
    );
  });

  it('types the retry word of a known code as its literal', () => {
    expectTypeOf(lookup('rate_limited').retry).toEqualTypeOf<'after_delay'>();
    expectTypeOf(lookup('anything' as string)).toEqualTypeOf<CodeInfo>();
    expectTypeOf(lookup('anything' as string).retry).toEqualTypeOf<RetryWord>();
    expectTypeOf(lookup('rate_limited').family).toEqualTypeOf<CodeEntry['family']>();
    expectTypeOf(lookup('anything' as string).family).toEqualTypeOf<CodeEntry['family'] | null>();
  });
});

describe('codeForStatus', () => {
  it.each(Object.entries(STATUS_DEFAULTS))('gives status %s the code %s', (status, code) => {
    expect(codeForStatus(Number(status))).toBe(code);
  });

  it('falls back by class for statuses the catalog does not list', () => {
    expect(CODES[codeForStatus(418)].status).toBeGreaterThanOrEqual(400);
    expect(CODES[codeForStatus(418)].status).toBeLessThan(500);
    expect(CODES[codeForStatus(599)].status).toBeGreaterThanOrEqual(500);
  });

  it('always answers with a catalog code for any error status', () => {
    fc.assert(fc.property(fc.integer({ min: 400, max: 599 }), (status) => void expect(isKnownCode(codeForStatus(status))).toBe(true)));
  });
});

describe('adviceFor', () => {
  const words = Object.keys(RETRY_WORDS) as RetryWord[];

  it("gives the code's advice, a word's for a code the catalog does not list, and never speaks of retry_after seconds when there are none", () => {
    expect(adviceFor({ code: 'rate_limited', retry: 'after_delay', retry_after: 30 })).toBe(CODES.rate_limited.advice);
    expect(adviceFor({ code: 'coupon_expired', retry: 'refetch', retry_after: null })).toBe(RETRY_WORDS.refetch.advice);
    expect(adviceFor({ code: 'temporarily_unavailable', retry: 'after_delay', retry_after: null })).toBe(RETRY_WORDS.after_delay.advice_without_delay);
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(...Object.keys(CODES)), fc.string()), fc.constantFrom(...words), fc.option(fc.nat(86_400)), (code, retry, delay) => {
        const advice = adviceFor({ code, retry, retry_after: delay });
        expect(typeof advice === 'string' && advice.length > 0).toBe(true);
        if (delay === null) expect(advice).not.toMatch(/retry_after/);
      }),
    );
  });

  it('has advice for a wait of unknown length on every word that requires a delay', () => {
    for (const word of words.filter((w) => (RETRY_WORDS[w].requires as readonly string[]).includes('retry_after'))) {
      expect((RETRY_WORDS[word] as { advice_without_delay?: string }).advice_without_delay, word).toMatch(/\S/);
    }
  });
});
