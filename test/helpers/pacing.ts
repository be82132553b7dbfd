// What every store that paces a fleet must do, as one table of cases run on each: the memory store
// (one process), the Redis store on a standalone Redis and on a Redis Cluster (two workers: two
// stores on two connections). Real time, with waits, leases and quota windows of a few hundred ms,
// since Redis keeps its deadlines on its own clock.
import { expect, it, onTestFinished } from 'vitest';
import type { EnvelopeError } from '../../generated/types.js';
import type { Admission, Store } from '../../src/agent/store.js';

/** Two workers' stores on one shared state, made with the given pacing options. */
export type MakePair = (options: { probeLeaseMs?: number; paceQuota?: boolean }) => Promise<readonly [Store, Store]>;

export const WAIT_MS = 300;
export const LEASE_MS = 300;

export const ERROR: EnvelopeError = { code: 'rate_limited', message: 'slow down', field: null, retry: 'after_delay', retry_after: 1 };

export const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

type Call = Extract<Admission, { kind: 'call' }>;

async function admit(store: Store, key: string): Promise<Admission> {
  return store.admit!(key);
}

function expectCall(a: Admission): Call {
  expect(a.kind).toBe('call');
  return a as Call;
}

/** Shares a wait of `ms` for `key` through `store`, as a call that was told to wait would. */
async function shareWait(store: Store, key: string, ms = WAIT_MS): Promise<void> {
  const admitted = expectCall(await admit(store, key));
  await store.settle!(key, { admitted, answered: true, wait: { until: Date.now() + ms, error: ERROR } });
}

/** Runs the pacing cases on stores made by `pair`; `unique` gives each case a key of its own. */
export function pacingContract(makePair: MakePair, unique: (what: string) => string): void {
  // Each case makes stores of its own on the same clients, and a Redis store listens to its
  // client's error and ready events until detached: detached when its case ends, a client carries
  // one case's listeners at a time, not those of every case so far (eleven cases in, Node warned
  // MaxListenersExceededWarning).
  const pair: MakePair = async (options) => {
    const stores = await makePair(options);
    onTestFinished(() => {
      for (const store of stores) (store as { detach?: () => void }).detach?.();
    });
    return stores;
  };
  /** Two workers and a key whose shared wait has just ended, and the first call after it, which worker a made: the probe. */
  async function waitEnded(what: string) {
    const [a, b] = await pair({ probeLeaseMs: LEASE_MS });
    const key = unique(what);
    await shareWait(a, key);
    await pause(WAIT_MS + 30);
    return { a, b, key, probe: expectCall(await admit(a, key)) };
  }

  it('lets a call through when it knows nothing of the site, without a probe or a count', async () => {
    const [a] = await pair({});
    expect(await admit(a, unique('fresh'))).toEqual({ kind: 'call' });
  });

  it('shares a wait, then lets exactly one worker probe when it ends while the other follows; the probe answering ends the wait for all', async () => {
    const [a, b] = await pair({ probeLeaseMs: LEASE_MS });
    const key = unique('probe');
    const before = Date.now();
    await shareWait(a, key);
    const waiting = await admit(b, key);
    expect(waiting).toMatchObject({ kind: 'wait', error: { code: 'rate_limited', message: 'slow down' } });
    expect((waiting as { until: number }).until).toBeGreaterThan(before + WAIT_MS - 50);
    expect((waiting as { until: number }).until).toBeLessThanOrEqual(Date.now() + WAIT_MS + 20);
    await pause(WAIT_MS + 30);

    const probe = expectCall(await admit(b, key));
    expect(typeof probe.probe).toBe('string');
    for (const store of [a, b]) {
      const follow = await admit(store, key);
      expect(follow).toMatchObject({ kind: 'follow', error: { code: 'rate_limited' } });
      expect((follow as { until: number }).until).toBeLessThanOrEqual(Date.now() + LEASE_MS + 20);
    }
    await b.settle!(key, { admitted: probe, answered: true });
    expect(await admit(a, key)).toEqual({ kind: 'call' });
    expect(await admit(b, key)).toEqual({ kind: 'call' });
  });

  it("shares the probe's new wait with its followers", async () => {
    const { a, b, key, probe } = await waitEnded('again');
    expect((await admit(b, key)).kind).toBe('follow');
    await a.settle!(key, { admitted: probe, answered: true, wait: { until: Date.now() + WAIT_MS, error: { ...ERROR, message: 'still busy' } } });
    expect(await admit(b, key)).toMatchObject({ kind: 'wait', error: { message: 'still busy' } });
    await pause(WAIT_MS + 30);
    // And the end of that wait has its own probe.
    expect(expectCall(await admit(b, key)).probe).toBeDefined();
    expect((await admit(a, key)).kind).toBe('follow');
  });

  it('hands the probe to the next worker when one got no answer, and keeps the wait meanwhile', async () => {
    const { a, b, key, probe: first } = await waitEnded('unanswered');
    await a.settle!(key, { admitted: first, answered: false });
    const second = expectCall(await admit(b, key));
    expect(second.probe).toBeDefined();
    expect(second.probe).not.toBe(first.probe);
    expect((await admit(a, key)).kind).toBe('follow');
  });

  it('gives the probe to another worker once a holder that never answers has run out its lease, and ignores the holder when it comes back late', async () => {
    const { a, b, key, probe: dead } = await waitEnded('dead');
    const follow = await admit(b, key);
    expect(follow.kind).toBe('follow');
    await pause(Math.max(0, (follow as { until: number }).until - Date.now()) + 20);
    const taken = expectCall(await admit(b, key));
    expect(taken.probe).toBeDefined();
    expect(taken.probe).not.toBe(dead.probe);
    // The first holder's answer arrives after all: it releases nothing and ends nothing.
    await a.settle!(key, { admitted: dead, answered: true });
    expect((await admit(a, key)).kind).toBe('follow');
    await b.settle!(key, { admitted: taken, answered: true });
    expect(await admit(a, key)).toEqual({ kind: 'call' });
  });

  it('lets every worker call when a wait ends with probeLeaseMs 0', async () => {
    const [a, b] = await pair({ probeLeaseMs: 0 });
    const key = unique('noprobe');
    await shareWait(a, key);
    expect((await admit(b, key)).kind).toBe('wait');
    await pause(WAIT_MS + 30);
    expect(await admit(a, key)).toEqual({ kind: 'call' });
    expect(await admit(b, key)).toEqual({ kind: 'call' });
  });

  it('spends an announced quota together: no more calls than remaining before the reset, then a hold until it', async () => {
    const [a, b] = await pair({});
    const key = unique('quota');
    const first = expectCall(await admit(a, key));
    const announced = Date.now();
    await a.settle!(key, { admitted: first, answered: true, quota: { remaining: 3, resetMs: 400 } });
    const calls: Call[] = [];
    for (const store of [a, b, a]) calls.push(expectCall(await admit(store, key)));
    expect(calls.every((c) => typeof c.counted === 'number')).toBe(true);
    const hold = await admit(b, key);
    expect(hold.kind).toBe('hold');
    expect((hold as { until: number }).until).toBeGreaterThan(announced + 300);
    expect((hold as { until: number }).until).toBeLessThanOrEqual(Date.now() + 400 + 20);
    expect((await admit(a, key)).kind).toBe('hold');
    // Without a limit, the reset forgets the quota: calls go uncounted until an answer announces one.
    await pause(Math.max(0, (hold as { until: number }).until - Date.now()) + 20);
    expect(await admit(b, key)).toEqual({ kind: 'call' });
  });

  it('refills a window to the announced limit less the calls still unanswered, and takes a later answer as the new reset', async () => {
    const [a, b] = await pair({});
    const key = unique('refill');
    const first = expectCall(await admit(a, key));
    await a.settle!(key, { admitted: first, answered: true, quota: { remaining: 1, resetMs: 300, limit: 3 } });
    const last = expectCall(await admit(b, key));
    expect((await admit(a, key)).kind).toBe('hold');
    await pause(330);
    // `last` is still unanswered: it may land in the new window, so it counts against it.
    const refilled = [expectCall(await admit(a, key)), expectCall(await admit(b, key))];
    expect(refilled[0]!.counted).not.toBe(last.counted);
    expect((await admit(a, key)).kind).toBe('hold');
    // The old window's call answers late: it counts for nothing now.
    await b.settle!(key, { admitted: last, answered: true, quota: { remaining: 0, resetMs: 5 } });
    expect((await admit(a, key)).kind).toBe('hold');
    // A call of this window answers: its reset replaces the estimate.
    await a.settle!(key, { admitted: refilled[0]!, answered: true, quota: { remaining: 1, resetMs: 200, limit: 3 } });
    const hold = await admit(b, key);
    expect(hold.kind).toBe('hold');
    expect((hold as { until: number }).until).toBeLessThanOrEqual(Date.now() + 220);
  });

  it('never raises what is left within a window, and lowers it when an answer says less is left', async () => {
    const [a, b] = await pair({});
    const key = unique('lower');
    const first = expectCall(await admit(a, key));
    await a.settle!(key, { admitted: first, answered: true, quota: { remaining: 5, resetMs: 2000 } });
    const c1 = expectCall(await admit(b, key));
    // Another client of the same account spent most of it: the site says 2 are left.
    await b.settle!(key, { admitted: c1, answered: true, quota: { remaining: 2, resetMs: 2000 } });
    const c2 = expectCall(await admit(a, key));
    const c3 = expectCall(await admit(b, key));
    expect((await admit(a, key)).kind).toBe('hold');
    // A stale answer saying more is left changes nothing.
    await a.settle!(key, { admitted: c2, answered: true, quota: { remaining: 4, resetMs: 1900 } });
    await b.settle!(key, { admitted: c3, answered: true, quota: { remaining: 3, resetMs: 1900 } });
    expect((await admit(b, key)).kind).toBe('hold');
  });

  it('counts the calls let through before any quota was known against the first one announced', async () => {
    const [a, b] = await pair({});
    const key = unique('first-contact');
    // Three workers call at once, knowing nothing; the first answer says 4 are left.
    const [first] = [expectCall(await admit(a, key)), expectCall(await admit(b, key)), expectCall(await admit(a, key))];
    await a.settle!(key, { admitted: first!, answered: true, quota: { remaining: 4, resetMs: 2000 } });
    // The other two may not have reached the site yet: 4 - 2 are left to take.
    expectCall(await admit(b, key));
    expectCall(await admit(a, key));
    expect((await admit(b, key)).kind).toBe('hold');
  });

  it('learns what a first contact left of the quota once all its answers are in, whatever their order', async () => {
    const [a, b] = await pair({});
    const key = unique('first-order');
    const calls = [expectCall(await admit(a, key)), expectCall(await admit(b, key)), expectCall(await admit(a, key))];
    // The site saw them in order (4, 3 and 2 left); the answers come back last first.
    await b.settle!(key, { admitted: calls[2]!, answered: true, quota: { remaining: 2, resetMs: 2000 } });
    expect((await admit(a, key)).kind).toBe('hold');
    await a.settle!(key, { admitted: calls[0]!, answered: true, quota: { remaining: 4, resetMs: 2000 } });
    await b.settle!(key, { admitted: calls[1]!, answered: true, quota: { remaining: 3, resetMs: 2000 } });
    // All answered: 2 are left, not 0.
    expectCall(await admit(a, key));
    expectCall(await admit(b, key));
    expect((await admit(a, key)).kind).toBe('hold');
  });

  it('holds nobody back for answers that come back out of order', async () => {
    const [a, b] = await pair({});
    const key = unique('order');
    const first = expectCall(await admit(a, key));
    await a.settle!(key, { admitted: first, answered: true, quota: { remaining: 5, resetMs: 2000 } });
    const [c1, , c3] = [expectCall(await admit(a, key)), expectCall(await admit(b, key)), expectCall(await admit(a, key))];
    // The site counted all three; the last one's answer arrives first, then the first one's.
    await a.settle!(key, { admitted: c3, answered: true, quota: { remaining: 2, resetMs: 2000 } });
    await a.settle!(key, { admitted: c1, answered: true, quota: { remaining: 4, resetMs: 2000 } });
    expectCall(await admit(b, key));
    expectCall(await admit(a, key));
    expect((await admit(b, key)).kind).toBe('hold');
  });

  it('ignores announced quotas with paceQuota false', async () => {
    const [a, b] = await pair({ paceQuota: false });
    const key = unique('unpaced');
    const first = expectCall(await admit(a, key));
    await a.settle!(key, { admitted: first, answered: true, quota: { remaining: 0, resetMs: 5000, limit: 1 } });
    expect(await admit(b, key)).toEqual({ kind: 'call' });
  });

  it('keeps each key apart: a wait or a spent quota of one site or scope holds no other', async () => {
    const [a, b] = await pair({});
    const [one, other] = [unique('one'), unique('other')];
    await shareWait(a, one);
    const first = expectCall(await admit(a, `${one}/api`));
    await a.settle!(`${one}/api`, { admitted: first, answered: true, quota: { remaining: 0, resetMs: 5000 } });
    expect((await admit(b, one)).kind).toBe('wait');
    expect((await admit(b, `${one}/api`)).kind).toBe('hold');
    expect(await admit(b, other)).toEqual({ kind: 'call' });
  });
}
