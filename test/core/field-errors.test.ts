// The fields at fault in a validation body, in every framework's shape: properties that a field named
// anywhere in such a body reaches the envelope, and that no body makes fromResponse throw or read
// past its limits. The real frameworks' own bodies are in the corpus (test/fixtures/responses/) and
// the live test (test/core/validation-live.test.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { READERS } from '../../generated/catalog.js';
import { validateEnvelope } from '../../src/index.js';
import { fromResponse } from '../../src/core/from-response.js';
import { fieldInMessage, violationsOf } from '../../src/core/field-errors.js';

/** Keys that mean something to a shape, never a field's own name here. */
const RESERVED = new Set(['errors', '_errors', 'properties', 'items', 'formErrors', 'fieldErrors', 'non_field_errors', '__all__', 'data', 'body', 'query', 'querystring', 'path', 'params', 'header', 'headers', 'cookie', 'cookies', 'payload', 'each', 'property', 'message', 'detail', 'error', 'issues', 'violations', 'validation']);
const segment = fc.stringMatching(/^[a-z][A-Za-z0-9_]{0,11}$/).filter((s) => !RESERVED.has(s));
const path = fc.array(segment, { minLength: 1, maxLength: 4 });
const sentence = fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ,.'_-]{0,59}$/).filter((s) => s.trim() !== '');

/** Nests `leaf` under each segment: { a: { b: leaf } }. */
const nest = (segments: readonly string[], leaf: unknown, wrap: (inner: Record<string, unknown>) => Record<string, unknown> = (inner) => inner): Record<string, unknown> =>
  segments.reduceRight<unknown>((inner, key) => wrap({ [key]: inner }), leaf) as Record<string, unknown>;

/** Each framework's body for violations at `paths`, one sentence each, as the framework spells it. */
const DIALECTS: Record<string, (paths: string[][], sentences: string[]) => unknown> = {
  laravel: (p, s) => ({ message: 'The given data was invalid.', errors: Object.fromEntries(p.map((x, i) => [x.join('.'), [s[i]]])) }),
  'aspnetcore ValidationProblemDetails': (p, s) => ({ type: 'https://tools.ietf.org/html/rfc9110#section-15.5.1', title: 'One or more validation errors occurred.', status: 400, errors: Object.fromEntries(p.map((x, i) => [x.join('.'), [s[i]]])), traceId: '00-1-2-00' }),
  'drf nested': (p, s) => nest(p[0]!, [s[0]]),
  'zod format()': (p, s) => ({ _errors: [], ...nest(p[0]!, { _errors: [s[0]] }, (inner) => ({ _errors: [], ...inner })) }),
  'zod treeifyError()': (p, s) => p[0]!.reduceRight<Record<string, unknown>>((inner, key) => ({ errors: [], properties: { [key]: inner } }), { errors: [s[0]] }),
  'zod flatten()': (p, s) => ({ formErrors: [], fieldErrors: Object.fromEntries(p.map((x, i) => [x[0], [s[i]]])) }),
  'zod issues': (p, s) => ({ errors: p.map((x, i) => ({ code: 'custom', path: x, message: s[i] })) }),
  'express-validator': (p, s) => ({ errors: p.map((x, i) => ({ type: 'field', value: 'x', msg: s[i], path: x.join('.'), location: 'body' })) }),
  'JSON:API': (p, s) => ({ errors: p.map((x, i) => ({ status: '422', source: { pointer: `/data/attributes/${x.join('/')}` }, detail: s[i] })) }),
  'spring boot': (p, s) => ({ timestamp: '2026-12-01T00:00:00.000+00:00', status: 400, error: 'Bad Request', errors: p.map((x, i) => ({ field: x.join('.'), defaultMessage: s[i], code: 'Size' })), path: '/users' }),
  'hapi/joi': (p, s) => ({ statusCode: 400, error: 'Bad Request', message: p.map((x, i) => `"${x.at(-1)}" ${s[i]}`).join('. '), validation: { source: 'payload', keys: p.map((x) => x.join('.')) } }),
  'nestjs ValidationPipe': (p, s) => ({ message: p.map((x, i) => `${x.join('.')} ${s[i]}`), error: 'Bad Request', statusCode: 400 }),
  'fastify/ajv': (p, s) => ({ statusCode: 400, code: 'FST_ERR_VALIDATION', error: 'Bad Request', message: p.map((x, i) => `body/${x.join('/')} ${s[i]}`).join(', ') }),
  fastapi: (p, s) => ({ detail: p.map((x, i) => ({ type: 'string_type', loc: ['body', ...x], msg: s[i], input: 1 })) }),
  github: (p) => ({ message: 'Validation Failed', errors: p.map((x) => ({ resource: 'Issue', field: x.join('.'), code: 'invalid' })), documentation_url: 'https://docs.github.com/rest' }),
  'rfc 9457 errors': (p, s) => ({ type: 'https://example.net/validation-error', title: 'Your request is not valid.', errors: p.map((x, i) => ({ detail: s[i], pointer: `#/${x.join('/')}` })) }),
  'google BadRequest': (p, s) => ({ error: { code: 400, message: 'Request contains an invalid argument.', status: 'INVALID_ARGUMENT', details: [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: p.map((x, i) => ({ field: x.join('.'), description: s[i] })) }] } }),
};
/** The shapes that carry one field only (a nested map of one path, a tree of one path). */
const SINGLE = new Set(['drf nested', 'zod format()', 'zod treeifyError()']);
/** The shapes whose keys are top-level names only. */
const FLAT = new Set(['zod flatten()']);

describe('a field named anywhere in a validation body is never lost', () => {
  it.each(Object.keys(DIALECTS))('%s: the field, and every field of several', (dialect) => {
    fc.assert(
      fc.property(fc.uniqueArray(path, { minLength: 1, maxLength: SINGLE.has(dialect) ? 1 : 4, selector: (p) => (FLAT.has(dialect) ? p[0] : p.join('.')) }), fc.array(sentence, { minLength: 4, maxLength: 4 }), fc.constantFrom(400, 422), (found, sentences, status) => {
        const paths = FLAT.has(dialect) ? found.map((p) => p.slice(0, 1)) : found;
        const body = DIALECTS[dialect]!(paths, sentences);
        for (const as of [body, JSON.stringify(body)]) {
          const { error } = fromResponse(status, { 'content-type': 'application/json' }, as);
          expect(error.field).toBe(paths[0]!.join('.'));
          expect(error.retry).toBe('fix_input');
          expect(error.errors?.map((e) => e.field)).toEqual(paths.length > 1 ? paths.map((p) => p.join('.')) : undefined);
          expect(validateEnvelope({ error }).errors).toEqual([]);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('takes the first violation\'s own sentence, with the field in front when the sentence does not name it', () => {
    expect(fromResponse(422, null, { title: ["can't be blank"] }).error).toMatchObject({ code: READERS.validation_phrase["can't be blank"], field: 'title', message: "title: can't be blank" });
    expect(fromResponse(400, null, { message: ['email must be an email'], error: 'Bad Request', statusCode: 400 }).error).toMatchObject({ code: READERS.validation_keyword.default, field: 'email', message: 'email must be an email' });
    expect(fromResponse(422, null, { message: 'The given data was invalid.', errors: { email: ['The email field is required.'] } }).error).toMatchObject({ code: 'missing_field', field: 'email', message: 'The email field is required.' });
    // RFC 7807's own example extension: invalid-params [{name, reason}].
    const rfc7807 = { type: 'https://example.net/validation-error', title: "Your request parameters didn't validate.", 'invalid-params': [{ name: 'age', reason: 'must be a positive integer' }, { name: 'color', reason: "must be 'green', 'red' or 'blue'" }] };
    expect(fromResponse(400, null, rfc7807).error).toMatchObject({ code: 'invalid_input', field: 'age', message: 'age: must be a positive integer', errors: [{ field: 'age' }, { field: 'color' }] });
  });

  it("keeps this package's own code and message, and passes its errors through", () => {
    const body = { error: { code: 'invalid_input', message: 'Two fields are wrong', field: 'email', retry: 'fix_input', retry_after: null, errors: [{ field: 'email', code: 'invalid_input', message: 'email has no @' }, { field: 'age', code: 'missing_field', message: 'age is required' }] } };
    expect(fromResponse(400, null, body)).toEqual(body);
  });

  it('says missing_field for a value left out, by keyword where the body has one, else by the sentence', () => {
    expect(violationsOf({ detail: [{ type: 'missing', loc: ['body', 'email'], msg: 'Field required' }] })[0]!.code).toBe('missing_field');
    expect(violationsOf({ errors: [{ type: 'field', msg: 'Invalid value', path: 'email', location: 'body' }] })[0]!.code).toBe('missing_field');
    expect(violationsOf({ errors: [{ type: 'field', value: '', msg: 'Invalid value', path: 'email', location: 'body' }] })[0]!.code).toBe('invalid_input');
    expect(violationsOf({ errors: [{ field: 'email', defaultMessage: 'must not be blank', code: 'NotBlank' }] })[0]!.code).toBe('missing_field');
    expect(violationsOf({ errors: [{ field: 'email', defaultMessage: 'size must be between 1 and 3', code: 'Size' }] })[0]!.code).toBe('invalid_input');
    // A 400 whose body has no violation keeps its status's code; a 409 with one keeps 409's.
    expect(fromResponse(400, null, { message: 'Bad JSON' }).error.code).toBe('invalid_input');
    expect(fromResponse(409, null, { errors: { email: ['has already been taken'] } }).error).toMatchObject({ code: 'conflict', field: 'email' });
  });

  it('reads no violations from 5xx bodies, and none from a body that only looks like a map', () => {
    expect(fromResponse(500, null, { email: ['This field is required.'] }).error.field).toBeNull();
    expect(fromResponse(400, null, { email: 'x', tags: ['a'] }).error.field).toBeNull();
  });
});

describe('no body makes fromResponse throw or read past its limits', () => {
  it('any JSON value as a 4xx body', () => {
    fc.assert(
      fc.property(fc.constantFrom(400, 404, 409, 422), fc.jsonValue({ maxDepth: 6 }), (status, body) => {
        const { error } = fromResponse(status, null, body);
        expect(validateEnvelope({ error }, { received: true }).errors).toEqual([]);
        expect(error.errors?.length ?? 0).toBeLessThanOrEqual(100);
        for (const e of error.errors ?? []) expect(e.field.length).toBeLessThanOrEqual(200);
      }),
      { numRuns: 2000 },
    );
  });

  it('a dialect body with any of its members replaced by any JSON value', () => {
    const bodies = Object.values(DIALECTS).map((make) => make([['email'], ['address', 'city']], ['is required', 'must be a string']) as Record<string, unknown>);
    fc.assert(
      fc.property(fc.constantFrom(...bodies), fc.jsonValue({ maxDepth: 4 }), fc.nat(), (body, value, pick) => {
        const keys = Object.keys(body);
        const mutated = { ...body, [keys[pick % keys.length]!]: value };
        const { error } = fromResponse(422, null, mutated);
        expect(validateEnvelope({ error }, { received: true }).errors).toEqual([]);
      }),
      { numRuns: 1000 },
    );
  });

  it('100,000 violations, fields 1 MB long and maps nested 10,000 deep stay within bounds', () => {
    const many = { errors: Array.from({ length: 100_000 }, (_, i) => ({ path: `f${i}`, msg: 'Invalid value', type: 'field', location: 'body', value: 1 })) };
    expect(fromResponse(400, null, many).error.errors).toHaveLength(100);
    const long = 'a'.repeat(1_000_000);
    expect(fromResponse(422, null, { errors: { [long]: ['is invalid'] } }).error.field).toHaveLength(200);
    let deep: Record<string, unknown> = { leaf: ['is invalid'] };
    for (let i = 0; i < 10_000; i++) deep = { k: deep };
    expect(() => fromResponse(422, null, deep)).not.toThrow();
    const text = `{"errors":${'{"k":'.repeat(100_000)}{"leaf":["is invalid"]}${'}'.repeat(100_000)}}`;
    expect(fromResponse(422, null, text).error.code).toBe('invalid_input');
  });

  it('a hostile object (throwing getters, a proxy) gives an envelope, never an exception', () => {
    const hostile = new Proxy({}, { ownKeys: () => { throw new Error('no'); }, get: () => { throw new Error('no'); }, getOwnPropertyDescriptor: () => { throw new Error('no'); } });
    expect(fromResponse(422, null, hostile).error.code).toBe('invalid_input');
    expect(fromResponse(422, null, { errors: { get email() { throw new Error('no'); } } }).error.code).toBe('invalid_input');
  });
});

describe('fieldInMessage', () => {
  it.each<[string, string | null]>([
    ["1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null", 'tableName'],
    ["2 validation errors detected: Value 'x' at 'item.key' failed to satisfy constraint: ...", 'item.key'],
    ['messages.1.content.0.image.source.base64.media_type: Field required', 'messages.1.content.0.image.source.base64.media_type'],
    ['max_tokens: Input should be a valid integer', 'max_tokens'],
    ["'from' parameter is missing", 'from'],
    ["The 'To' parameter is required.", 'To'],
    ['Something went wrong: Field required', null],
    ['The request is invalid', null],
    ["Value at 'x'", null],
  ])('reads %j as %j', (message, field) => {
    expect(fieldInMessage(message)).toBe(field);
  });

  // A pattern that backtracked catastrophically would hold this test past its timeout.
  it('never throws, and reads long adversarial messages (each pattern is one bounded pass)', () => {
    fc.assert(fc.property(fc.string({ maxLength: 500 }), (text) => void fieldInMessage(text)), { numRuns: 2000 });
    for (const text of ['Value '.repeat(20_000), "Value x at '".repeat(10_000), `${'a.'.repeat(20_000)}: Field required`, "'".repeat(50_000)]) expect(fieldInMessage(text)).toBeNull();
  });
});
