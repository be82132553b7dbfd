// The SDKs' vendors' own rate-limit answers, on the same real clock as seed 002's service: each
// cell fails until 30 s after its first call, then answers a 200 in the vendor's success shape.
// Formats as the vendors document them: OpenAI "Error codes" and "Rate limits" (the x-ratelimit-*
// headers, Go durations); Anthropic "Errors" and "Rate limits" (429 rate_limit_error with
// retry-after, 529 overloaded_error); GitHub "Rate limits for the REST API" (a secondary limit is
// a 403 with retry-after; an exhausted primary limit a 403 with x-ratelimit-remaining: 0 and
// x-ratelimit-reset in UTC epoch seconds).
import { CLEARS_AFTER_SECONDS } from '../../src/tools/demo.js';
import { createLoopbackService, type LoopbackService, type Reply } from './server.js';

export type Vendor = 'openai' | 'anthropic' | 'github';

/** One SDK cell: a vendor, and where (if anywhere) its failure says how long to wait. */
export interface VendorCell {
  readonly vendor: Vendor;
  /** Where the delay is: the row's label. */
  readonly says: string;
  /** The same, short, for the chart. */
  readonly short: string;
  /** True when a delay is given anywhere in the answer, so the goal is ok in 2 calls. */
  readonly delayGiven: boolean;
}

export const VENDOR_CELLS: readonly VendorCell[] = [
  { vendor: 'openai', says: '429, retry-after: 30', short: '429 retry-after', delayGiven: true },
  { vendor: 'openai', says: '429, x-ratelimit-reset-requests: 30s', short: '429 x-ratelimit-reset', delayGiven: true },
  { vendor: 'openai', says: '429, no delay anywhere', short: '429 no delay', delayGiven: false },
  { vendor: 'anthropic', says: '429 rate_limit_error, retry-after: 30', short: '429 retry-after', delayGiven: true },
  { vendor: 'anthropic', says: '529 overloaded_error, no delay anywhere', short: '529 no delay', delayGiven: false },
  { vendor: 'github', says: '403 secondary limit, retry-after: 30', short: '403 retry-after', delayGiven: true },
  { vendor: 'github', says: '403, x-ratelimit-remaining: 0 + x-ratelimit-reset epoch', short: '403 x-ratelimit-reset', delayGiven: true },
];

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Reply => ({
  status,
  headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  body: JSON.stringify(body),
});

const SUCCESS: Record<Vendor, unknown> = {
  openai: { id: 'chatcmpl-1', object: 'chat.completion', created: 0, model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }] },
  anthropic: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 1 } },
  github: { id: 1, name: 'errors', full_name: 'agent-index/errors' },
};

const OPENAI_429 = { error: { message: 'Rate limit reached for gpt-4o-mini on requests per min (RPM).', type: 'requests', param: null, code: 'rate_limit_exceeded' } };
const GITHUB_DOCS = 'https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api';

/** What `cell` answers `elapsed` seconds after its first call (at epoch ms `startedAt`). */
export function vendorReply(cell: VendorCell, elapsed: number, startedAt: number): Reply {
  const index = VENDOR_CELLS.indexOf(cell);
  // GitHub's primary limit resets at a whole epoch second: the last one within the 30 s, and the cell clears then.
  const reset = Math.floor((startedAt + CLEARS_AFTER_SECONDS * 1000) / 1000);
  const clears = index === 6 ? reset - startedAt / 1000 : CLEARS_AFTER_SECONDS;
  if (elapsed >= clears) return json(200, SUCCESS[cell.vendor]);
  const left = String(Math.ceil(CLEARS_AFTER_SECONDS - elapsed));
  switch (index) {
    case 0:
      return json(429, OPENAI_429, { 'retry-after': left, 'x-request-id': 'req_1' });
    case 1:
      return json(429, OPENAI_429, { 'x-ratelimit-limit-requests': '500', 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': `${left}s`, 'x-request-id': 'req_1' });
    case 2:
      return json(429, OPENAI_429, { 'x-request-id': 'req_1' });
    case 3:
      return json(429, { type: 'error', error: { type: 'rate_limit_error', message: 'This request would exceed the rate limit for your organization.' } }, { 'retry-after': left, 'request-id': 'req_1' });
    case 4:
      return json(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, { 'request-id': 'req_1' });
    case 5:
      return json(403, { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.', documentation_url: GITHUB_DOCS, status: '403' }, { 'retry-after': left });
    case 6:
      return json(403, { message: 'API rate limit exceeded for 127.0.0.1.', documentation_url: GITHUB_DOCS, status: '403' }, {
        'x-ratelimit-limit': '60',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-used': '60',
        'x-ratelimit-resource': 'core',
        'x-ratelimit-reset': String(reset),
      });
    default:
      return { status: 404, headers: { 'content-type': 'text/plain' }, body: 'no such cell' };
  }
}

/** The vendors' service: one port per cell, at `http://127.0.0.1:{port}` (the SDKs add their own paths). */
export const createVendorService = (): LoopbackService<VendorCell> => createLoopbackService(vendorReply);
