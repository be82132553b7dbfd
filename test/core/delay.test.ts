import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_DELAY_SECONDS, delayFrom, parseHttpDate, retryAfterSeconds } from '../../src/core/delay.js';
import type { HeadersInput } from '../../src/core/headers.js';

const RUNS = { numRuns: 2000 };
/** RFC 9110's example date, Sun, 06 Nov 1994 08:49:37 GMT, in ms. */
const RFC_EXAMPLE = Date.UTC(1994, 10, 6, 8, 49, 37);
/** A fixed "now" 37 seconds before the RFC example. */
const NOW_1994 = Date.UTC(1994, 10, 6, 8, 49, 0);
const NOW = Date.UTC(2026, 0, 1, 0, 0, 0);
const NOW_S = NOW / 1000;

const isDelay = (value: unknown): boolean =>
  value === null || (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_DELAY_SECONDS && !Object.is(value, -0));

describe('retryAfterSeconds with delay-seconds (RFC 9110 10.2.3: 1*DIGIT)', () => {
  it.each<[string, number]>([
    ['0', 0],
    ['30', 30],
    [' 30 ', 30],
    ['\t30\t', 30],
    ['030', 30],
    ['000', 0],
    ['120', 120],
    ['2147483646', 2_147_483_646],
    // A fraction, which servers send though RFC 9110 allows none (Shopify: 2.0), rounded up.
    ['2.0', 2],
    ['1.5', 2],
    ['0.001', 1],
    [' 30.000 ', 30],
  ])('reads %j as %d seconds', (value, expected) => {
    expect(retryAfterSeconds(value, NOW)).toBe(expected);
  });

  it.each<[string | null | undefined]>([
    ['0x10'], // Number() reads 16
    ['1e3'], // Number() reads 1000
    ['-1'],
    [''], // Number('') is 0: "retry now"
    ['   '],
    ['+5'],
    ['5s'],
    ['30 s'],
    ['3 0'],
    ['30,'],
    ['.5'],
    ['5.'],
    ['1.5.2'],
    ['30, 40'], // two Retry-After fields combined: ambiguous
    ['Infinity'],
    ['NaN'],
    ['\u0663\u0660'], // Arabic-Indic digits
    ['\uff13\uff10'], // full-width digits
    ['soon'],
    [null],
    [undefined],
  ])('refuses %j: null, never a "retry now" 0', (value) => {
    expect(retryAfterSeconds(value, NOW)).toBeNull();
  });

  it.each<[string, number]>([
    ['2147483647', MAX_DELAY_SECONDS],
    ['2147483648', MAX_DELAY_SECONDS],
    ['99999999999999999999', MAX_DELAY_SECONDS],
    ['9'.repeat(400), MAX_DELAY_SECONDS], // Number() gives Infinity
    ['0'.repeat(400) + '7', 7],
  ])('caps a huge digit string (%s) at MAX_DELAY_SECONDS instead of Infinity', (value, expected) => {
    expect(retryAfterSeconds(value, NOW)).toBe(expected);
  });

  it('reads any digit string as its number, capped at MAX_DELAY_SECONDS', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{1,40}$/), fc.stringMatching(/^[ \t]{0,3}$/), fc.stringMatching(/^[ \t]{0,3}$/), (digits, before, after) => {
        const expected = BigInt(digits) >= BigInt(MAX_DELAY_SECONDS) ? MAX_DELAY_SECONDS : Number(digits);
        expect(retryAfterSeconds(before + digits + after, NOW)).toBe(expected);
      }),
      RUNS,
    );
  });
});

describe('retryAfterSeconds with an HTTP-date (RFC 9110 5.6.7)', () => {
  it.each<[string, string, number]>([
    ['IMF-fixdate', 'Sun, 06 Nov 1994 08:49:37 GMT', 37],
    ['obsolete RFC 850 date', 'Sunday, 06-Nov-94 08:49:37 GMT', 37],
    ['asctime date, day padded with a space', 'Sun Nov  6 08:49:37 1994', 37],
    ['asctime date, day padded with a zero', 'Sun Nov 06 08:49:37 1994', 37],
    ['asctime date, day not padded', 'Sun Nov 6 08:49:37 1994', 37],
    ['IMF-fixdate in lower case', 'sun, 06 nov 1994 08:49:37 gmt', 37],
    ['IMF-fixdate whose weekday does not match the date (tolerated)', 'Mon, 06 Nov 1994 08:49:37 GMT', 37],
    ['IMF-fixdate with surrounding whitespace', '  Sun, 06 Nov 1994 08:49:37 GMT\t', 37],
    ['date one day ahead', 'Mon, 07 Nov 1994 08:49:37 GMT', 86_437],
    ['date now', 'Sun, 06 Nov 1994 08:49:00 GMT', 0],
    ['date in the past', 'Sat, 05 Nov 1994 08:49:37 GMT', 0],
    ['date years in the past', 'Thu, 01 Jan 1970 00:00:00 GMT', 0],
    ['leap second 60', 'Sun, 06 Nov 1994 08:49:60 GMT', 60],
  ])('counts an %s from now: %s', (_form, value, expected) => {
    expect(retryAfterSeconds(value, NOW_1994)).toBe(expected);
  });

  it('rounds a date that is a fraction of a second away up to a whole second', () => {
    expect(retryAfterSeconds('Sun, 06 Nov 1994 08:49:37 GMT', RFC_EXAMPLE - 1)).toBe(1);
    expect(retryAfterSeconds('Sun, 06 Nov 1994 08:49:37 GMT', RFC_EXAMPLE - 1001)).toBe(2);
    expect(retryAfterSeconds('Sun, 06 Nov 1994 08:49:37 GMT', RFC_EXAMPLE + 1)).toBe(0);
  });

  it('caps a date in the far future at MAX_DELAY_SECONDS', () => {
    expect(retryAfterSeconds('Fri, 31 Dec 9999 23:59:59 GMT', NOW)).toBe(MAX_DELAY_SECONDS);
  });

  it('uses the current time when now is not given or not a usable number', () => {
    const inOneHour = new Date(Date.now() + 3_600_000).toUTCString();
    for (const now of [undefined, Number.NaN, Number.POSITIVE_INFINITY, 1e20]) {
      const seconds = retryAfterSeconds(inOneHour, now);
      expect(seconds).toBeGreaterThanOrEqual(3598);
      expect(seconds).toBeLessThanOrEqual(3600);
    }
  });
});

describe('parseHttpDate', () => {
  it.each<[string, number]>([
    ['Sun, 06 Nov 1994 08:49:37 GMT', RFC_EXAMPLE],
    ['Sunday, 06-Nov-94 08:49:37 GMT', RFC_EXAMPLE],
    ['Sun Nov  6 08:49:37 1994', RFC_EXAMPLE],
    ['Thu, 29 Feb 2024 12:00:00 GMT', Date.UTC(2024, 1, 29, 12)], // leap year
    ['Tue, 29 Feb 2000 00:00:00 GMT', Date.UTC(2000, 1, 29)], // divisible by 400: leap
    ['Thu, 01 Jan 1970 00:00:00 GMT', 0],
    ['Wed, 31 Dec 1969 23:59:59 GMT', -1000],
    ['Fri, 31 Dec 9999 23:59:59 GMT', Date.UTC(9999, 11, 31, 23, 59, 59)],
    ['Wed, 09 Nov 1994 23:59:59 GMT', Date.UTC(1994, 10, 9, 23, 59, 59)],
    ['Wednesday, 09-Nov-94 23:59:59 GMT', Date.UTC(1994, 10, 9, 23, 59, 59)],
    ['Wed Dec 31 00:00:00 2025', Date.UTC(2025, 11, 31)],
  ])('reads %j as its UTC time', (value, expected) => {
    expect(parseHttpDate(value, NOW)).toBe(expected);
  });

  it('reads years 0-99 as those years, not as 1900-1999 (Date.UTC would)', () => {
    const year50 = new Date(0);
    year50.setUTCFullYear(50, 0, 1);
    expect(parseHttpDate('Sat, 01 Jan 0050 00:00:00 GMT', NOW)).toBe(year50.getTime());
  });

  it.each<[string, string]>([
    ['February 30', 'Wed, 30 Feb 1994 08:49:37 GMT'],
    ['February 29 of a common year', 'Wed, 29 Feb 2023 08:49:37 GMT'],
    ['February 29 of 1900 (divisible by 100, not 400)', 'Thu, 29 Feb 1900 00:00:00 GMT'],
    ['April 31', 'Sun, 31 Apr 1994 08:49:37 GMT'],
    ['day 00', 'Sun, 00 Nov 1994 08:49:37 GMT'],
    ['day 32', 'Sun, 32 Nov 1994 08:49:37 GMT'],
    ['hour 24', 'Sun, 06 Nov 1994 24:00:00 GMT'],
    ['hour 25', 'Sun, 06 Nov 1994 25:49:37 GMT'],
    ['minute 60', 'Sun, 06 Nov 1994 08:60:37 GMT'],
    ['second 61', 'Sun, 06 Nov 1994 08:49:61 GMT'],
    ['hour 25 in an RFC 850 date', 'Sunday, 06-Nov-94 25:49:37 GMT'],
    ['asctime day 31 of November', 'Sun Nov 31 08:49:37 1994'],
    ['a weekday that is not a day name', 'Foo, 06 Nov 1994 08:49:37 GMT'],
    ['a month that is not a month name', 'Sun, 06 Foo 1994 08:49:37 GMT'],
    ['a long weekday in an IMF-fixdate', 'Sunday, 06 Nov 1994 08:49:37 GMT'],
    ['a short weekday in an RFC 850 date', 'Sun, 06-Nov-94 08:49:37 GMT'],
    ['a four-digit year in an RFC 850 date', 'Sunday, 06-Nov-1994 08:49:37 GMT'],
    ['a one-digit day in an IMF-fixdate', 'Sun, 6 Nov 1994 08:49:37 GMT'],
    ['a two-digit year in an IMF-fixdate', 'Sun, 06 Nov 94 08:49:37 GMT'],
    ['no zone', 'Sun, 06 Nov 1994 08:49:37'],
    ['UTC instead of GMT', 'Sun, 06 Nov 1994 08:49:37 UTC'],
    ['a numeric zone', 'Sun, 06 Nov 1994 08:49:37 +0000'],
    ['a zone on an asctime date', 'Sun Nov  6 08:49:37 1994 GMT'],
    ['one-digit hour', 'Sun, 06 Nov 1994 8:49:37 GMT'],
    ['no comma', 'Sun 06 Nov 1994 08:49:37 GMT'],
    ['an ISO 8601 timestamp', '1994-11-06T08:49:37Z'],
    ['the empty string', ''],
    ['a date with trailing text', 'Sun, 06 Nov 1994 08:49:37 GMT; later'],
  ])('refuses %s', (_reason, value) => {
    expect(parseHttpDate(value, NOW)).toBeNull();
    expect(retryAfterSeconds(value, NOW_1994)).toBeNull();
  });

  it('refuses an epoch number as a date (Retry-After reads it as delay-seconds instead)', () => {
    expect(parseHttpDate('784111777', NOW)).toBeNull();
    expect(retryAfterSeconds('784111777', NOW)).toBe(784_111_777);
  });

  // RFC 9110 5.6.7: a two-digit year more than 50 years in the future is the previous century.
  it.each<[string, number, string, number]>([
    ['2026-01-01', NOW, 'Sunday, 06-Nov-94 08:49:37 GMT', 1994],
    ['2026-01-01', NOW, 'Thursday, 01-Jan-26 00:00:00 GMT', 2026],
    ['2026-01-01', NOW, 'Friday, 01-Jan-75 00:00:00 GMT', 2075],
    ['2026-01-01', NOW, 'Wednesday, 01-Jan-76 00:00:00 GMT', 2076], // exactly 50 years ahead: not more
    ['2026-01-01', NOW, 'Wednesday, 01-Jan-76 00:00:01 GMT', 1976], // one second more
    ['2026-01-01', NOW, 'Friday, 31-Dec-76 00:00:00 GMT', 1976],
    ['2026-01-01', NOW, 'Saturday, 01-Jan-00 00:00:00 GMT', 2000],
    ['2090-01-01', Date.UTC(2090, 0, 1), 'Friday, 01-Jan-00 00:00:00 GMT', 2100],
    ['2090-01-01', Date.UTC(2090, 0, 1), 'Friday, 01-Jan-40 00:00:00 GMT', 2140],
    ['2090-01-01', Date.UTC(2090, 0, 1), 'Friday, 01-Jan-41 00:00:00 GMT', 2041],
  ])('with now %s reads the RFC 850 date %j in the year %d', (_label, now, value, year) => {
    const parsed = parseHttpDate(value, now);
    expect(parsed).not.toBeNull();
    expect(new Date(parsed!).getUTCFullYear()).toBe(year);
  });

  it('checks February 29 in the century the 50-year rule chose', () => {
    expect(parseHttpDate('Tuesday, 29-Feb-00 00:00:00 GMT', NOW)).toBe(Date.UTC(2000, 1, 29)); // 2000 is a leap year
    expect(parseHttpDate('Monday, 29-Feb-00 00:00:00 GMT', Date.UTC(2090, 0, 1))).toBeNull(); // 2100 is not
  });

  it('reads back every IMF-fixdate that Date#toUTCString writes, to the second', () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(1000, 0, 1), max: Date.UTC(9999, 11, 31, 23, 59, 59) }), (ms) => {
        expect(parseHttpDate(new Date(ms).toUTCString(), NOW)).toBe(ms - (((ms % 1000) + 1000) % 1000));
      }),
      RUNS,
    );
  });

  it('accepts exactly the calendar dates and times that exist', () => {
    const month = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
    const pad = (n: number, width = 2): string => String(n).padStart(width, '0');
    fc.assert(
      fc.property(
        fc.integer({ min: 1000, max: 9999 }),
        fc.integer({ min: 0, max: 11 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
        (year, m, day, hour, minute, second) => {
          const text = `Mon, ${pad(day)} ${month[m]} ${year} ${pad(hour)}:${pad(minute)}:${pad(second)} GMT`;
          const probe = new Date(Date.UTC(year, m, day));
          const exists = day >= 1 && probe.getUTCDate() === day && hour <= 23 && minute <= 59 && second <= 60;
          expect(parseHttpDate(text, NOW)).toBe(exists ? Date.UTC(year, m, day, hour, minute, second) : null);
        },
      ),
      RUNS,
    );
  });

  it('returns null for arbitrary strings it cannot read, without throwing', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (value) => {
        const parsed = parseHttpDate(value, NOW);
        expect(parsed === null || Number.isInteger(parsed)).toBe(true);
      }),
      RUNS,
    );
  });

  it('answers quickly on long adversarial inputs (no catastrophic backtracking)', () => {
    const inputs = ['Sun, 06 Nov 1994 08:49:37 GMT'.repeat(10_000), ' '.repeat(100_000) + 'x', '1'.repeat(100_000) + 'x', `Sun Nov ${' '.repeat(100_000)}6`];
    const start = performance.now();
    for (const value of inputs) {
      expect(parseHttpDate(value, NOW)).toBeNull();
      expect(retryAfterSeconds(value, NOW)).toBeNull();
    }
    expect(performance.now() - start).toBeLessThan(1000);
  });

  it('reads long adversarial values of every delay header quickly (no catastrophic backtracking)', () => {
    const names = ['retry-after', 'retry-after-ms', 'x-ms-retry-after-ms', 'ratelimit', 'ratelimit-reset', 'x-ratelimit-reset-requests', 'x-ratelimit-reset-tokens', 'x-ratelimit-reset', 'x-rate-limit-reset', 'date'];
    const values = ['1'.repeat(100_000) + 'x', '1.' + '1'.repeat(100_000) + 'x', '1h'.repeat(50_000), '1'.repeat(100_000) + 'm1', '"a";r=0;t=1, '.repeat(10_000) + ';', `1${' '.repeat(100_000)}x`, `1s${'\t'.repeat(100_000)}1`];
    const start = performance.now();
    for (const value of values) {
      expect(delayFrom(Object.fromEntries(names.map((name) => [name, value])), undefined, NOW)).toBeNull();
    }
    expect(performance.now() - start).toBeLessThan(2000);
  });
});

describe('HTTP-dates under a non-UTC time zone (TZ=America/New_York)', () => {
  const ROOT = fileURLToPath(new URL('../../', import.meta.url));
  const MODULE = pathToFileURL(fileURLToPath(new URL('../../src/core/delay.ts', import.meta.url))).href;
  const DATES = [
    'Sun, 06 Nov 1994 08:49:37 GMT',
    'Sunday, 06-Nov-94 08:49:37 GMT',
    'Sun Nov  6 08:49:37 1994',
    'Sun Jul  6 23:30:00 2025', // summer time in New York
    'Sunday, 06-Jul-25 23:30:00 GMT',
    'Wed, 29 Feb 2023 08:49:37 GMT',
  ];
  const SCRIPT = `
    const { parseHttpDate, retryAfterSeconds, delayFrom } = await import(process.argv[1]);
    const [dates, now] = JSON.parse(process.argv[2]);
    console.log(JSON.stringify({
      offset: new Date(2000, 0, 1).getTimezoneOffset(),
      dateParseAsctime: Date.parse('Sun Nov  6 08:49:37 1994'),
      parsed: dates.map((d) => parseHttpDate(d, now)),
      seconds: dates.map((d) => retryAfterSeconds(d, now)),
      fromDateHeader: delayFrom({ date: 'Sun Nov  6 08:49:00 1994', 'retry-after': 'Sun Nov  6 08:49:37 1994' }, undefined, now),
    }));
  `;
  const run = (tz: string) =>
    JSON.parse(
      execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT, MODULE, JSON.stringify([DATES, NOW_1994])], {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, TZ: tz },
      }),
    ) as { offset: number; dateParseAsctime: number; parsed: (number | null)[]; seconds: (number | null)[]; fromDateHeader: number | null };

  it('gives the same results in New York as in UTC and in this process, and the child really is off UTC', () => {
    const utc = run('UTC');
    const newYork = run('America/New_York');
    // The child must really run off UTC, or this test could not fail.
    expect(utc.offset).toBe(0);
    expect(newYork.offset).toBe(300);
    // The pitfall this guards against: V8 reads asctime in local time.
    expect(newYork.dateParseAsctime - utc.dateParseAsctime).toBe(5 * 3_600_000);

    const here = { parsed: DATES.map((d) => parseHttpDate(d, NOW_1994)), seconds: DATES.map((d) => retryAfterSeconds(d, NOW_1994)) };
    expect(here.parsed).toEqual([RFC_EXAMPLE, RFC_EXAMPLE, RFC_EXAMPLE, Date.UTC(2025, 6, 6, 23, 30), Date.UTC(2025, 6, 6, 23, 30), null]);
    expect(here.seconds.slice(0, 3)).toEqual([37, 37, 37]);
    for (const child of [utc, newYork]) {
      expect(child.parsed).toEqual(here.parsed);
      expect(child.seconds).toEqual(here.seconds);
      expect(child.fromDateHeader).toBe(37);
    }
  }, 60_000);
});

describe('delayFrom reads each source alone', () => {
  const epochIn = (seconds: number): string => String(NOW_S + seconds);
  it.each<[string, HeadersInput, unknown, number | null]>([
    // Retry-After (RFC 9110 10.2.3)
    ['Retry-After delay-seconds', { 'Retry-After': '30' }, undefined, 30],
    ['Retry-After 0', { 'retry-after': '0' }, undefined, 0],
    ['Retry-After HTTP-date', { 'retry-after': 'Thu, 01 Jan 2026 00:01:30 GMT' }, undefined, 90],
    ['Retry-After HTTP-date in the past', { 'retry-after': 'Wed, 31 Dec 2025 00:00:00 GMT' }, undefined, 0],
    // retry-after-ms (OpenAI)
    ['retry-after-ms whole', { 'retry-after-ms': '2000' }, undefined, 2],
    ['retry-after-ms rounded up', { 'retry-after-ms': '1500' }, undefined, 2],
    ['retry-after-ms float', { 'retry-after-ms': '0.5' }, undefined, 1],
    ['retry-after-ms 0', { 'retry-after-ms': '0' }, undefined, 0],
    // Vendors' own members of the body: Cloudflare's agent errors and Discord (seconds, Discord's a
    // float), Telegram's parameters.retry_after, Kubernetes' details.retryAfterSeconds.
    ['Cloudflare retry_after', {}, { type: 'https://developers.cloudflare.com/x', cloudflare_error: true, retry_after: 120 }, 120],
    ['Discord retry_after float', {}, { message: 'You are being rate limited.', retry_after: 64.57, global: false }, 65],
    ['Telegram parameters.retry_after', {}, { ok: false, error_code: 429, description: 'Too Many Requests: retry after 5', parameters: { retry_after: 5 } }, 5],
    ['Kubernetes details.retryAfterSeconds', {}, { kind: 'Status', status: 'Failure', reason: 'TooManyRequests', details: { retryAfterSeconds: 3 }, code: 429 }, 3],
    // Azure's own header (azure-sdk-for-js core-rest-pipeline, throttlingRetryStrategy.ts).
    ['x-ms-retry-after-ms rounded up', { 'x-ms-retry-after-ms': '1500' }, undefined, 2],
    ['retry-after-ms huge', { 'retry-after-ms': '9'.repeat(400) }, undefined, MAX_DELAY_SECONDS],
    // bodies
    ['the envelope error.retry_after', {}, { error: { code: 'rate_limited', retry: 'after_delay', retry_after: 30 } }, 30],
    ['the envelope retry_after 0', {}, { error: { retry_after: 0 } }, 0],
    ['a problem retry_after_seconds', {}, { type: 'about:blank', status: 429, retry_after_seconds: 45 }, 45],
    ['a google.rpc.RetryInfo "2.5s"', {}, { error: { code: 429, status: 'RESOURCE_EXHAUSTED', details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '2.5s' }] } }, 3],
    ['a google.rpc.RetryInfo "30s"', {}, { error: { details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '30s' }] } }, 30],
    ['a google.rpc.RetryInfo "0.000000001s"', {}, { error: { details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '0.000000001s' }] } }, 1],
    ['a google.rpc.RetryInfo "5.000s"', {}, { error: { details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '5.000s' }] } }, 5],
    ['a google.rpc.RetryInfo {seconds, nanos}', {}, { error: { details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: { seconds: 2, nanos: 500_000_000 } }] } }, 3],
    ['a google.rpc.RetryInfo {seconds: "7"} (int64 as string)', {}, { error: { details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: { seconds: '7' } }] } }, 7],
    ['a google.rpc.RetryInfo after an ErrorInfo', {}, { error: { details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'RATE_LIMIT_EXCEEDED' }, { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '4s' }] } }, 4],
    ['a bare google.rpc.Status (grpc-gateway)', {}, { code: 8, message: 'quota', details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '6s' }] }, 6],
    // RateLimit, draft-ietf-httpapi-ratelimit-headers-10
    ['draft-10 RateLimit, one exhausted policy', { RateLimit: '"default";r=0;t=30' }, undefined, 30],
    ['draft-10 RateLimit, a token policy name', { ratelimit: 'default;r=0;t=30' }, undefined, 30],
    ['draft-10 RateLimit, the exhausted policy among two', { ratelimit: '"burst";r=5;t=10, "day";r=0;t=600' }, undefined, 600],
    ['draft-10 RateLimit, two exhausted: the later', { ratelimit: '"a";r=0;t=10, "b";r=0;t=60' }, undefined, 60],
    ['draft-10 RateLimit, none exhausted: the soonest', { ratelimit: '"a";r=5;t=10, "b";r=3;t=60' }, undefined, 10],
    ['draft-10 RateLimit, no r: the soonest', { ratelimit: '"a";t=20, "b";t=40' }, undefined, 20],
    ['draft-10 RateLimit, one field line per policy', [['RateLimit', '"a";r=5;t=10'], ['RateLimit', '"b";r=0;t=60']], undefined, 60],
    ['draft-10 RateLimit, skipping an item without a valid t', { ratelimit: '"a";r=0;t=-1, "b";r=0;t=2.5, "c";r=0, "d";r=0;t=7' }, undefined, 7],
    // RateLimit, draft -07 and drafts up to -06
    ['draft-07 RateLimit dictionary', { ratelimit: 'limit=100, remaining=0, reset=30' }, undefined, 30],
    ['RateLimit-Reset (drafts up to -06)', { 'RateLimit-Reset': '30' }, undefined, 30],
    ['RateLimit-Reset holding an epoch', { 'ratelimit-reset': epochIn(50) }, undefined, 50],
    // OpenAI x-ratelimit-reset-*
    ['x-ratelimit-reset-requests "6m0s"', { 'x-ratelimit-reset-requests': '6m0s' }, undefined, 360],
    ['x-ratelimit-reset-tokens "20s"', { 'x-ratelimit-reset-tokens': '20s' }, undefined, 20],
    ['x-ratelimit-reset-tokens "12ms"', { 'x-ratelimit-reset-tokens': '12ms' }, undefined, 1],
    ['x-ratelimit-reset-requests "1h2m3.5s"', { 'x-ratelimit-reset-requests': '1h2m3.5s' }, undefined, 3724],
    ['x-ratelimit-reset-requests "0s"', { 'x-ratelimit-reset-requests': '0s' }, undefined, 0],
    ['both resets, neither exhausted: the larger', { 'x-ratelimit-reset-requests': '1s', 'x-ratelimit-reset-tokens': '6m0s' }, undefined, 360],
    ['both resets, requests exhausted: the requests one', { 'x-ratelimit-reset-requests': '1s', 'x-ratelimit-reset-tokens': '6m0s', 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-remaining-tokens': '1000' }, undefined, 1],
    ['both resets, tokens exhausted: the tokens one', { 'x-ratelimit-reset-requests': '6m0s', 'x-ratelimit-reset-tokens': '2s', 'x-ratelimit-remaining-requests': '10', 'x-ratelimit-remaining-tokens': '0' }, undefined, 2],
    ['both resets, both exhausted: the larger', { 'x-ratelimit-reset-requests': '6m0s', 'x-ratelimit-reset-tokens': '2s', 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-remaining-tokens': '0' }, undefined, 360],
    ['requests exhausted but its reset malformed: the tokens one', { 'x-ratelimit-reset-requests': 'soon', 'x-ratelimit-reset-tokens': '2s', 'x-ratelimit-remaining-requests': '0' }, undefined, 2],
    // X-RateLimit-Reset / X-Rate-Limit-Reset
    ['X-RateLimit-Reset delta seconds', { 'X-RateLimit-Reset': '30' }, undefined, 30],
    ['X-RateLimit-Reset epoch seconds (GitHub)', { 'x-ratelimit-reset': epochIn(90) }, undefined, 90],
    ['X-RateLimit-Reset epoch seconds with a fraction', { 'x-ratelimit-reset': `${NOW_S + 90}.25` }, undefined, 91],
    ['X-RateLimit-Reset epoch milliseconds', { 'x-ratelimit-reset': String(NOW + 90_500) }, undefined, 91],
    ['X-RateLimit-Reset epoch in the past', { 'x-ratelimit-reset': epochIn(-90) }, undefined, 0],
    ['X-RateLimit-Reset just below the epoch threshold: a delta', { 'x-ratelimit-reset': '999999999' }, undefined, 999_999_999],
    ['X-RateLimit-Reset at the epoch threshold: 2001, past', { 'x-ratelimit-reset': '1000000000' }, undefined, 0],
    ['X-Rate-Limit-Reset delta seconds', { 'X-Rate-Limit-Reset': '12' }, undefined, 12],
    ['X-Rate-Limit-Reset epoch seconds', { 'x-rate-limit-reset': epochIn(15) }, undefined, 15],
    // nothing
    ['no headers and no body', {}, undefined, null],
    ['null headers', null, undefined, null],
    ['unrelated headers', { 'content-type': 'application/json', 'x-ratelimit-remaining': '0' }, { error: { code: 'rate_limited' } }, null],
  ])('%s', (_label, headers, body, expected) => {
    expect(delayFrom(headers, body, NOW)).toBe(expected);
  });
});

describe('delayFrom skips malformed values', () => {
  it.each<[string, HeadersInput, unknown]>([
    ['Retry-After 0x10', { 'retry-after': '0x10' }, undefined],
    ['Retry-After 1e3', { 'retry-after': '1e3' }, undefined],
    ['Retry-After empty', { 'retry-after': '' }, undefined],
    ['Retry-After February 30', { 'retry-after': 'Mon, 30 Feb 2026 00:00:00 GMT' }, undefined],
    ['retry-after-ms 1e3', { 'retry-after-ms': '1e3' }, undefined],
    ['retry-after-ms -5', { 'retry-after-ms': '-5' }, undefined],
    ['retry_after as a string', {}, { error: { retry_after: '30' } }],
    ['retry_after negative', {}, { error: { retry_after: -1 } }],
    ['retry_after fractional', {}, { error: { retry_after: 1.5 } }],
    ['a top-level retry_after as a string', {}, { retry_after: '30' }],
    ['a top-level retry_after negative', {}, { retry_after: -1 }],
    ['Telegram retry_after not a number', {}, { parameters: { retry_after: 'soon' } }],
    ['Kubernetes retryAfterSeconds Infinity', {}, { details: { retryAfterSeconds: Number.POSITIVE_INFINITY } }],
    ['retry_after_seconds null', {}, { retry_after_seconds: null }],
    ['retry_after_seconds NaN', {}, { retry_after_seconds: Number.NaN }],
    ['retryDelay without s', {}, { error: { details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '2.5' }] } }],
    ['retryDelay negative', {}, { error: { details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '-1s' }] } }],
    ['retryDelay with 10 fraction digits', {}, { error: { details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1.0000000001s' }] } }],
    ['retryDelay with nanos out of range', {}, { error: { details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: { seconds: 1, nanos: 1_000_000_000 } }] } }],
    ['retryDelay as an empty object', {}, { error: { details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: {} }] } }],
    ['a RetryDelay under another @type', {}, { error: { details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', retryDelay: '3s' }] } }],
    ['retry_after inherited, not own', {}, Object.create({ retry_after_seconds: 5 }) as unknown],
    ['a body that is an array', {}, [{ retry_after_seconds: 5 }]],
    ['a body that is a class instance', {}, new (class { retry_after_seconds = 5; })()],
    ['a body that is a JSON string', {}, '{"retry_after_seconds": 5}'],
    ['RateLimit that does not parse', { ratelimit: '"default";r=0;t=' }, undefined],
    ['RateLimit with a negative t', { ratelimit: '"default";r=0;t=-30' }, undefined],
    ['RateLimit dictionary with a string reset', { ratelimit: 'limit=100, remaining=0, reset="30"' }, undefined],
    ['RateLimit-Reset 1e3', { 'ratelimit-reset': '1e3' }, undefined],
    ['x-ratelimit-reset-requests with no unit', { 'x-ratelimit-reset-requests': '20' }, undefined],
    ['x-ratelimit-reset-requests with units out of order', { 'x-ratelimit-reset-requests': '1s1m' }, undefined],
    ['x-ratelimit-reset-requests with a unit twice', { 'x-ratelimit-reset-requests': '1s1s' }, undefined],
    ['x-ratelimit-reset-requests negative', { 'x-ratelimit-reset-requests': '-1s' }, undefined],
    ['x-ratelimit-reset-tokens empty', { 'x-ratelimit-reset-tokens': '' }, undefined],
    ['X-RateLimit-Reset negative', { 'x-ratelimit-reset': '-30' }, undefined],
    ['X-RateLimit-Reset as a date', { 'x-ratelimit-reset': 'Thu, 01 Jan 2026 00:01:30 GMT' }, undefined],
  ])('skips %s and answers null when nothing else does', (_label, headers, body) => {
    expect(delayFrom(headers, body, NOW)).toBeNull();
  });

  it('lets a later source answer after a malformed earlier one', () => {
    const headers = { 'retry-after': '.5', 'retry-after-ms': 'soon', ratelimit: 'garbage;;', 'x-ratelimit-reset': '42' };
    expect(delayFrom(headers, { error: { retry_after: '30' } }, NOW)).toBe(42);
  });
});

describe('delayFrom precedence', () => {
  // One distinct delay per source, listed in the order delayFrom must prefer them.
  const SOURCES: [name: string, headers: Record<string, string>, body: Record<string, unknown> | undefined, expected: number][] = [
    ['Retry-After', { 'retry-after': '1' }, undefined, 1],
    ['retry-after-ms', { 'retry-after-ms': '2000' }, undefined, 2],
    ['the envelope', {}, { error: { retry_after: 3 } }, 3],
    ['the problem', {}, { retry_after_seconds: 4 }, 4],
    ['google.rpc.RetryInfo', {}, { error: { details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '5s' }] } }, 5],
    ['RateLimit', { ratelimit: '"default";r=0;t=6' }, undefined, 6],
    ['RateLimit-Reset', { 'ratelimit-reset': '7' }, undefined, 7],
    ['x-ratelimit-reset-requests', { 'x-ratelimit-reset-requests': '8s' }, undefined, 8],
    ['X-RateLimit-Reset', { 'x-ratelimit-reset': '9' }, undefined, 9],
    ['X-Rate-Limit-Reset', { 'x-rate-limit-reset': '10' }, undefined, 10],
  ];

  /** Merges sources: headers side by side, bodies deep enough for error.retry_after beside error.details. */
  function combine(sources: typeof SOURCES): [Record<string, string>, Record<string, unknown>] {
    const headers: Record<string, string> = {};
    const body: Record<string, unknown> = {};
    for (const [, h, b] of sources) {
      Object.assign(headers, h);
      if (!b) continue;
      for (const [key, value] of Object.entries(b)) {
        body[key] = key === 'error' ? { ...(body.error as object | undefined), ...(value as object) } : value;
      }
    }
    return [headers, body];
  }

  it.each(SOURCES.map((source, index) => [source[0], index, source[3]] as const))('answers from %s when it and every later source are present', (_name, index, expected) => {
    const [headers, body] = combine(SOURCES.slice(index));
    expect(delayFrom(headers, body, NOW)).toBe(expected);
  });

  it('prefers Retry-After to a larger body delay and a RateLimit field (draft-10: Retry-After takes precedence)', () => {
    expect(delayFrom({ 'retry-after': '5', ratelimit: '"default";r=0;t=60' }, { error: { retry_after: 60 } }, NOW)).toBe(5);
  });
});

describe('delayFrom counts dates from the Date header', () => {
  const DATE = 'Thu, 01 Jan 2026 00:00:00 GMT';
  const CLIENT_AHEAD = NOW + 3_600_000; // the agent's clock runs an hour fast
  it.each<[string, Record<string, string>, number | null, number | null]>([
    ['a Retry-After date', { 'retry-after': 'Thu, 01 Jan 2026 00:01:00 GMT' }, 60, 0],
    ['an RFC 850 Retry-After date', { 'retry-after': 'Thursday, 01-Jan-26 00:01:00 GMT' }, 60, 0],
    ['an asctime Retry-After date', { 'retry-after': 'Thu Jan  1 00:01:00 2026' }, 60, 0],
    ['an X-RateLimit-Reset epoch in seconds', { 'x-ratelimit-reset': String(NOW_S + 60) }, 60, 0],
    ['an X-RateLimit-Reset epoch in milliseconds', { 'x-ratelimit-reset': String(NOW + 60_000) }, 60, 0],
  ])('counts %s from the Date header, not from the local clock', (_label, headers, withDate, withoutDate) => {
    expect(delayFrom({ ...headers, date: DATE }, undefined, CLIENT_AHEAD)).toBe(withDate);
    expect(delayFrom(headers, undefined, CLIENT_AHEAD)).toBe(withoutDate);
  });

  it('reads Retry-After delay-seconds the same with or without a Date header', () => {
    expect(delayFrom({ 'retry-after': '60', date: DATE }, undefined, CLIENT_AHEAD)).toBe(60);
    expect(delayFrom({ 'retry-after': '60' }, undefined, CLIENT_AHEAD)).toBe(60);
  });

  it.each([['not a date'], ['Thu, 32 Jan 2026 00:00:00 GMT'], ['1767225600'], ['']])('ignores an invalid Date header %j and counts from now', (date) => {
    expect(delayFrom({ date, 'retry-after': 'Thu, 01 Jan 2026 00:01:00 GMT' }, undefined, NOW)).toBe(60);
  });
});

describe('delayFrom never throws', () => {
  it('skips a body whose getters throw and still reads the headers', () => {
    const body = {};
    Object.defineProperty(body, 'error', { enumerable: true, get: () => { throw new Error('boom'); } });
    expect(delayFrom({ 'x-ratelimit-reset': '12' }, body, NOW)).toBe(12);
  });

  it('skips a body that is a proxy whose every trap throws', () => {
    const trap = () => { throw new Error('trap'); };
    const body = new Proxy({}, { get: trap, has: trap, getPrototypeOf: trap, getOwnPropertyDescriptor: trap, ownKeys: trap });
    expect(delayFrom({ 'ratelimit-reset': '3' }, body, NOW)).toBe(3);
  });

  it('returns null or a whole number of seconds for arbitrary values of every header it reads', () => {
    const names = ['retry-after', 'retry-after-ms', 'ratelimit', 'ratelimit-reset', 'x-ratelimit-reset-requests', 'x-ratelimit-reset-tokens', 'x-ratelimit-remaining-requests', 'x-ratelimit-remaining-tokens', 'x-ratelimit-reset', 'x-rate-limit-reset', 'date'];
    const plausible = fc.oneof(
      fc.string(),
      fc.stringMatching(/^-?\d{0,22}(\.\d{0,4})?(h|m|s|ms|us|ns|e3)?$/),
      fc.date({ noInvalidDate: true }).map((d) => d.toUTCString()),
      fc.stringMatching(/^("[a-z]{1,4}"|[a-z]{1,4})(;[rt]=-?\d{1,12}(\.\d{1,3})?){0,3}$/),
    );
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...names), plausible), fc.option(fc.integer({ min: -8.64e15, max: 8.64e15 })), (headers, now) => {
        expect(isDelay(delayFrom(headers, undefined, now ?? undefined))).toBe(true);
      }),
      RUNS,
    );
  });

  it('returns null or a whole number of seconds for arbitrary bodies shaped like error bodies', () => {
    const delayish = fc.oneof(fc.integer(), fc.double(), fc.string(), fc.stringMatching(/^-?\d{1,25}(\.\d{1,12})?s?$/), fc.record({ seconds: fc.oneof(fc.integer(), fc.string()), nanos: fc.oneof(fc.integer(), fc.double()) }, { requiredKeys: [] }), fc.constant(null));
    const body = fc.oneof(
      fc.record({ error: fc.record({ retry_after: delayish }, { requiredKeys: [] }) }),
      fc.record({ retry_after_seconds: delayish }),
      fc.record({ error: fc.record({ details: fc.array(fc.record({ '@type': fc.constantFrom('type.googleapis.com/google.rpc.RetryInfo', 'x/google.rpc.RetryInfo', 'nope'), retryDelay: delayish })) }) }),
      fc.anything(),
    );
    fc.assert(
      fc.property(body, (value) => {
        expect(isDelay(delayFrom({}, value, NOW))).toBe(true);
      }),
      RUNS,
    );
  });

  it('returns null or a whole number of seconds for anything at all in any argument', () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), fc.anything(), (headers, body, now) => {
        expect(isDelay(delayFrom(headers as HeadersInput, body, now as number))).toBe(true);
      }),
      RUNS,
    );
  });

  it('retryAfterSeconds returns null or a whole number of seconds for arbitrary strings and clocks', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.stringMatching(/^[ \t]?[-+]?\d{0,30}[.e]?\d{0,3}[ \t]?$/)), fc.double(), (value, now) => {
        expect(isDelay(retryAfterSeconds(value, now))).toBe(true);
      }),
      RUNS,
    );
  });
});
