import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createDiskStore } from '../../src/agent/disk-store.js';
import { fetchPage } from '../../src/agent/fetcher.js';
import { copySize, createMemoryStore, pathKey, type CachedCopy, type Store } from '../../src/agent/store.js';
import { serve, virtualClock } from '../helpers/server.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-errors-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

const error = { code: 'rate_limited', message: 'Too many requests', field: null, retry: 'after_delay' as const, retry_after: 30 };
const copy = (body: string, storedAt = 0): CachedCopy => ({ url: 'https://a.example/', status: 200, headers: [['content-type', 'text/plain']], body, storedAt });

const kinds: [string, (now: () => number, maxBytes: number) => Promise<Store>][] = [
  ['memory', async (now, maxBytes) => createMemoryStore({ now, maxBytes })],
  ['disk', async (now, maxBytes) => createDiskStore(join(dir, `s${files++}.db`), { now, maxBytes })],
];

describe.each(kinds)('the %s store', (_kind, make) => {
  it('forgets a backoff when its deadline passes', async () => {
    const clock = virtualClock();
    const store = await make(clock.now, 1e6);
    await store.setBackoff('https://a.example', { until: clock.now() + 30_000, error });
    expect(await store.getBackoff('https://a.example')).toEqual({ until: clock.now() + 30_000, error });
    clock.advance(30_000);
    expect(await store.getBackoff('https://a.example')).toBeUndefined();
  });

  it('keeps the later of two deadlines', async () => {
    const clock = virtualClock();
    const store = await make(clock.now, 1e6);
    await store.setBackoff('o', { until: clock.now() + 60_000, error });
    await store.setBackoff('o', { until: clock.now() + 10_000, error: { ...error, retry_after: 10 } });
    expect((await store.getBackoff('o'))?.until).toBe(clock.now() + 60_000);
  });

  it('returns a copy as it was stored, and forgets a deleted one', async () => {
    const clock = virtualClock();
    const store = await make(clock.now, 1e6);
    await store.setCopy('GET https://a.example/', copy('v1', clock.now() - 5000));
    expect(await store.getCopy('GET https://a.example/')).toEqual(copy('v1', clock.now() - 5000));
    await store.deleteCopy('GET https://a.example/');
    expect(await store.getCopy('GET https://a.example/')).toBeUndefined();
  });

  it('drops the least recently used copies to stay within its bytes', async () => {
    const clock = virtualClock();
    const size = copySize(copy('x'.repeat(1000)));
    const store = await make(clock.now, size * 2 + 10);
    await store.setCopy('a', copy('x'.repeat(1000), clock.now()));
    clock.advance(1);
    await store.setCopy('b', copy('x'.repeat(1000), clock.now()));
    clock.advance(1);
    await store.getCopy('a'); // a is now more recent than b
    clock.advance(1);
    await store.setCopy('c', copy('x'.repeat(1000), clock.now()));
    expect(await store.getCopy('a')).toBeDefined();
    expect(await store.getCopy('b')).toBeUndefined();
    expect(await store.getCopy('c')).toBeDefined();
  });
});

describe('the disk store', () => {
  it('keeps copies and backoffs across a restart, so a new process serves a stale copy', async () => {
    const clock = virtualClock();
    const file = join(dir, 'restart.db');
    let n = 0;
    const server = await serve((_req, res) => {
      if (n++ === 0) res.writeHead(200, { 'content-type': 'text/plain' }).end('v1');
      else res.writeHead(503, { 'retry-after': '120' }).end('<title>Down</title>');
    });
    const first = await createDiskStore(file, { now: clock.now });
    await fetchPage(server.url, { store: first, now: clock.now, sleep: clock.sleep });
    first.close();
    const second = await createDiskStore(file, { now: clock.now });
    const page = await fetchPage(server.url, { store: second, now: clock.now, sleep: clock.sleep });
    expect(page).toMatchObject({ ok: true, stale: true, body: 'v1', stale_because: { code: 'temporarily_unavailable', retry_after: 120 } });
    second.close();
    const third = await createDiskStore(file, { now: clock.now });
    // One path's 503 is kept for that path, with where it was learnt; the origin has no wait.
    const origin = new URL(server.url).origin;
    expect(await third.getBackoff(pathKey(origin, '/'))).toMatchObject({ error: { code: 'temporarily_unavailable' }, learnt: { url: `${origin}/` } });
    expect(await third.getBackoff(origin)).toBeUndefined();
    third.close();
    await server.close();
  });

  it('drops copies older than maxAgeSeconds', async () => {
    const clock = virtualClock();
    const store = await createDiskStore(join(dir, 'ttl.db'), { now: clock.now, maxAgeSeconds: 60 });
    await store.setCopy('k', copy('v1', clock.now()));
    clock.advance(61_000);
    expect(await store.getCopy('k')).toBeUndefined();
    store.close();
  });
});
