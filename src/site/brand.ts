// What tells an AgentError, and what a browser's page of one is, without the class: an adapter
// only asks whether a thrown value is one and calls its methods, so it loads none of the class's
// code (the builders' checks and their messages), which agent-error.ts holds.
import type { AgentError } from './agent-error.js';

/** The mark every AgentError carries, under a global symbol so that one from another copy of this package carries it too. */
export const BRAND = Symbol.for('@agent-index/errors.AgentError');

/** True for an AgentError, also one from another copy of this package: checks its brand and shape. */
export function isAgentError(value: unknown): value is AgentError {
  // The brand alone, never instanceof: an adapter that only asks whether a value is an AgentError
  // then loads none of the class's code (its builder's checks and their messages).
  if (value === null || typeof value !== 'object') return false;
  const v = value as Record<string | symbol, unknown>;
  return v[BRAND] === true && v.name === 'AgentError' && typeof v.code === 'string' && typeof v.status === 'number' && typeof v.toEnvelope === 'function';
}

/** A browser's page: its status and headers at once, its HTML when `body` resolves. */
export interface Page {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Promise<string>;
}

/** A page as a Fetch Response, at once: its body streamed once rendered, none for HEAD (`head`). */
export function pageResponse(page: Page, head = false): Response {
  const body = head
    ? null
    : new ReadableStream({
        start: async (controller) => {
          controller.enqueue(new TextEncoder().encode(await page.body));
          controller.close();
        },
      });
  return new Response(body, page);
}
