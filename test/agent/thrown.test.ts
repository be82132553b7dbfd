// failureOf on what was thrown: every shape it reads, one by one, as each SDK builds it (the real
// SDKs against loopback fakes are in sdk-errors.test.ts), and anything at all without throwing.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { failureOf } from '../../src/agent/index.js';
import { CODES } from '../../src/index.js';

/** An Error of a given class name with members, as an SDK makes one. */
function thrown(name: string, members: Record<string, unknown>, message = 'failed'): Error {
  const Named = { [name]: class extends Error {} }[name]!;
  return Object.assign(new Named(message), { name }, members);
}

describe('failureOf on what was thrown', () => {
  it("reads the response an SDK's error carries, in each SDK's shape", () => {
    // openai: APIError's error is the body's inner error object.
    const openai = failureOf(thrown('BadRequestError', { status: 400, headers: new Headers(), error: { message: "'model' is required", type: 'invalid_request_error', param: 'model', code: null } }));
    expect(openai?.error).toMatchObject({ field: 'model', retry: 'fix_input' });
    // Anthropic: the whole body.
    const anthropic = failureOf(thrown('RateLimitError', { status: 429, headers: new Headers({ 'retry-after': '12' }), error: { type: 'error', error: { type: 'rate_limit_error', message: 'Slow down' } } }));
    expect(anthropic?.error).toMatchObject({ code: 'rate_limited', retry: CODES.rate_limited.retry, retry_after: 12 });
    // octokit: RequestError's response.
    const octokit = failureOf(thrown('HttpError', { status: 404, response: { status: 404, url: 'https://api.github.com/repos/x/y', headers: {}, data: { message: 'Not Found' } } }));
    expect(octokit?.error).toMatchObject({ code: 'not_found', retry: 'no' });
    // Stripe: statusCode, headers and raw.
    const stripe = failureOf(thrown('StripeInvalidRequestError', { type: 'StripeInvalidRequestError', statusCode: 400, headers: { 'request-id': 'req_1' }, raw: { type: 'invalid_request_error', param: 'amount', message: 'Missing required param: amount.' } }));
    expect(stripe?.error).toMatchObject({ field: 'amount', retry: 'fix_input' });
    // The AWS SDK v3: the error's type, its status in $metadata.
    const aws = failureOf(thrown('ThrottlingException', { $fault: 'client', $metadata: { httpStatusCode: 400 }, $response: { statusCode: 400, headers: {} } }, 'Rate exceeded'));
    expect(aws?.error).toMatchObject({ code: 'rate_limited' });
    // Google's genai SDK: the body in the message.
    const genai = failureOf(thrown('ApiError', { status: 429 }, 'got status: 429 Too Many Requests. {"error":{"code":429,"message":"Quota exceeded","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"20s"}]}}'));
    expect(genai?.error).toMatchObject({ code: 'rate_limited', retry_after: 20 });
    // axios, got: the response beside the error.
    expect(failureOf(thrown('AxiosError', { isAxiosError: true, response: { status: 503, headers: { 'retry-after': '30' }, data: '<h1>Down</h1>' } }))?.error).toMatchObject({ code: 'temporarily_unavailable', retry_after: 30 });
    expect(failureOf(thrown('HTTPError', { response: { statusCode: 401, headers: {}, body: '{"message":"Bad credentials"}' } }))?.error.code).toBe('auth_required');
    // ky: a Fetch Response, its body unread: the status and headers speak, and the response comes back.
    const response = new Response('{"error":"slow"}', { status: 429, headers: { 'retry-after': '5' } });
    const ky = failureOf(thrown('HTTPError', { response }));
    expect([ky?.error.code, ky?.error.retry_after, ky?.response]).toEqual(['rate_limited', 5, response]);
    expect(response.bodyUsed).toBe(false);
  });

  it('reads a failure before any response as temporarily_unavailable, with what was thrown as its cause', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    for (const error of [
      new TypeError('fetch failed', { cause: refused }),
      thrown('APIConnectionError', { status: undefined, cause: refused }, 'Connection error.'),
      thrown('APIConnectionTimeoutError', {}, 'Request timed out.'),
      thrown('StripeConnectionError', { type: 'StripeConnectionError' }),
      thrown('AxiosError', { isAxiosError: true, code: 'ECONNABORTED' }),
      thrown('TimeoutError', { code: 'ETIMEDOUT' }),
      thrown('HttpError', { status: 500 }, 'fetch failed'),
    ]) {
      if (error.name === 'HttpError') (error as Error & { cause: unknown }).cause = new TypeError('fetch failed', { cause: refused });
      const failure = failureOf(error);
      expect(failure?.error, `${error.name} ${error.message}`).toMatchObject({ code: 'temporarily_unavailable', retry: CODES.temporarily_unavailable.retry });
      expect(failure?.cause).toBe(error);
    }
  });

  it("is undefined for what is no SDK's failure: an app's own error, a plain value, a Response agentFetch did not return", () => {
    for (const value of [new Error('x'), null, undefined, 'x', 42, {}, Object.assign(new Error('Not found'), { status: 404 }), Object.assign(new Error('bad body {"a":1}'), { status: 400 }), new Response('x', { status: 500 })]) expect(failureOf(value)).toBeUndefined();
  });

  it('never throws, whatever it is given (property)', () => {
    fc.assert(
      fc.property(fc.anything({ withNullPrototype: true, withObjectString: true }), (value) => {
        const failure = failureOf(value);
        if (failure !== undefined) expect(typeof failure.advice).toBe('string');
      }),
    );
    // A getter that throws is read around.
    const hostile = Object.defineProperty(new Error('x'), 'response', { get: () => { throw new Error('no'); } });
    expect(() => failureOf(hostile)).not.toThrow();
  });
});
