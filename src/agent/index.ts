// @agent-index/errors/agent: read any error response, wait only when told, and serve older copies when sites fail.
export { codeForStatus, isKnownCode, isRetryWord, lookup } from '../core/catalog.js';
export type { CodeInfo } from '../core/catalog.js';
export { fromResponse, MAX_BODY_BYTES } from '../core/from-response.js';
export type { FromResponseOptions } from '../core/from-response.js';
export { delayFrom, MAX_DELAY_SECONDS, parseHttpDate, retryAfterSeconds } from '../core/delay.js';
export type { HeadersInput } from '../core/headers.js';
export { validateEnvelope, validateProblem } from '../core/validate.js';
export { createAgentClient } from './client.js';
export type { AgentClient, AgentClientOptions, AgentResult } from './client.js';
export { agentFetch, staleAllowance } from './fetcher.js';
export type { AgentFetchOptions, FetchFailure, FetchResult, FetchSuccess, StaleBecause } from './fetcher.js';
export { createMemoryStore, defaultStore } from './store.js';
export type { Backoff, CachedCopy, MemoryStoreOptions, Store } from './store.js';
export { createDiskStore } from './disk-store.js';
export type { DiskStore, DiskStoreOptions } from './disk-store.js';
