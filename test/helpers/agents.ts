// Request header sets the AgentFriendly adapter tests share, and byte-level helpers.
import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import { validateEnvelope, validateProblem } from '../../src/index.js';
import { fromResponse } from '../../src/core/from-response.js';

/** Accept as agent clients send it: JSON first, Markdown and HTML as good, anything else. */
export const AGENT = { accept: 'application/json, text/markdown, text/html, */*' };
/** Accept as an LLM's fetch tool sends it: Markdown first, HTML as good, anything else; it gets its error as Markdown. */
export const MARKDOWN = { accept: 'text/markdown, text/html, */*' };
/** An agent that asks for RFC 9457 problem details. */
export const PROBLEM = { accept: 'application/problem+json' };
/** A browser's Accept. */
export const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
/** Accept: any type at all, which names no agent type: not an agent. */
export const ANY = { accept: '*/*' };
/** A request signed as Web Bot Auth sends it (RFC 9421 Signature and Signature-Input, plus Signature-Agent). */
export const SIGNED = {
  accept: '*/*',
  signature: 'sig1=:jdq0SqOwHdyHr9+r5jw3iYZH6aNGKijYp/EstF4RQTQdi5N5YYKrD+mCT1HA1nZDsi6nJKuHxUi/5Syp3rLWBA==:',
  'signature-input': 'sig1=("@authority");created=1735689600;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";alg="ed25519";expires=1735693200;tag="web-bot-auth"',
  'signature-agent': '"https://signature-agent.example"',
};

/** SHA-256 of bytes or text, hex. */
export const sha = (bytes: ArrayBuffer | Uint8Array | string): string =>
  createHash('sha256').update(typeof bytes === 'string' ? bytes : new Uint8Array(bytes)).digest('hex');

/** The chunk size of counted() streams. */
export const CHUNK = 16 * 1024;

/** A body stream of `total` bytes that counts what its consumer pulls from it. */
export function counted(total: number, first = '') {
  const stats = { pulled: 0, cancelled: false };
  const prefix = new TextEncoder().encode(first);
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (stats.pulled >= total) return controller.close();
      const chunk = new Uint8Array(Math.min(CHUNK, total - stats.pulled)).fill(120);
      if (stats.pulled === 0) chunk.set(prefix);
      stats.pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
    cancel() {
      stats.cancelled = true;
    },
  });
  return { stream, stats };
}

// Assertions every AgentFriendly adapter's table shares.

/** A converted error: the status, a JSON content type, a valid envelope, and the expected members; returns the body. */
export async function expectEnvelope(res: Response, status: number, error: Record<string, unknown>): Promise<{ error: Record<string, unknown> }> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await res.json()) as { error: Record<string, unknown> };
  expect(validateEnvelope(body).errors).toEqual([]);
  expect(body.error).toMatchObject(error);
  return body;
}

/** A HEAD answer: the status and a JSON content type, no body. */
export async function expectHeadersOnly(res: Response, status: number): Promise<void> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/json/);
  expect(await res.text()).toBe('');
}

/** A body that arrived byte for byte. */
export async function expectBytes(res: Response, expected: Uint8Array): Promise<void> {
  const body = await res.arrayBuffer();
  expect(body.byteLength).toBe(expected.byteLength);
  expect(sha(body)).toBe(sha(expected));
}

/** A 500 that shows nothing of the thrown TypeError('secret db password'); returns its text. */
export async function expectNoLeak(res: Response): Promise<string> {
  expect(res.status).toBe(500);
  const text = await res.text();
  expect(text).not.toContain('secret');
  expect(text).not.toContain('TypeError');
  return text;
}

/** How an adapter test asks its app for a path. */
type Get = (path: string, headers: Record<string, string>) => Promise<Response>;

/**
 * The app's /slow-down throws agentError('rate_limited', { retryAfter: 30, message: 'Slow down' })
 * and its /fix agentError('missing_field', { field: 'currency' }): rendered for an agent, the
 * delay in the body and Retry-After from one number, the field as problem details' param.
 */
export async function expectThrownAgentErrors(get: Get): Promise<void> {
  const res = await get('/slow-down', SIGNED);
  expect(res.status).toBe(429);
  expect(res.headers.get('retry-after')).toBe('30');
  expect((await res.json()).error).toEqual({ code: 'rate_limited', message: 'Slow down', field: null, retry: 'after_delay', retry_after: 30 });
  const fix = await get('/fix', PROBLEM);
  expect(fix.headers.get('content-type')).toBe('application/problem+json');
  const problem = await fix.json();
  expect(validateProblem(problem).errors).toEqual([]);
  expect(problem).toMatchObject({ code: 'missing_field', param: 'currency', next_step: 'fix_request', status: 400 });
}

/** An agent that asks for problem details about a path the app lacks gets them, valid, with a type URI on `origin`. */
export async function expectProblemOnOrigin(get: Get, origin: string): Promise<void> {
  const res = await get('/nowhere', PROBLEM);
  expect(res.status).toBe(404);
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  const body = await res.json();
  expect(validateProblem(body).errors).toEqual([]);
  expect(body).toMatchObject({ code: 'not_found', status: 404, type: `${origin}/problems/not_found` });
}

/** The app's /ok success reaches an agent exactly as it reaches a browser: same type, same bytes. */
export async function expectSuccessUntouched(get: Get): Promise<void> {
  const [a, b] = [await get('/ok', AGENT), await get('/ok', BROWSER)];
  expect(a.status).toBe(200);
  expect(a.headers.get('content-type')).toBe(b.headers.get('content-type'));
  expect(await a.text()).toBe(await b.text());
}

/** The app's /sold-out is a 404 page titled "Sold out": out_of_stock for an agent, at the 404 the app sent. */
export async function expectSoldOut(get: Get): Promise<Response> {
  const res = await get('/sold-out', AGENT);
  // The app's status, kept: the code says sold out, the status stays the 404 the app sent.
  expect(res.status).toBe(404);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect((await res.clone().json()).error).toMatchObject({ code: 'out_of_stock', message: 'Sold out' });
  return res;
}

/** The documentation pages at /problems/{code}: HTML for a browser, the catalog entry for an agent, 404 for no code. */
export async function expectDocsPages(get: Get): Promise<void> {
  const html = await get('/problems/rate_limited', BROWSER);
  expect(html.headers.get('content-type')).toMatch(/text\/html/);
  expect(await html.text()).toContain('<code>rate_limited</code>');
  expect(await (await get('/problems/rate_limited', AGENT)).json()).toMatchObject({ code: 'rate_limited', status: 429, retry: 'after_delay' });
  expect((await get('/problems/not_a_code', BROWSER)).status).toBe(404);
}

/** A streamed error converted from its first `cap` bytes: the rest was cancelled, not read. */
export async function expectCappedError(res: Response, stats: () => { pulled: number; cancelled: boolean }, cap: number): Promise<void> {
  expect(res.status).toBe(500);
  expect((await res.json()).error).toMatchObject({ code: 'internal', message: 'Broken stream' });
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(stats().cancelled).toBe(true);
  expect(stats().pulled).toBeGreaterThanOrEqual(cap);
  expect(stats().pulled).toBeLessThanOrEqual(cap + 2 * CHUNK);
}

/** A rate limiter's 429 converted: rate_limited, a valid envelope, and its delay in the body and Retry-After, from one number. */
export async function expectRateLimited(res: Response): Promise<void> {
  const body = await expectEnvelope(res, 429, { code: 'rate_limited' });
  expect(body.error.retry_after).toBeGreaterThan(0);
  expect(res.headers.get('retry-after')).toBe(String(body.error.retry_after));
}

/** An app's own error response as a browser gets it: its content type and its JSON body. */
export interface OwnJson {
  readonly contentType: string | null;
  readonly body: Record<string, unknown>;
}

/** What a browser got, as an OwnJson: the app's own content type and JSON body. */
export async function ownJson(res: Response): Promise<OwnJson> {
  return { contentType: res.headers.get('content-type'), body: (await res.json()) as Record<string, unknown> };
}

/**
 * An app's own JSON error as an agent that takes JSON gets it: the app's status and content type,
 * Vary: Accept, and the app's body (`original`, what a browser gets) with every member kept and
 * exactly the members of `added` added at its top, none of them in place of one of the app's. A
 * delay added is in Retry-After too. fromResponse reads the answer as `reads`. Returns the body.
 */
export async function expectAugmented(
  res: Response,
  status: number,
  original: OwnJson,
  added: Record<string, unknown>,
  reads: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toBe(original.contentType);
  expect(res.headers.get('vary')).toMatch(/(^|,)\s*Accept\s*(,|$)/i);
  const text = await res.text();
  const body = JSON.parse(text) as Record<string, unknown>;
  for (const name of Object.keys(added)) expect(Object.hasOwn(original.body, name), `${name} is added, not the app's own`).toBe(false);
  expect(body).toEqual({ ...original.body, ...added });
  if ('retry_after' in added) expect(res.headers.get('retry-after')).toBe(String(added.retry_after));
  expect(fromResponse(res.status, Object.fromEntries(res.headers), text).error).toMatchObject(reads);
  return body;
}
