// The smoke run of /agent and the Fetch adapter that test/runtimes/run.ts bundles for workerd, Deno,
// Bun (and Node, for reference). It uses web-platform APIs only (fetch, Request, Response, Headers,
// TextEncoder, setTimeout) and the package's public entries, so whatever fails here fails for a user
// of that runtime too; the host decides what passed from the report alone.
import { createAgentClient, fromResponse } from '../../src/agent/index.js';
import { agentFriendlyFetch } from '../../src/site/entries/fetch.js';
import { agentError } from '../../src/site/index.js';
// The fixtures are embedded at bundle time: no runtime here is given a file system.
import cloudflareChallenge from '../fixtures/responses/cloudflare-403-managed-challenge.json' with { type: 'json' };
import cloudflare1015 from '../fixtures/responses/cloudflare-429-error-1015-rate-limited.json' with { type: 'json' };
import apacheMaintenance from '../fixtures/responses/apache-503-maintenance-retry-after-date.json' with { type: 'json' };
import datadomeWall from '../fixtures/responses/datadome-403-captcha.json' with { type: 'json' };
import google429 from '../fixtures/responses/google-429-resource-exhausted-retry-info.json' with { type: 'json' };
import laravel422 from '../fixtures/responses/laravel-422-missing-email.json' with { type: 'json' };
import nestValidation from '../fixtures/responses/nestjs-400-validation-pipe-missing-email.json' with { type: 'json' };
import nginx404 from '../fixtures/responses/nginx-404-not-found.json' with { type: 'json' };
import stripeMissing from '../fixtures/responses/stripe-400-parameter-missing.json' with { type: 'json' };

/** One check's outcome: what it proved, or what went wrong, in a line a table can show. */
export interface SmokeCheck {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

/** What a runtime reports: where it ran, and each check. */
export interface SmokeReport {
  readonly runtime: string;
  readonly version: string;
  readonly checks: readonly SmokeCheck[];
}

/** A corpus fixture, as much of it as the smoke reads. */
interface Fixture {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: unknown;
  readonly expect: { code: string; retry: string; field: string | null; retry_after: number | null };
}

/** The fixtures by file name: a page, a CDN challenge, a bot wall, and the validation and rate-limit bodies of five APIs and frameworks. */
export const FIXTURES: Readonly<Record<string, Fixture>> = {
  'nginx-404-not-found': nginx404,
  'cloudflare-403-managed-challenge': cloudflareChallenge,
  'cloudflare-429-error-1015-rate-limited': cloudflare1015,
  'apache-503-maintenance-retry-after-date': apacheMaintenance,
  'google-429-resource-exhausted-retry-info': google429,
  'laravel-422-missing-email': laravel422,
  'stripe-400-parameter-missing': stripeMissing,
  'nestjs-400-validation-pipe-missing-email': nestValidation,
  'datadome-403-captcha': datadomeWall,
};

// The corpus test's clock: the fixtures' dates are counted from it.
const NOW = Date.UTC(2026, 10, 30);

/** The message of anything thrown, with its cause, on one line. */
function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (cause: ${error.cause.name}: ${error.cause.message})` : '';
  return `${error.name}: ${error.message}${cause}`;
}

/** Runs a check, so that a throw fails that check only and says why. */
async function check(name: string, body: () => Promise<string> | string): Promise<SmokeCheck> {
  try {
    return { name, ok: true, detail: await body() };
  } catch (error) {
    return { name, ok: false, detail: describeError(error) };
  }
}

/** Throws `message` unless `condition` holds. */
function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

/**
 * a. fromResponse over the fixtures, each read from a Headers and from the body's bytes as a fetch
 * would hand them over, compared with the fixture's expect.
 */
function fixturesCheck(): string {
  const wrong: string[] = [];
  for (const [name, fixture] of Object.entries(FIXTURES)) {
    const text = fixture.body === null ? null : typeof fixture.body === 'string' ? fixture.body : JSON.stringify(fixture.body);
    const { error } = fromResponse(fixture.status, new Headers(fixture.headers), text === null ? null : new TextEncoder().encode(text), { now: NOW });
    const got = { code: error.code, retry: error.retry, field: error.field, retry_after: error.retry_after };
    const want = { code: fixture.expect.code, retry: fixture.expect.retry, field: fixture.expect.field, retry_after: fixture.expect.retry_after };
    if (JSON.stringify(got) !== JSON.stringify(want)) wrong.push(`${name}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
  }
  assert(wrong.length === 0, wrong.join('; '));
  return `${Object.keys(FIXTURES).length} fixtures match`;
}

/**
 * b. createAgentClient over real HTTP to the host's loopback server: a 404 is handed back as
 * not_found after one call; a 429 with Retry-After: 1 is waited out and the 200 after it returned.
 * `id` keeps this runtime's rate-limited path apart from the others' on the shared server.
 */
async function clientCheck(server: string, id: string): Promise<string> {
  let calls = 0;
  const client = createAgentClient({
    fetch: (input, init) => {
      calls += 1;
      return fetch(input, init);
    },
  });

  const missing = await client.fetch(`${server}/missing`);
  assert(!missing.ok, `GET /missing: ok, want not_found (status ${missing.response?.status})`);
  assert(missing.error.code === 'not_found', `GET /missing: code ${missing.error.code} (${missing.error.message}), want not_found`);
  assert(calls === 1, `GET /missing: ${calls} calls, want 1`);
  await missing.response?.body?.cancel();

  calls = 0;
  const started = Date.now();
  const flaky = await client.fetch(`${server}/flaky/${id}`);
  const waited = Date.now() - started;
  assert(flaky.ok, `GET /flaky: ${flaky.ok ? '' : `${flaky.error.code} (${flaky.error.message})`}, want ok after one wait`);
  assert(calls === 2, `GET /flaky: ${calls} calls, want 2`);
  assert(waited >= 900, `GET /flaky: answered after ${waited} ms, want at least the 1 s Retry-After`);
  const body = (await flaky.response.json()) as { ok?: boolean };
  assert(body.ok === true, `GET /flaky: body ${JSON.stringify(body)}`);
  return `404 -> not_found in 1 call; 429 Retry-After: 1 -> 200 in 2 calls, ${waited} ms`;
}

// The app's own 404 page, which a browser must get byte for byte.
const PAGE = '<!doctype html><html><head><title>Not here</title></head><body><h1>Not here</h1><p>Try the catalog.</p></body></html>';

/** A Fetch app with no framework: a rate-limited path that throws, and a 404 page for everything else. */
function app(request: Request): Response {
  if (new URL(request.url).pathname === '/busy') throw agentError('rate_limited', { retryAfter: 30 });
  return new Response(PAGE, { status: 404, headers: { 'content-type': 'text/html; charset=utf-8' } });
}

/** The envelope's error of a response, after checking it is JSON. */
async function envelopeOf(response: Response, label: string): Promise<{ code?: string; retry_after?: number | null }> {
  const type = response.headers.get('content-type') ?? '';
  assert(type.includes('json'), `${label}: content-type ${type}, want JSON`);
  const body = (await response.json()) as { error?: { code?: string; retry_after?: number | null } };
  assert(body.error !== undefined, `${label}: body has no error member: ${JSON.stringify(body)}`);
  return body.error;
}

/**
 * c. agentFriendlyFetch around the app, called with Requests directly: an agent's 404 and thrown
 * rate_limited become envelopes; a browser's 404 is the app's page as it made it.
 */
async function adapterCheck(): Promise<string> {
  const handler = agentFriendlyFetch(app);
  const agent = { accept: 'application/json' };
  const browser = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

  const missing = await handler(new Request('https://shop.example/missing', { headers: agent }));
  assert(missing.status === 404, `agent GET /missing: status ${missing.status}, want 404`);
  const notFound = await envelopeOf(missing, 'agent GET /missing');
  assert(notFound.code === 'not_found', `agent GET /missing: code ${notFound.code}, want not_found`);

  const busy = await handler(new Request('https://shop.example/busy', { headers: agent }));
  assert(busy.status === 429, `agent GET /busy: status ${busy.status}, want 429`);
  assert(busy.headers.get('retry-after') === '30', `agent GET /busy: Retry-After ${busy.headers.get('retry-after')}, want 30`);
  const limited = await envelopeOf(busy, 'agent GET /busy');
  assert(limited.code === 'rate_limited' && limited.retry_after === 30, `agent GET /busy: ${JSON.stringify(limited)}, want rate_limited after 30`);

  const page = await handler(new Request('https://shop.example/missing', { headers: browser }));
  assert(page.status === 404, `browser GET /missing: status ${page.status}, want 404`);
  assert(page.headers.get('content-type') === 'text/html; charset=utf-8', `browser GET /missing: content-type ${page.headers.get('content-type')}`);
  const text = await page.text();
  assert(text === PAGE, `browser GET /missing: body ${JSON.stringify(text.slice(0, 80))}, want the app's page`);
  return 'agent 404 -> not_found, agent /busy -> 429 rate_limited (Retry-After: 30), browser 404 -> the page unchanged';
}

/** Runs the three checks; a check that throws fails alone, so one report always comes back. */
export async function runSmoke(options: { runtime: string; version: string; server: string }): Promise<SmokeReport> {
  const checks = [
    await check('fromResponse fixtures', fixturesCheck),
    await check('createAgentClient', () => clientCheck(options.server, options.runtime)),
    await check('agentFriendlyFetch', adapterCheck),
  ];
  return { runtime: options.runtime, version: options.version, checks };
}
