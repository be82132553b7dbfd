// Type-level guarantees, checked by tsc --noEmit (part of npm test) and by vitest's expectTypeOf.
import { describe, expectTypeOf, it } from 'vitest';
import type { AnyCode, Code, CodeRequirements, Envelope, NextStep, Problem, RetryWord } from '../src/index.js';
import { CODES } from '../src/index.js';

describe('generated types', () => {
  it('makes Code a union of the catalog literals, not string', () => {
    expectTypeOf<Code>().not.toEqualTypeOf<string>();
    expectTypeOf<'rate_limited'>().toExtend<Code>();
    expectTypeOf<keyof typeof CODES>().toEqualTypeOf<Code>();
    // @ts-expect-error a literal the catalog does not list is not a Code
    const unknown: Code = 'rate_limitted';
    void unknown;
  });

  it("lets any code be a site's own while keeping the catalog's literals", () => {
    const site: AnyCode = 'coupon_expired';
    void site;
    expectTypeOf<Envelope['error']['code']>().toEqualTypeOf<AnyCode>();
  });

  it('states the retry words and next steps as closed unions', () => {
    expectTypeOf<RetryWord>().toEqualTypeOf<'fix_input' | 'no' | 'refetch' | 'get_grant' | 'pay' | 'ask_human' | 'after_delay' | 'once'>();
    expectTypeOf<NextStep>().toEqualTypeOf<'fix_request' | 'wait' | 'give_up'>();
    // @ts-expect-error a retry word outside the vocabulary
    const word: RetryWord = 'later';
    void word;
  });

  it('records per code what an error must carry', () => {
    expectTypeOf<CodeRequirements['invalid_input']>().toEqualTypeOf<{ field: string }>();
    expectTypeOf<CodeRequirements['rate_limited']>().toEqualTypeOf<{ retryAfter: number }>();
    expectTypeOf<CodeRequirements['not_found']>().toEqualTypeOf<{}>();
  });

  it('types the nullable envelope members and the optional problem members', () => {
    expectTypeOf<Envelope['error']['field']>().toEqualTypeOf<string | null>();
    expectTypeOf<Envelope['error']['retry_after']>().toEqualTypeOf<number | null>();
    expectTypeOf<Problem['retry_after_seconds']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<Problem['next_step']>().toEqualTypeOf<NextStep>();
  });
});
