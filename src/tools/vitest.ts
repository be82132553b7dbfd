// @agent-index/errors/vitest: vitest matchers for error responses. The matchers are not written yet;
// the subpath exists so that the exports map is stable.
export {};
