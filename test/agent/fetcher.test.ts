import { afterEach, describe, expect, it } from 'vitest';
import { CODES, READERS } from '../../src/index.js';
import { fetchPage } from '../../src/agent/fetcher.js';
import { createMemoryStore } from '../../src/agent/store.js';
import { serve, virtualClock, type TestServer } from '../helpers/server.js';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

type Reply = { status: number; headers?: Record<string, string>; body?: string } | 'hang';

/** A server whose next answer the test sets. */
async function switchable(first: Reply) {
  let reply: Reply = first;
  const server = await serve((_req, res) => {
    if (reply === 'hang') return; // never answers
    res.writeHead(reply.status, { 'content-type': 'text/html', ...reply.headers });
    res.end(reply.body ?? `<title>${reply.status}</title>`);
  });
  servers.push(server);
  return { server, set: (next: Reply) => void (reply = next) };
}

function setup() {
  const clock = virtualClock();
  const store = createMemoryStore({ now: clock.now });
  return { clock, store, options: { now: clock.now, sleep: clock.sleep, store } };
}

describe('fetchPage', () => {
  it('returns status, headers, body text and the final URL on success', async () => {
    const { server } = await switchable({ status: 200, body: 'hello', headers: { 'x-a': '1' } });
    const page = await fetchPage(`${server.url}/p`, setup().options);
    expect(page).toMatchObject({ ok: true, status: 200, body: 'hello', url: `${server.url}/p`, stale: false });
    if (page.ok) expect(page.headers.get('x-a')).toBe('1');
  });

  it("returns every failure in the client's shape, { ok: false, error, advice }, with the site's status beside it", async () => {
    const { server } = await switchable({ status: 404 });
    expect(await fetchPage(server.url, setup().options)).toEqual({
      ok: false, error: { code: 'not_found', message: 'Not Found', field: null, retry: CODES.not_found.retry, retry_after: null }, advice: CODES.not_found.advice, status: 404,
    });
  });

  it('says when its answer came from the store a client shares with it: remembered, with no status', async () => {
    const { server } = await switchable({ status: 429, headers: { 'retry-after': '600' } });
    const { options } = setup();
    const first = await fetchPage(server.url, options);
    expect(first).toMatchObject({ ok: false, status: 429, error: { code: 'rate_limited', retry_after: 600 } });
    expect(first).not.toHaveProperty('remembered');
    expect(await fetchPage(server.url, options)).toMatchObject({ ok: false, status: null, remembered: true, error: { code: 'rate_limited' } });
  });

  it('serves the older copy when the site then fails with a 503, and says why', async () => {
    const { server, set } = await switchable({ status: 200, body: 'v1' });
    const { clock, options } = setup();
    await fetchPage(`${server.url}/item`, options);
    set({ status: 503, headers: { 'retry-after': '600' }, body: '<title>Down for maintenance</title>' });
    clock.advance(90_000);
    const page = await fetchPage(`${server.url}/item`, options);
    expect(page).toMatchObject({
      ok: true, stale: true, body: 'v1', age_seconds: 90,
      stale_because: { code: 'temporarily_unavailable', message: 'Down for maintenance', retry: CODES.temporarily_unavailable.retry, retry_after: 600 },
    });
  });

  it('serves the older copy when the site is gone, naming the network failure', async () => {
    const { server } = await switchable({ status: 200, body: 'v1' });
    const { options } = setup();
    await fetchPage(`${server.url}/item`, options);
    await server.close();
    servers.length = 0;
    const page = await fetchPage(`${server.url}/item`, options);
    expect(page).toMatchObject({ ok: true, stale: true, body: 'v1', stale_because: { code: READERS.signals.network_failure, message: expect.stringContaining('refused') } });
  });

  it('serves the older copy when the site rate-limits longer than the client waits', async () => {
    const { server, set } = await switchable({ status: 200, body: 'v1' });
    const { options } = setup();
    await fetchPage(server.url, options);
    set({ status: 429, headers: { 'retry-after': '3600' } });
    expect(await fetchPage(server.url, options)).toMatchObject({ stale: true, stale_because: { code: 'rate_limited', retry_after: 3600 } });
  });

  it('serves the older copy when the site does not answer in time', async () => {
    const { server, set } = await switchable({ status: 200, body: 'v1' });
    const { options } = setup();
    await fetchPage(server.url, options);
    set('hang');
    const page = await fetchPage(server.url, { ...options, timeoutSeconds: 0.2 });
    expect(page).toMatchObject({ stale: true, stale_because: { message: expect.stringContaining('timed out') } });
  });

  it.each([404, 410, 401, 403, 402])('never covers a %i with a copy', async (status) => {
    const { server, set } = await switchable({ status: 200, body: 'v1' });
    const { options } = setup();
    await fetchPage(server.url, options);
    set({ status });
    expect(await fetchPage(server.url, options)).toMatchObject({ ok: false, status });
  });

  it('never stores a no-store response, and never serves a must-revalidate one stale', async () => {
    for (const cacheControl of ['no-store', 'max-age=60, must-revalidate', 'no-cache']) {
      const { server, set } = await switchable({ status: 200, body: 'v1', headers: { 'cache-control': cacheControl } });
      const { options } = setup();
      await fetchPage(server.url, options);
      set({ status: 500 });
      expect(await fetchPage(server.url, options)).toMatchObject({ ok: false, error: { code: 'internal' } });
    }
  });

  it('serves a copy only within max(maxStaleSeconds, max-age + stale-if-error)', async () => {
    const { server, set } = await switchable({ status: 200, body: 'v1', headers: { 'cache-control': 'max-age=60, stale-if-error=600' } });
    const { clock, options } = setup();
    await fetchPage(server.url, { ...options, maxStaleSeconds: 0 });
    set({ status: 502 });
    // The client retries the 502 once after a second, on the same clock.
    clock.advance(659_000);
    expect(await fetchPage(server.url, { ...options, maxStaleSeconds: 0 })).toMatchObject({ stale: true, age_seconds: 660 });
    expect(await fetchPage(server.url, { ...options, maxStaleSeconds: 0 })).toMatchObject({ ok: false, error: { code: 'internal' } });
    expect(await fetchPage(server.url, { ...options, maxStaleSeconds: 3600 })).toMatchObject({ stale: true, age_seconds: 662 });
  });

  it('keeps only GET responses', async () => {
    const { server, set } = await switchable({ status: 200, body: 'v1' });
    const { options } = setup();
    await fetchPage(server.url, { ...options, init: { method: 'POST', body: 'x' } });
    set({ status: 500 });
    expect(await fetchPage(server.url, { ...options, init: { method: 'POST', body: 'x' } })).toMatchObject({ ok: false });
  });
});
