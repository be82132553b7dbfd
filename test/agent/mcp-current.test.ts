// MCP's errors on both sides with the v2 SDK (@modelcontextprotocol/server and /client 2.4.0), which
// serves protocol revision 2026-07-28: its McpServer behind createMcpHandler's Streamable HTTP
// endpoint on 127.0.0.1 (served through node:http here, with no adapter package) and its Client
// pinned to 2026-07-28, so every call is stateless, with no initialize handshake. agentToolErrors
// wraps the server's tools as it does the v1 SDK's (test/agent/mcp-errors.test.ts); fromToolResult
// reads what the v2 server sends, including an input_required result (Multi Round-Trip Requests).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { acceptedContent, createMcpHandler, inputRequired, McpServer } from '@modelcontextprotocol/server';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentToolErrors, fromToolResult } from '../../src/agent/mcp.js';
import { failureOf } from '../../src/agent/drop-in.js';
import { CODES, READERS, validateEnvelope } from '../../src/index.js';
import { registerFailingTools, SECRET } from '../helpers/mcp-tools.js';
import { serve, type TestServer } from '../helpers/server.js';

const heard: unknown[] = [];
let http: TestServer;
let client: Client;
/** A client of the same tools on a server that agentToolErrors does not wrap (path /plain). */
let plainClient: Client;

/** An MCP server with one tool per way a tool fails, its handlers wrapped by agentToolErrors unless `plain`. */
function newServer(plain: boolean): McpServer {
  const bare = new McpServer({ name: 'shop', version: '1.0.0' });
  const server = plain ? bare : agentToolErrors(bare, { onError: (error) => heard.push(error) });
  registerFailingTools(server as unknown as Parameters<typeof registerFailingTools>[0]);
  server.registerTool(
    'place_order',
    { description: 'validates an order', inputSchema: z.object({ id: z.string(), quantity: z.number().int().min(1), address: z.object({ zip: z.string() }).optional() }) },
    async ({ id }) => ({ content: [{ type: 'text', text: `placed ${id}` }] }),
  );
  // Multi Round-Trip Requests: asks the user for a login, then completes on the retry that carries it.
  server.registerTool('link_github', { description: 'needs the user to say who they are' }, async (ctx) => {
    const login = acceptedContent<{ name: string }>(ctx.mcpReq.inputResponses, 'github_login');
    if (login) return { content: [{ type: 'text' as const, text: `linked ${login.name}` }] };
    return inputRequired({
      inputRequests: { github_login: inputRequired.elicit({ message: 'Please provide your GitHub username', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } }) },
      requestState: 'state-1',
    });
  });
  // requestState alone: "the client MAY retry the original request immediately".
  server.registerTool('busy', { description: 'sheds load' }, async () => inputRequired({ requestState: 'again' }));
  server.registerTool('sleepy', { description: 'answers after a second' }, async () => {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    return { content: [{ type: 'text' as const, text: 'awake' }] };
  });
  server.registerResource('catalog', 'shop://catalog', { description: 'the catalog' }, async (uri) => ({ contents: [{ uri: uri.href, text: 'tea' }] }));
  return server;
}

/** Serves one node:http request with the handler's web-standard face (what @modelcontextprotocol/node's toNodeHandler does). */
async function viaFetch(handler: { fetch(request: Request): Promise<Response> }, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
  const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
  const response = await handler.fetch(new Request(new URL(req.url ?? '/', 'http://127.0.0.1'), { method: req.method, headers, body }));
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
}

/** A v2 client pinned to 2026-07-28 that declares elicitation and answers input_required itself (no auto-fulfilment). */
async function connect(path: string): Promise<Client> {
  const c = new Client(
    { name: 'agent', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } }, inputRequired: { autoFulfill: false }, capabilities: { elicitation: { form: {} } } },
  );
  await c.connect(new StreamableHTTPClientTransport(new URL(path, http.url)));
  return c;
}

beforeAll(async () => {
  const wrapped = createMcpHandler(() => newServer(false));
  const plain = createMcpHandler(() => newServer(true));
  http = await serve((req, res) => {
    void viaFetch(req.url === '/plain' ? plain : wrapped, req, res).catch(() => res.destroy());
  });
  client = await connect('/');
  plainClient = await connect('/plain');
});
afterAll(async () => {
  await client.close();
  await plainClient.close();
  await http.close();
});

const call = (c: Client, name: string, args: Record<string, unknown> = {}) => c.callTool({ name, arguments: args }, { allowInputRequired: true });

describe("MCP's errors, both sides, on the v2 SDK (protocol revision 2026-07-28)", () => {
  it('a thrown AgentError reaches the agent as the contract: its code, word, field and delay, as structuredContent', async () => {
    const slow = await call(client, 'slow_down');
    expect(slow.isError).toBe(true);
    expect(validateEnvelope(slow.structuredContent, { received: true }).valid).toBe(true);
    expect(fromToolResult(slow)?.error).toEqual({ code: 'rate_limited', message: 'Too many orders this minute', field: null, retry: CODES.rate_limited.retry, retry_after: 30 });
    const fix = fromToolResult(await call(client, 'fix_quantity'));
    expect(fix?.error).toMatchObject({ code: 'invalid_input', field: 'quantity', retry: 'fix_input' });
    expect(fix?.advice).toBe(CODES.invalid_input.advice);
  });

  it('any other thrown error is a generic internal result that shows nothing of its message, and onError hears it once', async () => {
    const before = heard.length;
    const result = await call(client, 'broken');
    expect(JSON.stringify(result)).not.toContain('hunter2');
    expect(fromToolResult(result)?.error).toMatchObject({ code: 'internal', retry: CODES.internal.retry });
    expect(heard.slice(before).map((e) => (e as Error).message)).toEqual([SECRET]);
    // The v2 SDK's own answer is the message itself.
    expect(JSON.stringify(await call(plainClient, 'broken'))).toContain('hunter2');
  });

  it("reads the v2 SDK's validation text, and makes a wrapped server answer it as structuredContent naming each field", async () => {
    const plain = await call(plainClient, 'place_order', { quantity: 0, address: { zip: 12345 } });
    expect(plain.structuredContent).toBeUndefined();
    // v2's text: no "MCP error" prefix, `<path>: <message>` issues joined by ", ".
    expect((plain.content as { text: string }[])[0]!.text).toMatch(/^Input validation error: Invalid arguments for tool place_order: id: .+, quantity: .+, address\.zip: /);
    const read = fromToolResult(plain)?.error;
    // Zod 4 says "received undefined" of a missing value, which the catalog's validation phrases make missing_field.
    expect(read).toMatchObject({ code: 'missing_field', field: 'id', retry: CODES.missing_field.retry, retry_after: null });
    expect(read?.errors?.map((e) => [e.field, e.code])).toEqual([
      ['id', 'missing_field'],
      ['quantity', 'invalid_input'],
      ['address.zip', 'invalid_input'],
    ]);
    const wrapped = await call(client, 'place_order', { quantity: 0, address: { zip: 12345 } });
    expect(wrapped.isError).toBe(true);
    expect(validateEnvelope(wrapped.structuredContent, { received: true }).valid).toBe(true);
    expect(wrapped.structuredContent).toMatchObject({ error: { code: 'missing_field', field: 'id' } });
    expect((wrapped.content as { text: string }[])[0]!.text).toContain('Each field at fault: id (missing_field), quantity (invalid_input), address.zip (invalid_input).');
    expect(fromToolResult(wrapped)?.error).toEqual(read);
    // Valid input still reaches the handler, and a success is no failure.
    const placed = await call(client, 'place_order', { id: 'o-1', quantity: 2 });
    expect(placed).toMatchObject({ content: [{ type: 'text', text: 'placed o-1' }] });
    expect(fromToolResult(placed)).toBeUndefined();
  });

  it("failureOf reads what the v2 client throws: a ProtocolError by its code, a resource that does not exist as not_found, its own timeout as no answer", async () => {
    const unknown = await call(client, 'no_such_tool').catch((error: unknown) => error);
    expect((unknown as Error).name).toBe('ProtocolError');
    expect(failureOf(unknown)?.error).toMatchObject({ code: 'invalid_input', retry: CODES.invalid_input.retry });
    // 2026-07-28 sends a missing resource as -32602 with data { uri } (Resources, Error Handling).
    const missing = await client.readResource({ uri: 'shop://nothing' }).catch((error: unknown) => error);
    expect(missing as object).toMatchObject({ code: -32602, data: { uri: 'shop://nothing' } });
    expect(failureOf(missing)?.error).toMatchObject({ code: 'not_found', retry: CODES.not_found.retry });
    const late = await client.callTool({ name: 'sleepy', arguments: {} }, { timeout: 100 }).catch((error: unknown) => error);
    expect((late as Error).name).toBe('SdkError');
    expect(failureOf(late)?.error).toMatchObject({ code: READERS.signals.network_failure });
  });

  it('reads an input_required result as needs_human with what the retry must echo, and the retry completes', async () => {
    const asked = await call(client, 'link_github');
    expect(asked).toMatchObject({ resultType: 'input_required', requestState: 'state-1', inputRequests: { github_login: { method: 'elicitation/create' } } });
    const failure = fromToolResult(asked);
    expect(failure?.error).toEqual({ code: READERS.signals.input_required, message: 'Please provide your GitHub username', field: null, retry: CODES.needs_human.retry, retry_after: null });
    expect(failure?.error.code).toBe('needs_human');
    expect(failure?.advice).toBe(CODES.needs_human.advice);
    expect(validateEnvelope({ error: failure!.error }, { received: true }).valid).toBe(true);
    expect(failure?.inputRequired).toEqual({ inputRequests: asked.inputRequests, requestState: 'state-1' });
    // The retry the spec describes: the answers under the same key, requestState echoed byte for byte.
    // (The client's CallToolRequest type has no inputResponses or requestState; it sends them as given.)
    const retry = { name: 'link_github', arguments: {}, inputResponses: { github_login: { action: 'accept', content: { name: 'octocat' } } }, requestState: failure!.inputRequired!.requestState };
    const done = await client.callTool(retry as Parameters<Client['callTool']>[0], { allowInputRequired: true });
    expect(done).toMatchObject({ content: [{ type: 'text', text: 'linked octocat' }] });
    expect(fromToolResult(done)).toBeUndefined();
    // requestState alone: retry at once (retry_after 0), echoing it.
    const busy = fromToolResult(await call(client, 'busy'));
    expect(busy?.error).toMatchObject({ code: READERS.signals.input_required_state_only, retry: CODES.temporarily_unavailable.retry, retry_after: 0 });
    expect(busy?.inputRequired).toEqual({ requestState: 'again' });
  });
});
