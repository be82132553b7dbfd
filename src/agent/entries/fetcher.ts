// @agent-index/errors/agent/fetcher: fetchPage, one call that always says what happened, and serves
// an older copy, marked stale and saying why, when the site fails.
export { fetchPage, PAGE_ACCEPT } from '../fetcher.js';
export type { FetchPageFailure, FetchPageOptions, FetchPageResult, FetchPageSuccess, StaleBecause } from '../fetcher.js';
