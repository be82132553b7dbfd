// translateUpstream: every catalog code an upstream may answer, in every dialect it may answer in,
// becomes the site's own error by the contract's rules, written out by hand below, and nothing of
// the upstream's message, field names or URLs reaches the caller.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CODES, RETRY_WORDS } from '../../generated/catalog.js';
import type { Code, EnvelopeError } from '../../generated/types.js';
import { DIALECTS, renderDialect } from '../../src/core/dialects.js';
import { fromResponse } from '../../src/core/from-response.js';
import { isAgentError } from '../../src/site/agent-error.js';
import { translateUpstream } from '../../src/site/upstream.js';
import { closedAfterEach } from '../helpers/sites.js';
import { serve } from '../helpers/server.js';

/** What the upstream said, with words of its own that must never reach the caller. */
const SECRET = 'sk_live_upstream_secret';
const UPSTREAM_FIELD = 'upstream_param';
const upstreamError = (code: Code): EnvelopeError => ({
  code,
  message: `Upstream says ${SECRET} at https://upstream.example/v1/${code}`,
  field: UPSTREAM_FIELD,
  retry: CODES[code].retry,
  retry_after: (RETRY_WORDS[CODES[code].retry].requires as readonly string[]).includes('retry_after') ? 7 : null,
});

type Outcome = { code: Code; field?: string; retry_after?: number };
const SITE_BUG: Outcome = { code: 'internal' };
const WAIT: Outcome = { code: 'temporarily_unavailable', retry_after: 7 };

/**
 * Each code, when the upstream's field is one the caller supplied (mapped to the caller's `amount`) and
 * the caller pays, and when it is not (a value the site made up) and the site pays. By hand, from the
 * issue's rules: a caller's value stays the caller's, under the caller's name; credentials, grants,
 * scopes and the site's account are the site's failure; a wait is the site's wait, with its delay.
 */
const EXPECTED: Record<Code, { callers: Outcome; sites: Outcome }> = {
  invalid_input: { callers: { code: 'invalid_input', field: 'amount' }, sites: SITE_BUG },
  missing_field: { callers: { code: 'missing_field', field: 'amount' }, sites: SITE_BUG },
  auth_required: { callers: SITE_BUG, sites: SITE_BUG },
  payment_required: { callers: SITE_BUG, sites: SITE_BUG },
  payment_declined: { callers: { code: 'payment_declined' }, sites: SITE_BUG },
  not_allowed: { callers: SITE_BUG, sites: SITE_BUG },
  scope_missing: { callers: SITE_BUG, sites: SITE_BUG },
  needs_human: { callers: SITE_BUG, sites: SITE_BUG },
  not_found: { callers: { code: 'not_found', field: 'amount' }, sites: SITE_BUG },
  conflict: { callers: SITE_BUG, sites: SITE_BUG },
  out_of_stock: { callers: { code: 'out_of_stock', field: 'amount' }, sites: SITE_BUG },
  rate_limited: { callers: WAIT, sites: WAIT },
  internal: { callers: { code: 'temporarily_unavailable', retry_after: 1 }, sites: { code: 'temporarily_unavailable', retry_after: 1 } },
  temporarily_unavailable: { callers: WAIT, sites: WAIT },
  signature_invalid: { callers: SITE_BUG, sites: SITE_BUG },
  key_unknown: { callers: SITE_BUG, sites: SITE_BUG },
  grant_expired: { callers: SITE_BUG, sites: SITE_BUG },
  grant_revoked: { callers: SITE_BUG, sites: SITE_BUG },
  price_changed: { callers: SITE_BUG, sites: SITE_BUG },
  insufficient_funds: { callers: { code: 'insufficient_funds' }, sites: SITE_BUG },
  spending_limit_exceeded: { callers: { code: 'spending_limit_exceeded' }, sites: SITE_BUG },
  currency_unsupported: { callers: { code: 'invalid_input', field: 'amount' }, sites: SITE_BUG },
  terms_not_accepted: { callers: SITE_BUG, sites: SITE_BUG },
  offer_expired: { callers: SITE_BUG, sites: SITE_BUG },
  offer_rejected: { callers: { code: 'invalid_input', field: 'amount' }, sites: SITE_BUG },
};

const CALLERS = { fields: { [UPSTREAM_FIELD]: 'amount' }, payer: 'caller' } as const;
const SITES = { fields: { some_other_param: 'amount' }, payer: 'site' } as const;

/** What the caller would see of a translated error: its envelope and problem details, as text. */
function shown(error: ReturnType<typeof translateUpstream> & object): string {
  return JSON.stringify([error.toEnvelope(), error.toProblem({ base: 'https://site.example' }), error.render('application/json', 'https://site.example')]);
}

function expectOutcome(error: unknown, outcome: Outcome): void {
  expect(isAgentError(error)).toBe(true);
  const envelope = (error as ReturnType<typeof translateUpstream> & object).toEnvelope().error;
  expect({ code: envelope.code, field: envelope.field }).toEqual({ code: outcome.code, field: outcome.field ?? null });
  if (outcome.retry_after !== undefined) expect(envelope.retry_after).toBe(outcome.retry_after);
  expect(envelope.retry).toBe(CODES[outcome.code].retry);
}

describe('translateUpstream, every catalog code', () => {
  it('covers every code of the catalog', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(Object.keys(CODES).sort());
  });

  it.each(Object.keys(EXPECTED) as Code[])('%s: the caller\'s value stays the caller\'s; anything else is the site\'s', (code) => {
    for (const [options, outcome] of [[CALLERS, EXPECTED[code].callers], [SITES, EXPECTED[code].sites]] as const) {
      const translated = translateUpstream(upstreamError(code), options);
      expectOutcome(translated, outcome);
      // Nothing of the upstream's words reaches the caller; its error is kept as the cause, for the site's logs.
      expect(shown(translated)).not.toContain(SECRET);
      expect(shown(translated)).not.toContain('upstream.example');
      expect(shown(translated)).not.toContain(UPSTREAM_FIELD);
      expect((translated.cause as EnvelopeError).message).toContain(SECRET);
      // The same upstream error as an envelope.
      expectOutcome(translateUpstream({ error: upstreamError(code) }, options), outcome);
    }
  });
});

describe('translateUpstream, every dialect', () => {
  const servers = closedAfterEach();

  it.each(DIALECTS.flatMap((dialect) => (Object.keys(CODES) as Code[]).map((code) => [dialect, code] as const)))('%s %s: a Response reads as fromResponse reads it', async (dialect, code) => {
    const error = upstreamError(code);
    const wire = renderDialect(dialect, { ...error, status: CODES[code].status, retryAfter: error.retry_after, detail: error.message, title: CODES[code].title });
    const response = new Response(wire.body, { status: wire.status, headers: wire.headers });
    const read = fromResponse(wire.status, wire.headers, wire.body).error;
    for (const options of [CALLERS, SITES]) {
      const translated = await translateUpstream(response.clone(), options);
      expect(translated.toEnvelope()).toEqual(translateUpstream(read, options).toEnvelope());
      expect(shown(translated)).not.toContain(SECRET);
    }
  });

  it('reads an upstream over real HTTP: a 429 with Retry-After is the site\'s 503 with the same delay', async () => {
    const upstream = await serve((_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '42' });
      res.end(JSON.stringify({ error: { type: 'rate_limit_error', message: `Too many requests for ${SECRET}` } }));
    });
    servers.push(upstream);
    const translated = await translateUpstream(await fetch(upstream.url));
    expect(translated.toEnvelope().error).toMatchObject({ code: 'temporarily_unavailable', retry: 'after_delay', retry_after: 42 });
    expect(translated.status).toBe(CODES.temporarily_unavailable.status);
  });
});

describe('translateUpstream, the details', () => {
  it('names every field of several when the caller supplied them all, and none when the site made one up', () => {
    const several: EnvelopeError = {
      code: 'invalid_input', message: 'bad', field: 'a', retry: 'fix_input', retry_after: null,
      errors: [{ field: 'a', code: 'invalid_input', message: 'a is bad' }, { field: 'b', code: 'missing_field', message: 'b is missing' }],
    };
    const both = translateUpstream(several, { fields: { a: 'first', b: 'second' } }).toEnvelope().error;
    expect(both).toMatchObject({ code: 'invalid_input', field: 'first', errors: [{ field: 'first', code: 'invalid_input' }, { field: 'second', code: 'missing_field' }] });
    expect(JSON.stringify(both)).not.toContain('is bad');
    expect(translateUpstream(several, { fields: { a: 'first' } }).toEnvelope().error.code).toBe('internal');
  });

  it("takes the site's own message, and its own delay when the upstream named none", () => {
    const down: EnvelopeError = { code: 'temporarily_unavailable', message: 'x', field: null, retry: 'after_delay', retry_after: null };
    expect(translateUpstream(down, { retryAfter: 90, message: 'Payments are down' }).toEnvelope().error).toMatchObject({ message: 'Payments are down', retry_after: 90 });
  });

  it('never throws and never leaks, whatever the upstream answered', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 400, max: 599 }), fc.jsonValue({ maxDepth: 3 }), fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }), async (status, body, fields) => {
        const text = JSON.stringify({ error: { message: SECRET, param: SECRET, detail: body } });
        const translated = await translateUpstream(new Response(text, { status }), { fields });
        expect(isAgentError(translated)).toBe(true);
        expect(shown(translated)).not.toContain(SECRET);
      }),
      { numRuns: 300 },
    );
  });
});
