// A rate limit that names its partition (RateLimit-Policy's pk, draft-ietf-httpapi-ratelimit-headers;
// express-rate-limit's draft-8 headers send it): its 429 holds the paths that count in the same
// partition, learnt from their own answers, and no other; a store that keeps no partitions holds
// the path it came from.
import express from 'express';
import { rateLimit } from 'express-rate-limit';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentClient } from '../../src/agent/client.js';
import { createMemoryStore, waitKey, type Backoff, type Store } from '../../src/agent/store.js';
import { quotaFrom } from '../../src/core/quota.js';
import { serve, type TestServer } from '../helpers/server.js';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** /a and /b behind one limiter (alice's), /c behind another (bob's): 2 requests a minute each, draft-8 headers. */
async function site(): Promise<TestServer> {
  const limiter = (who: string) => rateLimit({ windowMs: 60_000, limit: 2, standardHeaders: 'draft-8', legacyHeaders: false, keyGenerator: () => who });
  const alice = limiter('alice');
  const bob = limiter('bob');
  const app = express();
  app.get(['/a', '/b', '/d'], alice, (_req, res) => void res.send('ok'));
  app.get('/c', bob, (_req, res) => void res.send('ok'));
  const server = await serve(app);
  servers.push(server);
  return server;
}

describe('a rate limit that names its partition', () => {
  it('reads the partition express-rate-limit names (pk, a Byte Sequence, base64)', () => {
    const quota = quotaFrom({ ratelimit: '"60-in-1min"; r=0; t=60', 'ratelimit-policy': '"60-in-1min"; q=60; w=60; pk=:dXNlcjEyMw==:' }, 0);
    expect(quota).toMatchObject({ remaining: 0, resetMs: 60_000, limit: 60, partition: 'dXNlcjEyMw==' });
    expect(quotaFrom({ ratelimit: '"p"; r=1; t=5', 'ratelimit-policy': '"p"; q=2; w=5' }, 0)).not.toHaveProperty('partition');
  });

  it("holds the paths whose answers named the same partition, calls the others, and says where the wait was learnt", async () => {
    const server = await site();
    // Quotas are paced per scope, not per partition: off here, so the waits alone decide.
    const client = createAgentClient({ store: createMemoryStore({ paceQuota: false }), maxWaitSeconds: 0 });
    expect((await client.fetch(`${server.url}/b`)).ok).toBe(true);
    expect((await client.fetch(`${server.url}/c`)).ok).toBe(true);
    expect((await client.fetch(`${server.url}/a`)).ok).toBe(true);
    const limited = await client.fetch(`${server.url}/a`);
    expect(limited).toMatchObject({ ok: false, error: { code: 'rate_limited' } });
    expect(server.calls()).toBe(4);
    // /b counts in alice's partition (its own answer said so): answered from memory, naming /a.
    expect(await client.fetch(`${server.url}/b`)).toMatchObject({ ok: false, remembered: true, learnt: { url: `${server.url}/a` } });
    expect(server.calls()).toBe(4);
    // /c counts in bob's: called, and answered.
    expect((await client.fetch(`${server.url}/c`)).ok).toBe(true);
    expect(server.calls()).toBe(5);
    // /d has never answered, so its partition is unknown: called (and refused by the site, which says so).
    const d = await client.fetch(`${server.url}/d`);
    expect(d).toMatchObject({ ok: false, error: { code: 'rate_limited' } });
    expect(d).not.toHaveProperty('remembered');
    expect(server.calls()).toBe(6);
  });

  it('holds only the path it was learnt on with a store that keeps no partitions (no settle)', async () => {
    const server = await site();
    const waits = new Map<string, Backoff>();
    const plain: Store = { getBackoff: (k) => waits.get(k), setBackoff: (k, b) => void waits.set(waitKey(k, b), b), getCopy: () => undefined, setCopy: () => {}, deleteCopy: () => {} };
    const client = createAgentClient({ store: plain, maxWaitSeconds: 0 });
    for (const path of ['/b', '/a', '/a']) await client.fetch(`${server.url}${path}`);
    expect(server.calls()).toBe(3);
    expect(await client.fetch(`${server.url}/a`)).toMatchObject({ ok: false, remembered: true });
    expect(server.calls()).toBe(3);
    expect(await client.fetch(`${server.url}/b`)).toMatchObject({ ok: false, error: { code: 'rate_limited' } });
    expect(server.calls()).toBe(4);
  });
});
