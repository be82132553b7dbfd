// Seed 002's published tables, pinned cell by cell, and the checks its own tests made.
import { describe, expect, it } from 'vitest';
import { clientCell, demoTables, FAILURES, formatTables, policyCell, scriptedService, type FailureName } from '../../src/tools/demo.js';
import { DIALECTS, renderDialect, type Dialect } from '../../src/core/dialects.js';
import { formatCell } from '../../src/agent/loop.js';
import { decode } from '../../src/agent/decode.js';

type Row = [FailureName, string, string, string, string];
// The seed's figures, as printed by its demo: problem, google, stripe, vague.
const SEED: Record<'contract' | 'header' | 'hammer', Row[]> = {
  contract: [
    ['missing_parameter', 'fix currency 1c 0s', 'fix currency 1c 0s', 'fix currency 1c 0s', 'fix (no param) 1c 0s'],
    ['rate_limited', 'ok 2c 30s', 'ok 2c 30s', 'ok 6c 31s', 'ok 6c 31s'],
    ['maintenance', 'ok 2c 30s', 'ok 2c 30s', 'ok 6c 31s', 'ok 6c 31s'],
    ['account_suspended', 'give_up 1c 0s', 'give_up 1c 0s', 'give_up 1c 0s', 'give_up 1c 0s'],
  ],
  header: [
    ['rate_limited', 'ok 2c 30s', 'budget spent 8c 0s', 'budget spent 8c 0s', 'budget spent 8c 0s'],
    ['maintenance', 'ok 2c 30s', 'budget spent 8c 0s', 'budget spent 8c 0s', 'budget spent 8c 0s'],
  ],
  hammer: [
    ['rate_limited', 'budget spent 8c 0s', 'budget spent 8c 0s', 'budget spent 8c 0s', 'budget spent 8c 0s'],
    ['maintenance', 'budget spent 8c 0s', 'budget spent 8c 0s', 'budget spent 8c 0s', 'budget spent 8c 0s'],
  ],
};
const SEED_DIALECTS: Dialect[] = ['problem', 'google', 'stripe', 'vague'];
const cells = (policy: keyof typeof SEED) =>
  SEED[policy].flatMap(([failure, ...figures]) => SEED_DIALECTS.map((dialect, i) => [policy, failure, dialect, figures[i]!] as const));

describe("seed 002's tables, figure for figure", () => {
  it.each([...cells('contract'), ...cells('header'), ...cells('hammer')])('%s policy, %s in %s: %s', async (policy, failure, dialect, figure) => {
    expect(formatCell(await policyCell(policy, failure, dialect))).toBe(figure);
  });

  it('prints the tables with the seed\'s row and column names and layout', async () => {
    const text = formatTables(await demoTables());
    expect(text).toContain('a loop that reads the body, calls made and seconds slept\n  failure           problem               google                stripe                vague');
    expect(text).toContain('  missing_parameter fix currency 1c 0s    fix currency 1c 0s    fix currency 1c 0s    fix (no param) 1c 0s');
    expect(text).toContain('  rate_limited      ok 2c 30s             budget spent 8c 0s    budget spent 8c 0s    budget spent 8c 0s');
  });

  it('costs two calls with a structured delay and six with prose; ignoring both spends the budget', async () => {
    const structured = await policyCell('contract', 'rate_limited', 'problem');
    const prose = await policyCell('contract', 'rate_limited', 'vague');
    const ignored = await policyCell('hammer', 'rate_limited', 'problem');
    expect([structured.calls, prose.calls, ignored.calls]).toEqual([2, 6, 8]);
    // If these ever tie, the loop has stopped reading the delay it was sent.
    expect(structured.calls).toBeLessThan(prose.calls);
  });
});

describe('the envelope column and the agent client', () => {
  it('costs the envelope what problem details cost, with every policy', async () => {
    for (const policy of ['contract', 'header', 'hammer'] as const) {
      for (const failure of Object.keys(FAILURES) as FailureName[]) {
        expect(formatCell(await policyCell(policy, failure, 'envelope'))).toBe(formatCell(await policyCell(policy, failure, 'problem')));
      }
    }
  });

  it.each([
    ['rate_limited', 'problem', 'ok 2c 30s'],
    ['rate_limited', 'google', 'ok 2c 30s'],
    ['rate_limited', 'stripe', 'wait (no delay) 1c 0s'],
    ['maintenance', 'envelope', 'ok 2c 30s'],
    // Stripe's catch-all api_error says less than the 503 it came with: temporarily_unavailable, with no delay to wait, handed back.
    ['maintenance', 'stripe', 'wait (no delay) 1c 0s'],
    ['missing_parameter', 'vague', 'fix (no param) 1c 0s'],
    ['account_suspended', 'google', 'give_up 1c 0s'],
  ] as const)("the client against %s in %s: %s", async (failure, dialect, figure) => {
    expect(formatCell(await clientCell(failure, dialect))).toBe(figure);
  });
});

describe('the dialects and their decoding', () => {
  const expected: Record<FailureName, Record<Dialect, [string, number | null, string | null]>> = {
    missing_parameter: { problem: ['fix', null, 'currency'], google: ['fix', null, 'currency'], stripe: ['fix', null, 'currency'], vague: ['fix', null, null], envelope: ['fix', null, 'currency'] },
    rate_limited: { problem: ['wait', 30, null], google: ['wait', 30, null], stripe: ['wait', null, null], vague: ['wait', null, null], envelope: ['wait', 30, null] },
    maintenance: { problem: ['wait', 30, null], google: ['wait', 30, null], stripe: ['wait', null, null], vague: ['wait', null, null], envelope: ['wait', 30, null] },
    account_suspended: { problem: ['give_up', null, null], google: ['give_up', null, null], stripe: ['give_up', null, null], vague: ['give_up', null, null], envelope: ['give_up', null, null] },
  };
  const cases = (Object.keys(expected) as FailureName[]).flatMap((f) => DIALECTS.map((d) => [f, d, ...expected[f][d]] as const));
  it.each(cases)('%s in %s decodes to %s, delay %s, param %s', (failure, dialect, action, delay, param) => {
    expect(decode(scriptedService(failure, dialect, 0))).toMatchObject({ action, delay, param });
  });

  it('sends Retry-After only with problem details and the envelope, from the body\'s own number', () => {
    for (const dialect of DIALECTS) {
      const r = renderDialect(dialect, FAILURES.rate_limited());
      expect(r.headers['retry-after']).toBe(dialect === 'problem' || dialect === 'envelope' ? '30' : undefined);
    }
  });

  it('renders the seed\'s rate_limited bodies', () => {
    expect(JSON.parse(renderDialect('problem', FAILURES.rate_limited()).body)).toEqual({
      type: 'https://api.example.com/problems/rate_limited', title: 'Too many requests', status: 429, detail: '60 requests per minute per key',
      code: 'rate_limited', next_step: 'wait', retry: 'after_delay', retry_after_seconds: 30,
      // Beside the seed's members, Cloudflare's for agents written against its agent error responses.
      retryable: true, retry_after: 30,
    });
    const google = JSON.parse(renderDialect('google', FAILURES.rate_limited()).body);
    expect(google.error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED' });
    expect(google.error.details).toContainEqual({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '30s' });
    expect(google.error.details[0]).toMatchObject({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'RATE_LIMITED', domain: 'api.example.com' });
    expect(JSON.parse(renderDialect('stripe', FAILURES.rate_limited()).body).error).toMatchObject({ type: 'rate_limit_error', doc_url: 'https://docs.example.com/errors/rate_limited' });
    expect(JSON.parse(renderDialect('vague', FAILURES.rate_limited()).body)).toEqual({ error: 'Too Many Requests, try again later' });
  });
});
