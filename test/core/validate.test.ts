import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../codegen/load-catalog.js';
import { ROOT } from '../../codegen/paths.js';
import { newAjv, validatorSchema, VALIDATOR_EXPORTS } from '../../codegen/emit-validators.js';
import * as standalone from '../../generated/validators.js';
import { validateEnvelope, validateProblem } from '../../src/index.js';

// Seed 000's example envelope, with the retry word the catalog gives out_of_stock.
const SEED_000_ENVELOPE = { error: { code: 'out_of_stock', message: 'Sold out', field: 'product_id', retry: 'no', retry_after: null } };
// Seed 002's rate_limited problem body, as printed by its demo (it carries no retry member).
const SEED_002_PROBLEM = {
  type: 'https://api.example.com/problems/rate_limited',
  title: 'Too many requests',
  status: 429,
  detail: '60 requests per minute per key',
  code: 'rate_limited',
  next_step: 'wait',
  retry_after_seconds: 30,
};

const env = (error: Record<string, unknown>, extra: Record<string, unknown> = {}): unknown => ({
  error: { code: 'invalid_input', message: 'email is not valid', field: 'email', retry: 'fix_input', retry_after: null, ...error },
  ...extra,
});
const prob = (members: Record<string, unknown>): unknown => {
  const body: Record<string, unknown> = { ...SEED_002_PROBLEM, ...members };
  for (const [k, v] of Object.entries(members)) if (v === undefined) delete body[k];
  return body;
};

const BAD_ENVELOPES: [string, unknown, string][] = [
  ['a body that is not an object', 'oops', ''],
  ['a body with no error member', { code: 'invalid_input' }, '/error'],
  ['an error that is a string', { error: 'Too many requests, try again later' }, '/error'],
  ['a code in capitals', env({ code: 'InvalidInput' }), '/error/code'],
  ['a code with spaces', env({ code: 'invalid input' }), '/error/code'],
  ['a missing message', env({ message: undefined }), '/error/message'],
  ['an empty message', env({ message: ' ' }), '/error/message'],
  ['a numeric field', env({ field: 3 }), '/error/field'],
  ['an unknown retry word', env({ retry: 'later' }), '/error/retry'],
  ['a missing retry word', env({ retry: undefined }), '/error/retry'],
  ['fix_input without a field', env({ field: null }), '/error/field'],
  ['a fractional delay', env({ code: 'rate_limited', retry: 'after_delay', field: null, retry_after: 1.5 }), '/error/retry_after'],
  ['a negative delay', env({ code: 'rate_limited', retry: 'after_delay', field: null, retry_after: -1 }), '/error/retry_after'],
  ['a delay as a string', env({ code: 'rate_limited', retry: 'after_delay', field: null, retry_after: '30' }), '/error/retry_after'],
  ['after_delay without a delay', env({ code: 'rate_limited', retry: 'after_delay', field: null, retry_after: null }), '/error/retry_after'],
  ['a known code with another retry word', env({ code: 'not_found', retry: 'once', field: null }), '/error/retry'],
  ['a site code on after_delay without a delay', env({ code: 'shop_closed', retry: 'after_delay', field: null }), '/error/retry_after'],
  ['an extra nesting level', { error: { error: SEED_000_ENVELOPE.error } }, '/error/error'],
  ['a member the envelope does not have', env({ retryAfter: 30 }), '/error/retryAfter'],
  ['a top-level member beside error', env({}, { code: 'invalid_input' }), '/code'],
  ['an empty errors list', env({ errors: [] }), '/error/errors'],
  ['a field error without a field', env({ errors: [{ code: 'invalid_input', message: 'bad' }] }), '/error/errors/0/field'],
];

const BAD_PROBLEMS: [string, unknown, string][] = [
  ['a problem without a type', prob({ type: undefined }), '/type'],
  ['a status as a string', prob({ status: '429' }), '/status'],
  ['a success status', prob({ status: 200 }), '/status'],
  ['a status that disagrees with the catalog', prob({ status: 503 }), '/status'],
  ['a fourth next step', prob({ next_step: 'retry' }), '/next_step'],
  ['a wait without a delay', prob({ retry_after_seconds: undefined }), '/retry_after_seconds'],
  ['a site code waiting without a delay', prob({ code: 'shop_closed', status: 503, retry_after_seconds: undefined }), '/retry_after_seconds'],
  ['a fractional delay', prob({ retry_after_seconds: 0.5 }), '/retry_after_seconds'],
  ['a negative delay', prob({ retry_after_seconds: -30 }), '/retry_after_seconds'],
  ['a retry word that disagrees with next_step', prob({ retry: 'no' }), '/retry'],
  ['a next step that disagrees with the code', prob({ next_step: 'give_up' }), '/next_step'],
  ['a fix_input without a param', prob({ code: 'missing_field', status: 400, next_step: 'fix_request', retry: 'fix_input', retry_after_seconds: undefined }), '/param'],
  ['a catalog fix code without a param, retry left out', prob({ code: 'missing_field', status: 400, next_step: 'fix_request', retry_after_seconds: undefined }), '/param'],
  ['a param that is empty', prob({ param: '' }), '/param'],
];

describe('validateEnvelope', () => {
  it("accepts seed 000's example envelope with its retry word", () => {
    expect(validateEnvelope(SEED_000_ENVELOPE)).toEqual({ valid: true, value: SEED_000_ENVELOPE, errors: [] });
  });

  it('accepts a site code with any retry word and several field errors', () => {
    const body = env({ code: 'coupon_expired', retry: 'refetch', field: null, errors: [{ field: 'coupon', code: 'coupon_expired', message: 'expired' }] });
    expect(validateEnvelope(body).valid).toBe(true);
  });

  it.each(BAD_ENVELOPES)('refuses %s, pointing at the member', (_name, body, pointer) => {
    const result = validateEnvelope(body);
    expect(result.valid).toBe(false);
    expect(result.errors.map((e) => e.pointer)).toContain(pointer);
    for (const error of result.errors) expect(error.message).toMatch(/\w/);
  });

  it('says which retry word the catalog gives a known code', () => {
    const result = validateEnvelope(env({ code: 'not_found', retry: 'once', field: null }));
    expect(result.errors).toContainEqual({ pointer: '/error/retry', message: 'must be "no" for code not_found (as the catalog says)' });
  });
});

describe('validateProblem', () => {
  it("accepts seed 002's rate_limited problem body", () => {
    expect(validateProblem(SEED_002_PROBLEM).valid).toBe(true);
  });

  it('accepts extension members it does not know, as RFC 9457 section 3.2 asks', () => {
    expect(validateProblem(prob({ balance: 30, accounts: ['/account/1'] })).valid).toBe(true);
  });

  it.each(BAD_PROBLEMS)('refuses %s, pointing at the member', (_name, body, pointer) => {
    const result = validateProblem(body);
    expect(result.valid).toBe(false);
    expect(result.errors.map((e) => e.pointer)).toContain(pointer);
  });
});

describe('the standalone validators', () => {
  const source = readFileSync(join(ROOT, 'generated/validators.js'), 'utf8');

  it('import nothing, so ajv is not needed at run time', () => {
    expect(source).not.toMatch(/\brequire\s*\(/);
    expect(source).not.toMatch(/^\s*import\s/m);
  });

  it('give the same verdicts and errors as ajv.compile on the same schema', async () => {
    const ajv = new Ajv2020({ ...newAjv().opts, code: {} });
    ajv.addSchema(await validatorSchema(await loadCatalog()));
    const fixtures = [SEED_000_ENVELOPE, SEED_002_PROBLEM, ...BAD_ENVELOPES.map((c) => c[1]), ...BAD_PROBLEMS.map((c) => c[1])];
    for (const [name, def] of Object.entries(VALIDATOR_EXPORTS)) {
      const compiled = ajv.getSchema(`agent-errors#/$defs/${def}`)!;
      const built = standalone[name as keyof typeof VALIDATOR_EXPORTS];
      for (const fixture of fixtures) {
        expect(built(fixture)).toBe(compiled(fixture));
        expect(built.errors ?? null).toEqual(compiled.errors ?? null);
      }
    }
  });

  it('never throw and always agree with ajv.compile on arbitrary JSON', async () => {
    const ajv = new Ajv2020({ ...newAjv().opts, code: {} });
    ajv.addSchema(await validatorSchema(await loadCatalog()));
    const compiledEnvelope = ajv.getSchema('agent-errors#/$defs/CatalogEnvelope')!;
    const compiledProblem = ajv.getSchema('agent-errors#/$defs/CatalogProblem')!;
    const catalogish = fc.record(
      {
        code: fc.constantFrom('rate_limited', 'invalid_input', 'not_found', 'shop_closed', 'X'),
        message: fc.string(),
        field: fc.option(fc.string(), { nil: null }),
        retry: fc.constantFrom('fix_input', 'no', 'after_delay', 'once', 'nope'),
        retry_after: fc.option(fc.oneof(fc.integer({ min: -5, max: 100 }), fc.double()), { nil: null }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.record({ error: catalogish }), catalogish), (value) => {
        expect(standalone.envelope(value)).toBe(compiledEnvelope(value));
        expect(standalone.problem(value)).toBe(compiledProblem(value));
        expect(validateEnvelope(value).valid).toBe(standalone.envelope(value));
        validateProblem(value);
      }),
      { numRuns: 2000 },
    );
  });
});
