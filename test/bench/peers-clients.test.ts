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
  it('lists the four peers and this package, each with its defaults and where they were read', () => {
    expect(PEERS.map((p) => p.name)).toEqual(['ky', 'got', 'undici RetryAgent', 'axios-retry', 'this package']);
    for (const p of PEERS) expect(p.defaults.length && p.source.length).toBeGreaterThan(0);
  });

  // Outcome and calls exactly; seconds only from below, since a loaded machine may run late.
  it.each(PEERS.map((p) => [p.name, p] as const))('%s reads a 200 as ok after one call', async (_name, peer) => {
    const server = await scripted({ status: 200, body: '{"ok":true}' });
    expect(await runCell(peer, `${server.url}/x`, server.calls)).toMatchObject({ outcome: 'ok', calls: 1 });
  });

  it.each([
    ['ky', 'HTTPError 404'],
    ['got', 'HTTPError 404'],
    ['undici RetryAgent', '404 returned'],
    ['axios-retry', 'AxiosError 404'],
    ['this package', 'not_found, no delay'],
  ])('%s surfaces a 404 as %s after one call', async (name, outcome) => {
    const server = await scripted({ status: 404, body: '{"error":"Not Found"}' });
    expect(await runCell(byName(name), `${server.url}/x`, server.calls)).toMatchObject({ outcome, calls: 1 });
  });

  it('every adapter waits out a 429 with Retry-After: 1, then reads the 200 (all at once, one server each)', async () => {
    const results = await Promise.all(
      PEERS.map(async (peer) => {
        const server = await scripted({ status: 429, headers: { 'retry-after': '1' }, body: '{"error":"Too Many Requests"}' }, { status: 200, body: '{"ok":true}' });
        const { outcome, calls, seconds } = await runCell(peer, `${server.url}/x`, server.calls);
        return [peer.name, { outcome, calls, waited: seconds >= 1 }] as const;
      }),
    );
    expect(Object.fromEntries(results)).toEqual(Object.fromEntries(PEERS.map((p) => [p.name, { outcome: 'ok', calls: 2, waited: true }])));
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
