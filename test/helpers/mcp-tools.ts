// The tools that fail in each way a tool handler can, registered alike on an McpServer of either MCP
// SDK (v1's @modelcontextprotocol/sdk, v2's @modelcontextprotocol/server): the test of each SDK adds
// the tools only its revision has.
import { agentError } from '../../src/site/agent-error.js';

/** What the throwing tool's error says, which no caller may see. */
export const SECRET = 'connection to db-7 refused: password=hunter2';

/** The part of either SDK's McpServer these tools need. */
interface ToolRegistry {
  registerTool(name: string, config: { description: string }, handler: () => Promise<never>): unknown;
}

/** slow_down throws a rate limit, fix_quantity a field error, broken an error of its own (SECRET). */
export function registerFailingTools(server: ToolRegistry): void {
  server.registerTool('slow_down', { description: 'throws a rate limit' }, async () => {
    throw agentError('rate_limited', { retryAfter: 30, message: 'Too many orders this minute' });
  });
  server.registerTool('fix_quantity', { description: 'throws a field error' }, async () => {
    throw agentError('invalid_input', { field: 'quantity', message: 'quantity must be at least 1' });
  });
  server.registerTool('broken', { description: 'throws an error of its own' }, async () => {
    throw new Error(SECRET);
  });
}
