// MCP's errors on both sides, with the real MCP SDK (its McpServer and Client) over its Streamable
// HTTP transport on 127.0.0.1: a server whose tool handlers agentToolErrors wraps answers a thrown
// AgentError as this contract and any other error as a generic one that hides its message; an agent
// reads any failed tool result with fromToolResult, and a JSON-RPC error the client throws with failureOf.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { failureOf } from '../../src/agent/drop-in.js';
import { agentToolErrors, fromToolResult } from '../../src/agent/mcp.js';
import { CODES } from '../../src/index.js';
import { agentError } from '../../src/site/agent-error.js';
import { serve, type TestServer } from '../helpers/server.js';

const SECRET = 'connection to db-7 refused: password=hunter2';
const heard: unknown[] = [];
let http: TestServer;
let client: Client;

/** An MCP server with one tool per way a tool fails, its handlers wrapped by agentToolErrors. */
function newServer(): McpServer {
  const server = agentToolErrors(new McpServer({ name: 'shop', version: '1.0.0' }), { onError: (error) => heard.push(error) });
  server.registerTool('slow_down', { description: 'throws a rate limit' }, async () => {
    throw agentError('rate_limited', { retryAfter: 30, message: 'Too many orders this minute' });
  });
  server.registerTool('fix_quantity', { description: 'throws a field error' }, async () => {
    throw agentError('invalid_input', { field: 'quantity', message: 'quantity must be at least 1' });
  });
  server.registerTool('broken', { description: 'throws an error of its own' }, async () => {
    throw new Error(SECRET);
  });
  server.registerTool('says_in_text', { description: 'fails with text only' }, async () => ({ isError: true, content: [{ type: 'text', text: "'sku' parameter is invalid: no such product code" }] }));
  server.registerTool('order', { description: 'validates its input', inputSchema: { quantity: z.number().int().min(1) } }, async ({ quantity }) => ({ content: [{ type: 'text', text: `ordered ${quantity}` }] }));
  return server;
}

beforeAll(async () => {
  http = await serve((req, res) => {
    if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
    const server = newServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void transport.close().then(() => server.close()));
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
  client = new Client({ name: 'agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
});
afterAll(async () => {
  await client.close();
  await http.close();
});

const call = (name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args });

describe("MCP's errors, both sides, on the real SDK", () => {
  it('a thrown AgentError reaches the agent as the contract: its code, word, field and delay', async () => {
    const slow = fromToolResult(await call('slow_down'));
    expect(slow?.error).toEqual({ code: 'rate_limited', message: 'Too many orders this minute', field: null, retry: CODES.rate_limited.retry, retry_after: 30 });
    const fix = fromToolResult(await call('fix_quantity'));
    expect(fix?.error).toMatchObject({ code: 'invalid_input', field: 'quantity', retry: 'fix_input' });
    expect(fix?.advice).toBe(CODES.invalid_input.advice);
  });

  it('any other thrown error is a generic internal result that shows nothing of its message, and onError hears it once', async () => {
    const before = heard.length;
    const result = await call('broken');
    expect(JSON.stringify(result)).not.toContain('hunter2');
    expect(fromToolResult(result)?.error).toMatchObject({ code: 'internal', retry: CODES.internal.retry });
    expect(heard.slice(before).map((e) => (e as Error).message)).toEqual([SECRET]);
  });

  it('reads a failed tool result with text only as a tool execution error: the input to correct, the field its text names', async () => {
    const text = fromToolResult(await call('says_in_text'));
    expect(text?.error).toMatchObject({ code: 'invalid_input', retry: 'fix_input', field: 'sku' });
    // The SDK's own answer to input its schema refuses is such a result too.
    const refused = await call('order', { quantity: 0 });
    expect(refused.isError).toBe(true);
    expect(fromToolResult(refused)?.error).toMatchObject({ code: 'invalid_input', retry: 'fix_input' });
    // A success is no failure.
    expect(fromToolResult(await call('order', { quantity: 2 }))).toBeUndefined();
  });

  it('reads a JSON-RPC error the client throws (McpError) by its code', async () => {
    const thrown = await client.request({ method: 'no/such/method' }, z.object({})).catch((error: unknown) => error);
    expect((thrown as Error).name).toBe('McpError');
    expect(failureOf(thrown)?.error).toMatchObject({ code: 'not_found', retry: 'no' });
  });

  it('refuses an option it does not know, and a server that is no McpServer, by name', () => {
    expect(() => agentToolErrors(new McpServer({ name: 's', version: '1' }), { onerror: () => undefined } as never)).toThrow(/agentToolErrors: unknown option "onerror" \(did you mean "onError"\?\)/);
    expect(() => agentToolErrors({} as never)).toThrow(/agentToolErrors: the server must be an MCP SDK McpServer/);
  });
});
