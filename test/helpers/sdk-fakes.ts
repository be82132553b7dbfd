// Loopback fakes of the APIs the vendors' SDKs call, each answering its errors as the vendor
// documents them, for the tests that make real SDK calls and read what they throw. One node:http
// server on 127.0.0.1, port 0, serves every vendor:
//
//   /{vendor}/{case}/...     the vendor's answer for that case, whatever path its SDK appends
//   /v1/customers/{case}     Stripe's (stripe-node takes a host and port, no base path)
//   /{vendor}/hang/...       never answers, for the SDKs' own timeouts
//
// Each vendor's bodies are written from its documentation (the page is cited beside it); where a
// vendor documents no delay on its rate limit, the answer adds a Retry-After and says so.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { freePort, serve, type TestServer } from './server.js';

/** The vendors faked, by the error format each answers in. */
export type Vendor = 'openai' | 'anthropic' | 'github' | 'stripe' | 'dynamodb' | 'gemini' | 'problem' | 'azure' | 'discord';

/** The error cases every vendor answers: a rate limit with a delay, a validation error naming a field, a bad credential, a 5xx. */
export type Case = 'rate' | 'field' | 'auth' | 'server';

export const CASES: readonly Case[] = ['rate', 'field', 'auth', 'server'];

/** One answer of a vendor, as it goes on the wire. */
export interface VendorAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}, type = 'application/json'): VendorAnswer => ({
  status,
  headers: { 'content-type': type, ...headers },
  body: JSON.stringify(body),
});

export const ANSWERS: Readonly<Record<Vendor, Readonly<Record<Case, VendorAnswer>>>> = {
  // OpenAI: the error object { error: { message, type, param, code } }
  // (https://platform.openai.com/docs/api-reference/introduction, "Error codes" at
  // https://platform.openai.com/docs/guides/error-codes: 401 invalid key, 429 rate limit, 500 server
  // error) and the rate-limit headers (https://platform.openai.com/docs/guides/rate-limits#rate-limits-in-headers).
  openai: {
    rate: json(
      429,
      { error: { message: 'Rate limit reached for gpt-4o in organization org-AbCdEf123456 on requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again in 20s.', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
      { 'retry-after': '20', 'x-ratelimit-limit-requests': '500', 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '20s', 'x-request-id': 'req_6f1c2a9b8d7e4f30a1b2c3d4e5f60718' },
    ),
    field: json(400, { error: { message: "Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got 3.5 instead.", type: 'invalid_request_error', param: 'temperature', code: 'decimal_above_max_value' } }),
    auth: json(
      401,
      { error: { message: 'Incorrect API key provided: sk-proj-****abcd. You can find your API key at https://platform.openai.com/account/api-keys.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } },
      { 'www-authenticate': 'Bearer realm="OpenAI API"' },
    ),
    server: json(500, { error: { message: 'The server had an error while processing your request. Sorry about that!', type: 'server_error', param: null, code: null } }),
  },

  // Anthropic: { type: 'error', error: { type, message }, request_id } (https://docs.claude.com/en/api/errors,
  // HTTP errors: 400 invalid_request_error, 401 authentication_error, 429 rate_limit_error, 529
  // overloaded_error) and retry-after on a 429 (https://docs.claude.com/en/api/rate-limits, response
  // headers). Its 400 names the field the way its validation messages do, a path and a colon.
  anthropic: {
    rate: json(
      429,
      { type: 'error', error: { type: 'rate_limit_error', message: 'This request would exceed the rate limit for your organization of 50 requests per minute.' }, request_id: 'req_011CSHoEeqs5C35K2UUqR7G0' },
      { 'retry-after': '25', 'anthropic-ratelimit-requests-limit': '50', 'anthropic-ratelimit-requests-remaining': '0', 'request-id': 'req_011CSHoEeqs5C35K2UUqR7G0' },
    ),
    field: json(400, { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: Field required' }, request_id: 'req_011CSHoEeqs5C35K2UUqR7G1' }),
    auth: json(401, { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' }, request_id: 'req_011CSHoEeqs5C35K2UUqR7Fz' }),
    server: json(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' }, request_id: 'req_011CSHoEeqs5C35K2UUqR7Fy' }),
  },

  // GitHub REST: { message, documentation_url, errors?: [{ resource, field, code }] }
  // (https://docs.github.com/en/rest/using-the-rest-api/troubleshooting-the-rest-api; the 422 of
  // "Client errors" with code missing_field), the secondary rate limit as a 403 with retry-after
  // (https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api), and 401 Bad credentials.
  github: {
    rate: json(
      403,
      { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.', documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits', status: '403' },
      { 'retry-after': '60', 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '4890', 'x-ratelimit-resource': 'core' },
      'application/json; charset=utf-8',
    ),
    field: json(
      422,
      { message: 'Validation Failed', errors: [{ resource: 'Issue', field: 'title', code: 'missing_field' }], documentation_url: 'https://docs.github.com/rest/issues/issues#create-an-issue', status: '422' },
      {},
      'application/json; charset=utf-8',
    ),
    auth: json(401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' }, {}, 'application/json; charset=utf-8'),
    server: json(500, { message: 'Server Error', documentation_url: 'https://docs.github.com/rest', status: '500' }, {}, 'application/json; charset=utf-8'),
  },

  // Stripe: { error: { type, code, param, message, doc_url } } (https://docs.stripe.com/api/errors,
  // https://docs.stripe.com/error-codes: parameter_missing, rate_limit) and 429 on a rate limit
  // (https://docs.stripe.com/rate-limits). Stripe documents no delay on its 429, so this one adds a
  // Retry-After, to show where the SDK's error keeps the response's headers.
  stripe: {
    rate: json(
      429,
      { error: { code: 'rate_limit', doc_url: 'https://stripe.com/docs/error-codes/rate-limit', message: 'Request rate limit exceeded. Learn more about rate limits here https://stripe.com/docs/rate-limits.', type: 'invalid_request_error' } },
      { 'retry-after': '3', 'request-id': 'req_4Tq8Vn2Bx6Ls1m' },
    ),
    field: json(
      400,
      { error: { code: 'parameter_missing', doc_url: 'https://stripe.com/docs/error-codes/parameter-missing', message: 'Missing required param: currency.', param: 'currency', type: 'invalid_request_error' } },
      { 'request-id': 'req_2nVb6Yc1Lm0Qz9' },
    ),
    auth: json(401, { error: { message: 'Invalid API Key provided: sk_test_********************1234', type: 'invalid_request_error' } }, { 'www-authenticate': 'Basic realm="Stripe"' }),
    server: json(500, { error: { message: 'An unknown error occurred', type: 'api_error' } }, { 'request-id': 'req_9Zx8Cv7Bn6Ma5s' }),
  },

  // DynamoDB, AWS's JSON 1.0 protocol: { __type: 'namespace#Name', message } and the
  // x-amzn-ErrorType header (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html:
  // ThrottlingException, ValidationException and UnrecognizedClientException are 400s,
  // InternalServerError a 500; https://smithy.io/2.0/aws/protocols/aws-json-1_0-protocol.html, operation
  // error serialization). DynamoDB documents no delay on a throttle; the SDK's retry middleware
  // honours a Retry-After, so this one adds one.
  dynamodb: {
    rate: json(
      400,
      { __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException', message: 'Rate of requests exceeds the allowed throughput.' },
      { 'x-amzn-errortype': 'ThrottlingException:http://internal.amazon.com/coral/com.amazon.coral.service/', 'x-amzn-requestid': '7DOSF4D1VQ2H3PFB4JDHLL9OE3VV4KQNSO5AEMVJF66Q9ASUAAJG', 'retry-after': '4' },
      'application/x-amz-json-1.0',
    ),
    field: json(
      400,
      { __type: 'com.amazon.coral.validate#ValidationException', message: "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3" },
      { 'x-amzn-errortype': 'ValidationException:http://internal.amazon.com/coral/com.amazon.coral.validate/', 'x-amzn-requestid': 'N4APHWAKZIYN2KZCZOAVHOTI0KJ7Y9PPROXWEXUINSRBJVNEDHFL' },
      'application/x-amz-json-1.0',
    ),
    auth: json(
      400,
      { __type: 'com.amazon.coral.service#UnrecognizedClientException', message: 'The security token included in the request is invalid.' },
      { 'x-amzn-errortype': 'UnrecognizedClientException:http://internal.amazon.com/coral/com.amazon.coral.service/', 'x-amzn-requestid': 'NIUPFZHKJ6EBMLDGYN0G7HRSS0QOL6ENOH9EV4GD7F0XZOUV0ES1' },
      'application/x-amz-json-1.0',
    ),
    server: json(
      500,
      { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'Internal server error' },
      { 'x-amzn-errortype': 'InternalServerError:http://internal.amazon.com/coral/com.amazonaws.dynamodb.v20120810/', 'x-amzn-requestid': 'Q1W2E3R4T5Y6U7I8O9P0ASDFGHJKLZXCVBNMQWERTYUIOPASDFG' },
      'application/x-amz-json-1.0',
    ),
  },

  // Gemini, Google's API error model: { error: { code, message, status, details } }
  // (https://ai.google.dev/gemini-api/docs/troubleshooting: 400 INVALID_ARGUMENT, 429 RESOURCE_EXHAUSTED,
  // 503 UNAVAILABLE; https://google.aip.dev/193 and google/rpc/error_details.proto for ErrorInfo,
  // BadRequest.fieldViolations and RetryInfo). A bad API key is a 400 with ErrorInfo API_KEY_INVALID.
  gemini: {
    rate: json(
      429,
      {
        error: {
          code: 429,
          message: 'You exceeded your current quota, please check your plan and billing details.',
          status: 'RESOURCE_EXHAUSTED',
          details: [
            { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests', quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier' }] },
            { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '13s' },
          ],
        },
      },
      {},
      'application/json; charset=UTF-8',
    ),
    field: json(
      400,
      {
        error: {
          code: 400,
          message: "Invalid value at 'generation_config.temperature' (TYPE_FLOAT), \"hot\"",
          status: 'INVALID_ARGUMENT',
          details: [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: 'generation_config.temperature', description: "Invalid value at 'generation_config.temperature' (TYPE_FLOAT), \"hot\"" }] }],
        },
      },
      {},
      'application/json; charset=UTF-8',
    ),
    auth: json(
      400,
      {
        error: {
          code: 400,
          message: 'API key not valid. Please pass a valid API key.',
          status: 'INVALID_ARGUMENT',
          details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com', metadata: { service: 'generativelanguage.googleapis.com' } }],
        },
      },
      {},
      'application/json; charset=UTF-8',
    ),
    server: json(503, { error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } }, {}, 'application/json; charset=UTF-8'),
  },

  // Problem details (RFC 9457, https://www.rfc-editor.org/rfc/rfc9457): the validation example of
  // section 3 (errors with detail and pointer), a 429 (RFC 6585 section 4) and a 503 with Retry-After
  // (RFC 9110 section 10.2.3), and a 401 with a Bearer challenge (RFC 6750 section 3).
  problem: {
    rate: json(429, { type: 'https://example.net/probs/too-many-requests', title: 'Too Many Requests', status: 429, detail: '60 requests per minute per key' }, { 'retry-after': '12' }, 'application/problem+json'),
    field: json(
      422,
      { type: 'https://example.net/validation-error', title: 'Your request is not valid.', errors: [{ detail: 'must be a positive integer', pointer: '#/age' }, { detail: "must be 'green', 'red' or 'blue'", pointer: '#/profile/color' }] },
      {},
      'application/problem+json',
    ),
    auth: json(401, { type: 'https://example.net/probs/unauthorized', title: 'Unauthorized', status: 401, detail: 'The access token expired' }, { 'www-authenticate': 'Bearer realm="example", error="invalid_token", error_description="The access token expired"' }, 'application/problem+json'),
    server: json(503, { type: 'https://example.net/probs/maintenance', title: 'Service Unavailable', status: 503, detail: 'Down for maintenance' }, { 'retry-after': '120' }, 'application/problem+json'),
  },

  // Azure: { error: { code, message, target } } (https://github.com/microsoft/api-guidelines/blob/vNext/azure/Guidelines.md#handling-errors),
  // Resource Manager's 429 with Retry-After
  // (https://learn.microsoft.com/en-us/azure/azure-resource-manager/management/request-limits-and-throttling)
  // and its common codes (https://learn.microsoft.com/en-us/azure/azure-resource-manager/troubleshooting/common-deployment-errors).
  azure: {
    rate: json(429, { error: { code: 'TooManyRequests', message: 'The request was throttled. Retry after 17 seconds.' } }, { 'retry-after': '17', 'x-ms-ratelimit-remaining-subscription-reads': '0' }, 'application/json; charset=utf-8'),
    field: json(400, { error: { code: 'InvalidParameter', message: "The value of parameter 'location' is invalid.", target: 'location' } }, {}, 'application/json; charset=utf-8'),
    auth: json(401, { error: { code: 'AuthenticationFailed', message: "Authentication failed. The 'Authorization' header is missing." } }, { 'www-authenticate': 'Bearer authorization_uri="https://login.windows.net/", error="invalid_token"' }, 'application/json; charset=utf-8'),
    server: json(500, { error: { code: 'InternalServerError', message: 'Encountered internal server error.' } }, {}, 'application/json; charset=utf-8'),
  },

  // Discord: { code, message, errors? } (https://discord.com/developers/docs/reference#error-messages,
  // the Invalid Form Body example with nested _errors) and its 429, a float retry_after in the body
  // beside Retry-After (https://discord.com/developers/docs/topics/rate-limits#exceeding-a-rate-limit).
  discord: {
    rate: json(429, { message: 'You are being rate limited.', retry_after: 64.57, global: false }, { 'retry-after': '65', 'x-ratelimit-scope': 'user' }),
    field: json(400, {
      code: 50035,
      errors: {
        access_token: { _errors: [{ code: 'BASE_TYPE_REQUIRED', message: 'This field is required' }] },
        embeds: { '0': { title: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 256 or fewer in length.' }] } } },
      },
      message: 'Invalid Form Body',
    }),
    auth: json(401, { message: '401: Unauthorized', code: 0 }),
    server: json(500, { message: '500: Internal Server Error', code: 0 }),
  },
};

const VENDORS = Object.keys(ANSWERS) as Vendor[];

/** The vendor and case a request's path asks for, `hang` for one that is never answered. */
export function routeOf(path: string): { vendor: Vendor; case: Case | 'hang' } | undefined {
  const stripe = /^\/v1\/customers\/(rate|field|auth|server|hang)(?:[/?]|$)/.exec(path);
  if (stripe) return { vendor: 'stripe', case: stripe[1] as Case | 'hang' };
  const match = /^\/([a-z]+)\/(rate|field|auth|server|hang)(?:[/?]|$)/.exec(path);
  if (!match || !VENDORS.includes(match[1] as Vendor)) return undefined;
  return { vendor: match[1] as Vendor, case: match[2] as Case | 'hang' };
}

export interface SdkFake extends TestServer {
  /** Each request the fake received, as `METHOD path`. */
  readonly seen: readonly string[];
  /** A loopback port nobody listens on: a server was opened there and closed. */
  readonly refusedPort: number;
}

/** Starts the fake on a free loopback port; `close` also drops the requests it left hanging. */
export async function startSdkFake(): Promise<SdkFake> {
  const seen: string[] = [];
  const server = await serve((req: IncomingMessage, res: ServerResponse) => {
    seen.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => {
      const route = routeOf(req.url ?? '/');
      if (!route) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('no such fake route');
        return;
      }
      if (route.case === 'hang') return; // never answered: the client's own timeout ends it
      const answer = ANSWERS[route.vendor][route.case];
      res.writeHead(answer.status, { ...answer.headers, 'content-length': String(Buffer.byteLength(answer.body)) }).end(answer.body);
    });
  });
  return { ...server, seen, refusedPort: await freePort() };
}
