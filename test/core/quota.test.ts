// quotaFrom: the request quota a response announces, from every source, in its order of
// precedence, and from the fixtures captured from real rate limiters (test/fixtures/quota).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_DELAY_SECONDS } from '../../src/core/delay.js';
import type { HeadersInput } from '../../src/core/headers.js';
import { quotaFrom, type Quota } from '../../src/core/quota.js';
import { LIMITERS, QUOTA_FIXTURES, packageVersion, type ExpectedQuota, type QuotaFixture } from '../../scripts/capture-quota.js';

const RUNS = { numRuns: 1000 };
const MAX_INT = 2 ** 31 - 1;
const MAX_RESET_MS = MAX_DELAY_SECONDS * 1000;
/** A fixed "now", and the same moment as a Date header. */
const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);
const DATE = new Date(NOW).toUTCString();
const NOW_S = NOW / 1000;

/** Whether `quota` is what `expected` says: the same counts, the reset within its range. */
function meets(quota: Quota | null, expected: ExpectedQuota | null): boolean {
  if (quota === null || expected === null) return quota === expected;
  const [low, high] = expected.resetSeconds.map((s) => Math.round(s * 1000)) as [number, number];
  return (
    quota.remaining === expected.remaining &&
    quota.limit === expected.limit &&
    quota.windowMs === expected.windowMs &&
    quota.resetMs >= low &&
    quota.resetMs <= high
  );
}

/** Whether `quota` keeps every promise of the Quota type. */
function isQuota(quota: Quota | null): boolean {
  if (quota === null) return true;
  const { remaining, resetMs, limit, windowMs } = quota;
  const whole = (n: unknown, min: number, max: number): boolean => typeof n === 'number' && Number.isInteger(n) && n >= min && n <= max && !Object.is(n, -0);
  return (
    whole(remaining, 0, MAX_INT) &&
    whole(resetMs, 0, MAX_RESET_MS) &&
    (limit === undefined || whole(limit, 1, MAX_INT)) &&
    (windowMs === undefined || whole(windowMs, 1, MAX_RESET_MS)) &&
    Object.keys(quota).every((key) => ['remaining', 'resetMs', 'limit', 'windowMs'].includes(key))
  );
}

// ---------------------------------------------------------------------------------------------

describe('the fixtures of test/fixtures/quota', () => {
  const files = readdirSync(QUOTA_FIXTURES).filter((file) => file.endsWith('.json')).sort();
  const fixtures = files.map((file) => [file, JSON.parse(readFileSync(join(QUOTA_FIXTURES, file), 'utf8')) as QuotaFixture] as const);

  it('are one per captured limiter mode, plus GitHub, OpenAI and Anthropic written from their docs', () => {
    expect(files).toEqual([...LIMITERS.map((mode) => mode.file), 'anthropic.json', 'github.json', 'openai.json'].sort());
  });

  it.each(fixtures)('%s says where it comes from: the version captured, or the docs it is written from', (file, fixture) => {
    const mode = LIMITERS.find((m) => m.file === file);
    if (mode === undefined) {
      expect(fixture.source).toMatch(/^written from https:\/\/\S+ \(\S+ cannot run here\)/);
    } else {
      expect(fixture.limiter).toBe(mode.limiter);
      expect(fixture.version).toBe(packageVersion(mode.limiter));
      expect(fixture.source).toContain(`Captured from ${mode.limiter} ${fixture.version}`);
      expect(fixture.mode).toEqual(mode.mode);
      expect(fixture.responses.map((r) => r.expect)).toEqual(mode.expect);
      // Three allowed, then a refusal.
      expect(fixture.responses.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    }
    for (const response of fixture.responses) {
      expect(Object.keys(response.headers)).toContain('date');
      for (const name of Object.keys(response.headers)) expect(name).toBe(name.toLowerCase());
    }
  });

  it.each(fixtures)('%s: quotaFrom reads each response as the fixture says', (_file, fixture) => {
    for (const { request, headers, expect: expected } of fixture.responses) {
      const quota = quotaFrom(headers, Date.UTC(2000, 0, 1)); // every date counts from the response's Date
      expect(meets(quota, expected), `${request}: ${JSON.stringify(quota)}`).toBe(true);
    }
  });

  it('read an answer from every response: none expects "no quota"', () => {
    for (const [, fixture] of fixtures) for (const response of fixture.responses) expect(response.expect).not.toBeNull();
  });
});

// ---------------------------------------------------------------------------------------------

describe('RateLimit as a List (draft-ietf-httpapi-ratelimit-headers-10)', () => {
  it('reads r and t, and the limit and window of the policy of the same name', () => {
    expect(quotaFrom({ ratelimit: '"default";r=50;t=30', 'ratelimit-policy': '"default";q=100;w=60' })).toEqual({ remaining: 50, resetMs: 30_000, limit: 100, windowMs: 60_000 });
  });

  it('reads no limit or window without a policy, or from a policy of another name', () => {
    expect(quotaFrom({ ratelimit: '"default";r=50;t=30' })).toEqual({ remaining: 50, resetMs: 30_000 });
    expect(quotaFrom({ ratelimit: '"default";r=50;t=30', 'ratelimit-policy': '"other";q=100;w=60' })).toEqual({ remaining: 50, resetMs: 30_000 });
    // A Token is no policy name (draft-10 3: the Item's value MUST be a String).
    expect(quotaFrom({ ratelimit: 'default;r=50;t=30', 'ratelimit-policy': 'default;q=100;w=60' })).toEqual({ remaining: 50, resetMs: 30_000 });
  });

  it('finds the policy among several, and leaves out a zero quota', () => {
    const policy = '"permin";q=50;w=60, "perhr";q=1000;w=3600';
    expect(quotaFrom({ ratelimit: '"perhr";r=900;t=1800', 'ratelimit-policy': policy })).toEqual({ remaining: 900, resetMs: 1_800_000, limit: 1000, windowMs: 3_600_000 });
    expect(quotaFrom({ ratelimit: '"p";r=0;t=5', 'ratelimit-policy': '"p";q=0' })).toEqual({ remaining: 0, resetMs: 5000 });
  });

  it('takes the most restrictive of several policies: the smallest remaining', () => {
    const policy = '"burst";q=10;w=1, "daily";q=1000;w=86400';
    expect(quotaFrom({ ratelimit: '"burst";r=9;t=1, "daily";r=3;t=40000', 'ratelimit-policy': policy })).toEqual({ remaining: 3, resetMs: 40_000_000, limit: 1000, windowMs: 86_400_000 });
    expect(quotaFrom({ ratelimit: '"burst";r=2;t=1, "daily";r=3;t=40000', 'ratelimit-policy': policy })).toEqual({ remaining: 2, resetMs: 1000, limit: 10, windowMs: 1000 });
  });

  it('of equal remaining, the later reset', () => {
    expect(quotaFrom({ ratelimit: '"a";r=0;t=5, "b";r=0;t=50, "c";r=0;t=20' })).toEqual({ remaining: 0, resetMs: 50_000 });
    expect(quotaFrom({ ratelimit: '"a";r=4;t=50, "b";r=4;t=5' })).toEqual({ remaining: 4, resetMs: 50_000 });
  });

  it('reads a List split over several field lines (RFC 9651 3.1), as Node and fetch join them', () => {
    expect(quotaFrom({ ratelimit: ['"a";r=5;t=10', '"b";r=1;t=3'] })).toEqual({ remaining: 1, resetMs: 3000 });
    expect(quotaFrom([['RateLimit', '"a";r=5;t=10'], ['RateLimit', '"b";r=1;t=3']])).toEqual({ remaining: 1, resetMs: 3000 });
  });

  it('counts a policy in another unit (qu) only when it is exhausted, and then until the later reset', () => {
    const policy = '"req";q=100;w=60, "bytes";q=65535;qu="content-bytes";w=10';
    expect(quotaFrom({ ratelimit: '"req";r=80;t=30, "bytes";r=10;t=10', 'ratelimit-policy': policy })).toEqual({ remaining: 80, resetMs: 30_000, limit: 100, windowMs: 60_000 });
    expect(quotaFrom({ ratelimit: '"req";r=80;t=30, "bytes";r=0;t=45', 'ratelimit-policy': policy })).toEqual({ remaining: 0, resetMs: 45_000, limit: 100, windowMs: 60_000 });
    expect(quotaFrom({ ratelimit: '"req";r=80;t=30, "bytes";r=0;t=4', 'ratelimit-policy': policy })).toEqual({ remaining: 0, resetMs: 30_000, limit: 100, windowMs: 60_000 });
    // Only bytes: nothing to say of requests until they run out.
    expect(quotaFrom({ ratelimit: '"bytes";r=10;t=10', 'ratelimit-policy': policy })).toBeNull();
    expect(quotaFrom({ ratelimit: '"bytes";r=0;t=10', 'ratelimit-policy': policy })).toEqual({ remaining: 0, resetMs: 10_000 });
    // qu="requests", and the registry's "request", are requests.
    expect(quotaFrom({ ratelimit: '"a";r=7;t=1', 'ratelimit-policy': '"a";q=9;qu="requests"' })).toEqual({ remaining: 7, resetMs: 1000, limit: 9 });
    expect(quotaFrom({ ratelimit: '"a";r=7;t=1', 'ratelimit-policy': '"a";q=9;qu="request"' })).toEqual({ remaining: 7, resetMs: 1000, limit: 9 });
  });

  it('skips an item without a valid r and t, and reads the others', () => {
    for (const bad of ['"x";r=1', '"x";t=1', '"x";r=-1;t=5', '"x";r=1.5;t=5', '"x";r="3";t=5', '"x";r=3;t=-5', '"x";r=3;t=2.5', '"x";r=?1;t=5', '("x" "y");r=1;t=1']) {
      expect(quotaFrom({ ratelimit: bad }), bad).toBeNull();
      expect(quotaFrom({ ratelimit: `${bad}, "ok";r=4;t=2` }), bad).toEqual({ remaining: 4, resetMs: 2000 });
    }
  });

  it('reads no quota from a policy alone (draft-10 4: r is required, and there is no reset)', () => {
    expect(quotaFrom({ 'ratelimit-policy': '"default";q=100;w=60' })).toBeNull();
    expect(quotaFrom({ ratelimit: '"default";r=999;pk=:dHJpYWwxMjEzMjM=:' })).toBeNull();
  });
});

describe('RateLimit as a Dictionary (draft-07) and the separate fields (drafts -00 to -06)', () => {
  it('reads limit, remaining and reset, with the window of the policy whose quota is the limit', () => {
    expect(quotaFrom({ ratelimit: 'limit=100, remaining=50, reset=30', 'ratelimit-policy': '100;w=60' })).toEqual({ remaining: 50, resetMs: 30_000, limit: 100, windowMs: 60_000 });
    expect(quotaFrom({ ratelimit: 'limit=100, remaining=50, reset=30', 'ratelimit-policy': '10;w=1, 100;w=60' })).toEqual({ remaining: 50, resetMs: 30_000, limit: 100, windowMs: 60_000 });
    expect(quotaFrom({ ratelimit: 'limit=100, remaining=50, reset=30', 'ratelimit-policy': '50;w=60' })).toEqual({ remaining: 50, resetMs: 30_000, limit: 100 });
    expect(quotaFrom({ ratelimit: 'remaining=50, reset=30', 'ratelimit-policy': '100;w=60' })).toEqual({ remaining: 50, resetMs: 30_000, limit: 100, windowMs: 60_000 });
    expect(quotaFrom({ ratelimit: 'remaining=50, reset=30' })).toEqual({ remaining: 50, resetMs: 30_000 });
  });

  it('needs remaining and reset in the Dictionary', () => {
    expect(quotaFrom({ ratelimit: 'limit=100, reset=30' })).toBeNull();
    expect(quotaFrom({ ratelimit: 'limit=100, remaining=50' })).toBeNull();
    expect(quotaFrom({ ratelimit: 'limit=100, remaining=-1, reset=30' })).toBeNull();
    expect(quotaFrom({ ratelimit: 'limit=100, remaining=50, reset=3.5' })).toBeNull();
  });

  it('reads RateLimit-Limit, -Remaining and -Reset, and the window of RateLimit-Policy', () => {
    expect(quotaFrom({ 'ratelimit-limit': '3', 'ratelimit-remaining': '2', 'ratelimit-reset': '5', 'ratelimit-policy': '3;w=5' })).toEqual({ remaining: 2, resetMs: 5000, limit: 3, windowMs: 5000 });
    expect(quotaFrom({ 'ratelimit-limit': '3', 'ratelimit-remaining': '2', 'ratelimit-reset': '5' })).toEqual({ remaining: 2, resetMs: 5000, limit: 3 });
    expect(quotaFrom({ 'ratelimit-remaining': '2', 'ratelimit-reset': '5' })).toEqual({ remaining: 2, resetMs: 5000 });
  });

  it('reads the limit and its window from the quota policies of drafts -00 to -05 (`100, 100;w=60`)', () => {
    expect(quotaFrom({ 'ratelimit-limit': '100, 100;w=60, 1000;w=3600', 'ratelimit-remaining': '7', 'ratelimit-reset': '3' })).toEqual({ remaining: 7, resetMs: 3000, limit: 100, windowMs: 60_000 });
    expect(quotaFrom({ 'ratelimit-limit': '1000, 100;w=60, 1000;w=3600', 'ratelimit-remaining': '7', 'ratelimit-reset': '3' })).toEqual({ remaining: 7, resetMs: 3000, limit: 1000, windowMs: 3_600_000 });
    // WHOOP's X-RateLimit-Limit writes window= (developer.whoop.com/docs/developing/rate-limiting).
    expect(quotaFrom({ 'x-ratelimit-limit': '100, 100;window=60, 10000;window=86400', 'x-ratelimit-remaining': '98', 'x-ratelimit-reset': '3' })).toEqual({ remaining: 98, resetMs: 3000, limit: 100, windowMs: 60_000 });
  });
});

describe('X-RateLimit-* and X-Rate-Limit-*', () => {
  it('reads a delta-seconds reset (@fastify/rate-limit, many gateways)', () => {
    expect(quotaFrom({ 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '10', 'x-ratelimit-reset': '42' })).toEqual({ remaining: 10, resetMs: 42_000, limit: 60 });
    expect(quotaFrom({ 'x-rate-limit-limit': '60', 'x-rate-limit-remaining': '10', 'x-rate-limit-reset': '42' })).toEqual({ remaining: 10, resetMs: 42_000, limit: 60 });
  });

  it('reads an epoch-seconds reset (GitHub) from the Date header, else from now', () => {
    const headers = { 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '4999', 'x-ratelimit-reset': String(NOW_S + 3000) };
    expect(quotaFrom({ ...headers, date: DATE }, NOW + 3_600_000)).toEqual({ remaining: 4999, resetMs: 3_000_000, limit: 5000 });
    expect(quotaFrom(headers, NOW + 1000)).toEqual({ remaining: 4999, resetMs: 2_999_000, limit: 5000 });
    expect(quotaFrom({ ...headers, date: 'not a date' }, NOW + 1000)).toEqual({ remaining: 4999, resetMs: 2_999_000, limit: 5000 });
  });

  it('reads an epoch-ms reset, and decimal epoch seconds (Discord), to the ms', () => {
    expect(quotaFrom({ date: DATE, 'x-ratelimit-remaining': '1', 'x-ratelimit-reset': String(NOW + 1234) })).toEqual({ remaining: 1, resetMs: 1234 });
    expect(quotaFrom({ date: DATE, 'x-ratelimit-remaining': '1', 'x-ratelimit-reset': `${NOW_S + 1}.123` })).toEqual({ remaining: 1, resetMs: 1123 });
  });

  it('gives a reset in the past as 0', () => {
    expect(quotaFrom({ date: DATE, 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW_S - 100) })).toEqual({ remaining: 0, resetMs: 0 });
    expect(quotaFrom({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW_S - 100) }, NOW)).toEqual({ remaining: 0, resetMs: 0 });
  });

  it('needs both a remaining count and a reset', () => {
    expect(quotaFrom({ 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '10' })).toBeNull();
    expect(quotaFrom({ 'x-ratelimit-limit': '60', 'x-ratelimit-reset': '10' })).toBeNull();
    expect(quotaFrom({ 'x-ratelimit-remaining': '10' })).toBeNull();
  });

  it.each(['-1', '1.5', '1e3', '0x10', '', 'ten', '5, 6', '+5'])('refuses the remaining count %j', (remaining) => {
    expect(quotaFrom({ 'x-ratelimit-remaining': remaining, 'x-ratelimit-reset': '10' })).toBeNull();
  });

  it.each(['-1', '1e3', '0x10', '', 'soon', 'Wed, 21 Oct 2015 07:28:00 GMT'])('refuses the reset %j', (reset) => {
    expect(quotaFrom({ 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': reset })).toBeNull();
  });

  it('leaves out a limit that is not a positive integer, and keeps the quota', () => {
    expect(quotaFrom({ 'x-ratelimit-limit': '0', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '9' })).toEqual({ remaining: 0, resetMs: 9000 });
    expect(quotaFrom({ 'x-ratelimit-limit': 'lots', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '9' })).toEqual({ remaining: 0, resetMs: 9000 });
  });
});

describe("OpenAI's x-ratelimit-*-requests", () => {
  const base = { 'x-ratelimit-limit-requests': '60', 'x-ratelimit-remaining-requests': '59', 'x-ratelimit-reset-requests': '1s' };

  it('reads the requests quota, its reset a Go duration to the ms', () => {
    expect(quotaFrom(base)).toEqual({ remaining: 59, resetMs: 1000, limit: 60 });
    expect(quotaFrom({ ...base, 'x-ratelimit-reset-requests': '20ms' })).toEqual({ remaining: 59, resetMs: 20, limit: 60 });
    expect(quotaFrom({ ...base, 'x-ratelimit-reset-requests': '6m0s' })).toEqual({ remaining: 59, resetMs: 360_000, limit: 60 });
    expect(quotaFrom({ ...base, 'x-ratelimit-reset-requests': '1m0.035s' })).toEqual({ remaining: 59, resetMs: 60_035, limit: 60 });
    expect(quotaFrom({ ...base, 'x-ratelimit-reset-requests': '1.5ms' })).toEqual({ remaining: 59, resetMs: 2, limit: 60 });
    expect(quotaFrom({ ...base, 'x-ratelimit-reset-requests': '0s' })).toEqual({ remaining: 59, resetMs: 0, limit: 60 });
  });

  it('reads tokens only when they are spent: then remaining 0 until the later reset', () => {
    expect(quotaFrom({ ...base, 'x-ratelimit-remaining-tokens': '149984', 'x-ratelimit-reset-tokens': '6m0s' })).toEqual({ remaining: 59, resetMs: 1000, limit: 60 });
    expect(quotaFrom({ ...base, 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-reset-tokens': '6m0s' })).toEqual({ remaining: 0, resetMs: 360_000, limit: 60 });
    expect(quotaFrom({ ...base, 'x-ratelimit-reset-requests': '7s', 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-reset-tokens': '20ms' })).toEqual({ remaining: 0, resetMs: 7000, limit: 60 });
    expect(quotaFrom({ 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-reset-tokens': '2s' })).toEqual({ remaining: 0, resetMs: 2000 });
    // Spent tokens without a valid reset say nothing of when.
    expect(quotaFrom({ ...base, 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-reset-tokens': 'soon' })).toEqual({ remaining: 59, resetMs: 1000, limit: 60 });
    expect(quotaFrom({ 'x-ratelimit-remaining-tokens': '0' })).toBeNull();
  });

  it.each<[string, number]>([
    ['6m', 360_000],
    ['1h2m', 3_720_000],
    ['1.5s', 1500],
    [' 2h45m0.5s ', 9_900_500],
    ['999us', 1],
    ['0', 0],
  ])('reads the Go duration %j as %d ms', (duration, resetMs) => {
    expect(quotaFrom({ ...base, 'x-ratelimit-reset-requests': duration })).toEqual({ remaining: 59, resetMs, limit: 60 });
  });

  it.each(['5', '5 s', '1s1m', '-1s', 'ms', '', '1d', '1.s'])('refuses the duration %j', (duration) => {
    expect(quotaFrom({ ...base, 'x-ratelimit-reset-requests': duration })).toBeNull();
  });
});

describe("Anthropic's anthropic-ratelimit-requests-*", () => {
  const at = (ms: number): string => new Date(NOW + ms).toISOString();

  it('reads the requests quota, its reset an RFC 3339 date-time counted from the Date header', () => {
    const headers = { date: DATE, 'anthropic-ratelimit-requests-limit': '50', 'anthropic-ratelimit-requests-remaining': '49', 'anthropic-ratelimit-requests-reset': at(1200) };
    expect(quotaFrom(headers, NOW - 99_999)).toEqual({ remaining: 49, resetMs: 1200, limit: 50 });
    expect(quotaFrom({ ...headers, date: undefined }, NOW + 200)).toEqual({ remaining: 49, resetMs: 1000, limit: 50 });
  });

  it.each<[string, number]>([
    ['2026-12-01T12:00:05Z', 5000],
    ['2026-12-01t12:00:05z', 5000],
    ['2026-12-01 12:00:05Z', 5000],
    ['2026-12-01T12:00:05.25Z', 5250],
    ['2026-12-01T12:00:05.0001Z', 5001],
    ['2026-12-01T13:00:05+01:00', 5000],
    ['2026-12-01T11:30:05-00:30', 5000],
    ['2026-12-01T12:00:60Z', 60_000], // a leap second: the next minute
    ['2026-12-01T11:00:00Z', 0], // past
  ])('reads %j', (reset, resetMs) => {
    expect(quotaFrom({ date: DATE, 'anthropic-ratelimit-requests-remaining': '1', 'anthropic-ratelimit-requests-reset': reset })).toEqual({ remaining: 1, resetMs });
  });

  it.each(['2026-02-30T12:00:00Z', '2026-13-01T12:00:00Z', '2026-12-01T24:00:00Z', '2026-12-01T12:60:00Z', '2026-12-01T12:00:00', '2026-12-01T12:00:00+24:00', '26-12-01T12:00:00Z', 'Tue, 01 Dec 2026 12:00:05 GMT', '1796169904'])(
    'refuses %j',
    (reset) => {
      expect(quotaFrom({ date: DATE, 'anthropic-ratelimit-requests-remaining': '1', 'anthropic-ratelimit-requests-reset': reset })).toBeNull();
    },
  );

  it('reads a spent token limit (tokens, input or output) as remaining 0 until the later reset', () => {
    const requests = { date: DATE, 'anthropic-ratelimit-requests-limit': '50', 'anthropic-ratelimit-requests-remaining': '41', 'anthropic-ratelimit-requests-reset': at(11_000) };
    for (const unit of ['tokens', 'input-tokens', 'output-tokens']) {
      expect(quotaFrom({ ...requests, [`anthropic-ratelimit-${unit}-remaining`]: '0', [`anthropic-ratelimit-${unit}-reset`]: at(60_000) }), unit).toEqual({ remaining: 0, resetMs: 60_000, limit: 50 });
      expect(quotaFrom({ ...requests, [`anthropic-ratelimit-${unit}-remaining`]: '5', [`anthropic-ratelimit-${unit}-reset`]: at(60_000) }), unit).toEqual({ remaining: 41, resetMs: 11_000, limit: 50 });
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('precedence: IETF fields, then X-RateLimit-*, then the vendors; a source never borrows from another', () => {
  const ietf10 = { ratelimit: '"p";r=1;t=1', 'ratelimit-policy': '"p";q=10;w=10' };
  const ietf7 = { ratelimit: 'limit=20, remaining=2, reset=2' };
  const ietf6 = { 'ratelimit-limit': '30', 'ratelimit-remaining': '3', 'ratelimit-reset': '3' };
  const x = { 'x-ratelimit-limit': '40', 'x-ratelimit-remaining': '4', 'x-ratelimit-reset': '4' };
  const xDash = { 'x-rate-limit-limit': '50', 'x-rate-limit-remaining': '5', 'x-rate-limit-reset': '5' };
  const openai = { 'x-ratelimit-limit-requests': '60', 'x-ratelimit-remaining-requests': '6', 'x-ratelimit-reset-requests': '6s' };
  const anthropic = { date: DATE, 'anthropic-ratelimit-requests-limit': '70', 'anthropic-ratelimit-requests-remaining': '7', 'anthropic-ratelimit-requests-reset': new Date(NOW + 7000).toISOString() };

  it('answers from the first source present, in order', () => {
    const all = { ...ietf6, ...x, ...xDash, ...openai, ...anthropic };
    expect(quotaFrom({ ...all, ...ietf10 })).toEqual({ remaining: 1, resetMs: 1000, limit: 10, windowMs: 10_000 });
    expect(quotaFrom({ ...all, ...ietf7 })).toEqual({ remaining: 2, resetMs: 2000, limit: 20 });
    expect(quotaFrom(all)).toEqual({ remaining: 3, resetMs: 3000, limit: 30 });
    expect(quotaFrom({ ...x, ...xDash, ...openai, ...anthropic })).toEqual({ remaining: 4, resetMs: 4000, limit: 40 });
    expect(quotaFrom({ ...xDash, ...openai, ...anthropic })).toEqual({ remaining: 5, resetMs: 5000, limit: 50 });
    expect(quotaFrom({ ...openai, ...anthropic })).toEqual({ remaining: 6, resetMs: 6000, limit: 60 });
    expect(quotaFrom(anthropic)).toEqual({ remaining: 7, resetMs: 7000, limit: 70 });
  });

  it('falls through a malformed or partial source to the next', () => {
    expect(quotaFrom({ ratelimit: '"p";r=oops;t=1', ...x })).toEqual({ remaining: 4, resetMs: 4000, limit: 40 });
    expect(quotaFrom({ ratelimit: 'limit=20, remaining=2', ...x })).toEqual({ remaining: 4, resetMs: 4000, limit: 40 });
    expect(quotaFrom({ ratelimit: ')(', ...ietf6 })).toEqual({ remaining: 3, resetMs: 3000, limit: 30 });
    expect(quotaFrom({ ...ietf6, 'ratelimit-reset': 'never', ...x })).toEqual({ remaining: 4, resetMs: 4000, limit: 40 });
    expect(quotaFrom({ ...x, 'x-ratelimit-remaining': '-4', ...openai })).toEqual({ remaining: 6, resetMs: 6000, limit: 60 });
  });

  it('does not mix fields of two sources into one quota', () => {
    // A remaining count from one family and a reset from another are no quota.
    expect(quotaFrom({ 'ratelimit-remaining': '3', 'x-ratelimit-reset': '4' })).toBeNull();
    // The limit stays with its own family.
    expect(quotaFrom({ 'ratelimit-limit': '30', 'x-ratelimit-remaining': '4', 'x-ratelimit-reset': '4' })).toEqual({ remaining: 4, resetMs: 4000 });
    expect(quotaFrom({ ratelimit: '"p";r=1;t=1', 'ratelimit-limit': '30' })).toEqual({ remaining: 1, resetMs: 1000 });
  });

  it('reads no Retry-After: a delay is delayFrom’s, not a quota', () => {
    expect(quotaFrom({ 'retry-after': '30' })).toBeNull();
    expect(quotaFrom({ 'retry-after': '30', ...x })).toEqual({ remaining: 4, resetMs: 4000, limit: 40 });
  });
});

describe('whatever it is given', () => {
  it('answers null for no headers at all', () => {
    expect(quotaFrom(null)).toBeNull();
    expect(quotaFrom(undefined)).toBeNull();
    expect(quotaFrom({})).toBeNull();
    expect(quotaFrom(new Headers())).toBeNull();
  });

  it('reads a fetch Headers, entry pairs and a record with numbers alike', () => {
    const pairs: [string, string][] = [['X-RateLimit-Remaining', '4'], ['X-RateLimit-Reset', '4']];
    expect(quotaFrom(new Headers(pairs))).toEqual({ remaining: 4, resetMs: 4000 });
    expect(quotaFrom(pairs)).toEqual({ remaining: 4, resetMs: 4000 });
    expect(quotaFrom({ 'x-ratelimit-remaining': 4, 'x-ratelimit-reset': 4 })).toEqual({ remaining: 4, resetMs: 4000 });
  });

  it('caps absurd values: remaining and limit at 2^31 - 1, resets and windows at MAX_DELAY_SECONDS in ms', () => {
    const huge = '9'.repeat(400);
    expect(quotaFrom({ 'x-ratelimit-limit': huge, 'x-ratelimit-remaining': huge, 'x-ratelimit-reset': '999999999' })).toEqual({ remaining: MAX_INT, resetMs: 999_999_999_000, limit: MAX_INT });
    expect(quotaFrom({ date: DATE, 'x-ratelimit-remaining': '1', 'x-ratelimit-reset': huge })).toEqual({ remaining: 1, resetMs: MAX_RESET_MS });
    expect(quotaFrom({ ratelimit: '"p";r=999999999999999;t=999999999999999', 'ratelimit-policy': '"p";q=999999999999999;w=999999999999999' })).toEqual({
      remaining: MAX_INT,
      resetMs: MAX_RESET_MS,
      limit: MAX_INT,
      windowMs: MAX_RESET_MS,
    });
    expect(quotaFrom({ 'x-ratelimit-remaining-requests': '1', 'x-ratelimit-reset-requests': '99999999999999h' })).toEqual({ remaining: 1, resetMs: MAX_RESET_MS });
    expect(quotaFrom({ date: DATE, 'anthropic-ratelimit-requests-remaining': '1', 'anthropic-ratelimit-requests-reset': '9999-12-31T23:59:59Z' })).toEqual({ remaining: 1, resetMs: MAX_RESET_MS });
  });

  it('survives a Headers whose get throws, and answers from nothing', () => {
    const hostile = { get: () => { throw new Error('boom'); }, has: () => true, [Symbol.iterator]: function* () {} } as unknown as Headers;
    expect(quotaFrom(hostile)).toBeNull();
  });
});

// ---------------------------------------------------------------------------------------------
// Properties

/** The names quotaFrom reads, so that random records hit them. */
const NAMES = [
  'date',
  'ratelimit',
  'ratelimit-policy',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-rate-limit-limit',
  'x-rate-limit-remaining',
  'x-rate-limit-reset',
  'x-ratelimit-limit-requests',
  'x-ratelimit-remaining-requests',
  'x-ratelimit-reset-requests',
  'x-ratelimit-remaining-tokens',
  'x-ratelimit-reset-tokens',
  'anthropic-ratelimit-requests-limit',
  'anthropic-ratelimit-requests-remaining',
  'anthropic-ratelimit-requests-reset',
  'anthropic-ratelimit-tokens-remaining',
  'anthropic-ratelimit-tokens-reset',
];

/** Values near the formats, and anything at all. */
const value = fc.oneof(
  fc.string(),
  fc.stringMatching(/^[ \t]?\d{1,20}(\.\d{1,4})?[ \t]?$/),
  fc.stringMatching(/^-?\d{1,3}(h|m|s|ms|us|ns)(\d{1,3}(m|s|ms))?$/),
  fc.stringMatching(/^("[a-z]{1,3}"|[a-z]{1,3});r=-?\d{1,16}(\.\d)?;t=-?\d{1,16}(, ?"[a-z]";r=\d;t=\d)?$/),
  fc.stringMatching(/^("[a-z]{1,3}"|\d{1,4});q=\d{1,16};w=\d{1,16}(;qu="[a-z-]{1,14}")?$/),
  fc.stringMatching(/^limit=\d{1,16}, remaining=-?\d{1,16}, reset=\d{1,16}(\.\d)?$/),
  fc.stringMatching(/^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/),
  fc.date({ noInvalidDate: true }).map((d) => d.toUTCString()),
);
const headerRecord = fc.dictionary(fc.oneof(fc.constantFrom(...NAMES), fc.string()), fc.oneof(value, fc.array(value, { maxLength: 3 }), fc.integer(), fc.constant(null)), { maxKeys: 12 });
const anyNow = fc.oneof(fc.integer(), fc.double(), fc.constant(undefined));

describe('properties', () => {
  it('never throws, and any answer is a Quota as the type promises', () => {
    fc.assert(
      fc.property(headerRecord, anyNow, (headers, now) => {
        expect(isQuota(quotaFrom(headers as HeadersInput, now))).toBe(true);
      }),
      RUNS,
    );
  });

  it('never throws on arbitrary strings in every field it reads', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(...NAMES), fc.string({ unit: 'binary', maxLength: 60 })), { maxLength: 8 }), (pairs) => {
        expect(isQuota(quotaFrom(pairs))).toBe(true);
      }),
      RUNS,
    );
  });

  /** A header name in a mixed case, per `seed`'s bits. */
  const mixedCase = (name: string, seed: number): string => [...name].map((c, i) => ((seed >>> i % 31) & 1 ? c.toUpperCase() : c)).join('');

  it('does not care about the case of header names', () => {
    fc.assert(
      fc.property(headerRecord, fc.integer(), (headers, seed) => {
        const renamed = Object.fromEntries(Object.entries(headers).map(([name, v]) => [mixedCase(name, seed), v]));
        // A record may hold two spellings of one name; only compare records whose names stay distinct.
        fc.pre(new Set(Object.keys(renamed).map((n) => n.toLowerCase())).size === Object.keys(headers).length);
        expect(quotaFrom(renamed as HeadersInput, NOW)).toEqual(quotaFrom(headers as HeadersInput, NOW));
      }),
      RUNS,
    );
  });

  // A quota written in each format the sources read, and the quota it must read back as.
  const written = fc.record({
    remaining: fc.nat(MAX_INT),
    resetSeconds: fc.nat(10_000_000),
    resetMs: fc.nat(10_000_000_000),
    limit: fc.integer({ min: 1, max: MAX_INT }),
    windowSeconds: fc.integer({ min: 1, max: 10_000_000 }),
    seed: fc.integer(),
  });
  type Written = typeof written extends fc.Arbitrary<infer T> ? T : never;

  /** Go's Duration.String() of a whole number of ms: `20ms`, `6m0s`, `1h2m3.456s`. */
  const goDuration = (ms: number): string => {
    if (ms === 0) return '0s';
    if (ms < 1000) return `${ms}ms`;
    const h = Math.floor(ms / 3_600_000);
    const m = Math.floor((ms % 3_600_000) / 60_000);
    return `${h ? `${h}h` : ''}${h || m ? `${m}m` : ''}${(ms % 60_000) / 1000}s`;
  };

  const FORMATS: Record<string, (q: Written) => [Record<string, string>, Quota]> = {
    'draft-10 List': (q) => [
      { ratelimit: `"p";r=${q.remaining};t=${q.resetSeconds}`, 'ratelimit-policy': `"p";q=${q.limit};w=${q.windowSeconds}` },
      { remaining: q.remaining, resetMs: q.resetSeconds * 1000, limit: q.limit, windowMs: q.windowSeconds * 1000 },
    ],
    'draft-07 Dictionary': (q) => [
      { ratelimit: `limit=${q.limit}, remaining=${q.remaining}, reset=${q.resetSeconds}`, 'ratelimit-policy': `${q.limit};w=${q.windowSeconds}` },
      { remaining: q.remaining, resetMs: q.resetSeconds * 1000, limit: q.limit, windowMs: q.windowSeconds * 1000 },
    ],
    'draft-06 fields': (q) => [
      { 'ratelimit-limit': `${q.limit}`, 'ratelimit-remaining': `${q.remaining}`, 'ratelimit-reset': `${q.resetSeconds}`, 'ratelimit-policy': `${q.limit};w=${q.windowSeconds}` },
      { remaining: q.remaining, resetMs: q.resetSeconds * 1000, limit: q.limit, windowMs: q.windowSeconds * 1000 },
    ],
    'X-RateLimit-* in delta seconds': (q) => [
      { 'x-ratelimit-limit': `${q.limit}`, 'x-ratelimit-remaining': `${q.remaining}`, 'x-ratelimit-reset': `${q.resetSeconds}` },
      { remaining: q.remaining, resetMs: q.resetSeconds * 1000, limit: q.limit },
    ],
    'X-RateLimit-* in epoch seconds': (q) => [
      { date: DATE, 'x-ratelimit-limit': `${q.limit}`, 'x-ratelimit-remaining': `${q.remaining}`, 'x-ratelimit-reset': `${NOW_S + q.resetSeconds}` },
      { remaining: q.remaining, resetMs: q.resetSeconds * 1000, limit: q.limit },
    ],
    'X-RateLimit-* in epoch ms': (q) => [
      { date: DATE, 'x-ratelimit-limit': `${q.limit}`, 'x-ratelimit-remaining': `${q.remaining}`, 'x-ratelimit-reset': `${NOW + q.resetMs}` },
      { remaining: q.remaining, resetMs: q.resetMs, limit: q.limit },
    ],
    'X-Rate-Limit-*': (q) => [
      { 'x-rate-limit-limit': `${q.limit}`, 'x-rate-limit-remaining': `${q.remaining}`, 'x-rate-limit-reset': `${q.resetSeconds}` },
      { remaining: q.remaining, resetMs: q.resetSeconds * 1000, limit: q.limit },
    ],
    OpenAI: (q) => [
      { 'x-ratelimit-limit-requests': `${q.limit}`, 'x-ratelimit-remaining-requests': `${q.remaining}`, 'x-ratelimit-reset-requests': goDuration(q.resetMs) },
      { remaining: q.remaining, resetMs: q.resetMs, limit: q.limit },
    ],
    Anthropic: (q) => [
      { date: DATE, 'anthropic-ratelimit-requests-limit': `${q.limit}`, 'anthropic-ratelimit-requests-remaining': `${q.remaining}`, 'anthropic-ratelimit-requests-reset': new Date(NOW + q.resetMs).toISOString() },
      { remaining: q.remaining, resetMs: q.resetMs, limit: q.limit },
    ],
  };

  it.each(Object.keys(FORMATS))('reads back a quota written as %s, in any header case', (format) => {
    fc.assert(
      fc.property(written, (q) => {
        const [headers, quota] = FORMATS[format]!(q);
        expect(quotaFrom(headers, NOW - 12_345)).toEqual(quota);
        expect(quotaFrom(Object.fromEntries(Object.entries(headers).map(([name, v]) => [mixedCase(name, q.seed), v])), NOW - 12_345)).toEqual(quota);
      }),
      RUNS,
    );
  });
});
