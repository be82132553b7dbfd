// Captures the quota headers of real rate limiters as fixtures for quotaFrom: each limiter of
// LIMITERS below (express-rate-limit, @fastify/rate-limit, hono-rate-limiter, in each of their
// header modes) is started on a loopback port with a limit of 3 requests per 5 s window, sent GET /
// with the platform fetch until it refuses one, and the rate-limit headers (and Date) of the first,
// middle and last allowed responses and of the first refused one are written to
// test/fixtures/quota/<limiter>-<mode>.json, with the package versions and the quota each must
// read as. The expectations are written by hand below, from what each limiter documents it sends,
// not computed by quotaFrom.
//
//   npx tsx scripts/capture-quota.ts
//
// test/core/quota-live.test.ts starts the same limiters on every run and checks that they still
// answer as captured. GitHub, OpenAI and Anthropic cannot run here: their fixtures are written by
// hand from their documentation (see test/fixtures/quota/README.md).
import { readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import rateLimitFastify from '@fastify/rate-limit';
import { getRequestListener } from '@hono/node-server';
import express from 'express';
import { rateLimit } from 'express-rate-limit';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { rateLimiter } from 'hono-rate-limiter';
import { ROOT } from '../codegen/paths.js';
import { serve } from '../test/helpers/server.js';

/** Where the fixtures go. */
export const QUOTA_FIXTURES = join(ROOT, 'test/fixtures/quota');

/** Requests per window, and the window, every limiter is given: small, so four requests pass it. */
export const LIMIT = 3;
export const WINDOW_MS = 5000;

/** The responses kept, by the request that got them (1-based): the first, middle and last allowed, the first refused. */
export const KEPT = [
  { request: 1, label: 'first allowed' },
  { request: 2, label: 'middle allowed' },
  { request: 3, label: 'last allowed' },
  { request: 4, label: 'first refused' },
] as const;

/**
 * The quota a response must read as: `resetSeconds` is a range, lowest and highest, because a
 * limiter rounds its reset to whole seconds and `Date` has whole seconds too.
 */
export interface ExpectedQuota {
  readonly remaining: number;
  readonly resetSeconds: readonly [number, number];
  readonly limit?: number;
  readonly windowMs?: number;
}

/** A limiter listening on loopback. */
export interface Running {
  /** Its origin, http://127.0.0.1:port. */
  readonly url: string;
  readonly close: () => Promise<void>;
}

/** One limiter in one header mode. */
export interface LimiterMode {
  /** The fixture's file name in test/fixtures/quota/. */
  readonly file: string;
  /** The npm package of the limiter. */
  readonly limiter: string;
  /** The packages whose versions the fixture's source names: the limiter, then its framework. */
  readonly packages: readonly string[];
  /** The limiter's options that choose its headers, as given. */
  readonly mode: Readonly<Record<string, unknown>>;
  /** Where the limiter documents the headers it sends. */
  readonly docs: string;
  /** The quota each kept response must read as, in KEPT's order; null for none. */
  readonly expect: readonly (ExpectedQuota | null)[];
  readonly start: () => Promise<Running>;
}

/** A fixture of test/fixtures/quota/, captured or written from a vendor's docs. */
export interface QuotaFixture {
  readonly name: string;
  readonly limiter: string;
  /** The limiter's version; for a vendor's API that cannot run here, the API version its docs describe. */
  readonly version: string;
  readonly mode?: Readonly<Record<string, unknown>>;
  readonly source: string;
  readonly responses: readonly {
    readonly request: string;
    readonly status: number;
    /** Lower-case names: the rate-limit fields, Retry-After and Date. */
    readonly headers: Readonly<Record<string, string>>;
    readonly expect: ExpectedQuota | null;
  }[];
}

/** The version of an installed package, read from its package.json. */
export function packageVersion(name: string): string {
  return (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The headers a fixture keeps: every rate-limit field, Retry-After and Date. */
export function quotaHeaders(headers: Headers): Record<string, string> {
  const kept: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (/ratelimit|rate-limit/.test(name) || name === 'retry-after' || name === 'date') kept[name] = value;
  });
  return kept;
}

/** Sends GET / to `url` once per kept response, in order, and answers each response's status and kept headers. */
export async function sendAll(url: string): Promise<{ status: number; headers: Record<string, string> }[]> {
  const answers: { status: number; headers: Record<string, string> }[] = [];
  for (let request = 1; request <= KEPT.length; request++) {
    const response = await fetch(`${url}/`);
    await response.arrayBuffer();
    answers.push({ status: response.status, headers: quotaHeaders(response.headers) });
  }
  return answers;
}

// ---------------------------------------------------------------------------------------------
// The limiters

/** Four answers to a limiter of LIMIT per WINDOW_MS: remaining 2, 1, 0, then 0 refused. */
function expected(resetSeconds: readonly [number, number], extra: { limit?: number; windowMs?: number }): ExpectedQuota[] {
  return [2, 1, 0, 0].map((remaining) => ({ remaining, resetSeconds, ...extra }));
}

// A limiter that sends the reset in delta seconds rounds the time left up: 5, or 4 once the
// window is more than a second old (never here, the four requests take milliseconds; 4 allowed).
const DELTA: readonly [number, number] = [4, 5];
// express-rate-limit's legacy X-RateLimit-Reset is epoch seconds rounded up, read against a Date
// rounded down: up to a second more either way.
const EPOCH: readonly [number, number] = [4, 6];
const WITH_POLICY = { limit: LIMIT, windowMs: WINDOW_MS };
const LIMIT_ONLY = { limit: LIMIT };

const EXPRESS_DOCS = 'https://express-rate-limit.mintlify.app/reference/configuration#standardheaders';
const FASTIFY_DOCS = 'https://github.com/fastify/fastify-rate-limit#options';
const HONO_DOCS = 'https://honohub.dev/docs/rate-limiter';

/** express-rate-limit on Express, its memory store, with `mode` as its header options. */
function expressLimiter(mode: { standardHeaders: false | 'draft-6' | 'draft-7' | 'draft-8'; legacyHeaders: boolean }): () => Promise<Running> {
  return async () => {
    const app = express();
    app.use(rateLimit({ windowMs: WINDOW_MS, limit: LIMIT, ...mode }));
    app.get('/', (_req, res) => void res.type('text/plain').send('ok'));
    return serve(app);
  };
}

/** @fastify/rate-limit on Fastify, its local store. */
function fastifyLimiter(mode: { enableDraftSpec?: boolean }): () => Promise<Running> {
  return async () => {
    const app = Fastify({ logger: false });
    await app.register(rateLimitFastify, { max: LIMIT, timeWindow: WINDOW_MS, ...mode });
    app.get('/', async () => 'ok');
    await app.listen({ host: '127.0.0.1', port: 0 });
    return { url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, close: () => app.close() };
  };
}

/** hono-rate-limiter on Hono, its memory store, served by @hono/node-server. */
function honoLimiter(mode: { standardHeaders: 'draft-6' | 'draft-7' }): () => Promise<Running> {
  return async () => {
    const app = new Hono();
    app.use(rateLimiter({ windowMs: WINDOW_MS, limit: LIMIT, keyGenerator: () => 'fixture', ...mode }));
    app.get('/', (c) => c.text('ok'));
    return serve(getRequestListener(app.fetch));
  };
}

// Each draft's fields, read before any X-RateLimit-* the legacy headers add:
// draft-6: RateLimit-Limit/-Remaining/-Reset with RateLimit-Policy: 3;w=5;
// draft-7: RateLimit: limit=3, remaining=2, reset=5 with RateLimit-Policy: 3;w=5;
// draft-8: RateLimit: "3-in-5sec"; r=2; t=5 with RateLimit-Policy: "3-in-5sec"; q=3; w=5; pk=:...:.
const expressMode = (standardHeaders: 'draft-6' | 'draft-7' | 'draft-8', legacyHeaders: boolean): LimiterMode => ({
  file: `express-rate-limit-${standardHeaders}${legacyHeaders ? '-legacy' : ''}.json`,
  limiter: 'express-rate-limit',
  packages: ['express-rate-limit', 'express'],
  mode: { standardHeaders, legacyHeaders },
  docs: EXPRESS_DOCS,
  expect: expected(DELTA, WITH_POLICY),
  start: expressLimiter({ standardHeaders, legacyHeaders }),
});

// hono-rate-limiter's draft-6 and draft-7 fields are express-rate-limit's.
const honoMode = (standardHeaders: 'draft-6' | 'draft-7'): LimiterMode => ({
  file: `hono-rate-limiter-${standardHeaders}.json`,
  limiter: 'hono-rate-limiter',
  packages: ['hono-rate-limiter', 'hono', '@hono/node-server'],
  mode: { standardHeaders },
  docs: HONO_DOCS,
  expect: expected(DELTA, WITH_POLICY),
  start: honoLimiter({ standardHeaders }),
});

/** Every limiter and mode a fixture is captured from. */
export const LIMITERS: readonly LimiterMode[] = [
  expressMode('draft-6', false),
  expressMode('draft-6', true),
  expressMode('draft-7', false),
  expressMode('draft-7', true),
  expressMode('draft-8', false),
  expressMode('draft-8', true),
  {
    file: 'express-rate-limit-legacy.json',
    limiter: 'express-rate-limit',
    packages: ['express-rate-limit', 'express'],
    mode: { standardHeaders: false, legacyHeaders: true },
    docs: EXPRESS_DOCS,
    // X-RateLimit-Limit/-Remaining and X-RateLimit-Reset in epoch seconds, counted from its Date.
    expect: expected(EPOCH, LIMIT_ONLY),
    start: expressLimiter({ standardHeaders: false, legacyHeaders: true }),
  },
  {
    file: 'fastify-rate-limit-default.json',
    limiter: '@fastify/rate-limit',
    packages: ['@fastify/rate-limit', 'fastify'],
    mode: {},
    docs: FASTIFY_DOCS,
    // x-ratelimit-limit/-remaining/-reset, the reset in delta seconds.
    expect: expected(DELTA, LIMIT_ONLY),
    start: fastifyLimiter({}),
  },
  {
    file: 'fastify-rate-limit-draft-spec.json',
    limiter: '@fastify/rate-limit',
    packages: ['@fastify/rate-limit', 'fastify'],
    mode: { enableDraftSpec: true },
    docs: FASTIFY_DOCS,
    // ratelimit-limit/-remaining/-reset (the draft's separate fields, without a policy).
    expect: expected(DELTA, LIMIT_ONLY),
    start: fastifyLimiter({ enableDraftSpec: true }),
  },
  honoMode('draft-6'),
  honoMode('draft-7'),
];

/** The fixture's name: the limiter and its header options. */
export function fixtureName(mode: LimiterMode): string {
  const options = Object.entries(mode.mode).map(([key, value]) => `${key}: ${JSON.stringify(value)}`);
  return `${mode.limiter}, ${options.length === 0 ? 'default headers' : options.join(', ')}`;
}

// ---------------------------------------------------------------------------------------------
// The capture

async function capture(): Promise<void> {
  const today = new Date().toISOString().slice(0, 10);
  for (const mode of LIMITERS) {
    const running = await mode.start();
    let answers;
    try {
      answers = await sendAll(running.url);
    } finally {
      await running.close();
    }
    const packages = mode.packages.map((name) => `${name} ${packageVersion(name)}`).join(', ');
    const fixture: QuotaFixture = {
      name: fixtureName(mode),
      limiter: mode.limiter,
      version: packageVersion(mode.limiter),
      mode: mode.mode,
      source:
        `Captured from ${packages} (Node ${process.version}) by scripts/capture-quota.ts on ${today}: ` +
        `a limit of ${LIMIT} requests per ${WINDOW_MS / 1000} s window, GET / sent ${KEPT.length} times from 127.0.0.1; headers: ${mode.docs}`,
      responses: KEPT.map(({ label }, i) => ({ request: label, status: answers[i]!.status, headers: answers[i]!.headers, expect: mode.expect[i] ?? null })),
    };
    writeFileSync(join(QUOTA_FIXTURES, mode.file), `${JSON.stringify(fixture, null, 2)}\n`);
    process.stdout.write(`${mode.file}: ${answers.map((a) => a.status).join(' ')} ${JSON.stringify(answers[0]!.headers)}\n`);
  }
  process.stdout.write(`\nwrote ${LIMITERS.length} fixtures to ${QUOTA_FIXTURES}\n`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await capture();
