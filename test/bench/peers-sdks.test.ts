// The SDK columns and the vendors' service: each SDK adapter against a loopback server in its
// vendor's format with a 1 s delay (so a broken adapter shows without the bench's 30 s), and each
// vendor cell's answer as fromResponse reads it.
import { afterEach, describe, expect, it } from 'vitest';
import { runCell } from '../../bench/peers/cells.js';
import { SDKS, SDK_PATHS } from '../../bench/peers/sdks.js';
import { VENDOR_CELLS, vendorReply, type Vendor } from '../../bench/peers/vendors.js';
import { fromResponse } from '../../src/core/from-response.js';
import { CLEARS_AFTER_SECONDS } from '../../src/tools/demo.js';
import { serve, type TestServer } from '../helpers/server.js';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A server answering the first call with `first`, every later one with the vendor's 200; it records each request's method and path. */
async function vendorServer(vendor: Vendor, first: { status: number; headers: Record<string, string> }) {
  const seen: string[] = [];
  const cell = VENDOR_CELLS.find((c) => c.vendor === vendor)!;
  const server = await serve((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => {
      const reply = seen.length === 1 ? { ...vendorReply(cell, 0, Date.now()), ...first, headers: { 'content-type': 'application/json', ...first.headers } } : vendorReply(cell, CLEARS_AFTER_SECONDS, Date.now());
      res.writeHead(reply.status, reply.headers).end(reply.body);
    });
  });
  servers.push(server);
  return { server, seen };
}

const vendors: Vendor[] = ['openai', 'anthropic', 'github'];
const columns = (vendor: Vendor) => [SDKS[vendor].alone, SDKS[vendor].plugged, SDKS[vendor].ours];
const urlFor = (vendor: Vendor, j: number, base: string) => (j === 2 ? `${base}${SDK_PATHS[vendor]}` : base);

describe('SDK columns', () => {
  it.each(vendors)('%s: the SDK and this package\'s client call the same method and path', async (vendor) => {
    const paths = await Promise.all(
      columns(vendor).map(async (peer, j) => {
        const { server, seen } = await vendorServer(vendor, { status: 200, headers: {} });
        expect(await runCell(peer, urlFor(vendor, j, server.url), server.calls)).toMatchObject({ outcome: 'ok', calls: 1 });
        return seen[0]!.replace(/\?.*$/, '');
      }),
    );
    expect(new Set(paths).size).toBe(1);
    expect(paths[0]).toMatch(vendor === 'github' ? /^GET / : /^POST /);
  });

  it.each(vendors)('%s: with agentFetch, waits out a retry-after of 1 s once, in 2 calls', async (vendor) => {
    const { server } = await vendorServer(vendor, { status: vendor === 'github' ? 403 : 429, headers: { 'retry-after': '1' } });
    const { outcome, calls, seconds } = await runCell(SDKS[vendor].plugged, server.url, server.calls);
    expect({ outcome, calls, waited: seconds >= 1 }).toEqual({ outcome: 'ok', calls: 2, waited: true });
  });

  it.each(vendors)('%s: with agentFetch, its own retries are off: a 429 with no delay is handed back after one call', async (vendor) => {
    const { server } = await vendorServer(vendor, { status: 429, headers: {} });
    const { outcome, calls } = await runCell(SDKS[vendor].plugged, server.url, server.calls);
    expect(calls).toBe(1);
    expect(outcome).toMatch(/429$/);
  });

  it('alone, openai and anthropic retry a delay-less 429 on their own, octokit does not', async () => {
    const results = await Promise.all(
      vendors.map(async (vendor) => {
        const { server } = await vendorServer(vendor, { status: 429, headers: {} });
        // Only the first call fails, so the SDKs that retry end ok after their first retry.
        return (await runCell(SDKS[vendor].alone, server.url, server.calls)).calls;
      }),
    );
    expect(results).toEqual([2, 2, 1]);
  });
});

describe('the vendors\' service', () => {
  it('gives a delay, as fromResponse reads the answer, exactly in the cells that say they do, of 30 s or just under', () => {
    const start = Date.UTC(2026, 0, 1, 0, 0, 0, 400);
    for (const cell of VENDOR_CELLS) {
      const reply = vendorReply(cell, 0, start);
      const { error } = fromResponse(reply.status, reply.headers, reply.body, { now: start });
      expect([cell.says, error.retry_after !== null]).toEqual([cell.says, cell.delayGiven]);
      if (cell.delayGiven) expect(error.retry_after).toBeLessThanOrEqual(30);
      expect(reply.status).toBeGreaterThanOrEqual(400);
    }
  });

  it('answers each vendor in its own error format', () => {
    const body = (i: number) => JSON.parse(vendorReply(VENDOR_CELLS[i]!, 0, Date.now()).body);
    expect(body(0)).toMatchObject({ error: { type: 'requests', code: 'rate_limit_exceeded' } });
    expect(body(3)).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    expect(body(4)).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
    expect(body(5).message).toMatch(/secondary rate limit/);
  });

  it('clears 30 s after the first call; GitHub\'s reset cell at the whole epoch second it names', () => {
    const start = Date.UTC(2026, 0, 1, 0, 0, 0, 400);
    for (const cell of VENDOR_CELLS.filter((c) => !c.says.includes('x-ratelimit-reset epoch'))) {
      expect(vendorReply(cell, 29.9, start).status).toBeGreaterThanOrEqual(400);
      expect(vendorReply(cell, 30, start).status).toBe(200);
    }
    const github = VENDOR_CELLS.find((c) => c.says.includes('x-ratelimit-reset epoch'))!;
    const reset = Number(vendorReply(github, 0, start).headers['x-ratelimit-reset']);
    expect(reset).toBe(Math.floor(start / 1000) + 30);
    expect(vendorReply(github, reset - start / 1000 - 0.01, start).status).toBe(403);
    expect(vendorReply(github, reset - start / 1000, start).status).toBe(200);
  });
});
