// @agent-index/errors/agent: read any error response, wait only when told, and serve older copies when sites fail.
export { codeForStatus, isKnownCode, isRetryWord, lookup } from '../core/catalog.js';
export type { CodeInfo } from '../core/catalog.js';
export { explainResponse, fromResponse, MAX_BODY_BYTES } from '../core/from-response.js';
export type { Explained, FromResponseOptions } from '../core/from-response.js';
export { delayFrom, MAX_DELAY_SECONDS, parseHttpDate, retryAfterSeconds } from '../core/delay.js';
export type { HeadersInput } from '../core/headers.js';
export { AGENT_ACCEPT, createAgentClient } from './client.js';
export type { AgentClient, AgentClientOptions, AgentResult } from './client.js';
export { agentFetch, PAGE_ACCEPT, staleAllowance } from './fetcher.js';
export type { AgentFetchOptions, FetchFailure, FetchResult, FetchSuccess, StaleBecause } from './fetcher.js';
export { createMemoryStore, defaultStore } from './store.js';
export type { Backoff, CachedCopy, MemoryStoreOptions, Store } from './store.js';
// What an agent's hot path does not load has a subpath of its own: the stores that need a server
// or a native module (./agent/redis, ./agent/disk), the experiment npm start runs (./agent/loop),
// and the validators (the package root).
