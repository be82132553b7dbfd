// Benchmark of createRedisStore against createMemoryStore, the baseline, measured in one run:
// store operations per second, and the ratio Redis / memory. No targets: a store on a network
// service is slower than a Map by its round trip, and this says by how much on this machine.
//
//   npx tsx bench/redis-store.ts          a table
//   npx tsx bench/redis-store.ts --json   the same as JSON
//
// Redis: REDIS_URL when set (keys under a prefix of this run's own, deleted at the end), otherwise
// a redis-server of its own on a free loopback port, stopped at the end.
//
// Each operation runs on 100 keys, every get a hit: getBackoff and setBackoff (a 10-minute wait),
// getCopy and setCopy (a 2 KiB page). "1 in flight" awaits each call before the next (the latency
// one agent request pays); "32 in flight" keeps 32 calls running (node-redis pipelines them: what a
// worker serving many requests gets). Rows "Redis down" use a client that is not connected, so the
// store answers from its memory fallback: the cost of an outage.
//
// Rounds: after a warm-up, each round times one batch (~BATCH_MS) per side, the order alternating;
// a side's rate is operations / batch time; the ratio is the median of the per-round ratios, with
// its interquartile range. An A/A row (memory against memory) shows the noise of the ratio itself.
// Exit code 0 unless it cannot measure.

import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { createClient } from 'redis';
import { createRedisStore } from '../src/agent/redis-store.js';
import { createMemoryStore, type Backoff, type CachedCopy, type Store } from '../src/agent/store.js';
import { privateRedis } from '../test/helpers/redis.js';
import { alignedTable, iqr, median, round2 } from './stats.js';

const KEYS = 100;
const WARMUP_MS = 300; // per side per measurement
const BATCH_MS = 40;
const ROUNDS = 16;

type Op = 'getBackoff' | 'setBackoff' | 'getCopy' | 'setCopy';

const error = { code: 'rate_limited', message: 'Too many requests', field: null, retry: 'after_delay' as const, retry_after: 600 };
const page: CachedCopy = {
  url: 'https://shop.example/item/42',
  status: 200,
  headers: [['content-type', 'text/html; charset=utf-8'], ['cache-control', 'max-age=60']],
  body: `<!doctype html><title>Item 42</title>${'<li>a product</li>'.repeat(110)}`,
  storedAt: Date.now(),
};
const origins = Array.from({ length: KEYS }, (_, i) => `https://site-${i}.example`);
const urls = Array.from({ length: KEYS }, (_, i) => `GET https://site-${i}.example/item/42`);

let sink = 0;

function call(store: Store, op: Op, i: number): unknown {
  const k = i % KEYS;
  switch (op) {
    case 'getBackoff':
      return store.getBackoff(origins[k]!);
    case 'setBackoff':
      return store.setBackoff(origins[k]!, { until: Date.now() + 600_000, error } satisfies Backoff);
    case 'getCopy':
      return store.getCopy(urls[k]!);
    case 'setCopy':
      return store.setCopy(urls[k]!, page);
  }
}

/** Runs `op` for about `ms`, `inFlight` calls at a time; operations per second. */
async function rate(store: Store, op: Op, inFlight: number, ms: number): Promise<number> {
  let done = 0;
  const started = performance.now();
  const deadline = started + ms;
  const lane = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const result = await call(store, op, done++);
      if (result) sink += 1;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  return done / ((performance.now() - started) / 1000);
}

interface Row {
  measure: string;
  memory: number;
  other: number;
  /** median per-round ratio other / memory */
  ratio: number;
  spread: [number, number];
}

async function measure(measureName: string, memory: Store, other: Store, op: Op, inFlight: number): Promise<Row> {
  await rate(memory, op, inFlight, WARMUP_MS);
  await rate(other, op, inFlight, WARMUP_MS);
  const a: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    if (r % 2 === 0) {
      a.push(await rate(memory, op, inFlight, BATCH_MS));
      b.push(await rate(other, op, inFlight, BATCH_MS));
    } else {
      b.push(await rate(other, op, inFlight, BATCH_MS));
      a.push(await rate(memory, op, inFlight, BATCH_MS));
    }
  }
  const ratios = a.map((x, i) => b[i]! / x);
  return { measure: measureName, memory: median(a), other: median(b), ratio: median(ratios), spread: iqr(ratios) };
}

/** Two decimals, or two significant digits below 0.1, where the Redis rows live. */
const ratio = (x: number): string => (x >= 0.1 ? x.toFixed(2) : x.toPrecision(2));
const perSecond = (x: number): string => (x >= 1e6 ? `${(x / 1e6).toFixed(2)} M/s` : x >= 1e3 ? `${(x / 1e3).toFixed(1)} k/s` : `${x.toFixed(0)} /s`);

async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  const started = performance.now();
  const own = process.env.REDIS_URL ? undefined : await privateRedis();
  const url = process.env.REDIS_URL ?? own!.url;
  const prefix = `agent-errors-bench:${process.pid}:${Date.now()}:`;
  const client = createClient({ url });
  client.on('error', () => {});
  await client.connect();
  const down = createClient({ url }); // never connected: every call goes to the fallback
  const fellBack = { shared: 0, outage: 0 };
  const rows: Row[] = [];
  let redisVersion = 'unknown';
  try {
    redisVersion = /redis_version:(\S+)/.exec(await client.info('server'))?.[1] ?? redisVersion;
    const memory = createMemoryStore();
    const memory2 = createMemoryStore();
    const shared = createRedisStore(client, { prefix, onFallback: () => void (fellBack.shared += 1) });
    const outage = createRedisStore(down, { prefix, onFallback: () => void (fellBack.outage += 1) });
    for (const store of [memory, memory2, shared, outage]) {
      for (let i = 0; i < KEYS; i++) {
        await call(store, 'setBackoff', i);
        await call(store, 'setCopy', i);
      }
    }
    rows.push(await measure('A/A control: memory / memory, getBackoff, 1 in flight', memory, memory2, 'getBackoff', 1));
    for (const op of ['getBackoff', 'setBackoff', 'getCopy', 'setCopy'] as const) {
      for (const inFlight of [1, 32]) rows.push(await measure(`${op}, ${inFlight} in flight`, memory, shared, op, inFlight));
    }
    for (const op of ['getBackoff', 'setCopy'] as const) rows.push(await measure(`Redis down: ${op}, 1 in flight`, memory, outage, op, 1));
  } finally {
    const keys: string[] = [];
    for await (const batch of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) keys.push(...batch);
    if (keys.length) await client.del(keys);
    client.destroy();
    await own?.stop();
  }
  if (sink === -1) console.log('');

  const context = {
    node: process.version,
    redis: redisVersion,
    server: own ? 'a redis-server of this run on 127.0.0.1' : 'REDIS_URL',
    cpus: availableParallelism(),
    keys: KEYS,
    copyBytes: JSON.stringify(page).length,
    warmupMs: WARMUP_MS,
    batchMs: BATCH_MS,
    rounds: ROUNDS,
    statistic: 'median of per-round ratios Redis store / memory store, of operations per second',
    fellBack,
    seconds: round2((performance.now() - started) / 1000),
  };
  if (json) {
    console.log(JSON.stringify({ ...context, rows: rows.map((r) => ({ ...r, memory: Math.round(r.memory), other: Math.round(r.other), ratio: Number(r.ratio.toPrecision(3)), spread: r.spread.map((x) => Number(x.toPrecision(3))) })) }, null, 2));
    return;
  }
  const cells = [
    ['measure', 'memory store', 'Redis store', 'Redis / memory', 'ratio IQR'],
    ...rows.map((r) => [r.measure, perSecond(r.memory), perSecond(r.other), ratio(r.ratio), `${ratio(r.spread[0])}-${ratio(r.spread[1])}`]),
  ];
  console.log(
    alignedTable(
      cells,
      [
        'agent stores: createRedisStore against createMemoryStore (the baseline), operations per second',
        `node ${context.node}, Redis ${context.redis} (${context.server}), ${context.cpus} CPUs; ${ROUNDS} rounds of ~${BATCH_MS} ms batches per side after ${WARMUP_MS} ms of warm-up, order alternating`,
      ],
      [
        'ratio = Redis store / memory store in operations per second, both measured in this run; absolute rates are context only.',
        `every get hits; ${KEYS} keys; a copy is ${context.copyBytes} bytes of JSON. The Redis store also writes through to (and reads) its memory fallback.`,
        'the A/A control row is memory against a second memory store: how far its ratio strays from 1.00 is the noise of the method.',
        `Redis down: a client never connected; the store answers from its fallback and said so ${fellBack.outage} time(s). The connected store fell back ${fellBack.shared} time(s) (0 unless a call timed out).`,
      ],
    ),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
