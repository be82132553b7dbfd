// Each peer adapter against a loopback server, so a broken adapter shows without the bench's 30 s.
import { afterEach, describe, expect, it } from 'vitest';
import { runCell } from '../../bench/peers/cells.js';
import { PEERS, type Peer } from '../../bench/peers/clients.js';
import { serve, type TestServer } from '../helpers/server.js';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A server answering with `replies` in turn, the last one for ever. */
async function scripted(...replies: { status: number; headers?: Record<string, string>; body: string }[]): Promise<TestServer> {
  let i = 0;
  const server = await serve((_req, res) => {
    const reply = replies[Math.min(i++, replies.length - 1)]!;
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers }).end(reply.body);
  });
  servers.push(server);
  return server;
}

const byName = (name: string): Peer => PEERS.find((p) => p.name === name)!;

describe('peer adapters', () => {
  it('lists each peer alone then with its plug-in, and this package\'s client last (bench/all.ts divides by the last column)', () => {
    expect(PEERS.map((p) => p.name)).toEqual([
      'ky',
      'ky + agentFetch',
      'got',
      'got + agentGot',
      'undici RetryAgent',
      'undici + agentUndici',
      'axios-retry',
      'axios + agentAxios',
      'this package, backoff',
      'this package, backoff, budget 6',
      'this package',
    ]);
    for (const p of PEERS) expect(p.defaults.length && p.source.length).toBeGreaterThan(0);
    // Every plug-in column names a column that exists, the same client alone, just before it.
    for (const [i, p] of PEERS.entries()) if (p.alone !== undefined) expect(PEERS[i - 1]!.name).toBe(p.alone);
    expect(PEERS.filter((p) => p.alone !== undefined)).toHaveLength(4);
  });

  // Outcome and calls exactly; seconds only from below, since a loaded machine may run late.
  it.each(PEERS.map((p) => [p.name, p] as const))('%s reads a 200 as ok after one call', async (_name, peer) => {
    const server = await scripted({ status: 200, body: '{"ok":true}' });
    expect(await runCell(peer, `${server.url}/x`, server.calls)).toMatchObject({ outcome: 'ok', calls: 1 });
  });

  it.each([
    ['ky', 'HTTPError 404'],
    ['ky + agentFetch', 'HTTPError 404'],
    ['got', 'HTTPError 404'],
    ['got + agentGot', 'HTTPError 404'],
    ['undici RetryAgent', '404 returned'],
    ['undici + agentUndici', '404 returned'],
    ['axios-retry', 'AxiosError 404'],
    ['axios + agentAxios', 'AxiosError 404'],
    ['this package, backoff', 'not_found, no delay'],
    ['this package, backoff, budget 6', 'not_found, no delay'],
    ['this package', 'not_found, no delay'],
  ])('%s surfaces a 404 as %s after one call', async (name, outcome) => {
    const server = await scripted({ status: 404, body: '{"error":"Not Found"}' });
    expect(await runCell(byName(name), `${server.url}/x`, server.calls)).toMatchObject({ outcome, calls: 1 });
  });

  /** Each of `peers` against a 429 with `reply`'s headers and body, then a 200; all at once, one server each. */
  async function waitsOut(peers: readonly Peer[], reply: { headers?: Record<string, string>; body: string }) {
    const results = await Promise.all(
      peers.map(async (peer) => {
        const server = await scripted({ status: 429, ...reply }, { status: 200, body: '{"ok":true}' });
        const { outcome, calls, seconds } = await runCell(peer, `${server.url}/x`, server.calls);
        return [peer.name, { outcome, calls, waited: seconds >= 1 }] as const;
      }),
    );
    return Object.fromEntries(results);
  }
  const okIn2 = (peers: readonly Peer[]) => Object.fromEntries(peers.map((p) => [p.name, { outcome: 'ok', calls: 2, waited: true }]));

  const waiting = PEERS;

  it('every adapter waits out a 429 with Retry-After: 1, then reads the 200', async () => {
    expect(await waitsOut(waiting, { headers: { 'retry-after': '1' }, body: '{"error":"Too Many Requests"}' })).toEqual(okIn2(waiting));
  });

  it('every plug-in and this package\'s client wait out a delay given only in the body; the clients alone do not', async () => {
    const body = JSON.stringify({ error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: 'slow down', details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1s' }] } });
    const reading = waiting.filter((p) => p.alone !== undefined || p.pkg === '@agent-index/errors');
    expect(await waitsOut(reading, { body })).toEqual(okIn2(reading));
    // ky alone retries on its own schedule (0.3 s), before the second the body asked for.
    expect(await waitsOut([byName('ky')], { body })).toEqual({ ky: { outcome: 'ok', calls: 2, waited: false } });
  });

  it('the backoff column guesses 1 s where no delay is given, and the default client hands it back after one call', async () => {
    const results = await waitsOut([byName('this package, backoff'), byName('this package')], { body: '{"error":"Too Many Requests"}' });
    expect(results).toEqual({
      'this package, backoff': { outcome: 'ok', calls: 2, waited: true },
      'this package': { outcome: 'rate_limited, no delay', calls: 1, waited: false },
    });
  });
});

describe('runCell', () => {
  it('ends a client that never returns at the cap, as a timeout, and aborts its call', async () => {
    let aborted = false;
    const stuck: Peer = {
      ...PEERS[0]!,
      run: (_url, signal) =>
        new Promise<string>(() => {
          signal.addEventListener('abort', () => void (aborted = true));
        }),
    };
    expect(await runCell(stuck, 'http://127.0.0.1:9/', () => 0, 0.05)).toMatchObject({ outcome: 'timeout', calls: 0 });
    expect(aborted).toBe(true);
  });

  it('reports what a client threw that was not an HTTP failure, by class and code', async () => {
    const failing: Peer = { ...PEERS[0]!, run: async () => Promise.reject(Object.assign(new TypeError('x'), { code: 'ECONNREFUSED' })) };
    expect((await runCell(failing, 'http://127.0.0.1:9/', () => 0)).outcome).toBe('TypeError ECONNREFUSED');
  });
});
