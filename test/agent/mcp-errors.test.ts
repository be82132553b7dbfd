// MCP's errors on both sides, with the real MCP SDK (its McpServer and Client) over its Streamable
// HTTP transport on 127.0.0.1: a server whose tool handlers agentToolErrors wraps answers a thrown
// AgentError as this contract and any other error as a generic one that hides its message; an agent
// reads any failed tool result with fromToolResult, and a JSON-RPC error the client throws with failureOf.
// Arguments a tool's inputSchema refuses, which the SDK answers before any handler runs, reach the
// agent with their fields: from the SDK's own text, and as structuredContent on a wrapped server.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { failureOf } from '../../src/agent/drop-in.js';
import { agentToolErrors, fromToolResult } from '../../src/agent/mcp.js';
import { CODES, validateEnvelope } from '../../src/index.js';
import { registerFailingTools, SECRET } from '../helpers/mcp-tools.js';
import { serve, type TestServer } from '../helpers/server.js';

const heard: unknown[] = [];
let http: TestServer;
let client: Client;
/** A client of the same tools on a server that agentToolErrors does not wrap (path /plain). */
let plainClient: Client;

/** The input a tool validates with zod before its handler runs: two fields at the top, one nested. */
const PLACE_ORDER_INPUT = { id: z.string(), quantity: z.number().int().min(1), address: z.object({ zip: z.string() }).optional() };

/** An MCP server with one tool per way a tool fails, its handlers wrapped by agentToolErrors unless `plain`. */
function newServer(plain = false): McpServer {
  const bare = new McpServer({ name: 'shop', version: '1.0.0' });
  const server = plain ? bare : agentToolErrors(bare, { onError: (error) => heard.push(error) });
  registerFailingTools(server as unknown as Parameters<typeof registerFailingTools>[0]);
  server.registerTool('says_in_text', { description: 'fails with text only' }, async () => ({ isError: true, content: [{ type: 'text', text: "'sku' parameter is invalid: no such product code" }] }));
  server.registerTool('order', { description: 'validates its input', inputSchema: { quantity: z.number().int().min(1) } }, async ({ quantity }) => ({ content: [{ type: 'text', text: `ordered ${quantity}` }] }));
  server.registerTool('place_order', { description: 'validates an order', inputSchema: PLACE_ORDER_INPUT }, async ({ id }) => ({ content: [{ type: 'text', text: `placed ${id}` }] }));
  server.registerTool('says_at', { description: 'fails with a sentence that says " at "' }, async () => ({ isError: true, content: [{ type: 'text', text: 'The payment failed at checkout: declined at bank' }] }));
  return server;
}

beforeAll(async () => {
  http = await serve((req, res) => {
    if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
    const server = newServer(req.url === '/plain');
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void transport.close().then(() => server.close()));
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
  client = new Client({ name: 'agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
  plainClient = new Client({ name: 'agent', version: '1.0.0' });
  await plainClient.connect(new StreamableHTTPClientTransport(new URL('/plain', http.url)));
});
afterAll(async () => {
  await client.close();
  await plainClient.close();
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
    // The SDK's answer to input its schema refuses is read so too (the next tests read its fields).
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

  it("reads the SDK's own text for input its schema refuses: field the first issue's path, errors every issue's field in order", async () => {
    const result = await plainClient.callTool({ name: 'place_order', arguments: { quantity: 0 } });
    expect(result.structuredContent).toBeUndefined();
    expect((result.content as { text: string }[])[0]!.text).toMatch(/^MCP error -32602: Input validation error: Invalid arguments for tool place_order: /);
    const error = fromToolResult(result)?.error;
    // Zod 4 says "received undefined" of a missing value, which the catalog's validation phrases make missing_field.
    expect(error).toMatchObject({ code: 'missing_field', field: 'id', retry: CODES.missing_field.retry, retry_after: null });
    expect(error?.errors?.map((e) => [e.field, e.code])).toEqual([
      ['id', 'missing_field'],
      ['quantity', 'invalid_input'],
    ]);
    expect(error?.message).toMatch(/ at id$/);
  });

  it('makes a wrapped server answer input its schema refuses with structuredContent: the same code, field and errors', async () => {
    const result = await call('place_order', { quantity: 0 });
    expect(result.isError).toBe(true);
    const envelope = result.structuredContent as { error: { code: string; field: string | null; errors?: { field: string; code: string }[] } };
    expect(validateEnvelope(envelope, { received: true }).valid).toBe(true);
    expect(envelope.error).toMatchObject({ code: 'missing_field', field: 'id', retry: CODES.missing_field.retry });
    expect(envelope.error.errors?.map((e) => [e.field, e.code])).toEqual([
      ['id', 'missing_field'],
      ['quantity', 'invalid_input'],
    ]);
    // The text a model reads is the catalog's paragraph, naming each field.
    expect((result.content as { text: string }[])[0]!.text).toContain('Each field at fault: id (missing_field), quantity (invalid_input).');
    // The agent reads the same from it, and from the plain server's text.
    const plain = fromToolResult(await plainClient.callTool({ name: 'place_order', arguments: { quantity: 0 } }))?.error;
    expect(fromToolResult(result)?.error).toEqual(plain);
    // Any other message the SDK makes a tool error of is still its own text.
    const unknownTool = await call('no_such_tool');
    expect(unknownTool).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringContaining('Tool no_such_tool not found') }] });
    expect(unknownTool.structuredContent).toBeUndefined();
    // Valid input still reaches the handler.
    expect(await call('place_order', { id: 'o-1', quantity: 2 })).toMatchObject({ content: [{ type: 'text', text: 'placed o-1' }] });
  });

  it('gives a nested path as the dotted field, on both servers', async () => {
    const args = { id: 'o-1', quantity: 1, address: { zip: 12345 } };
    const plain = fromToolResult(await plainClient.callTool({ name: 'place_order', arguments: args }))?.error;
    expect(plain).toMatchObject({ code: 'invalid_input', field: 'address.zip', retry: 'fix_input' });
    expect(plain?.errors).toBeUndefined();
    const wrapped = await call('place_order', args);
    expect(wrapped.structuredContent).toMatchObject({ error: { code: 'invalid_input', field: 'address.zip' } });
  });

  it('takes a field only from the SDK\'s validation text: a sentence that merely says " at " names none', async () => {
    const fromText = (text: string) => fromToolResult({ isError: true, content: [{ type: 'text', text }] })?.error;
    // A tool's own sentence over the real SDK, and the same as a bare result.
    expect(fromToolResult(await call('says_at'))?.error).toMatchObject({ code: 'invalid_input', field: null });
    expect(fromText('Invalid input: expected string, received undefined at id')).toMatchObject({ field: null });
    // The SDK's prefix makes the same line an issue of field id; an issue of the input as a whole
    // ("at least", a path with a space after it) names none.
    const prefix = 'MCP error -32602: Input validation error: Invalid arguments for tool t: ';
    expect(fromText(`${prefix}Invalid input: expected string, received undefined at id`)).toMatchObject({ code: 'missing_field', field: 'id' });
    expect(fromText(`${prefix}Provide at least one of sku or id`)).toMatchObject({ code: 'invalid_input', field: null });
    expect(fromText(`${prefix}Too small: expected array to have >=1 items at items[0].tags`)).toMatchObject({ field: 'items.0.tags' });
  });

  it('reads any text content as a failure with a valid envelope, and the SDK\'s issues as their fields (fast-check)', () => {
    const prefix = fc.constantFrom('', 'MCP error -32602: ', 'MCP error -32602: Input validation error: Invalid arguments for tool t: ', 'Input validation error: Invalid arguments for tool a:b: ');
    const anyText = fc.oneof(fc.string({ maxLength: 300 }), fc.string({ unit: 'binary', maxLength: 300 }), fc.json({ maxDepth: 3 }));
    fc.assert(
      fc.property(prefix, anyText, (head, text) => {
        const failure = fromToolResult({ isError: true, content: [{ type: 'text', text: head + text }] });
        expect(failure?.ok).toBe(false);
        expect(validateEnvelope({ error: failure!.error }, { received: true }).valid).toBe(true);
      }),
      { numRuns: 500 },
    );
    // Issues as the SDK writes them: the first path is the field, and every path is in errors when there are two or more.
    const segment = fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/);
    const issue = fc.record({ message: fc.stringMatching(/^[A-Za-z][A-Za-z :,>=]{0,40}$/), path: fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => s.join('.')) });
    fc.assert(
      fc.property(fc.array(issue, { minLength: 1, maxLength: 5 }), (issues) => {
        const text = `MCP error -32602: Input validation error: Invalid arguments for tool t: ${issues.map((i) => `${i.message} at ${i.path}`).join('\n')}`;
        const error = fromToolResult({ isError: true, content: [{ type: 'text', text }] })!.error;
        expect(validateEnvelope({ error }, { received: true }).valid).toBe(true);
        expect(error.field).toBe(issues[0]!.path);
        expect(error.errors?.map((e) => e.field)).toEqual(issues.length > 1 ? issues.map((i) => i.path) : undefined);
      }),
      { numRuns: 300 },
    );
  });
});
