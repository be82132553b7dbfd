// Load: every AgentFriendly adapter (node:http, Express, Fastify, Hono) serving a mix of streamed
// successes, JSON successes, the framework's own 404, thrown errors, a thrown AgentError and a real
// rate limiter, to agents and browsers at once, 100 requests in flight. LOAD_REQUESTS requests in
// all (2,000 in npm test; `npm run load` sends 20,000), a quarter to each adapter.
//
// Each adapter's apps run in a child process of their own (test/helpers/load-server.ts): its heap is
// then the server's alone, measured after global.gc() without the load generator's buffers in it,
// and an uncaught exception there is the server's, counted by the listeners it registers, not
// vitest's. The client is an undici Pool per server, in this process.
//
// Memory: after a warm-up (a tenth of the requests), gc and measure; send 45%; gc and measure; send
// the other 45%; gc and measure. Neither the heap nor the Buffers outside it (arrayBuffers) may grow
// by 5 MB or more over the second half: over ten times the growth seen (0.3 MB at most), and a leak
// of about 11 KB per request at 2,000 requests (1.1 KB at 20,000) crosses it. No assertion here is
// on time; durations are printed as context.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pool } from 'undici';
import {
  limiterMisses,
  mb,
  MB,
  plan,
  pool,
  references,
  run,
  settle,
  spawnServer,
  type References,
  type RunResult,
  type ServerChild,
} from '../helpers/load-client.js';
import { ADAPTERS, SECRET, type Adapter, type ServerStats } from '../helpers/load-shared.js';

const REQUESTS = Math.max(400, Number(process.env.LOAD_REQUESTS ?? 2000) | 0);
const CONCURRENCY = 100;
const HEAP_GROWTH_LIMIT = 5 * MB;

let children: ServerChild[] = [];
let pools: Record<Adapter, Pool>;
let refs: References;
const runs: { phase: string; result: RunResult; after: ServerStats[] }[] = [];

const statsOfAll = (gc: boolean): Promise<ServerStats[]> => Promise.all(children.map((c) => c.stats(gc)));

beforeAll(async () => {
  children = await Promise.all(ADAPTERS.map((adapter) => spawnServer(adapter)));
  refs = await references(children);
  pools = Object.fromEntries(children.map((c) => [c.adapter, pool(c.wrapped, CONCURRENCY)])) as Record<Adapter, Pool>;
}, 60_000);

afterAll(async () => {
  await Promise.all(Object.values(pools ?? {}).map((p) => p.close()));
  await Promise.all(children.map((c) => c.close()));
});

function report(): string {
  const lines: string[] = [`load: ${REQUESTS} requests at concurrency ${CONCURRENCY} (up to ${CONCURRENCY} in flight)`];
  for (const { phase, result, after } of runs) {
    lines.push(`  ${phase}: ${result.sent} sent, ${result.answered} answered, ${result.problems.length} problems, ${(result.ms / 1000).toFixed(1)} s; after gc: ${after.map((s) => `${s.adapter} heap ${mb(s.memory.heapUsed)} rss ${mb(s.memory.rss)}`).join(', ')}`);
  }
  const total = (adapter: Adapter, by: 'byProfile' | 'byRoute'): string => {
    const counts: Record<string, number> = {};
    for (const { result } of runs) for (const [k, v] of Object.entries(result[by][adapter])) counts[k] = (counts[k] ?? 0) + v;
    return Object.entries(counts).sort().map(([k, v]) => `${k} ${v}`).join(', ');
  };
  for (const adapter of ADAPTERS) lines.push(`  ${adapter}: by caller: ${total(adapter, 'byProfile')}\n    by route and status: ${total(adapter, 'byRoute')}`);
  return lines.join('\n');
}

describe(`load: ${REQUESTS} requests, agents and browsers, every adapter`, () => {
  it(
    'answers every request as it must be: success bodies by hash, agent errors valid with their code, browser pages unchanged and a thrown AgentError as its catalog page',
    async () => {
      const warm = Math.round(REQUESTS / 10);
      const half = Math.round((REQUESTS - warm) / 2);
      const phases = [
        { phase: 'warm-up', requests: plan(warm, 'w', 1) },
        { phase: 'first half', requests: plan(half, 'a', 2) },
        { phase: 'second half', requests: plan(REQUESTS - warm - half, 'b', 3) },
      ];
      for (const { phase, requests } of phases) {
        const result = await run(requests, pools, refs, CONCURRENCY);
        runs.push({ phase, result, after: await statsOfAll(true) });
      }
      console.log(report());
      const all = runs.map((r) => r.result);
      expect(all.flatMap((r) => r.problems).slice(0, 20)).toEqual([]);
      expect(all.reduce((n, r) => n + r.answered, 0)).toBe(REQUESTS);
      expect(all.flatMap(limiterMisses)).toEqual([]);
    },
    120_000 + REQUESTS * 20,
  );

  it('keeps each server heap (and its Buffers outside it) flat: under 5 MB of growth over the second half, after gc', () => {
    expect(runs).toHaveLength(3);
    const [warm, first, second] = runs;
    const memory = (run: (typeof runs)[number], adapter: Adapter) => run.after.find((s) => s.adapter === adapter)!.memory;
    const lines = ADAPTERS.map((adapter) => {
      const [w, a, b] = [memory(warm!, adapter), memory(first!, adapter), memory(second!, adapter)];
      return `  ${adapter}: heapUsed ${mb(w.heapUsed)} -> ${mb(a.heapUsed)} -> ${mb(b.heapUsed)}, arrayBuffers ${mb(w.arrayBuffers)} -> ${mb(a.arrayBuffers)} -> ${mb(b.arrayBuffers)}`;
    });
    console.log(`server memory after gc (after the warm-up -> the first half -> the second half):\n${lines.join('\n')}`);
    for (const adapter of ADAPTERS) {
      const [a, b] = [memory(first!, adapter), memory(second!, adapter)];
      expect(b.heapUsed - a.heapUsed, `${adapter} heapUsed`).toBeLessThan(HEAP_GROWTH_LIMIT);
      expect(b.arrayBuffers - a.arrayBuffers, `${adapter} arrayBuffers`).toBeLessThan(HEAP_GROWTH_LIMIT);
    }
  });

  it('crashes nothing: no uncaught exception or unhandled rejection, thrown errors to onError only, and no connection left open', async () => {
    await Promise.all(Object.values(pools).map((p) => p.close()));
    pools = {} as Record<Adapter, Pool>;
    const stats = await settle(
      () => statsOfAll(false),
      (all) => all.every((s) => s.connections.wrapped === 0 && s.connections.bare === 0),
    );
    for (const s of stats) {
      const child = children.find((c) => c.adapter === s.adapter)!;
      expect(child.exit(), s.adapter).toBeNull();
      expect({ adapter: s.adapter, uncaught: s.uncaught, unhandled: s.unhandled, warnings: s.warnings }).toEqual({ adapter: s.adapter, uncaught: [], unhandled: [], warnings: [] });
      expect(s.connections, s.adapter).toEqual({ wrapped: 0, bare: 0 });
      // Every agent's thrown error was the adapter's to answer; none reached the node server's last resort.
      expect(s.lastResort.agent, s.adapter).toBe(0);
      // onError saw the thrown Error of /boom and nothing else (an AgentError is the site's answer, not a fault).
      expect(Object.keys(s.onError), s.adapter).toEqual([`Error: ${SECRET}`]);
      const booms = runs.reduce((n, r) => n + Object.entries(r.result.byRoute[s.adapter]).filter(([k]) => k.startsWith('boom ')).reduce((m, [, v]) => m + v, 0), 0);
      expect(s.onError[`Error: ${SECRET}`], s.adapter).toBeLessThanOrEqual(booms);
    }
  });
});
