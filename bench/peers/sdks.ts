// The SDKs agents call model and code APIs through, each alone (its own retry defaults) and with
// agentFetch as its `fetch` (its own retries set to 0, so no rule runs twice), and this
// package's client on the same request, against the vendors' own error formats (vendors.ts).
import Anthropic from '@anthropic-ai/sdk';
import { Octokit } from '@octokit/rest';
import OpenAI from 'openai';
import { agentFetch } from '../../src/agent/drop-in.js';
import { ourClient, outcome, type Peer } from './clients.js';
import type { Vendor } from './vendors.js';

/** An SDK's columns: alone, with the plug-in, and this package's client making the same request. */
export interface SdkColumns {
  readonly alone: Peer;
  readonly plugged: Peer;
  readonly ours: Peer;
}

/** What an SDK threw: its error class and HTTP status; undefined for anything that is no HTTP error. */
function sdkError(error: unknown): string | undefined {
  const e = error as { constructor?: { name?: string }; status?: number };
  return typeof e?.status === 'number' ? `${e.constructor?.name ?? 'Error'} ${e.status}` : undefined;
}

const CHAT = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'hi' }] };
const MESSAGE = { model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user' as const, content: 'hi' }] };
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

const openai = (withPlugin: boolean): Peer => ({
  name: withPlugin ? 'openai + agentFetch' : 'openai',
  pkg: 'openai',
  ...(withPlugin ? { alone: 'openai' } : {}),
  defaults: withPlugin
    ? 'new OpenAI({ baseURL, fetch: agentFetch(), maxRetries: 0 }), chat.completions.create'
    : "new OpenAI({ baseURL }), chat.completions.create: maxRetries 2 (3 calls) on 408/409/429/5xx; honours retry-after-ms and Retry-After when 0 to 60 s, else 0.5 s * 2^n up to 8 s with up to 25 % jitter off; reads no x-ratelimit-reset-* and no body",
  source: withPlugin ? 'src/agent/drop-in.ts' : 'node_modules/openai/client.js',
  run(url, signal) {
    const client = new OpenAI({ apiKey: 'x', baseURL: `${url}/v1`, ...(withPlugin ? { fetch: agentFetch(), maxRetries: 0 } : {}) });
    return outcome(() => client.chat.completions.create(CHAT, { signal }), sdkError);
  },
});

const anthropic = (withPlugin: boolean): Peer => ({
  name: withPlugin ? 'anthropic + agentFetch' : '@anthropic-ai/sdk',
  pkg: '@anthropic-ai/sdk',
  ...(withPlugin ? { alone: '@anthropic-ai/sdk' } : {}),
  defaults: withPlugin
    ? 'new Anthropic({ baseURL, fetch: agentFetch(), maxRetries: 0 }), messages.create'
    : 'new Anthropic({ baseURL }), messages.create: maxRetries 2 (3 calls) on 408/409/429/5xx (529 included); honours retry-after-ms and Retry-After when 0 to 60 s, else 0.5 s * 2^n up to 8 s with up to 25 % jitter off; reads no body',
  source: withPlugin ? 'src/agent/drop-in.ts' : 'node_modules/@anthropic-ai/sdk/client.js',
  run(url, signal) {
    const client = new Anthropic({ apiKey: 'x', baseURL: url, ...(withPlugin ? { fetch: agentFetch(), maxRetries: 0 } : {}) });
    return outcome(() => client.messages.create(MESSAGE, { signal }), sdkError);
  },
});

const octokit = (withPlugin: boolean): Peer => ({
  name: withPlugin ? 'octokit + agentFetch' : '@octokit/rest',
  pkg: '@octokit/rest',
  ...(withPlugin ? { alone: '@octokit/rest' } : {}),
  defaults: withPlugin
    ? 'new Octokit({ baseUrl, request: { fetch: agentFetch() } }), rest.repos.get (no retries of its own to turn off)'
    : 'new Octokit({ baseUrl }), rest.repos.get: no retries at all (retries and rate-limit waits live in @octokit/plugin-retry and @octokit/plugin-throttling, which @octokit/rest does not include)',
  source: withPlugin ? 'src/agent/drop-in.ts' : 'node_modules/@octokit/rest/dist-src/index.js',
  run(url, signal) {
    const client = new Octokit({ baseUrl: url, log: quiet, ...(withPlugin ? { request: { fetch: agentFetch() } } : {}) });
    return outcome(() => client.rest.repos.get({ owner: 'agent-index', repo: 'errors', request: { signal } }), sdkError);
  },
});

const json = { 'content-type': 'application/json' };

/** Each vendor's SDK columns; this package's client sends the request the SDK sends (a POST with a JSON body for the model APIs, a GET for GitHub). */
export const SDKS: Record<Vendor, SdkColumns> = {
  openai: {
    alone: openai(false),
    plugged: openai(true),
    ours: ourClient('this package', 'createAgentClient()', {}, () => ({ method: 'POST', headers: json, body: JSON.stringify(CHAT) })),
  },
  anthropic: {
    alone: anthropic(false),
    plugged: anthropic(true),
    ours: ourClient('this package', 'createAgentClient()', {}, () => ({ method: 'POST', headers: json, body: JSON.stringify(MESSAGE) })),
  },
  github: { alone: octokit(false), plugged: octokit(true), ours: ourClient('this package', 'createAgentClient()') },
};

/** The path this package's client calls on a vendor's port: the one the SDK calls. */
export const SDK_PATHS: Record<Vendor, string> = { openai: '/v1/chat/completions', anthropic: '/v1/messages', github: '/repos/agent-index/errors' };
