// What the agent-side tests script sites with: the answers, the bodies vendors send, a registry
// that closes a file's servers after each test, and the request options the property tests draw.
import fc from 'fast-check';
import { afterEach } from 'vitest';
import type { TestServer } from './server.js';

/** One scripted answer of a site. */
export interface Answer {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

/** The servers a test file started, closed after each of its tests. */
export function closedAfterEach(): TestServer[] {
  const servers: TestServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  return servers;
}

/** Google's error body with the delay only in it (google.rpc.RetryInfo), as an API in AIP-193's dialect sends a 429. */
export const googleRetryBody = (seconds: number): string =>
  JSON.stringify({ error: { code: 429, message: 'Quota exceeded', status: 'RESOURCE_EXHAUSTED', details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${seconds}s` }] } });

/** This package's envelope for a missing field: a fix_input error no client should send again. */
export const FIX_INPUT: Answer = {
  status: 400,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ error: { code: 'missing_field', message: 'email is required', field: 'email', retry: 'fix_input', retry_after: null } }),
};

/** The options of one request in a property test: the rules' limits, the method, an Idempotency-Key or not. */
export const requestArbitrary = (maxBudget: number) =>
  fc.record({
    budget: fc.integer({ min: 1, max: maxBudget }),
    maxWaitSeconds: fc.integer({ min: 0, max: 60 }),
    method: fc.constantFrom('GET', 'PUT', 'POST'),
    key: fc.boolean(),
    unknownDelay: fc.constantFrom('hand_back' as const, 'backoff' as const),
  });
