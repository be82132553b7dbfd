// The quota headers of real rate limiters, live: each limiter mode of scripts/capture-quota.ts
// (express-rate-limit, @fastify/rate-limit, hono-rate-limiter) is started on a loopback port and
// sent the same four requests as when its fixture was captured. The limiter must still answer as
// captured (the same statuses and header names, the same values but for the numbers and the Date,
// so an upgrade that changes its headers fails here and the fixture is captured again), and
// quotaFrom must read the live headers as the fixture says.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseHttpDate } from '../../src/core/http-date.js';
import { quotaFrom } from '../../src/core/quota.js';
import { LIMITERS, QUOTA_FIXTURES, packageVersion, sendAll, type ExpectedQuota, type QuotaFixture } from '../../scripts/capture-quota.js';

/** The fixture of a limiter mode, which the capture script must have written. */
function fixtureOf(file: string): QuotaFixture {
  const path = join(QUOTA_FIXTURES, file);
  if (!existsSync(path)) throw new Error(`${file} is missing: run npx tsx scripts/capture-quota.ts`);
  return JSON.parse(readFileSync(path, 'utf8')) as QuotaFixture;
}

/** A header value as it may differ from one run to the next: its numbers left out; a Date only as valid or not. */
function shape(name: string, value: string): string {
  if (name === 'date') return parseHttpDate(value) === null ? `invalid ${value}` : 'an HTTP-date';
  return value.replace(/\d+/g, '#');
}

describe.each(LIMITERS.map((mode) => [mode.file, mode] as const))('%s, live', (file, mode) => {
  let answers: Awaited<ReturnType<typeof sendAll>> = [];
  let elapsedMs = 0;

  beforeAll(async () => {
    const running = await mode.start();
    const started = Date.now();
    try {
      answers = await sendAll(running.url);
    } finally {
      elapsedMs = Date.now() - started;
      await running.close();
    }
  });

  it('answers as it did when captured', () => {
    const fixture = fixtureOf(file);
    expect(fixture.version, 'the installed version: capture again after an upgrade').toBe(packageVersion(mode.limiter));
    // The fixture carries the mode's hand-written expectations, not an older copy of them.
    expect(fixture.responses.map((r) => r.expect)).toEqual(mode.expect);
    expect(answers.map((a) => a.status)).toEqual(fixture.responses.map((r) => r.status));
    answers.forEach((answer, i) => {
      const captured = fixture.responses[i]!.headers;
      const shapes = (headers: Record<string, string>) => Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, shape(name, value)]));
      expect(shapes(answer.headers), fixture.responses[i]!.request).toEqual(shapes(captured));
    });
  });

  it('is read by quotaFrom as the fixture says', () => {
    // The ranges assume the four requests fall within the window's first second, as they do in ms.
    expect(elapsedMs).toBeLessThan(1000);
    answers.forEach((answer, i) => {
      const expected = mode.expect[i] as ExpectedQuota;
      const quota = quotaFrom(answer.headers);
      const { resetMs, partition, ...counts } = quota ?? { resetMs: Number.NaN, partition: undefined };
      expect(counts, `request ${i + 1}`).toEqual({ remaining: expected.remaining, limit: expected.limit, windowMs: expected.windowMs });
      // draft-8's RateLimit-Policy names the partition (pk, a hash of the client's key): base64 here.
      if (file.includes('draft-8')) expect(partition, `request ${i + 1}`).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
      else expect(partition, `request ${i + 1}`).toBeUndefined();
      expect(resetMs, `request ${i + 1}`).toBeGreaterThanOrEqual(expected.resetSeconds[0] * 1000);
      expect(resetMs, `request ${i + 1}`).toBeLessThanOrEqual(expected.resetSeconds[1] * 1000);
    });
  });
});
