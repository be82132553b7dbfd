// Errors that come with a 2xx, from real servers on loopback: GraphQL errors from Apollo Server and
// GraphQL Yoga (graphql-js underneath), JSON-RPC errors from the MCP TypeScript SDK's server, and a
// GitHub-style GraphQL rate limit whose wait the client takes once. createAgentClient reads a 2xx
// JSON answer to a POST for such an error and hands it back as ok: false; a success, partial
// GraphQL data included, passes through byte for byte; agentFetch passes every 2xx through unless
// asked (errorsIn2xx), since the caller's own client reads its successes.
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { GraphQLError } from 'graphql';
import { createGraphQLError, createSchema, createYoga } from 'graphql-yoga';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, fetch as undiciFetch } from 'undici';
import { agentFetch, createAgentClient, createMemoryStore, failureOf } from '../../src/agent/index.js';
import { agentUndici } from '../../src/agent/undici.js';
import { fromResponse, isErrorBody, isErrorText } from '../../src/core/from-response.js';
import { serve, virtualClock, type TestServer } from '../helpers/server.js';

const typeDefs = /* GraphQL */ `
  type Order { id: ID! }
  type Query { order(id: ID!): Order, secret: String, broken: String }
  type UserError { field: [String!], message: String!, code: String }
  type OrderPayload { order: Order, userErrors: [UserError!]! }
  type Mutation { orderCreate(title: String, email: String): OrderPayload }
`;
// Each server's own GraphQLError: graphql ships a CommonJS and an ES module build, and a server
// treats an error of the other build as unexpected (and masks it), so each gets the one it loads.
const resolversWith = (error: (message: string, options: { extensions: Record<string, unknown> }) => Error) => ({
  Query: {
    order: (_: unknown, { id }: { id: string }) => ({ id }),
    secret: () => {
      throw error('Sign in to see the secret', { extensions: { code: 'UNAUTHENTICATED' } });
    },
    broken: () => {
      throw new Error('the database is down at db-7.internal:5432');
    },
  },
  // A mutation that answers its input's faults in its payload's userErrors, as Shopify's Admin API does.
  Mutation: {
    orderCreate: (_: unknown, { title, email }: { title?: string; email?: string }) => {
      const userErrors = [
        ...(title ? [] : [{ field: ['title'], message: "Title can't be blank", code: null }]),
        ...(email === 'taken@example.com' ? [{ field: ['email'], message: 'Email has already been taken', code: 'TAKEN' }] : []),
      ];
      return userErrors.length > 0 ? { order: null, userErrors } : { order: { id: '8' }, userErrors };
    },
  },
});

const closers: (() => Promise<unknown>)[] = [];
let apollo: string;
let yoga: string;
afterAll(async () => {
  for (const close of closers.splice(0)) await close();
});

beforeAll(async () => {
  const server = new ApolloServer({ typeDefs, resolvers: resolversWith((message, options) => new GraphQLError(message, options)) });
  ({ url: apollo } = await startStandaloneServer(server, { listen: { port: 0, host: '127.0.0.1' } }));
  closers.push(() => server.stop());
  const http = createServer(createYoga({ schema: createSchema({ typeDefs, resolvers: resolversWith(createGraphQLError) }), logging: false }));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  yoga = `http://127.0.0.1:${(http.address() as AddressInfo).port}/graphql`;
  closers.push(() => new Promise((resolve) => http.close(resolve)));
});

const post = (query: string): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });

describe.each([
  ['Apollo Server', () => apollo],
  ['GraphQL Yoga', () => yoga],
])('%s, through createAgentClient', (_name, url) => {
  it("hands back a resolver's UNAUTHENTICATED, sent with a 200 and no usable data, as auth_required", async () => {
    const result = await createAgentClient({ store: createMemoryStore() }).fetch(url(), post('{ secret }'));
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toMatchObject({ code: 'auth_required', retry: 'get_grant', message: 'Sign in to see the secret' });
    expect(!result.ok && result.response?.status).toBe(200);
  });

  it('hands back a query that does not validate as invalid_input, whatever status the server sends it with', async () => {
    const result = await createAgentClient({ store: createMemoryStore() }).fetch(url(), post('{ nope }'));
    expect(!result.ok && result.error).toMatchObject({ code: 'invalid_input', retry: 'fix_input' });
    expect(!result.ok && result.error.message).toMatch(/nope/);
  });

  it("hands back a resolver's own crash as internal, its message not the database's address", async () => {
    const result = await createAgentClient({ store: createMemoryStore() }).fetch(url(), post('{ broken }'));
    expect(!result.ok && result.error.code).toBe('internal');
  });

  it("hands back a mutation whose payload holds userErrors as the input's fault, naming each field", async () => {
    const mutation = 'mutation { orderCreate(email: "taken@example.com") { order { id } userErrors { field message code } } }';
    const result = await createAgentClient({ store: createMemoryStore() }).fetch(url(), post(mutation));
    expect(result.ok).toBe(false);
    expect(!result.ok && result.response?.status).toBe(200);
    expect(!result.ok && result.error).toMatchObject({ code: 'missing_field', retry: 'fix_input', field: 'title', message: "Title can't be blank" });
    expect(!result.ok && result.error.errors?.map((e) => [e.field, e.code])).toEqual([['title', 'missing_field'], ['email', 'conflict']]);
    // The same mutation without faults is the success it says, byte for byte.
    const fine = 'mutation { orderCreate(title: "Tea", email: "new@example.com") { order { id } userErrors { field message } } }';
    const direct = await (await fetch(url(), post(fine))).text();
    const ok = await createAgentClient({ store: createMemoryStore() }).fetch(url(), post(fine));
    expect(ok.ok).toBe(true);
    expect(await ok.response!.text()).toBe(direct);
  });

  it('passes partial data through as the success it is, byte for byte', async () => {
    const direct = await (await fetch(url(), post('{ order(id: "7") { id } secret }'))).text();
    const result = await createAgentClient({ store: createMemoryStore() }).fetch(url(), post('{ order(id: "7") { id } secret }'));
    expect(result.ok).toBe(true);
    expect(await result.response!.text()).toBe(direct);
    expect(JSON.parse(direct)).toMatchObject({ data: { order: { id: '7' }, secret: null } });
  });
});

describe("a GitHub-style GraphQL rate limit, sent with a 200 and Retry-After", () => {
  let site: TestServer;
  let calls = 0;
  beforeAll(async () => {
    site = await serve((req, res) => {
      req.resume();
      calls += 1;
      // GitHub: "If you exceed your secondary rate limit ... retry-after" (its GraphQL rate-limits page); the error's type is RATE_LIMITED.
      if (calls === 1) res.writeHead(200, { 'content-type': 'application/json', 'retry-after': '3' }).end(JSON.stringify({ data: null, errors: [{ type: 'RATE_LIMITED', message: 'API rate limit exceeded for user ID 1.' }] }));
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { viewer: { login: 'agent' } } }));
    });
  });
  afterAll(() => site.close());

  it('the client waits it out once and calls again; agentFetch hands the 200 over untouched unless asked', async () => {
    const clock = virtualClock();
    calls = 0;
    const result = await createAgentClient({ store: createMemoryStore({ now: clock.now }), now: clock.now, sleep: clock.sleep }).fetch(site.url, post('{ viewer { login } }'));
    expect(result.ok).toBe(true);
    expect([calls, clock.sleeps]).toEqual([2, [3000]]);

    calls = 0;
    const plain = await agentFetch({ store: createMemoryStore() })(site.url, post('{ viewer { login } }'));
    expect([plain.status, calls, failureOf(plain)]).toEqual([200, 1, undefined]);
    expect(await plain.json()).toMatchObject({ errors: [{ type: 'RATE_LIMITED' }] });

    calls = 0;
    const clock2 = virtualClock();
    const asked = await agentFetch({ store: createMemoryStore({ now: clock2.now }), now: clock2.now, sleep: clock2.sleep, errorsIn2xx: true })(site.url, post('{ viewer { login } }'));
    expect([asked.status, calls, clock2.sleeps]).toEqual([200, 2, [3000]]);
  });

  it('the undici interceptor hands the 200 over byte for byte unless asked, and asked waits it out once', async () => {
    calls = 0;
    const direct = await (await fetch(site.url, post('{ viewer { login } }'))).text();
    for (const errorsIn2xx of [undefined, false, true]) {
      const clock = virtualClock();
      const agent = new Agent();
      const dispatcher = agent.compose(agentUndici({ store: createMemoryStore({ now: clock.now }), now: clock.now, sleep: clock.sleep, ...(errorsIn2xx === undefined ? {} : { errorsIn2xx }) }));
      calls = 0;
      const response = await undiciFetch(site.url, { ...(post('{ viewer { login } }') as Parameters<typeof undiciFetch>[1]), dispatcher });
      const text = await response.text();
      await agent.close();
      if (errorsIn2xx) {
        expect([response.status, calls, clock.sleeps]).toEqual([200, 2, [3000]]);
        expect(JSON.parse(text)).toEqual({ data: { viewer: { login: 'agent' } } });
      } else {
        expect([response.status, calls, clock.sleeps, text]).toEqual([200, 1, [], direct]);
        expect(JSON.parse(text)).toMatchObject({ errors: [{ type: 'RATE_LIMITED' }] });
      }
    }
  });

  it('a GET 200 is never read: the hot path stays a stream', async () => {
    calls = 0;
    const result = await createAgentClient({ store: createMemoryStore() }).fetch(site.url);
    expect(result.ok).toBe(true);
    expect(calls).toBe(1);
  });
});

describe("the MCP SDK's JSON-RPC errors (Streamable HTTP, JSON responses)", () => {
  let mcp: TestServer;
  beforeAll(async () => {
    mcp = await serve((req, res) => {
      const server = new Server({ name: 'shop', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [] }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => void transport.close().then(() => server.close()));
      void server.connect(transport).then(() => transport.handleRequest(req, res));
    });
  });
  afterAll(() => mcp.close());

  it('hands back a call of a method the server does not have as not_found (-32601)', async () => {
    const result = await createAgentClient({ store: createMemoryStore() }).fetch(mcp.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'no/such/method', params: {} }),
    });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.response?.status).toBe(200);
    expect(!result.ok && result.error).toMatchObject({ code: 'not_found', retry: 'no' });
  });
});

describe('isErrorBody', () => {
  it('turns no success into a failure: any JSON without an error shape, partial GraphQL data included, is not an error', () => {
    const notError = fc.anything().filter((value) => {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return true;
      const v = value as Record<string, unknown>;
      const data = v.data;
      const userErrors = typeof data === 'object' && data !== null && Object.values(data).some((p) => typeof p === 'object' && p !== null && 'userErrors' in p);
      return !('errors' in v) && !('jsonrpc' in v) && v.ok !== false && !userErrors;
    });
    fc.assert(
      fc.property(notError, (value) => {
        expect(isErrorBody(value)).toBe(false);
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()).filter((data) => Object.values(data).some((v) => v !== null)), fc.array(fc.record({ message: fc.string({ minLength: 1 }) }), { minLength: 1 }), (data, errors) => {
        expect(isErrorBody({ data, errors })).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });

  it('finds each shape: GraphQL errors without data, a JSON-RPC error, Slack ok: false', () => {
    expect(isErrorBody({ errors: [{ message: 'x' }] })).toBe(true);
    expect(isErrorBody({ data: { a: null }, errors: [{ message: 'x' }] })).toBe(true);
    expect(isErrorBody({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } })).toBe(true);
    expect(isErrorBody({ ok: false, error: 'channel_not_found' })).toBe(true);
    expect(isErrorBody({ ok: false })).toBe(false);
    expect(isErrorBody({ jsonrpc: '2.0', id: 1, result: {} })).toBe(false);
    // A mutation's userErrors: every payload failed (or is null); one that succeeded beside another that did not is a partial success.
    const failed = { userErrors: [{ field: ['title'], message: "Title can't be blank" }], product: null };
    expect(isErrorBody({ data: { productCreate: failed } })).toBe(true);
    expect(isErrorBody({ data: { productCreate: failed, other: null } })).toBe(true);
    expect(isErrorBody({ data: { productCreate: failed, productUpdate: { userErrors: [], product: { id: '1' } } } })).toBe(false);
    expect(isErrorBody({ data: { productCreate: { userErrors: [], product: { id: '1' } } } })).toBe(false);
    expect(isErrorBody({ data: { productCreate: null } })).toBe(false);
  });
});

// S3's error inside a 200 (written from AWS's documentation, not captured: neither s3rver nor any S3
// server that runs here sends one): "If the error occurs during the copy operation, the error
// response is embedded in the 200 OK response", https://docs.aws.amazon.com/AmazonS3/latest/API/API_CopyObject.html,
// and the same for CompleteMultipartUpload and UploadPartCopy; the body is S3's <Error> document.
const S3_COPY_ERROR = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>InternalError</Code><Message>We encountered an internal error. Please try again.</Message><RequestId>656c76696e6727732072657175657374</RequestId><HostId>Uuag1LuByRx9e6j5Onimru9pO4ZVKnJ2Qz7/C1NPcfTWAtRPfTaOFg==</HostId></Error>';
const S3_COPY_RESULT = '<?xml version="1.0" encoding="UTF-8"?>\n<CopyObjectResult><ETag>"9b2cf535f27731c974343645a3985328"</ETag><LastModified>2026-12-06T00:00:00.000Z</LastModified></CopyObjectResult>';
// DeleteObjects answers 200 with one <Error> per key it could not delete: a partial success.
const S3_DELETE_PARTIAL = '<?xml version="1.0" encoding="UTF-8"?>\n<DeleteResult><Deleted><Key>a.txt</Key></Deleted><Error><Key>b.txt</Key><Code>AccessDenied</Code><Message>Access Denied</Message></Error></DeleteResult>';

describe("S3's error inside a 200 (CopyObject, CompleteMultipartUpload)", () => {
  let site: TestServer;
  let answers: string[] = [];
  let calls = 0;
  beforeAll(async () => {
    site = await serve((req, res) => {
      req.resume();
      const body = answers[Math.min(calls, answers.length - 1)]!;
      calls += 1;
      res.writeHead(200, { 'content-type': 'application/xml' }).end(body);
    });
  });
  afterAll(() => site.close());
  const put = { method: 'PUT', headers: { 'x-amz-copy-source': '/bucket/source.txt' } };

  it('reads the <Error> document as its code, and a copy result or a partial DeleteObjects result as the success it is', () => {
    expect(isErrorText(S3_COPY_ERROR)).toBe(true);
    expect(isErrorText(S3_COPY_RESULT)).toBe(false);
    expect(isErrorText(S3_DELETE_PARTIAL)).toBe(false);
    expect(fromResponse(200, { 'content-type': 'application/xml' }, S3_COPY_ERROR).error).toMatchObject({ code: 'internal', retry: 'once', message: 'We encountered an internal error. Please try again.' });
  });

  it('the client hands the copy back as internal after its one retry, and passes a copy result through byte for byte', async () => {
    answers = [S3_COPY_ERROR];
    calls = 0;
    const failed = await createAgentClient({ store: createMemoryStore() }).fetch(`${site.url}/bucket/copy.txt`, put);
    expect(!failed.ok && failed.error).toMatchObject({ code: 'internal', retry: 'once' });
    expect(calls).toBe(2);

    answers = [S3_COPY_ERROR, S3_COPY_RESULT];
    calls = 0;
    const copied = await createAgentClient({ store: createMemoryStore() }).fetch(`${site.url}/bucket/copy.txt`, put);
    expect(copied.ok).toBe(true);
    expect([calls, await copied.response!.text()]).toEqual([2, S3_COPY_RESULT]);

    answers = [S3_DELETE_PARTIAL];
    calls = 0;
    const partial = await createAgentClient({ store: createMemoryStore() }).fetch(`${site.url}/bucket?delete`, { method: 'POST', body: '<Delete/>' });
    expect(partial.ok).toBe(true);
    expect([calls, await partial.response!.text()]).toEqual([1, S3_DELETE_PARTIAL]);
  });
});

describe('isErrorText', () => {
  it('never throws and turns no text without an error shape into an error', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.constantFrom('<Error>', '<Error><Code>x</Code>', '<DeleteResult><Error><Code>x</Code></Error></DeleteResult>')), (text) => {
        const parsed = (() => {
          try {
            return JSON.parse(text) as unknown;
          } catch {
            return undefined;
          }
        })();
        const said = isErrorText(text);
        if (!text.trimStart().startsWith('<')) expect(said).toBe(text.trimStart().startsWith('{') && isErrorBody(parsed));
        else expect(said).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });
});
