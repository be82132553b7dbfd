// @agent-index/errors/agent: read any error response, wait only when told, and serve older copies when sites fail.
export { adviceFor, codeForStatus, isKnownCode, isRetryWord, lookup } from '../core/catalog.js';
export type { CodeInfo } from '../core/catalog.js';
export { explainResponse, fromResponse, MAX_BODY_BYTES } from '../core/from-response.js';
export type { Explained, FromResponseOptions } from '../core/from-response.js';
export { delayFrom, MAX_DELAY_SECONDS, parseHttpDate, retryAfterSeconds } from '../core/delay.js';
export { quotaFrom, type Quota } from '../core/quota.js';
export { x402RequirementsOf, type X402PaymentRequired } from '../core/payment.js';
export type { HeadersInput } from '../core/headers.js';
export { createAgentClient } from './client.js';
export { AGENT_ACCEPT, DEFAULT_BACKOFF, SOURCE_HEADER } from './policy.js';
export { agentFetch, failureOf } from './drop-in.js';
export type { AgentClient, AgentFailure, AgentResult, Throttled } from './client.js';
export type { AgentClientOptions, PaymentHeaders, PaymentHook, PaymentRequest } from './policy.js';
export { createMemoryStore, defaultStore, waitKey } from './store.js';
export type { Admission, AdmitAsk, Backoff, CachedCopy, KeptAnswer, Learnt, MemoryStoreOptions, Settlement, Spent, Store, Tripped } from './store.js';
export type { CircuitOptions, GuardOptions, RetryBudgetOptions } from './guard.js';
// What an agent's hot path does not load has a subpath of its own: the page fetcher that keeps
// copies (./agent/fetcher), the stores that need a server or a native module (./agent/redis,
// ./agent/disk), the experiment npm start runs (./agent/loop), and the validators (the root).
