// The agent conformance table: one list of cases (CASES), each described once, run on every agent
// host (HOSTS in test/helpers/agent-hosts.ts: the client, the drop-in fetch alone and in ky, the
// fetcher, the undici interceptor, got and axios-retry), against real loopback sites that count the
// calls they receive. Every case gets a fresh memory store. Real time, in waits of 1 s: the hosts
// that sleep a told wait themselves (got, axios-retry) take no `sleep`. A case a host cannot do
// with its current API is skipped for it, with why.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { chai, describe, expect, it, type TestContext } from 'vitest';
import { READERS } from '../../src/index.js';
import { createMemoryStore } from '../../src/agent/index.js';
import { HOSTS, unable, type Binding, type Host, type HostOptions, type HostResult, type OptionName } from '../helpers/agent-hosts.js';
import { freePort, serve, type TestServer } from '../helpers/server.js';
import { FIX_INPUT } from '../helpers/sites.js';

// A failure shows what each host answered in full, not its first 40 characters.
chai.config.truncateThreshold = 0;

/** One answer of a site: status, headers, body, and how long to hold it back. */
interface Answer {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly delayMs?: number;
}

/** A loopback site: its calls, when each arrived and when its answer left (performance.now()), and the calls per x-request-id. */
interface Site extends TestServer {
  readonly arrivals: number[];
  readonly answered: number[];
  readonly perRequest: Map<string, number>;
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** What a case runs with: the host, a site maker, a host maker on the case's own store, and a skip. */
interface Ctx {
  readonly host: Host;
  /** A site answering its n-th call (0-based) as `answer` says; closed when the case ends. */
  site(answer: (n: number, req: IncomingMessage) => Answer | 'destroy'): Promise<Site>;
  /** The host made with the case's store, maxWaitSeconds 30 and `extra`; closed when the case ends. */
  make(extra?: HostOptions): Binding;
  /** The case's own store's options, as make() passes them (for a factory expected to throw). */
  options(extra?: HostOptions): HostOptions;
}

interface Case {
  readonly name: string;
  /** Why this host cannot be asked this, or null when it can. */
  readonly skip?: (host: Host) => string | null;
  readonly run: (ctx: Ctx) => Promise<void>;
}

const elapsed = (since: number): number => performance.now() - since;

/** A result's plain members, without the host's raw objects, to compare and to print. */
const plain = ({ ok, status, code, retry, retryAfter, field, remembered, body, rejected, cause }: HostResult) => ({
  ok,
  status,
  ...(code !== undefined ? { code, retry, retryAfter, field } : {}),
  ...(remembered !== undefined ? { remembered } : {}),
  ...(body !== undefined ? { body: body === null ? null : body.slice(0, 200) } : {}),
  ...(rejected !== undefined ? { rejected: String(rejected) } : {}),
  ...(cause !== undefined ? { cause: String(cause) } : {}),
});

/** A result in a few words, for a list of them to read well in a failure: "ok 200", "failed 429 rate_limited remembered". */
const summary = (r: HostResult): string =>
  r.ok ? `ok ${r.status}` : ['failed', r.status, r.code, r.retryAfter === undefined || r.retryAfter === null ? null : `retry_after ${r.retryAfter}`, r.remembered ? 'remembered' : null, r.rejected ? `rejected ${String(r.rejected)}` : null].filter((w) => w !== null && w !== undefined).join(' ');

/** A failure that says nothing was sent again and nothing was waited. */
function expectHandedBack(result: HostResult, status: number, code: string): void {
  expect(result.rejected).toBeUndefined();
  expect(plain(result)).toMatchObject({ ok: false, status, code });
}

/** OpenAI's own 429 body, as its API sends it. */
const OPENAI_429 = JSON.stringify({ error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } });

/** An origin whose first calls within WINDOW_MS of the first are told Retry-After: 1, and everything after is 200. */
const WINDOW_MS = 1000;
/** How much earlier than a told 1 s a call may arrive and still count as having waited it (timer granularity). */
const EARLY_MS = 30;

function boundaryCase(maxWaitSeconds: number, label: string): Case {
  return {
    name: `five concurrent requests, all told Retry-After: 1, with maxWaitSeconds ${maxWaitSeconds} (${label}): every one ends ok, each in at most 2 calls`,
    async run({ site, make }) {
      let first: number | null = null;
      const s = await site(() => {
        const at = performance.now();
        first ??= at;
        return at < first + WINDOW_MS - EARLY_MS ? { status: 429, headers: { 'retry-after': '1' }, body: 'slow down' } : { status: 200, body: 'ok' };
      });
      const host = make({ maxWaitSeconds });
      const results = await Promise.all(Array.from({ length: 5 }, (_, i) => host.request(s.url, { headers: { 'x-request-id': `r${i}` } })));
      expect(results.map(summary)).toEqual(Array(5).fill('ok 200'));
      for (let i = 0; i < 5; i++) expect(s.perRequest.get(`r${i}`), `calls of request r${i}`).toBeLessThanOrEqual(2);
      expect(s.calls()).toBeLessThanOrEqual(10);
    },
  };
}

/** A site whose quota is one call a second, announced on every answer by `announce(secondsToReset)`; a call over it is refused with a 429. */
async function quotaSite(site: Ctx['site'], announce: (resetSeconds: number) => Record<string, string>) {
  let windowStart: number | null = null;
  let used = 0;
  const refused = { count: 0 };
  const s = await site(() => {
    const at = performance.now();
    if (windowStart === null || at >= windowStart + 1000) [windowStart, used] = [at, 0];
    const reset = String(Math.max(1, Math.ceil((windowStart + 1000 - at) / 1000)));
    if (used >= 1) {
      refused.count += 1;
      return { status: 429, headers: { 'retry-after': reset, ...announce(Number(reset)) }, body: 'over quota' };
    }
    used += 1;
    return { status: 200, headers: announce(Number(reset)), body: 'ok' };
  });
  return Object.assign(s, { refused });
}

const X_RATELIMIT = (reset: number) => ({ 'x-ratelimit-limit': '1', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) });
const IETF_RATELIMIT = (reset: number) => ({ 'ratelimit-policy': '"default";q=1;w=1', ratelimit: `"default";r=0;t=${reset}` });

/** An invalid option: the host that takes it refuses it with a TypeError naming it and quoting the value. */
function optionCase(option: OptionName, value: unknown): Case {
  const quoted = JSON.stringify(value);
  return {
    name: `refuses ${option}: ${quoted} with a TypeError naming it and quoting the value`,
    skip: (host) => (host.takes.has(option) ? null : `${host.name} takes no ${option}`),
    async run({ host, site, options }) {
      const s = await site(() => ({ status: 200, body: 'ok' }));
      const bad = options({ [option]: value } as HostOptions);
      const message = new RegExp(`${option}.*${quoted.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);
      if (host.refuses === 'create') {
        expect(() => host.make(bad)).toThrow(TypeError);
        expect(() => host.make(bad)).toThrow(message);
      } else {
        const result = await host.make(bad).request(s.url);
        expect(result.rejected).toBeInstanceOf(TypeError);
        expect((result.rejected as Error).message).toMatch(message);
      }
      expect(s.calls()).toBe(0);
    },
  };
}

/** The code a failure's own error, or its cause, was given by node (ECONNREFUSED), however deep. */
function errorCodes(error: unknown): string[] {
  const codes: string[] = [];
  for (let e = error as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string') codes.push(e.code);
    if (Array.isArray((e as { errors?: unknown }).errors)) for (const inner of (e as { errors: unknown[] }).errors) codes.push(...errorCodes(inner));
  }
  return codes;
}

export const CASES: readonly Case[] = [
  // ---- the seed's cases ----
  {
    name: 'a 429 with Retry-After: 1, then a 200: ok in 2 calls, the second after sleeping about 1 s',
    async run({ site, make }) {
      const s = await site((n) => (n === 0 ? { status: 429, headers: { 'retry-after': '1' }, body: 'slow down' } : { status: 200, body: 'ok' }));
      const result = await make().request(s.url);
      expect(plain(result)).toMatchObject({ ok: true, status: 200, body: 'ok' });
      expect(s.calls()).toBe(2);
      const gap = s.arrivals[1]! - s.answered[0]!;
      expect(gap).toBeGreaterThanOrEqual(1000 - EARLY_MS);
      expect(gap).toBeLessThan(2000);
    },
  },
  {
    name: 'a told wait over maxWaitSeconds (Retry-After: 120, maxWaitSeconds 30): handed back at once in 1 call, rate_limited, after_delay',
    async run({ site, make }) {
      const s = await site(() => ({ status: 429, headers: { 'retry-after': '120' }, body: 'slow down' }));
      const started = performance.now();
      const result = await make({ maxWaitSeconds: 30 }).request(s.url);
      expect(elapsed(started)).toBeLessThan(1000);
      expectHandedBack(result, 429, 'rate_limited');
      expect(plain(result)).toMatchObject({ retry: 'after_delay', retryAfter: 120, remembered: false });
      expect(s.calls()).toBe(1);
    },
  },
  {
    name: 'a 400 naming a field: fix_input in 1 call, the field named',
    async run({ site, make }) {
      const s = await site(() => FIX_INPUT);
      const result = await make().request(s.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"x"}' });
      expectHandedBack(result, 400, 'missing_field');
      expect(plain(result)).toMatchObject({ retry: 'fix_input', field: 'email' });
      expect(s.calls()).toBe(1);
    },
  },
  {
    name: "a 503 that says nothing of how long: handed back in 1 call (unknownDelay's default, hand_back)",
    async run({ site, make }) {
      const s = await site(() => ({ status: 503, headers: { 'content-type': 'text/html' }, body: '<title>Down for maintenance</title>' }));
      const started = performance.now();
      const result = await make().request(s.url);
      expect(elapsed(started)).toBeLessThan(1000);
      expectHandedBack(result, 503, 'temporarily_unavailable');
      expect(plain(result)).toMatchObject({ retry: 'after_delay', retryAfter: null });
      expect(s.calls()).toBe(1);
    },
  },
  {
    name: 'a 500 (retry once) on a GET: retried once, 2 calls, then handed back as internal',
    async run({ site, make }) {
      const s = await site(() => ({ status: 500, headers: { 'content-type': 'text/html' }, body: '<title>Internal Server Error</title>' }));
      const result = await make().request(s.url);
      expectHandedBack(result, 500, 'internal');
      expect(result.retry).toBe('once');
      expect(s.calls()).toBe(2);
    },
  },
  {
    name: 'a 500 (retry once) on a POST: not retried, 1 call',
    async run({ site, make }) {
      const s = await site(() => ({ status: 500, headers: { 'content-type': 'text/html' }, body: '<title>Internal Server Error</title>' }));
      const result = await make().request(s.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"order":1}' });
      expectHandedBack(result, 500, 'internal');
      expect(s.calls()).toBe(1);
    },
  },
  {
    name: 'a 404: not_found in 1 call',
    async run({ site, make }) {
      const s = await site(() => ({ status: 404, headers: { 'content-type': 'text/html' }, body: '<title>Not found</title>' }));
      const result = await make().request(s.url);
      expectHandedBack(result, 404, 'not_found');
      expect(result.retry).toBe('no');
      expect(s.calls()).toBe(1);
    },
  },

  // ---- concurrency at the boundary ----
  // A request that slept out a told wait of exactly maxWaitSeconds makes its next call, or follows the probe's answer.
  boundaryCase(1, 'the told wait equals maxWaitSeconds'),
  boundaryCase(2, 'below the boundary'),

  // ---- answers from memory, in the site's own dialect ----
  {
    name: "a second request while a 429's Retry-After: 120 runs is answered from memory without a call, in the site's own dialect",
    skip: (host) => unable(host.memory),
    async run({ host, site, make }) {
      const s = await site(() => ({ status: 429, headers: { 'content-type': 'application/json', 'retry-after': '120', 'x-request-id': 'req_abc123' }, body: OPENAI_429 }));
      const binding = make({ maxWaitSeconds: 30 });
      const first = await binding.request(`${s.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expectHandedBack(first, 429, 'rate_limited');
      const second = await binding.request(`${s.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(s.calls()).toBe(1);
      expect(second.rejected).toBeUndefined();
      if (host.memory === 'result') {
        expect(plain(second)).toMatchObject({ ok: false, remembered: true, code: first.code });
        return;
      }
      // The site's own answer again: its status, its body bytes, its headers, the seconds left, and where it came from.
      expect(second.status).toBe(429);
      expect(second.body).toBe(OPENAI_429);
      expect(second.headers?.get('content-type')).toBe('application/json');
      expect(second.headers?.get('x-request-id')).toBe('req_abc123');
      const left = Number(second.headers?.get('retry-after'));
      expect(left).toBeGreaterThan(0);
      expect(left).toBeLessThanOrEqual(120);
      expect(second.headers?.get('agent-errors-source')).toBe('memory');
      expect(second.remembered).toBe(true);
      expect(second.ok).toBe(false);
      // For the drop-in, failureOf still says what it means: remembered, with the first answer's code.
      if (host.failureOf) expect(second.failureOf).toEqual({ code: first.code, remembered: true });
    },
  },

  // ---- probes and quotas ----
  {
    name: 'a 200 announcing its quota spent (X-RateLimit-Remaining: 0, reset in 1 s): the next request waits for the reset, and the site refuses nothing',
    skip: (host) => unable(host.admits),
    async run({ site, make }) {
      const s = await quotaSite(site, X_RATELIMIT);
      const binding = make({ maxWaitSeconds: 30 });
      expect(plain(await binding.request(s.url))).toMatchObject({ ok: true, status: 200 });
      const started = performance.now();
      const next = await binding.request(s.url);
      expect(plain(next)).toMatchObject({ ok: true, status: 200 });
      expect(elapsed(started)).toBeGreaterThanOrEqual(500);
      expect(s.refused.count).toBe(0);
      expect(s.calls()).toBe(2);
    },
  },
  {
    name: 'a 200 announcing its quota spent (RateLimit-Policy and RateLimit, r=0): with maxWaitSeconds 0 the next request is handed back from memory, without a call the site would refuse',
    skip: (host) => unable(host.admits),
    async run({ site, make }) {
      const s = await quotaSite(site, IETF_RATELIMIT);
      const binding = make({ maxWaitSeconds: 0 });
      expect(plain(await binding.request(`${s.url}/a`))).toMatchObject({ ok: true, status: 200 });
      // Another path of the origin, which the quota covers: fetchPage has no copy of it to serve instead.
      const next = await binding.request(`${s.url}/b`);
      expect(next.rejected).toBeUndefined();
      expect(plain(next)).toMatchObject({ ok: false, code: 'rate_limited', remembered: true });
      expect(s.refused.count).toBe(0);
      expect(s.calls()).toBe(1);
    },
  },
  {
    name: "after a shared wait ends, five concurrent requests make one probe call and the rest follow its answer",
    skip: (host) => unable(host.admits),
    async run({ site, make }) {
      const s = await site((n) => (n === 0 ? { status: 429, headers: { 'retry-after': '1' }, body: 'slow down' } : { status: 200, body: 'ok', delayMs: n === 1 ? 250 : 0 }));
      // One request learns the wait and may not sleep it; five more come while it runs.
      expect(plain(await make({ maxWaitSeconds: 0 }).request(s.url))).toMatchObject({ ok: false, status: 429 });
      const binding = make({ maxWaitSeconds: 5 });
      const results = await Promise.all(Array.from({ length: 5 }, () => binding.request(s.url)));
      expect(results.map(summary)).toEqual(Array(5).fill('ok 200'));
      expect(s.arrivals).toHaveLength(1 + 5);
      // The probe arrived alone, at or after the wait's end, and answered before any other arrived.
      const [learnt, probe, ...rest] = s.arrivals;
      expect(probe! - learnt!).toBeGreaterThanOrEqual(1000 - EARLY_MS);
      for (const at of rest) expect(at).toBeGreaterThanOrEqual(s.answered[1]!);
    },
  },

  // ---- network failures ----
  {
    name: 'a refused connection: a network failure with the original error kept as its cause, or a rejection as the library gives one',
    async run({ host, make }) {
      const url = `http://127.0.0.1:${await freePort()}/`;
      const started = performance.now();
      const result = await make().request(url);
      expect(elapsed(started)).toBeLessThan(1000);
      expect(result.ok).toBe(false);
      expect(result.status).toBeNull();
      if (host.noResponse === 'result') {
        expect(result.rejected).toBeUndefined();
        expect(result.code).toBe(READERS.signals.network_failure);
        expect(result.cause).toBeInstanceOf(Error);
        expect(errorCodes(result.cause)).toContain('ECONNREFUSED');
      } else {
        expect(result.rejected).toBeInstanceOf(Error);
        expect(errorCodes(result.rejected)).toContain('ECONNREFUSED');
      }
    },
  },
  {
    name: 'a 200 whose body is cut off mid-way: a failure with a cause, never a rejection',
    skip: (host) => (host.name === 'fetchPage' ? null : 'a success body is the caller\'s to read'),
    async run({ site, make }) {
      const s = await site(() => 'destroy');
      const result = await make().request(s.url);
      expect(result.rejected).toBeUndefined();
      expect(result.ok).toBe(false);
      expect(result.cause).toBeInstanceOf(Error);
    },
  },

  {
    name: 'errorsIn2xx: a GraphQL RATE_LIMITED sent with a 200 and Retry-After: 1 is waited out once (2 calls) when asked, and passes through as the 200 it is (1 call) when not',
    skip: (host) => (host.takes.has('errorsIn2xx') ? null : `${host.name} takes no errorsIn2xx`),
    async run({ site, make }) {
      const limited: Answer = { status: 200, headers: { 'content-type': 'application/json', 'retry-after': '1' }, body: JSON.stringify({ data: null, errors: [{ type: 'RATE_LIMITED', message: 'API rate limit exceeded for user ID 1.' }] }) };
      const s = await site((n) => (n % 2 === 0 ? limited : { status: 200, headers: { 'content-type': 'application/json' }, body: '{"data":{"viewer":{"login":"agent"}}}' }));
      const request = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ viewer { login } }"}' } as const;
      const asked = await make({ errorsIn2xx: true }).request(s.url, request);
      expect([asked.ok, asked.status, s.calls()]).toEqual([true, 200, 2]);
      expect(asked.body).toContain('"login"');
      const untouched = await make({ errorsIn2xx: false }).request(s.url, request);
      expect([untouched.ok, untouched.status, s.calls()]).toEqual([true, 200, 3]);
      expect(untouched.body).toBe(limited.body);
    },
  },

  {
    name: 'a 402 with a price (pay-per-crawl): paid once through onPaymentRequired (2 calls, the second carrying its headers); without the hook handed back in 1 call',
    skip: (host) => (host.takes.has('onPaymentRequired') ? null : `${host.name} takes no onPaymentRequired`),
    async run({ site, make }) {
      const s = await site((_n, req): Answer =>
        req.headers['crawler-exact-price'] === 'USD 0.01'
          ? { status: 200, headers: { 'content-type': 'text/plain', 'crawler-charged': 'USD 0.01' }, body: 'the article' }
          : { status: 402, headers: { 'content-type': 'text/plain', 'crawler-price': 'USD 0.01' }, body: 'Payment Required' },
      );
      const shown: unknown[] = [];
      const paid = await make({ onPaymentRequired: (payment) => (shown.push(payment), { 'crawler-exact-price': `${payment.price!.currency} ${payment.price!.amount}` }) }).request(s.url);
      expect([paid.ok, paid.status, s.calls()]).toEqual([true, 200, 2]);
      expect(shown).toEqual([{ protocol: 'pay-per-crawl', version: 1, options: [], price: { amount: '0.01', currency: 'USD' } }]);
      const unpaid = await make().request(s.url);
      expect([unpaid.ok, unpaid.status, unpaid.code, s.calls()]).toEqual([false, 402, 'payment_required', 3]);
      // Paid at most once: a site that keeps asking gets one payment, then the error back.
      const stubborn = await site(() => ({ status: 402, headers: { 'content-type': 'text/plain', 'crawler-price': 'USD 0.01' }, body: 'Payment Required' }));
      let payments = 0;
      const refused = await make({ maxCalls: 5, onPaymentRequired: () => (payments++, { 'crawler-exact-price': 'USD 0.01' }) }).request(stubborn.url);
      expect([refused.ok, refused.code, payments, stubborn.calls()]).toEqual([false, 'payment_required', 1, 2]);
      // The payment goes on the one call after the 402, not on a retry after it (a 500 on the paid call, retried once).
      const sent: (string | undefined)[] = [];
      const flaky = await site((n, req): Answer => {
        sent.push(req.headers['crawler-exact-price'] as string | undefined);
        return n === 0 ? { status: 402, headers: { 'content-type': 'text/plain', 'crawler-price': 'USD 0.01' }, body: 'Payment Required' } : n === 1 ? { status: 500, headers: { 'content-type': 'text/html' }, body: '<title>Oops</title>' } : { status: 200, headers: { 'content-type': 'text/plain' }, body: 'ok' };
      });
      const retried = await make({ maxCalls: 3, onPaymentRequired: () => ({ 'crawler-exact-price': 'USD 0.01' }) }).request(flaky.url);
      expect([retried.ok, sent]).toEqual([true, [undefined, 'USD 0.01', undefined]]);
    },
  },

  // ---- options, checked when the host is made ----
  optionCase('maxWaitSeconds', '30'),
  optionCase('maxCalls', -1),
  optionCase('unknownDelay', 'retry'),
  optionCase('fetch', 'nope'),
  optionCase('scope', 'https://x'),
  optionCase('bodyTimeoutSeconds', 'big'),
  optionCase('errorsIn2xx', 'yes'),
  optionCase('onPaymentRequired', 'pay'),
];

/** A cut-off success: Content-Length says more than is sent, then the socket goes. */
function destroyMidway(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/html', 'content-length': '100000' });
  res.write('<html><title>Half a page</title>' + 'x'.repeat(1000), () => setTimeout(() => res.destroy(), 20));
}

// describe.each(HOSTS) x it.each(CASES), as loops so that vitest prints each name whole.
for (const host of HOSTS) describe.concurrent(`agent conformance: ${host.name}`, () => {
  for (const { name, run, skip } of CASES) it(name, { timeout: 15_000 }, async (context: TestContext) => {
    const why = skip?.(host) ?? null;
    if (why !== null) return context.skip(why);
    const store = createMemoryStore();
    const closing: (() => Promise<void>)[] = [];
    context.onTestFinished(async () => {
      await Promise.all(closing.splice(0).map((close) => close().catch(() => undefined)));
    });
    const options = (extra: HostOptions = {}): HostOptions => ({ store, maxWaitSeconds: 30, ...extra });
    const ctx: Ctx = {
      host,
      options,
      make(extra) {
        const binding = host.make(options(extra));
        closing.push(() => binding.close());
        return binding;
      },
      async site(answer) {
        const arrivals: number[] = [];
        const answered: number[] = [];
        const perRequest = new Map<string, number>();
        const server = await serve((req, res) => {
          const n = arrivals.push(performance.now()) - 1;
          const id = req.headers['x-request-id'];
          if (typeof id === 'string') perRequest.set(id, (perRequest.get(id) ?? 0) + 1);
          // Read the request body first, as a site does.
          req.resume();
          req.on('end', async () => {
            const step = answer(n, req);
            if (step === 'destroy') return destroyMidway(res);
            if (step.delayMs) await pause(step.delayMs);
            answered[n] = performance.now();
            res.writeHead(step.status, { 'content-type': 'text/plain', ...step.headers }).end(step.body ?? '');
          });
        });
        closing.push(() => server.close());
        return Object.assign(server, { arrivals, answered, perRequest });
      },
    };
    await run(ctx);
  });
});
