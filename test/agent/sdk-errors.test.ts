// failureOf on what the vendors' SDKs throw. Each SDK, with its retries off, its base URL on a
// loopback fake that answers as the vendor documents its errors (test/helpers/sdk-fakes.ts) and a
// 200 ms timeout of its own, makes a real call; failureOf reads the error it throws, by its shape,
// as the one failure of the agent side. Every case first checks the SDK's own error (its class,
// status, and where it keeps the response's headers and body), so that a failure after that check
// is failureOf's alone.
import Anthropic from '@anthropic-ai/sdk';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { GoogleGenAI } from '@google/genai';
import { Octokit } from '@octokit/rest';
import axios from 'axios';
import got from 'got';
import ky from 'ky';
import OpenAI from 'openai';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentFetch, createMemoryStore, failureOf, fromResponse } from '../../src/agent/index.js';
import { CODES, READERS, type Code } from '../../src/index.js';
import { ANSWERS, CASES, startSdkFake, type Case, type SdkFake, type Vendor, type VendorAnswer } from '../helpers/sdk-fakes.js';

/** What a case reads as: the code (its retry word is the catalog's), and the field and the delay where the response gave them. */
interface Expected {
  readonly code: Code;
  readonly field?: string | null;
  readonly retry_after?: number | null;
}

/** What each vendor's answer says, read from the whole response: its status, headers and body. */
const EXPECTED: Readonly<Record<Vendor, Readonly<Record<Case, Expected>>>> = {
  openai: { rate: { code: 'rate_limited', retry_after: 20 }, field: { code: 'invalid_input', field: 'temperature' }, auth: { code: 'auth_required' }, server: { code: 'internal' } },
  anthropic: { rate: { code: 'rate_limited', retry_after: 25 }, field: { code: 'missing_field', field: 'max_tokens' }, auth: { code: 'auth_required' }, server: { code: 'temporarily_unavailable' } },
  github: { rate: { code: 'rate_limited', retry_after: 60 }, field: { code: 'missing_field', field: 'title' }, auth: { code: 'auth_required' }, server: { code: 'internal' } },
  stripe: { rate: { code: 'rate_limited', retry_after: 3 }, field: { code: 'missing_field', field: 'currency' }, auth: { code: 'auth_required' }, server: { code: 'internal' } },
  dynamodb: { rate: { code: 'rate_limited', retry_after: 4 }, field: { code: 'invalid_input', field: 'tableName' }, auth: { code: 'auth_required' }, server: { code: 'internal' } },
  gemini: { rate: { code: 'rate_limited', retry_after: 13 }, field: { code: 'invalid_input', field: 'generation_config.temperature' }, auth: { code: 'auth_required' }, server: { code: 'temporarily_unavailable' } },
  problem: { rate: { code: 'rate_limited', retry_after: 12 }, field: { code: 'invalid_input', field: 'age' }, auth: { code: 'auth_required' }, server: { code: 'temporarily_unavailable', retry_after: 120 } },
  azure: { rate: { code: 'rate_limited', retry_after: 17 }, field: { code: 'invalid_input', field: 'location' }, auth: { code: 'auth_required' }, server: { code: 'internal' } },
  discord: { rate: { code: 'rate_limited', retry_after: 65 }, field: { code: 'missing_field', field: 'access_token' }, auth: { code: 'auth_required' }, server: { code: 'internal' } },
};

/** A request that got no response: the catalog's code for a network failure. */
const NETWORK: Code = READERS.signals.network_failure;

// What an SDK throws is typed by each SDK differently (and by some not at all); the checks below
// read it as the shapes the SDKs document.
type Thrown = any;

/** A route of the fake: one of the cases, or `hang`, a request it never answers. */
type Route = Case | 'hang';

interface Sdk {
  readonly name: string;
  /** The error format its fake answers in. */
  readonly vendor: Vendor;
  /** One real call of the SDK to `origin` (the fake's, or a port nobody listens on) for `route`; resolves to what it threw. */
  readonly call: (origin: string, route: Route) => Promise<Thrown>;
  /** Checks the SDK's own error for an answered case. */
  readonly answered: (thrown: Thrown, answer: VendorAnswer, kase: Case) => void;
  /** Checks the SDK's own error for a refused connection. */
  readonly refused: (thrown: Thrown) => void;
  /** Checks the SDK's own error for its timeout. */
  readonly timedOut: (thrown: Thrown) => void;
  /** Where the SDK's error holds less than the whole response, what can be read from what it holds. */
  readonly expected?: Partial<Record<Case, Expected>>;
  /** What the SDK's timeout reads as: a network failure, or nothing (an error no different from the caller's own abort). */
  readonly timeoutReads?: 'network' | 'nothing';
}

/** What `call` threw; a call that resolved fails the test. */
async function thrownBy(call: () => Promise<unknown>): Promise<Thrown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  throw new Error('the SDK call resolved; every case here is an error');
}

const parsed = (answer: VendorAnswer): unknown => JSON.parse(answer.body);
const TIMEOUT_MS = 200;
const QUIET = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
const CHAT = { model: 'gpt-4o', messages: [{ role: 'user' as const, content: 'hi' }] };
const MESSAGE = { model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user' as const, content: 'hi' }] };

/** ky's error for an answered case: the Response, its body left unread. */
const kyAnswered = (e: Thrown, a: VendorAnswer) => {
  expect(e.name).toBe('HTTPError');
  expect(e.response).toBeInstanceOf(Response);
  expect(e.response.status).toBe(a.status);
  expect(e.response.headers.get('content-type')).toBe(a.headers['content-type']);
};
const kyRefused = (e: Thrown) => {
  // ky lets fetch's own error through.
  expect(e).toBeInstanceOf(TypeError);
  expect(e.cause.code).toBe('ECONNREFUSED');
};
const kyTimedOut = (e: Thrown) => {
  expect(e.name).toBe('TimeoutError');
  expect(e.request).toBeInstanceOf(Request);
};

const SDKS: readonly Sdk[] = [
  {
    name: 'openai',
    vendor: 'openai',
    call: (origin, route) => thrownBy(() => new OpenAI({ apiKey: 'sk-test', baseURL: `${origin}/openai/${route}/v1`, maxRetries: 0, timeout: TIMEOUT_MS }).chat.completions.create(CHAT)),
    answered(e, a, kase) {
      expect(e.constructor.name).toBe({ rate: 'RateLimitError', field: 'BadRequestError', auth: 'AuthenticationError', server: 'InternalServerError' }[kase]);
      expect(e.status).toBe(a.status);
      expect(e.headers).toBeInstanceOf(Headers);
      // OpenAI's APIError keeps the body's inner `error` object, parsed.
      expect(e.error).toEqual((parsed(a) as { error: unknown }).error);
    },
    refused(e) {
      expect(e.constructor.name).toBe('APIConnectionError');
      expect(e.cause.cause.code).toBe('ECONNREFUSED');
    },
    timedOut(e) {
      expect(e.constructor.name).toBe('APIConnectionTimeoutError');
    },
  },
  {
    name: '@anthropic-ai/sdk',
    vendor: 'anthropic',
    call: (origin, route) => thrownBy(() => new Anthropic({ apiKey: 'sk-ant-test', baseURL: `${origin}/anthropic/${route}`, maxRetries: 0, timeout: TIMEOUT_MS }).messages.create(MESSAGE)),
    answered(e, a, kase) {
      expect(e.name).toBe({ rate: 'RateLimitError', field: 'BadRequestError', auth: 'AuthenticationError', server: 'OverloadedError' }[kase]);
      expect(e.status).toBe(a.status);
      expect(e.headers).toBeInstanceOf(Headers);
      // Anthropic's APIError keeps the whole body, parsed.
      expect(e.error).toEqual(parsed(a));
    },
    refused(e) {
      expect(e.name).toBe('APIConnectionError');
      expect(e.cause.cause.code).toBe('ECONNREFUSED');
    },
    timedOut(e) {
      expect(e.name).toBe('APIConnectionTimeoutError');
    },
  },
  {
    name: '@octokit/rest',
    vendor: 'github',
    // Octokit has no timeout option of its own: the request's signal is its way.
    call: (origin, route) =>
      thrownBy(() => new Octokit({ baseUrl: `${origin}/github/${route}`, auth: 'ghp_test', log: QUIET, request: { signal: AbortSignal.timeout(TIMEOUT_MS) } }).rest.issues.create({ owner: 'octo', repo: 'hello', title: '' })),
    answered(e, a) {
      expect(e.name).toBe('HttpError');
      expect(e.status).toBe(a.status);
      expect(e.response.headers['content-type']).toBe(a.headers['content-type']);
      expect(e.response.data).toEqual(parsed(a));
    },
    refused(e) {
      // A RequestError with status 500 and no response: the status is octokit's, not a server's.
      expect(e).toMatchObject({ name: 'HttpError', status: 500, response: undefined });
      expect(e.cause.cause.code).toBe('ECONNREFUSED');
    },
    timedOut(e) {
      expect(e).toMatchObject({ name: 'HttpError', status: 500, response: undefined });
      expect(e.cause.name).toBe('TimeoutError');
    },
  },
  {
    name: 'stripe',
    vendor: 'stripe',
    // stripe-node takes a host and a port, no base path: the case is the customer's id.
    call(origin, route) {
      const { hostname, port } = new URL(origin);
      const stripe = new Stripe('sk_test_123', { host: hostname, port: Number(port), protocol: 'http', maxNetworkRetries: 0, timeout: TIMEOUT_MS, telemetry: false });
      return thrownBy(() => stripe.customers.retrieve(route));
    },
    answered(e, a, kase) {
      expect(e.type).toBe({ rate: 'StripeRateLimitError', field: 'StripeInvalidRequestError', auth: 'StripeAuthenticationError', server: 'StripeAPIError' }[kase]);
      expect(e.statusCode).toBe(a.status);
      expect(e.headers['content-type']).toBe(a.headers['content-type']);
      expect(e.raw).toMatchObject((parsed(a) as { error: object }).error);
    },
    refused(e) {
      // Stripe's connection error holds what node threw in `detail`, not in `cause`.
      expect(e.type).toBe('StripeConnectionError');
      expect(e.detail.code).toBe('ECONNREFUSED');
    },
    timedOut(e) {
      expect(e.type).toBe('StripeConnectionError');
      expect(e.detail.code).toBe('ETIMEDOUT');
    },
  },
  {
    name: '@aws-sdk/client-dynamodb',
    vendor: 'dynamodb',
    async call(origin, route) {
      const client = new DynamoDBClient({
        endpoint: `${origin}/dynamodb/${route}`,
        region: 'us-east-1',
        credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' },
        maxAttempts: 1,
        requestHandler: { requestTimeout: TIMEOUT_MS, throwOnRequestTimeout: true },
      });
      try {
        return await thrownBy(() => client.send(new GetItemCommand({ TableName: 'ab', Key: { id: { S: '1' } } })));
      } finally {
        client.destroy();
      }
    },
    answered(e, a, kase) {
      expect(e.name).toBe({ rate: 'ThrottlingException', field: 'ValidationException', auth: 'UnrecognizedClientException', server: 'InternalServerError' }[kase]);
      expect(e.$metadata.httpStatusCode).toBe(a.status);
      expect(e.$fault).toBe(a.status < 500 ? 'client' : 'server');
      expect(e.message).toBe((parsed(a) as { message: string }).message);
      // The raw response is kept, its headers a plain record, its body a stream the SDK has read.
      expect(e.$response.headers['x-amzn-errortype']).toBe(a.headers['x-amzn-errortype']);
      expect(e.$response.body.readableEnded).toBe(true);
    },
    refused(e) {
      expect(e.code).toBe('ECONNREFUSED');
      expect(e.$metadata.httpStatusCode).toBeUndefined();
    },
    timedOut(e) {
      expect(e).toMatchObject({ name: 'TimeoutError', code: 'ETIMEDOUT' });
    },
  },
  {
    name: '@google/genai',
    vendor: 'gemini',
    // No retries unless httpOptions.retryOptions is given.
    call: (origin, route) =>
      thrownBy(() => new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: `${origin}/gemini/${route}`, timeout: TIMEOUT_MS } }).models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' })),
    answered(e, a) {
      // ApiError keeps the status and the body as JSON text in its message; the headers are gone.
      expect(e.name).toBe('ApiError');
      expect(e.status).toBe(a.status);
      expect(JSON.parse(e.message)).toEqual(parsed(a));
    },
    refused: kyRefused,
    timedOut(e) {
      // The SDK aborts its own controller with no reason: what fetch throws then is the same
      // AbortError as when the caller's signal aborts.
      expect(e.name).toBe('AbortError');
      expect(e.cause).toBeUndefined();
    },
    timeoutReads: 'nothing',
  },
  {
    name: 'axios',
    vendor: 'problem',
    call: (origin, route) => thrownBy(() => axios.get(`${origin}/problem/${route}`, { timeout: TIMEOUT_MS })),
    answered(e, a) {
      expect(e.isAxiosError).toBe(true);
      expect(e.response.status).toBe(a.status);
      expect(e.response.headers.get('content-type')).toBe(a.headers['content-type']);
      expect(e.response.data).toEqual(parsed(a));
    },
    refused(e) {
      expect(e).toMatchObject({ isAxiosError: true, code: 'ECONNREFUSED' });
      expect(e.response).toBeUndefined();
      expect(e.cause.code).toBe('ECONNREFUSED');
    },
    timedOut(e) {
      expect(e).toMatchObject({ isAxiosError: true, code: 'ECONNABORTED' });
      expect(e.response).toBeUndefined();
    },
  },
  {
    name: 'got',
    vendor: 'azure',
    call: (origin, route) => thrownBy(() => got(`${origin}/azure/${route}`, { retry: { limit: 0 }, timeout: { request: TIMEOUT_MS } })),
    answered(e, a) {
      expect(e.name).toBe('HTTPError');
      expect(e.response.statusCode).toBe(a.status);
      expect(e.response.headers['content-type']).toBe(a.headers['content-type']);
      expect(e.response.body).toBe(a.body);
    },
    refused(e) {
      expect(e).toMatchObject({ name: 'RequestError', code: 'ECONNREFUSED' });
      expect(e.cause.code).toBe('ECONNREFUSED');
    },
    timedOut(e) {
      expect(e).toMatchObject({ name: 'TimeoutError', code: 'ETIMEDOUT', event: 'request' });
    },
  },
  {
    name: 'ky',
    vendor: 'discord',
    call: (origin, route) => thrownBy(() => ky.get(`${origin}/discord/${route}`, { retry: 0, timeout: TIMEOUT_MS })),
    answered(e, a) {
      kyAnswered(e, a);
      expect(e.response.bodyUsed).toBe(false);
    },
    refused: kyRefused,
    timedOut: kyTimedOut,
    // ky hands over the Response with its body unread, and failureOf answers at once: what it can
    // read is the status and the headers (Discord's Retry-After), not the body's field.
    expected: { field: { code: 'invalid_input', field: null } },
  },
  {
    name: 'ky with agentFetch',
    vendor: 'discord',
    // The documented way for ky: the Response it hands over is agentFetch's, read when it arrived.
    call: (origin, route) =>
      thrownBy(() => ky.get(`${origin}/discord/${route}`, { retry: 0, timeout: TIMEOUT_MS, fetch: agentFetch({ store: createMemoryStore(), maxCalls: 1 }) })),
    answered(e, a) {
      kyAnswered(e, a);
      // The very Response agentFetch returned, whose body it read when it arrived.
      expect(failureOf(e.response)).toBeDefined();
    },
    refused: kyRefused,
    timedOut: kyTimedOut,
  },
];

/** The errors a network failure's `cause` may be: the thrown error, or what it wraps. */
const causesOf = (thrown: Thrown): unknown[] => [thrown, thrown?.cause, thrown?.detail].filter((c) => c !== undefined && c !== null);

let fake: SdkFake;
let refusedOrigin: string;
const awsWarning = process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED;
beforeAll(async () => {
  // The AWS SDK warns that its releases after January 2027 need Node 22; the tests run on Node 20
  // and fail on any warning. This is the SDK's documented switch for that warning.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  fake = await startSdkFake();
  refusedOrigin = `http://127.0.0.1:${fake.refusedPort}`;
});
afterAll(async () => {
  await fake.close();
  if (awsWarning === undefined) delete process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED;
  else process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = awsWarning;
});

describe('the fakes answer as each vendor documents, and the package reads each whole answer as EXPECTED says', () => {
  it.each(Object.keys(ANSWERS) as Vendor[])('%s', (vendor) => {
    for (const kase of CASES) {
      const answer = ANSWERS[vendor][kase];
      const { error } = fromResponse(answer.status, answer.headers, answer.body);
      const want = EXPECTED[vendor][kase];
      expect({ kase, code: error.code, retry: error.retry }).toEqual({ kase, code: want.code, retry: CODES[want.code].retry });
      if (want.field !== undefined) expect({ kase, field: error.field }).toEqual({ kase, field: want.field });
      if (want.retry_after !== undefined) expect({ kase, retry_after: error.retry_after }).toEqual({ kase, retry_after: want.retry_after });
    }
  });

  it("ky's reading without the body is what the status and headers say", () => {
    const answer = ANSWERS.discord.field;
    expect(fromResponse(answer.status, answer.headers, null).error).toMatchObject({ code: 'invalid_input', field: null });
  });
});

describe.each(SDKS)('failureOf on what $name throws', (sdk) => {
  it.each(CASES)('%s', async (kase) => {
    const answer = ANSWERS[sdk.vendor][kase];
    const thrown = await sdk.call(fake.url, kase);
    sdk.answered(thrown, answer, kase);

    const want = sdk.expected?.[kase] ?? EXPECTED[sdk.vendor][kase];
    const failure = failureOf(thrown);
    expect(failure).toBeDefined();
    expect(failure!.ok).toBe(false);
    expect(failure!.error).toMatchObject({ code: want.code, retry: CODES[want.code].retry });
    if (want.field !== undefined) expect(failure!.error.field).toBe(want.field);
    if (want.retry_after !== undefined) expect(failure!.error.retry_after).toBe(want.retry_after);
    expect(failure!.advice).toEqual(expect.any(String));
    expect(failure!.advice.length).toBeGreaterThan(0);
  });

  it('a refused connection', async () => {
    const thrown = await sdk.call(refusedOrigin, 'rate');
    sdk.refused(thrown);

    const failure = failureOf(thrown);
    expect(failure).toBeDefined();
    expect(failure!.error).toMatchObject({ code: NETWORK, retry: CODES[NETWORK].retry });
    expect(failure!.advice.length).toBeGreaterThan(0);
    expect(causesOf(thrown)).toContain(failure!.cause);
  });

  it(`its own timeout (${TIMEOUT_MS} ms)`, async () => {
    const thrown = await sdk.call(fake.url, 'hang');
    sdk.timedOut(thrown);

    const failure = failureOf(thrown);
    if (sdk.timeoutReads === 'nothing') {
      expect(failure).toBeUndefined();
      return;
    }
    expect(failure).toBeDefined();
    expect(failure!.error).toMatchObject({ code: NETWORK, retry: CODES[NETWORK].retry });
    expect(failure!.advice.length).toBeGreaterThan(0);
    expect(causesOf(thrown)).toContain(failure!.cause);
  });
});

describe('failureOf on anything that is neither an SDK error nor a Response', () => {
  it.each([
    ['an Error', new Error('x')],
    ['null', null],
    ['undefined', undefined],
    ['a string', 'x'],
    ['a number', 429],
    ['a plain object', {}],
  ])('%s is undefined', (_, value) => {
    expect(failureOf(value as never)).toBeUndefined();
  });
});
