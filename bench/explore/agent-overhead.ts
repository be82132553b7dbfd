// Where the agent client's time goes, for bench/agent.ts's client rows. No verdict of its own: a
// breakdown, each line a ratio to bare fetch (or a cost per call) measured in this same run.
//
//   npx tsx bench/explore/agent-overhead.ts          a table
//   npx tsx bench/explore/agent-overhead.ts --json   the same as JSON
//
// Part 1, on loopback (bench/agent.ts's server, in a child process): sequential GETs, each reading
// the body, the variants interleaved in rotating order, median per-round ratio to bare fetch.
//   200 (GET /ok): the client; the Request path the client takes on every call (new Request, then
//   fetch(request.clone()), which fetch copies once more); and the same call with none of those
//   copies (new URL + the store look-up + fetch(url, init)), i.e. the client's path once fixed.
//   404 (GET /missing): the client, its copy read or not; the response clone (a tee of the body
//   stream) alone; fromResponse alone.
// Part 2, no network: the CPU cost per call of each step alone.
//
// Exit code 0 unless it cannot measure.

import { performance } from 'node:perf_hooks';
import { createAgentClient } from '../../src/agent/client.js';
import { createMemoryStore } from '../../src/agent/store.js';
import { fromResponse } from '../../src/core/from-response.js';
import { startServer, stopServer } from '../agent.js';
import { median } from '../stats.js';

const WARMUP_REQUESTS = 800; // per variant
const BATCH = 150; // sequential requests per variant per round
const ROUNDS = 36;
const CPU_OPS = 4000; // per step per round of part 2
const CPU_ROUNDS = 12;

let sink = 0;


interface Variant {
  what: string;
  run: (n: number) => Promise<void>;
}

/** Rounds in rotating order (a cyclic shift per round, reversed every other cycle); ms per unit per variant. */
async function rounds(variants: Variant[], batch: number, count: number): Promise<number[][]> {
  const out: number[][] = [];
  for (let r = 0; r < count; r++) {
    const order = variants.map((_, i) => (i + r) % variants.length);
    if (Math.floor(r / variants.length) % 2 === 1) order.reverse();
    const times = variants.map(() => 0);
    for (const i of order) {
      const t0 = performance.now();
      await variants[i]!.run(batch);
      times[i] = (performance.now() - t0) / batch;
    }
    out.push(times);
  }
  return out;
}

interface NetRow {
  what: string;
  usPerRequest: number;
  /** median per-round ratio to the first variant (bare fetch) */
  ratioToFetch: number;
  /** median per-round difference to bare fetch, us */
  extraUs: number;
}

function summarize(variants: Variant[], samples: number[][]): NetRow[] {
  return variants.map((v, i) => ({
    what: v.what,
    usPerRequest: Math.round(median(samples.map((t) => t[i]!)) * 10_000) / 10,
    ratioToFetch: Math.round(median(samples.map((t) => t[i]! / t[0]!)) * 100) / 100,
    extraUs: Math.round(median(samples.map((t) => t[i]! - t[0]!)) * 10_000) / 10,
  }));
}

async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  const started = performance.now();
  const { child, origin } = await startServer();
  const ok = `${origin}/ok`;
  const missing = `${origin}/missing`;
  const store = createMemoryStore();
  const client = createAgentClient({ store: createMemoryStore() });

  const read = async (response: Response, status: number): Promise<string> => {
    if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}`);
    const text = await response.text();
    sink += text.length;
    return text;
  };
  const each =
    (step: () => Promise<unknown>) =>
    async (n: number): Promise<void> => {
      for (let i = 0; i < n; i++) await step();
    };

  const variants200: Variant[] = [
    { what: 'fetch(url) (baseline)', run: each(async () => read(await fetch(ok), 200)) },
    { what: 'fetch(url) again (A/A control)', run: each(async () => read(await fetch(ok), 200)) },
    {
      what: 'createAgentClient().fetch(url)',
      run: each(async () => {
        const r = await client.fetch(ok);
        if (!r.ok) throw new Error(r.error.code);
        await read(r.response, 200);
      }),
    },
    { what: 'fetch(new Request(url).clone()): the client\'s Request copies alone', run: each(async () => read(await fetch(new Request(ok).clone()), 200)) },
    {
      what: 'new URL + await store.getBackoff + fetch(url, init): the client without them',
      run: each(async () => {
        const backoff = await store.getBackoff(new URL(ok).origin);
        if (backoff) throw new Error('unexpected backoff');
        await read(await fetch(ok, undefined), 200);
      }),
    },
  ];

  const variants404: Variant[] = [
    { what: 'fetch(url) + text() (baseline)', run: each(async () => read(await fetch(missing), 404)) },
    { what: 'fetch(url) + text() again (A/A control)', run: each(async () => read(await fetch(missing), 404)) },
    {
      what: 'createAgentClient().fetch(url), then copy.text()',
      run: each(async () => {
        const r = await client.fetch(missing);
        if (r.ok || !r.response) throw new Error('expected a 404 with its response');
        await read(r.response, 404);
      }),
    },
    {
      what: 'createAgentClient().fetch(url), copy left unread',
      run: each(async () => {
        const r = await client.fetch(missing);
        if (r.ok) throw new Error('expected a 404');
        sink += r.error.message.length;
      }),
    },
    {
      what: 'fetch(url) + response.clone() + text() + copy.text(): the tee alone',
      run: each(async () => {
        const response = await fetch(missing);
        const copy = response.clone();
        await read(response, 404);
        await read(copy, 404);
      }),
    },
    {
      what: 'fetch(url) + text() + fromResponse(status, headers, text)',
      run: each(async () => {
        const response = await fetch(missing);
        const text = await read(response, 404);
        sink += fromResponse(response.status, response.headers, text).error.message.length;
      }),
    },
  ];

  let samples200: number[][];
  let samples404: number[][];
  try {
    for (const v of [...variants200, ...variants404]) await v.run(WARMUP_REQUESTS);
    samples200 = await rounds(variants200, BATCH, ROUNDS);
    samples404 = await rounds(variants404, BATCH, ROUNDS);
  } finally {
    stopServer(child);
  }
  const net200 = summarize(variants200, samples200);
  const net404 = summarize(variants404, samples404);

  // Part 2: each step alone, no network. fetch(url) makes one Request from the string; the client
  // makes one, clones it, and fetch makes a third from the clone, following each one's signal.
  const steps: { step: string; op: () => unknown }[] = [
    { step: 'new Request(url) (what fetch(url) makes)', op: () => new Request(ok) },
    { step: 'new Request(url).clone()', op: () => new Request(ok).clone() },
    { step: 'new Request(new Request(url)) (fetch given a Request)', op: () => new Request(new Request(ok)) },
    { step: 'new Request(new Request(url).clone()) (the client, all three)', op: () => new Request(new Request(ok).clone()) },
    { step: 'new URL(url)', op: () => new URL(ok) },
  ];
  const cpuVariants: Variant[] = [
    ...steps.map(({ step, op }) => ({
      what: step,
      run: async (n: number) => {
        for (let i = 0; i < n; i++) sink += op() ? 1 : 0;
      },
    })),
    {
      what: 'await store.getBackoff(origin) (memory store)',
      run: async (n: number) => {
        for (let i = 0; i < n; i++) sink += (await store.getBackoff(origin)) ? 1 : 0;
      },
    },
  ];
  for (const v of cpuVariants) await v.run(CPU_OPS);
  const cpuSamples = await rounds(cpuVariants, CPU_OPS, CPU_ROUNDS);
  const cpu = cpuVariants.map((v, i) => ({ step: v.what, usPerCall: Math.round(median(cpuSamples.map((t) => t[i]!)) * 100_000) / 100 }));

  if (sink === -1) console.log('');
  const seconds = Math.round(performance.now() - started) / 1000;
  if (json) {
    console.log(JSON.stringify({ node: process.version, undici: process.versions.undici, rounds: ROUNDS, batch: BATCH, loopback200: net200, loopback404: net404, cpu, seconds }, null, 2));
    return;
  }
  const pad = (rows: string[][]): string => {
    const w = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
    return rows.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(w[c]!) : cell.padStart(w[c]!))).join('  ')).join('\n');
  };
  const netTable = (title: string, rows: NetRow[]): string =>
    pad([[title, 'us/request', 'ratio to fetch', 'extra us'], ...rows.map((n) => [n.what, n.usPerRequest.toFixed(1), n.ratioToFetch.toFixed(2), n.extraUs.toFixed(1)])]);
  console.log(
    [
      `node ${process.version}, undici ${process.versions.undici}; loopback: ${ROUNDS} rounds x ${BATCH} sequential requests per variant, rotating order; median per-round ratio and difference to bare fetch`,
      '',
      netTable('GET /ok (200, small JSON)', net200),
      '',
      netTable('GET /missing (404, small HTML)', net404),
      '',
      `CPU alone, no network: ${CPU_ROUNDS} rounds x ${CPU_OPS} calls per step, median`,
      pad([['step', 'us/call'], ...cpu.map((s) => [s.step, s.usPerCall.toFixed(2)])]),
      '',
      `took ${seconds} s`,
    ].join('\n'),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
