// How the orders shop writes its errors, for AgentFriendly to write an agent's answer the same way:
// where each member of the contract sits in the shop's JSON error (JSON Pointers), and the retry word
// of each of the shop's own codes that its status alone does not tell.

/** The shop's error format: {"message", "code", "param", "next_step", "retry_after_seconds"}. */
export const TEAM_FORMAT = {
  code: '/code',
  message: '/message',
  field: '/param',
  retry: '/next_step',
  delay: '/retry_after_seconds',
} as const;

/** What a caller should do about each of the shop's codes. */
export const TEAM_RETRY_BY_CODE = {
  ORDER_LOCKED: 'refetch',
  BAD_SKU: 'fix_input',
} as const;
