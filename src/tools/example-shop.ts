// npm start: a small shop on a loopback port, its endpoints failing the seed's four ways in every
// dialect, its own pages behind AgentFriendly; this package's agent client and the three policies run against
// it over real HTTP, on a real clock shortened by `scale`.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAgentClient } from '../agent/client.js';
import { decode } from '../agent/decode.js';
import { formatCell, outcomeOf, POLICIES, runLoop, type LoopResult, type PolicyName } from '../agent/loop.js';
import { createMemoryStore } from '../agent/store.js';
import { lookup } from '../core/catalog.js';
import { DIALECTS, type Dialect, type WireResponse } from '../core/dialects.js';
import { agentFriendlyNode } from '../site/node.js';
import { demoTables, FAILURES, formatTables, scriptedService, type DemoTable, type FailureName } from './demo.js';

/**
 * The shop: `/{dialect}/{failure}?run=ID` answers as the scripted service, timed per run; anything
 * else is the shop's own 404 page, behind AgentFriendly. The dialects go out as the scripted service
 * writes them, to agents too: they are what the experiment compares, and AgentFriendly would give a
 * wait that names no delay its own (retryAfter), which the vague and Stripe dialects must not have.
 */
export async function startShop(scale: number): Promise<{ url: string; server: Server }> {
  const started = new Map<string, number>();
  const notFound = agentFriendlyNode((_req, res) => {
    res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><html><head><title>Page not found - Example Shop</title></head><body><h1>We could not find that page</h1></body></html>');
  });
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://shop.local');
    const [, dialect, failure] = url.pathname.split('/') as [string, Dialect, FailureName];
    if (!(DIALECTS as readonly string[]).includes(dialect) || !Object.hasOwn(FAILURES, failure)) return notFound(req, res);
    const run = url.searchParams.get('run') ?? '';
    if (!started.has(run)) started.set(run, Date.now());
    const elapsed = (Date.now() - started.get(run)!) / 1000 / scale;
    const reply = scriptedService(failure, dialect, elapsed);
    res.writeHead(reply.status, reply.headers);
    res.end(reply.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** A real clock shortened by `scale`: a 30 s wait takes 30 * scale seconds. */
function scaledClock(scale: number) {
  const start = Date.now();
  return {
    now: () => (Date.now() - start) / scale,
    // One millisecond more, so a timer that fires a little early still lands past the delay.
    sleepMs: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms * scale + 1)),
  };
}

/** What the transcript says about each call of a run. */
type Log = (line: string) => void;

async function wire(response: Response): Promise<WireResponse> {
  return { status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() };
}

/** A policy against the shop over HTTP. */
async function livePolicy(base: string, run: string, policy: PolicyName, failure: FailureName, dialect: Dialect, scale: number): Promise<LoopResult> {
  const clock = scaledClock(scale);
  const url = `${base}/${dialect}/${failure}?run=${run}`;
  // fetch's default Accept (*/*) is not an agent's, so AgentFriendly leaves each dialect as the shop wrote it.
  return runLoop(async () => wire(await fetch(url)), POLICIES[policy], {
    now: clock.now,
    sleep: (seconds) => clock.sleepMs(seconds * 1000),
  });
}

/** This package's agent client against the shop over HTTP, logging what it did and why. */
async function liveClient(base: string, run: string, failure: FailureName, dialect: Dialect, scale: number, log?: Log): Promise<LoopResult> {
  const clock = scaledClock(scale);
  let calls = 0;
  let slept = 0;
  const client = createAgentClient({
    maxCalls: 8,
    now: clock.now,
    store: createMemoryStore({ now: clock.now }),
    sleep: async (ms) => {
      log?.(`    waits ${ms / 1000} s as told (${((ms / 1000) * scale).toFixed(2)} s at this scale)`);
      slept += ms / 1000;
      await clock.sleepMs(ms);
    },
    fetch: async (input, init) => {
      calls += 1;
      const response = await fetch(input, init);
      if (log) {
        const copy = await wire(response.clone());
        const d = response.status < 400 ? null : decode(copy);
        log(`    call ${calls}: ${response.status}${d ? ` ${d.code}, ${d.action}${d.delay === null ? '' : ` ${d.delay} s`}${d.param ? `, field ${d.param}` : ''}` : ' ok'}`);
      }
      return response;
    },
  });
  const result = await client.fetch(`${base}/${dialect}/${failure}?run=${run}`);
  if (result.ok) return { outcome: 'ok', calls, slept };
  log?.(`    stops: ${result.error.code} (${result.error.retry}): ${result.advice}`);
  const d = decode({ status: result.response?.status ?? 0, body: { error: result.error } });
  return { outcome: d.action === 'wait' ? `wait ${result.error.retry_after === null ? '(no delay)' : `${result.error.retry_after}s`}` : outcomeOf(d), calls, slept };
}

/** What runExample found: the text to print, and the same as data. */
export interface ExampleRun {
  readonly text: string;
  /** Whether every cell equals the virtual-clock run of `agent-errors demo`. */
  readonly matches: boolean;
  /** The shop's origin on loopback. */
  readonly url: string;
  /** The tables, each cell as runLoop's result, as `demo --json` gives them. */
  readonly tables: readonly DemoTable[];
  /** What the agent did and why, a line each. */
  readonly transcript: readonly string[];
}

/** Runs every table over HTTP, all cells at once, and the transcript of a few runs; returns the text to print and the same as data. */
export async function runExample(options: { scale?: number } = {}): Promise<ExampleRun> {
  const scale = options.scale ?? 0.01;
  const { url, server } = await startShop(scale);
  let runs = 0;
  const id = () => String(++runs);
  try {
    const expected = await demoTables();
    const live: DemoTable[] = await Promise.all(
      expected.map(async (table, index) => ({
        title: table.title,
        rows: await Promise.all(
          table.rows.map(async ({ failure }) => ({
            failure,
            cells: Object.fromEntries(
              await Promise.all(
                DIALECTS.map(async (d) => {
                  const cell = index === 3 ? liveClient(url, id(), failure, d, scale) : livePolicy(url, id(), (['contract', 'header', 'hammer'] as const)[index]!, failure, d, scale);
                  return [d, await cell] as const;
                }),
              ),
            ) as Record<Dialect, LoopResult>,
          })),
        ),
      })),
    );
    const lines: string[] = [];
    const log: Log = (line) => lines.push(line);
    for (const [failure, dialect, why] of [
      ['rate_limited', 'problem', 'problem details name the delay, so the client waits it out once'],
      ['rate_limited', 'vague', 'a vague 429 names no delay, so the client hands the error back at once'],
      ['missing_parameter', 'google', 'Google\'s BadRequest names the field, so the agent knows what to fix'],
    ] as const) {
      log(`  ${dialect} / ${failure}: ${why}`);
      const result = await liveClient(url, id(), failure, dialect, scale, log);
      log(`    => ${formatCell(result)}`);
    }
    const page = await fetch(`${url}/shop/item/999`, { headers: { accept: 'application/json, text/markdown, text/html, */*' } });
    const converted = (await page.json()) as { error: { code: string; retry: string } };
    log(`  the shop's own 404 page, asked for by an agent: AgentFriendly answers ${page.status} ${converted.error.code} (${converted.error.retry}): ${lookup(converted.error.code).advice}`);
    const matches = formatTables(live) === formatTables(expected);
    const text = [
      `An example shop at ${url}, every call over HTTP, on a clock where 1 s takes ${scale} s.`,
      '',
      formatTables(live),
      '',
      matches ? 'Every cell equals the virtual-clock run of `agent-errors demo`.' : 'Some cells differ from the virtual-clock run of `agent-errors demo` (a slow machine can stretch a real clock).',
      '',
      'What the agent did and why:',
      ...lines,
      '',
    ].join('\n');
    return { text, matches, url, tables: live, transcript: lines.map((line) => line.trim()) };
  } finally {
    server.closeAllConnections();
    server.close();
  }
}
