// The seed's example at its own scale, on every agent host at once: five concurrent requests to one
// origin, each told Retry-After: 30, with the default maxWaitSeconds (30) and with 31. Each request
// waits the 30 s out once and then calls again (or follows the one that does), so every one ends ok
// in at most 2 calls. test/agent/conformance.test.ts has the same case with waits of 1 s; this one
// takes 30 s of real time, since got and axios sleep a told wait themselves, so it runs in the slow
// suite (npm run test:slow), all hosts side by side.
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/agent/index.js';
import { HOSTS, type HostResult } from '../helpers/agent-hosts.js';
import { serve, type TestServer } from '../helpers/server.js';

const TOLD_SECONDS = 30;
/** How much earlier than the told 30 s a call may arrive and still count as having waited it (timer granularity). */
const EARLY_MS = 50;

/** A site that tells every call in the first TOLD_SECONDS to wait TOLD_SECONDS, and answers 200 after; it counts calls per x-request-id. */
async function site(): Promise<TestServer & { readonly perRequest: Map<string, number>; readonly early: number[] }> {
  let first: number | null = null;
  const perRequest = new Map<string, number>();
  const early: number[] = [];
  const server = await serve((req, res) => {
    const at = performance.now();
    first ??= at;
    const id = String(req.headers['x-request-id']);
    const n = (perRequest.get(id) ?? 0) + 1;
    perRequest.set(id, n);
    // A second call of a request that came before the told wait ran out did not wait it.
    if (n > 1 && at < first + TOLD_SECONDS * 1000 - EARLY_MS) early.push(at - first);
    req.resume();
    if (at < first + TOLD_SECONDS * 1000 - EARLY_MS) res.writeHead(429, { 'retry-after': String(TOLD_SECONDS), 'content-type': 'text/plain' }).end('slow down');
    else res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
  return Object.assign(server, { perRequest, early });
}

const summary = (r: HostResult): string => (r.ok ? `ok ${r.status}` : `failed ${r.status} ${r.code}${r.remembered ? ' remembered' : ''}`);

describe('five concurrent requests told Retry-After: 30', () => {
  it('on every host, with the default maxWaitSeconds (30, the boundary) and with 31: every request ends ok in at most 2 calls', { timeout: 90_000 }, async () => {
    const runs = HOSTS.flatMap((host) =>
      [undefined, 31].map(async (maxWaitSeconds) => {
        const s = await site();
        const binding = host.make({ store: createMemoryStore(), ...(maxWaitSeconds === undefined ? {} : { maxWaitSeconds }) });
        try {
          const results = await Promise.all(Array.from({ length: 5 }, (_, i) => binding.request(s.url, { headers: { 'x-request-id': `r${i}` } })));
          await Promise.all(results.map((r) => r.release()));
          return {
            host: `${host.name}, maxWaitSeconds ${maxWaitSeconds ?? 'default'}`,
            results: results.map(summary),
            calls: Array.from({ length: 5 }, (_, i) => s.perRequest.get(`r${i}`) ?? 0),
            early: s.early.length,
          };
        } finally {
          await binding.close();
          await s.close();
        }
      }),
    );
    const outcomes = await Promise.all(runs);
    for (const o of outcomes) {
      expect(o.results, o.host).toEqual(Array(5).fill('ok 200'));
      expect(Math.max(...o.calls), `${o.host}: calls per request ${o.calls.join(', ')}`).toBeLessThanOrEqual(2);
      expect(o.early, `${o.host}: calls made before the told wait ran out`).toBe(0);
    }
  });
});
