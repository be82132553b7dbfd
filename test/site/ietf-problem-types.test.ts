// The IETF RateLimit draft's problem types (draft-ietf-httpapi-ratelimit-headers, section 5), sent by
// the site side and read back by the agent side: a rate_limited, temporarily_unavailable or
// needs_human error that names the RateLimit-Policy items it broke goes out as the registered type.
import { describe, expect, it } from 'vitest';
import { fromResponse } from '../../src/agent/index.js';
import { problemFrom } from '../../src/core/render.js';
import { validateProblem } from '../../src/index.js';
import { agentError } from '../../src/site/agent-error.js';

const IANA = 'https://iana.org/assignments/http-problem-types#';

describe("the IETF RateLimit draft's problem types, sent and read", () => {
  it('names the registered type and violated-policies, and reads back to the same code and wait', () => {
    for (const [error, type] of [
      [agentError('rate_limited', { retryAfter: 3600, violatedPolicies: ['daily', 'bandwidth'] }), 'quota-exceeded'],
      [agentError('temporarily_unavailable', { retryAfter: 120, violatedPolicies: ['hourly'] }), 'temporary-reduced-capacity'],
      [agentError('needs_human', { violatedPolicies: ['hourly'] }), 'abnormal-usage-detected'],
    ] as const) {
      const problem = error.toProblem({ base: 'https://shop.example' });
      expect(problem).toMatchObject({ type: IANA + type, code: error.code, status: error.status, 'violated-policies': error.violatedPolicies });
      expect(validateProblem(problem).errors).toEqual([]);
      const { status, headers, body } = error.render('application/problem+json', 'https://shop.example');
      expect(fromResponse(status, headers, body).error).toMatchObject({ code: error.code, retry: error.retry, retry_after: error.retryAfter });
      // Without the problem's own code, the type alone says the same.
      const { code: _code, ...typeOnly } = problem;
      expect(fromResponse(status, headers, typeOnly).error.code).toBe(error.code);
    }
    // Without violatedPolicies, the site's own type, as before.
    expect(agentError('rate_limited', { retryAfter: 30 }).toProblem({ base: 'https://shop.example' }).type).toBe('https://shop.example/problems/rate_limited');
  });

  it('refuses policies for a code the draft has no type for, and a list that names none', () => {
    expect(() => agentError('not_found', { violatedPolicies: ['daily'] } as never)).toThrow(/agentError\("not_found"\): violatedPolicies must be given only for a code the IETF RateLimit draft has a problem type for \(rate_limited, temporarily_unavailable, needs_human\)/);
    expect(() => agentError('rate_limited', { retryAfter: 1, violatedPolicies: [] })).toThrow(/violatedPolicies must be a list of the RateLimit-Policy item names the request exceeded \(got \[\]\)/);
    expect(() => agentError('rate_limited', { retryAfter: 1, violatedPolicies: [''] })).toThrow(/violatedPolicies must be/);
    // A code with another kind of registered type (A2A's version-not-supported is invalid_input) has no IETF type.
    expect(() => agentError('invalid_input', { field: 'version', violatedPolicies: ['daily'] } as never)).toThrow(/violatedPolicies must be given only for/);
    expect(() => problemFrom({ code: 'not_found', message: 'x', field: null, retry: 'no', retry_after: null }, 404, { violatedPolicies: ['daily'] })).toThrow(/problemFrom: violatedPolicies must be given only for/);
  });
});
