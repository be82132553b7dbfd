// The server's own say on retrying: x-should-retry (OpenAI's and Anthropic's APIs, which their SDKs
// obey before any status rule) and stripe-should-retry (Stripe's). False hands the failure back
// at once, where the client would otherwise retry or wait; true adds no retry of its own.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentFetch, createAgentClient, createMemoryStore, explainResponse, failureOf } from '../../src/agent/index.js';

let server: Server;
let origin: string;
const calls = new Map<string, number>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? '/';
    calls.set(path, (calls.get(path) ?? 0) + 1);
    const answers: Record<string, readonly [number, Record<string, string>]> = {
      '/500-no': [500, { 'x-should-retry': 'false' }],
      '/500-yes': [500, { 'x-should-retry': 'true' }],
      '/429-no': [429, { 'x-should-retry': 'false', 'retry-after': '1' }],
      '/503-stripe-no': [503, { 'stripe-should-retry': 'false', 'retry-after': '1' }],
      '/400-yes': [400, { 'x-should-retry': 'true' }],
    };
    const [status, headers] = answers[path] ?? [404, {}];
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify({ error: { message: 'failed', type: 'server_error' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const sleepNever = async () => {
  throw new Error('the client slept where the server said not to retry');
};

describe("the server's say on retrying", () => {
  it('false: no retry of a once error, no wait of a told delay, with x-should-retry and stripe-should-retry alike', async () => {
    for (const path of ['/500-no', '/429-no', '/503-stripe-no']) {
      const client = createAgentClient({ store: createMemoryStore(), sleep: sleepNever });
      const result = await client.fetch(`${origin}${path}`);
      expect(result.ok, path).toBe(false);
      expect(calls.get(path), path).toBe(1);
    }
    // agentFetch, which SDKs take as their fetch, the same.
    const response = await agentFetch({ store: createMemoryStore(), sleep: sleepNever })(`${origin}/500-no`);
    expect([response.status, failureOf(response)?.error.code, calls.get('/500-no')]).toEqual([500, 'internal', 2]);
  });

  it('true: the usual rules, and no retry they do not make (a once error is retried once, a fix_input never)', async () => {
    const slept: number[] = [];
    const client = createAgentClient({ store: createMemoryStore(), sleep: async (ms) => void slept.push(ms) });
    await client.fetch(`${origin}/500-yes`);
    expect(calls.get('/500-yes')).toBe(2);
    await client.fetch(`${origin}/400-yes`);
    expect(calls.get('/400-yes')).toBe(1);
  });

  it('is said in explainResponse', () => {
    expect(explainResponse(500, { 'x-should-retry': 'false' }, '').because).toContain('the server says not to retry (x-should-retry: false): the client hands the failure back at once');
    expect(explainResponse(500, {}, '').because.join(' ')).not.toMatch(/should-retry/);
  });
});
