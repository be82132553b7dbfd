// Benchmark of the agent side: fromResponse and the agent client. The machine is shared and noisy,
// so every verdict is a ratio of two things measured in this same run (interleaved rounds in
// rotating order, after a warm-up, medians); absolute numbers are context only.
//
//   npx tsx bench/agent.ts          a table
//   npx tsx bench/agent.ts --json   the same as JSON
//
// 1. Corpus: fromResponse(status, headers, body) over every test/fixtures/responses/*.json, the
//    body as the raw text a client holds (JSON.stringify(f.body) for JSON bodies, the page as it
//    is), against JSON.parse of text of the same size: the same JSON text for JSON bodies, and for
//    pages the page as a JSON string literal (JSON.stringify(page)), i.e. one parse of about the
//    same bytes. Ratio = fromResponse / JSON.parse per pass over the corpus, context: what a new
//    dialect or format may cost is held by bench/from-response-ab.ts (at most 3 % more than the
//    commit before it, issue 36), since readers are chosen by the body's shape.
// 2. Large page: fromResponse on a 10 MiB HTML page against a 256 KiB page of the same shape (a
//    real error page's head and main content, then a long product grid as filler), as a string and
//    as a Uint8Array. Ratio = 10 MiB / 256 KiB, at most 1.50: only a bounded prefix is read.
// 3. Client: createAgentClient({ store: createMemoryStore() }).fetch(url) against bare fetch(url) with
//    the Accept the client sends by default (AGENT_ACCEPT: the same request, so only the client's work differs),
//    sequential GETs on one keep-alive loopback connection pool (the platform fetch's defaults for
//    both) to a node:http server in a plain node child process (SERVER_SOURCE below); each side
//    reads the body of the response it gets (for the client's 404, the unread copy it returns).
//    200 with a small JSON body: client / fetch at most 1.05. 404 with a small HTML page: context
//    (the client reads and parses that body, as it must).
//
// Each measurement runs its sides in rounds, one timed batch per side per round, the order rotating
// through every permutation. The ratio is the median of the per-round ratios. Every measurement
// runs its baseline twice: the second copy against the first (same code) is an A/A
// control whose distance from 1.00 is the headline's own noise, and a ratio above its target by no
// more than that is "equal within noise" (yes*), as in bench/validators.ts.
//
// Missing a target never fails the run: the exit code is 0. Only a run that cannot measure (the
// server does not start, a side gives a wrong answer, the corpus cannot be read) exits 1.
//
// Where the client's time goes, step by step: npx tsx bench/explore/agent-overhead.ts.

import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { AGENT_ACCEPT, createAgentClient } from '../src/agent/client.js';
import { createMemoryStore } from '../src/agent/store.js';
import { fromResponse, MAX_BODY_BYTES } from '../src/core/from-response.js';
import { alignedTable, iqr, median, permutations, round2, targetText, verdictMark, verdictOf, type Verdict } from './stats.js';

const CORPUS_DIR = fileURLToPath(new URL('../test/fixtures/responses/', import.meta.url));

const CPU_WARMUP_MS = 800; // per measurement of sections 1 and 2, rotating the sides
const CPU_BATCH_MS = 25; // target length of one timed batch
const CPU_ROUNDS = 24; // each round one batch per side
const LARGE_BYTES = 10 * 1024 * 1024;
const SMALL_BYTES = 256 * 1024;
const HTTP_WARMUP_REQUESTS = 1500; // per side, before the first timed round
const HTTP_BATCH = 250; // sequential requests in one timed batch
const HTTP_ROUNDS = 42; // each round one batch per side (7 times each of the 6 orders): 10,500 timed requests per side
const LARGE_TARGET = 1.5; // 10 MiB / 256 KiB, at most
const CLIENT_TARGET = 1.05; // client / fetch for a 200, at most

type Target = { op: '<='; value: number } | null;

interface Row {
  id: 'corpus' | 'large_page_string' | 'large_page_bytes' | 'client_200' | 'client_404';
  measure: string;
  /** what value A and value B are */
  a: string;
  b: string;
  unit: 'us/pass' | 'ms/call' | 'us/request';
  /** medians over the rounds, in `unit` */
  valueA: number;
  valueB: number;
  /** median of the per-round ratios A / B */
  ratio: number;
  target: Target;
  met: boolean | null;
  verdict: Verdict;
  spread: { a: [number, number]; b: [number, number]; ratio: [number, number] };
  /** median of the per-round ratios second copy / first copy of B (same code), when measured */
  control: number | null;
  noise: number | null;
  rounds: number;
  /** units (passes, calls, requests) in one batch of A and of B */
  batch: [number, number];
}

export class CannotMeasure extends Error {}

// Results flow into this so no side's work is dead code.
let sink = 0;

// ---------------------------------------------------------------- the harness

/** One contender: runs `units` units of work (corpus passes, calls, requests). */
interface Side {
  name: string;
  run: (units: number) => void | Promise<void>;
}

interface Sampled {
  /** ms per unit, per round, per side */
  perUnit: number[][];
  batch: number[];
}

/**
 * Runs the sides in rounds after a warm-up. `batch` fixes the units per batch (the same for every
 * side); otherwise each side's batch is sized in the warm-up to last about `batchMs`.
 */
async function sample(sides: Side[], o: { warmupMs?: number; warmupUnits?: number; batchMs?: number; batch?: number; rounds: number }): Promise<Sampled> {
  const perUnitSeen = sides.map(() => Infinity);
  if (o.warmupUnits !== undefined) {
    // A fixed warm-up, in slices so the sides alternate.
    const slice = Math.max(1, Math.floor(o.warmupUnits / 5));
    for (let done = 0; done < o.warmupUnits; done += slice) for (const side of sides) await side.run(slice);
  } else {
    const until = performance.now() + (o.warmupMs ?? 0);
    let units = 1;
    while (performance.now() < until) {
      for (const [i, side] of sides.entries()) {
        const t0 = performance.now();
        await side.run(units);
        perUnitSeen[i] = Math.min(perUnitSeen[i]!, (performance.now() - t0) / units);
      }
      if (Math.max(...perUnitSeen) * units < 5) units *= 2;
    }
  }
  const batch = sides.map((_, i) => o.batch ?? Math.max(1, Math.round((o.batchMs ?? 10) / perUnitSeen[i]!)));
  const orders = permutations(sides.length);
  const perUnit: number[][] = [];
  for (let round = 0; round < o.rounds; round++) {
    const times = sides.map(() => 0);
    for (const i of orders[round % orders.length]!) {
      const t0 = performance.now();
      await sides[i]!.run(batch[i]!);
      times[i] = (performance.now() - t0) / batch[i]!;
    }
    perUnit.push(times);
  }
  return { perUnit, batch };
}

/** A row from sides [A, B] or [A, B, B again]: ratio A / B, and B again / B as the control. */
function row(
  base: Pick<Row, 'id' | 'measure' | 'a' | 'b' | 'unit' | 'target'>,
  sampled: Sampled,
  scale: number, // ms per unit -> unit of the row
): Row {
  const a = sampled.perUnit.map((t) => t[0]! * scale);
  const b = sampled.perUnit.map((t) => t[1]! * scale);
  const ratios = sampled.perUnit.map((t) => t[0]! / t[1]!);
  const controls = sampled.perUnit[0]!.length > 2 ? sampled.perUnit.map((t) => t[2]! / t[1]!) : null;
  const ratio = median(ratios);
  const control = controls ? median(controls) : null;
  const noise = control === null ? null : Math.abs(1 - control);
  const verdict = verdictOf(ratio, base.target, noise);
  return {
    ...base,
    valueA: median(a),
    valueB: median(b),
    ratio,
    met: verdict === 'informational' ? null : verdict !== 'not met',
    verdict,
    spread: { a: iqr(a), b: iqr(b), ratio: iqr(ratios) },
    control,
    noise,
    rounds: sampled.perUnit.length,
    batch: [sampled.batch[0]!, sampled.batch[1]!],
  };
}

// ---------------------------------------------------------------- 1. the corpus

interface Fixture {
  file: string;
  status: number;
  headers: Record<string, string>;
  body: unknown;
  expect?: { code?: string };
}

export interface CorpusItem {
  status: number;
  headers: Record<string, string>;
  /** what fromResponse gets: the raw text of the body, or null */
  body: string | null;
  /** what JSON.parse gets: the same JSON text, or the page as a JSON string literal */
  baseline: string;
}

export function loadCorpus(): { items: CorpusItem[]; json: number; pages: number; empty: number; bytes: number; expected: number } {
  let files: string[];
  try {
    files = readdirSync(CORPUS_DIR).filter((name) => name.endsWith('.json')).sort();
  } catch (error) {
    throw new CannotMeasure(`cannot read ${CORPUS_DIR}: ${String(error)}`);
  }
  if (files.length === 0) throw new CannotMeasure(`no fixtures in ${CORPUS_DIR}`);
  const items: CorpusItem[] = [];
  let json = 0;
  let pages = 0;
  let empty = 0;
  let expected = 0;
  for (const file of files) {
    let f: Fixture;
    try {
      f = { file, ...(JSON.parse(readFileSync(join(CORPUS_DIR, file), 'utf8')) as Omit<Fixture, 'file'>) };
    } catch (error) {
      throw new CannotMeasure(`cannot read the fixture ${file}: ${String(error)}`);
    }
    let body: string | null;
    let baseline: string;
    if (typeof f.body === 'string') {
      body = f.body;
      baseline = JSON.stringify(f.body);
      pages += 1;
    } else if (f.body === null || f.body === undefined) {
      body = null;
      baseline = 'null';
      empty += 1;
    } else {
      body = JSON.stringify(f.body);
      baseline = body;
      json += 1;
    }
    const envelope = fromResponse(f.status, f.headers, body);
    if (envelope.error.code === f.expect?.code) expected += 1;
    items.push({ status: f.status, headers: f.headers, body, baseline });
  }
  const bytes = items.reduce((n, item) => n + Buffer.byteLength(item.body ?? ''), 0);
  return { items, json, pages, empty, bytes, expected };
}

async function corpus(items: CorpusItem[]): Promise<Row> {
  const fromResponseSide: Side = {
    name: 'fromResponse',
    run(units) {
      for (let u = 0; u < units; u++) for (const item of items) sink += fromResponse(item.status, item.headers, item.body).error.message.length;
    },
  };
  const parseSide = (name: string): Side => ({
    name,
    run(units) {
      for (let u = 0; u < units; u++) for (const item of items) sink += typeof JSON.parse(item.baseline) === 'string' ? 1 : 2;
    },
  });
  const sampled = await sample([fromResponseSide, parseSide('JSON.parse'), parseSide('JSON.parse again')], { warmupMs: CPU_WARMUP_MS, batchMs: CPU_BATCH_MS, rounds: CPU_ROUNDS });
  return row(
    {
      id: 'corpus',
      measure: `corpus (${items.length} responses): fromResponse / JSON.parse`,
      a: 'fromResponse, one pass over the corpus',
      b: 'JSON.parse of the same bytes, one pass (pages as a JSON string literal)',
      unit: 'us/pass',
      // No target of its own (issue 36 decided issue 26's question): the cost of the rules an agent
      // relies on is accepted, and what may not grow is held by bench/from-response-ab.ts, which
      // measures each change against the commit before it.
      target: null,
    },
    sampled,
    1000,
  );
}

// ---------------------------------------------------------------- 2. a large page

const PAGE_FIXTURE = 'cloudflare-404-jsd-script-not-challenge.json';

/**
 * A real error page (a storefront 404 behind Cloudflare, with its injected script) whose main
 * content is followed by a product grid long enough to make the page `bytes` UTF-8 bytes.
 */
function page(bytes: number): { status: number; headers: Record<string, string>; text: string; data: Uint8Array } {
  const f = JSON.parse(readFileSync(join(CORPUS_DIR, PAGE_FIXTURE), 'utf8')) as Fixture;
  const html = f.body as string;
  const cut = html.indexOf('</main>');
  if (cut < 0) throw new CannotMeasure(`${PAGE_FIXTURE} has no </main> to grow the page after`);
  const head = `${html.slice(0, cut + '</main>'.length)}\n<section class="recommended"><h2>You may also like</h2><ul>\n`;
  const tail = `</ul></section>\n${html.slice(cut + '</main>'.length)}`;
  let room = bytes - Buffer.byteLength(head) - Buffer.byteLength(tail);
  const parts: string[] = [];
  for (let i = 0; ; i++) {
    const item = `<li class="card"><a href="/products/item-${i}"><img src="/cdn/shop/files/item-${i}.jpg" alt="">Item ${i}</a><span class="price">EUR ${10 + (i % 90)}.00</span></li>\n`;
    if (item.length > room) break;
    parts.push(item);
    room -= item.length;
  }
  parts.push(`<!--${' '.repeat(Math.max(0, room - 7))}-->`);
  const text = head + parts.join('') + tail;
  const data = new TextEncoder().encode(text);
  if (data.length !== bytes) throw new CannotMeasure(`built a ${data.length}-byte page, wanted ${bytes}`);
  // A flat string, as response.text() gives, not a rope of the parts.
  return { status: f.status, headers: f.headers, text: new TextDecoder().decode(data), data };
}

async function largePage(kind: 'string' | 'bytes'): Promise<{ row: Row; same: boolean; code: string; message: string }> {
  const large = page(LARGE_BYTES);
  const small = page(SMALL_BYTES);
  const body = (p: typeof large): string | Uint8Array => (kind === 'string' ? p.text : p.data);
  const side = (name: string, p: typeof large): Side => {
    const b = body(p);
    return {
      name,
      run(units) {
        for (let u = 0; u < units; u++) sink += fromResponse(p.status, p.headers, b).error.message.length;
      },
    };
  };
  const a = fromResponse(large.status, large.headers, body(large)).error;
  const b = fromResponse(small.status, small.headers, body(small)).error;
  const sampled = await sample([side('10 MiB', large), side('256 KiB', small), side('256 KiB again', small)], {
    warmupMs: CPU_WARMUP_MS,
    batchMs: CPU_BATCH_MS,
    rounds: CPU_ROUNDS,
  });
  return {
    row: row(
      {
        id: kind === 'string' ? 'large_page_string' : 'large_page_bytes',
        measure: `large page, ${kind === 'string' ? 'string' : 'Uint8Array'} body: 10 MiB / 256 KiB`,
        a: `fromResponse on a 10 MiB page (${kind})`,
        b: `fromResponse on a 256 KiB page of the same shape (${kind})`,
        unit: 'ms/call',
        target: { op: '<=', value: LARGE_TARGET },
      },
      sampled,
      1,
    ),
    same: JSON.stringify(a) === JSON.stringify(b),
    code: a.code,
    message: a.message,
  };
}

// ---------------------------------------------------------------- 3. the client on loopback

/**
 * The loopback server, run by a plain `node` (no tsx loader) in its own process so its work runs
 * beside the client being measured, not in the same event loop. GET /ok answers 200 with a small
 * JSON body; anything else 404 with nginx's small default page. It prints {"port": N} when ready
 * and exits when its stdin closes. Keep-alive is long so no connection expires between batches.
 */
export const SERVER_SOURCE = `
import { createServer } from 'node:http';
const OK = ${JSON.stringify(JSON.stringify({ id: 'ord_1042', status: 'shipped', items: 3, total: { amount: 4200, currency: 'EUR' } }))};
const MISSING = ${JSON.stringify('<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n')};
const server = createServer((request, response) => {
  const ok = request.url === '/ok';
  const body = ok ? OK : MISSING;
  response.writeHead(ok ? 200 : 404, { 'content-type': ok ? 'application/json' : 'text/html', 'content-length': Buffer.byteLength(body) });
  response.end(body);
});
server.keepAliveTimeout = 120000;
server.headersTimeout = 130000;
server.listen(0, '127.0.0.1', () => process.stdout.write(JSON.stringify({ port: server.address().port }) + '\\n'));
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
`;

/** Starts the loopback server; stop it with stopServer. */
export async function startServer(): Promise<{ child: ChildProcess; origin: string }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', SERVER_SOURCE], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new CannotMeasure('the loopback server did not start within 10 s')), 10_000);
    child.once('error', (error) => reject(new CannotMeasure(`cannot start the loopback server: ${error.message}`)));
    child.once('exit', (code, signal) => reject(new CannotMeasure(`the loopback server exited (${code ?? signal})`)));
    lines.once('line', (line) => {
      clearTimeout(timer);
      try {
        resolve((JSON.parse(line) as { port: number }).port);
      } catch {
        reject(new CannotMeasure(`the loopback server printed ${JSON.stringify(line)}`));
      }
    });
  });
  child.removeAllListeners('exit');
  child.removeAllListeners('error');
  return { child, origin: `http://127.0.0.1:${port}` };
}

export function stopServer(child: ChildProcess): void {
  child.stdin?.end();
  if (child.exitCode === null && child.signalCode === null) child.kill();
}

/** What fetch is given on the baseline side: the client's default Accept, so both sides make one request. */
const SAME_REQUEST: RequestInit = { headers: { accept: AGENT_ACCEPT } };

async function clientOverhead(origin: string, path: '/ok' | '/missing'): Promise<Row> {
  const url = `${origin}${path}`;
  const client = createAgentClient({ store: createMemoryStore() });
  const expectOk = path === '/ok';
  const clientSide: Side = {
    name: 'client.fetch',
    async run(units) {
      for (let u = 0; u < units; u++) {
        const result = await client.fetch(url);
        if (result.ok !== expectOk || (!result.ok && result.error.code !== 'not_found'))
          throw new CannotMeasure(`client.fetch(${path}) gave ${JSON.stringify(result.ok ? { ok: true } : result.error)}`);
        // The body of the response the caller got: the 200 itself, or the 404's unread copy.
        if (result.response) sink += (await result.response.text()).length;
      }
    },
  };
  const fetchSide = (name: string): Side => ({
    name,
    async run(units) {
      for (let u = 0; u < units; u++) {
        // The same request the client sends: its Accept is part of what is asked, not overhead.
        const response = await fetch(url, SAME_REQUEST);
        if (response.ok !== expectOk) throw new CannotMeasure(`fetch(${path}) gave ${response.status}`);
        sink += (await response.text()).length;
      }
    },
  });
  const sampled = await sample([clientSide, fetchSide('fetch'), fetchSide('fetch again')], {
    warmupUnits: HTTP_WARMUP_REQUESTS,
    batch: HTTP_BATCH,
    rounds: HTTP_ROUNDS,
  });
  const ok = path === '/ok';
  return row(
    {
      id: ok ? 'client_200' : 'client_404',
      measure: ok ? 'client 200 (small JSON): client / fetch' : 'client 404 (small HTML, info): client / fetch',
      a: 'createAgentClient().fetch(url) + read the body, per request',
      b: 'fetch(url) with the Accept the client sends + read the body, per request',
      unit: 'us/request',
      target: ok ? { op: '<=', value: CLIENT_TARGET } : null,
    },
    sampled,
    1000,
  );
}

// ---------------------------------------------------------------- output

function formatValue(row: Row, value: number): string {
  if (row.unit === 'ms/call') return `${value.toFixed(value < 10 ? 3 : 1)} ms`;
  return value >= 1000 ? `${(value / 1000).toFixed(2)} ms` : `${value.toFixed(value < 10 ? 2 : 1)} us`;
}

function table(rows: Row[], header: string[], notes: string[]): string {
  const cells = [
    ['measure', 'value A', 'value B', 'ratio', 'target', 'met'],
    ...rows.map((r) => [
      r.measure,
      formatValue(r, r.valueA),
      formatValue(r, r.valueB),
      r.ratio.toFixed(2),
      targetText(r.target) || '-',
      verdictMark(r.verdict),
    ]),
  ];
  return alignedTable(cells, header, notes);
}

async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  const started = performance.now();

  const loaded = loadCorpus();
  const corpusRow = await corpus(loaded.items);
  const strings = await largePage('string');
  const bytes = await largePage('bytes');

  const { child, origin } = await startServer();
  let client200: Row;
  let client404: Row;
  try {
    client200 = await clientOverhead(origin, '/ok');
    client404 = await clientOverhead(origin, '/missing');
  } finally {
    stopServer(child);
  }

  // What an agent feels: a response's reading beside the loopback round trip it came over (bare fetch's, client 200's baseline).
  const perResponse = corpusRow.valueA / loaded.items.length;
  corpusRow.measure += ` (a response ${perResponse.toFixed(1)} us, ${((perResponse / client200.valueB) * 100).toFixed(1)} % of a loopback round trip with bare fetch, ${client200.valueB.toFixed(0)} us)`;
  const rows = [corpusRow, strings.row, bytes.row, client200, client404];
  const context = {
    node: process.version,
    undici: process.versions.undici ?? null,
    cpus: availableParallelism(),
    corpus: {
      responses: loaded.items.length,
      jsonBodies: loaded.json,
      pages: loaded.pages,
      emptyBodies: loaded.empty,
      bodyBytes: loaded.bytes,
      codeAsExpected: loaded.expected,
      baseline: 'JSON.parse of the same JSON text; for a page, JSON.parse(JSON.stringify(page)), a JSON string literal of about the same length',
    },
    largePage: {
      fixture: PAGE_FIXTURE,
      bytes: { large: LARGE_BYTES, small: SMALL_BYTES },
      maxBodyBytes: MAX_BODY_BYTES,
      sameEnvelope: { string: strings.same, bytes: bytes.same },
      code: strings.code,
      message: strings.message,
    },
    client: {
      server: 'node:http in a plain node child process on 127.0.0.1',
      requests: 'sequential GETs, keep-alive as the platform fetch does by default; every side reads the body it gets',
      warmupRequestsPerSide: HTTP_WARMUP_REQUESTS,
      requestsPerBatch: HTTP_BATCH,
      rounds: HTTP_ROUNDS,
    },
    cpu: { warmupMs: CPU_WARMUP_MS, batchMs: CPU_BATCH_MS, rounds: CPU_ROUNDS },
    statistic: 'median of the per-round ratios A / B; the A/A control is the same statistic between two copies of side B',
    seconds: round2((performance.now() - started) / 1000),
  };
  if (sink === -1) console.log(''); // keeps every side's result alive

  if (json) {
    const scaleOut = (x: number): number => (Math.abs(x) < 10 ? Math.round(x * 1000) / 1000 : Math.round(x * 10) / 10);
    const pair = (f: (x: number) => number, p: [number, number]): [number, number] => [f(p[0]), f(p[1])];
    const out = rows.map((r) => ({
      ...r,
      valueA: scaleOut(r.valueA),
      valueB: scaleOut(r.valueB),
      ratio: round2(r.ratio),
      control: r.control === null ? null : round2(r.control),
      noise: r.noise === null ? null : round2(r.noise),
      spread: { a: pair(scaleOut, r.spread.a), b: pair(scaleOut, r.spread.b), ratio: pair(round2, r.spread.ratio) },
    }));
    console.log(JSON.stringify({ ...context, rows: out }, null, 2));
    return;
  }
  const controls = rows
    .filter((r) => r.control !== null)
    .map((r) => `${r.id} ${r.control!.toFixed(2)}`)
    .join(', ');
  const ratioSpread = rows.map((r) => `${r.id} ${r.spread.ratio[0].toFixed(2)}-${r.spread.ratio[1].toFixed(2)}`).join(', ');
  console.log(
    table(
      rows,
      [
        'agent side: fromResponse over the corpus and on large pages; the agent client against bare fetch',
        `node ${context.node}, undici ${context.undici}, ${context.cpus} CPUs; each measurement: interleaved rounds in rotating order after a warm-up, median per-round ratio`,
        `corpus: ${loaded.items.length} responses (${loaded.json} JSON bodies, ${loaded.pages} pages, ${loaded.empty} empty; ${loaded.bytes} body bytes); ${CPU_ROUNDS} rounds of ~${CPU_BATCH_MS} ms batches`,
        `client: ${HTTP_ROUNDS} rounds x ${HTTP_BATCH} sequential requests per side on loopback, after ${HTTP_WARMUP_REQUESTS} warm-up requests per side`,
      ],
      [
        'ratio = A / B, both measured in this run; absolute numbers are context only.',
        'corpus: A = fromResponse(status, headers, raw body text); B = JSON.parse of the same JSON text, and for a page JSON.parse(JSON.stringify(page)) (a JSON string literal of about the same length).',
        `large page: ${PAGE_FIXTURE} grown with a product grid to 10 MiB and to 256 KiB (MAX_BODY_BYTES = ${MAX_BODY_BYTES}); same envelope from both: string ${strings.same ? 'yes' : 'NO'}, bytes ${bytes.same ? 'yes' : 'NO'} (${strings.code}, "${strings.message}")`,
        'client: A = createAgentClient({ store: createMemoryStore() }).fetch(url) and the returned response body read (for the 404, its unread copy); B = fetch(url, { headers: { accept: AGENT_ACCEPT } }) and its body read; server in a child process.',
        `A/A control, baseline copy 2 / copy 1 (same code): ${controls}`,
        `per-round ratio IQR: ${ratioSpread}`,
        `corpus sanity: ${loaded.expected}/${loaded.items.length} responses give the code their fixture expects`,
        ...(rows.some((r) => r.verdict === 'equal within noise')
          ? ['yes* = above target by no more than the A/A control strayed from 1.00: equal within noise']
          : []),
        `took ${context.seconds} s`,
      ],
    ),
  );
}

// Run only as the entry point: bench/explore/agent-overhead.ts imports the server from here.
if (process.argv[1] !== undefined && resolvePath(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error instanceof CannotMeasure ? `bench: cannot measure: ${error.message}` : error);
    process.exitCode = 1;
  });
}
