// The lint on a team's own error format (issue 35): its examples get the violations review the
// error-example-review rule's docs promise, read where the format keeps its message, retry word and
// delay; and this package's own envelope and problem components pass whatever format the team names.
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ERROR_FORMATS } from '../../generated/error-formats.js';
import { lintOpenApi, type LintFinding, type LintOpenApiOptions } from '../../src/tools/lint.js';
import { oneOperation } from '../helpers/openapi.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/lint/', import.meta.url));
const GEN = '../../../generated/openapi.json#/components';
const lint = (document: object, options: LintOpenApiOptions = {}): Promise<LintFinding[]> => lintOpenApi(document, { cwd: FIXTURES, ...options });
const reviewed = (findings: readonly LintFinding[]): LintFinding[] => findings.filter((f) => f.rule === 'error-example-review');

/** The schema of an object that has a string at each place (a JSON pointer, `*` for array items). */
function schemaWith(places: readonly string[]): Record<string, unknown> {
  const root: Record<string, any> = { type: 'object', properties: {} };
  for (const place of places) {
    let node = root;
    for (const token of place.slice(1).split('/')) {
      if (token === '*') {
        node.type = 'array';
        delete node.properties;
        node = node.items ??= { type: 'object', properties: {} };
      } else {
        node.properties ??= {};
        node = node.properties[token] ??= { type: 'object', properties: {} };
      }
    }
    node.type = 'string';
    delete node.properties;
  }
  return root;
}

/** Sets `value` at a place in `body`, making the objects and one-item arrays on the way. */
function put(body: Record<string, any>, place: string, value: unknown): Record<string, any> {
  const tokens = place.slice(1).split('/');
  let node: any = body;
  tokens.forEach((token, i) => {
    const last = i === tokens.length - 1;
    if (token === '*') {
      if (!Array.isArray(node)) throw new Error(`${place}: * under a non-list`);
      if (last) node[0] = value;
      else node = node[0] ??= tokens[i + 1] === '*' ? [] : {};
    } else if (last) node[token] = value;
    else node = node[token] ??= tokens[i + 1] === '*' ? [] : {};
  });
  return body;
}

/** A document whose 429 answers in `schema` with `example`, declaring Retry-After (with `retryAfter` as its example when given). */
const with429 = (schema: unknown, example: unknown, retryAfter?: number, extra: Record<string, unknown> = {}): Record<string, unknown> =>
  oneOperation(
    {
      '429': {
        description: 'slow down',
        headers: { 'Retry-After': { schema: { type: 'integer' }, ...(retryAfter === undefined ? {} : { example: retryAfter }) } },
        content: { 'application/json': { schema, example } },
      },
    },
    { extra },
  );

describe('the review of an example in a format other than this package’s', () => {
  const TOP_LEVEL = { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' }, retry_after: { type: 'integer' } } };

  it('reviews a 429 example in the top-level {code, message} format that says "try again later" with no delay', async () => {
    const findings = reviewed(await lint(with429(TOP_LEVEL, { code: 'rate_limited', message: 'Too many requests, try again later.' })));
    expect(findings.map((f) => [f.pointer, f.severity])).toEqual([['/paths/~1a/get/responses/429/content/application~1json/example', 'error']]);
    expect(findings[0]!.message).toBe(
      'the application/json example (top-level format), read as the envelope (error.message from /message): error.message "Too many requests, try again later." promises a retry ("try again later"), but no field says when (promise-without-delay)',
    );
    // The same example with its delay passes.
    expect(reviewed(await lint(with429(TOP_LEVEL, { code: 'rate_limited', message: 'Too many requests, try again later.', retry_after: 30 })))).toEqual([]);
  });

  it('checks the delay a team example carries against the Retry-After example its response declares', async () => {
    const example = { code: 'rate_limited', message: 'Too many requests.', retry_after: 30 };
    const disagrees = reviewed(await lint(with429(TOP_LEVEL, example, 60)));
    expect(disagrees).toHaveLength(1);
    expect(disagrees[0]!.message).toMatch(/read as the envelope \(error\.message from \/message, error\.retry_after from \/retry_after\): Retry-After "60" asks for 60 s, but error\.retry_after is 30 \(retry-after-disagrees\)$/);
    expect(reviewed(await lint(with429(TOP_LEVEL, example, 30)))).toEqual([]);
    // A body that says nothing of waiting leaves the delay to the header: nothing to disagree with.
    expect(reviewed(await lint(with429(TOP_LEVEL, { code: 'rate_limited', message: 'Too many requests.' }, 60)))).toEqual([]);
  });

  it('reads the parts where the lint config’s format keeps them: a wait with no delay, and prose that promises a retry', async () => {
    const config = { format: { code: '/kind', message: '/text', retry: '/next', delay: '/wait' } } as const;
    const schema = { type: 'object', properties: { kind: { type: 'string' }, text: { type: 'string' }, next: { type: 'string' }, wait: { type: 'integer' } } };
    const waits = reviewed(await lint(with429(schema, { kind: 'slow', text: 'Slow down.', next: 'after_delay' }), { config }));
    expect(waits.map((f) => f.message)).toEqual([
      'the application/json example, read as the envelope (error.message from /text, error.retry from /next): error.retry is "after_delay", which waits for a delay, but error.retry_after is null (wait-without-delay)',
    ]);
    expect(reviewed(await lint(with429(schema, { kind: 'slow', text: 'Slow down.', next: 'after_delay', wait: 20 }, 20), { config }))).toEqual([]);
    const promises = reviewed(await lint(with429(schema, { kind: 'slow', text: 'Please retry.', next: 'no' }), { config: { ...config, retryByCode: { slow: 'no' } } }));
    expect(promises.map((f) => f.message)).toEqual([
      'the application/json example, read as the envelope (error.message from /text, error.retry from /next): error.message "Please retry." promises a retry ("Please retry"), but no field says when (promise-without-delay)',
    ]);
    // The same config from the spec's own x-agent-errors.
    const fromSpec = reviewed(await lint(with429(schema, { kind: 'slow', text: 'Slow down.', next: 'after_delay' }, undefined, { 'x-agent-errors': config })));
    expect(fromSpec.map((f) => f.message)).toEqual(waits.map((f) => f.message));
  });

  it('reviews every error of a list, not only the first', async () => {
    const schema = { type: 'object', properties: { errors: { type: 'array', items: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } } } } } };
    const example = { errors: [{ code: 'quota', message: 'Quota used up.' }, { code: 'busy', message: 'Busy, retry later' }] };
    const findings = reviewed(await lint(with429(schema, example)));
    expect(findings.map((f) => f.message)).toEqual([
      'the application/json example (errors-list format), read as the envelope (error.message from /errors/*/message): error.message "Busy, retry later" promises a retry ("retry later"), but no field says when (promise-without-delay)',
    ]);
  });

  it('takes a delay the format keeps elsewhere, such as google.rpc.Status’s RetryInfo, as the body’s delay', async () => {
    const schema = { type: 'object', properties: { error: { type: 'object', properties: { code: { type: 'integer' }, message: { type: 'string' }, status: { type: 'string' }, details: { type: 'array' } } } } };
    const error = { code: 429, message: 'Quota exceeded, try again later.', status: 'RESOURCE_EXHAUSTED' };
    expect(reviewed(await lint(with429(schema, { error })))).toHaveLength(1);
    const retryInfo = { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '30s' };
    expect(reviewed(await lint(with429(schema, { error: { ...error, details: [retryInfo] } }, 30)))).toEqual([]);
  });

  // Each format the lint recognises by itself, and the config's: an example whose message promises a
  // retry, with no delay anywhere, is a finding; the same example with the delay where the format keeps it is not.
  const formats = ERROR_FORMATS.map((f) => ({ id: f.id, match: f.match, message: f.message[0]!, code: f.code[0]!, delay: f.delay.find((d) => !d.includes('details')) }));
  const PROMISES = ['try again later', 'Retry shortly', 'please retry', 'try again in a moment'];

  it('reviews the examples of every format the lint reads', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...formats), fc.constantFrom(...PROMISES), fc.string({ maxLength: 12 }), fc.nat({ max: 3600 }), async (format, words, before, seconds) => {
        // Only the leaves: a match such as /error is there once /error/message is.
        const all = [...new Set([format.message, ...format.match, format.code, ...(format.delay ? [format.delay] : [])])];
        const leaves = all.filter((place) => !all.some((other) => other.startsWith(`${place}/`)));
        const schema = schemaWith(leaves);
        const prose = `${before.replace(/[^a-z ]/gi, '')} ${words}.`;
        const body = put({}, format.message, prose);
        for (const place of [...format.match, format.code]) if (leaves.includes(place) && place !== format.message) put(body, place, 'x');
        const found = reviewed(await lint(with429(schema, body)));
        expect(found.map((f) => f.message.endsWith('(promise-without-delay)')), `${format.id}: ${JSON.stringify(body)}`).toEqual([true]);
        if (format.delay !== undefined) {
          const fixed = reviewed(await lint(with429(schema, put(structuredClone(body), format.delay, seconds), seconds)));
          expect(fixed, format.id).toEqual([]);
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('this package’s own components under a team’s declared format', () => {
  const config = { format: { code: '/kind', message: '/text', retry: '/next', field: '/input' } } as const;
  const TEAM = { type: 'object', properties: { kind: { type: 'string' }, text: { type: 'string' }, next: { type: 'string' }, input: { type: 'string' } } };
  const document = (responses: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> =>
    oneOperation({ '400': { description: 'bad', content: { 'application/json': { schema: TEAM } } }, ...responses }, { extra });

  it('passes the generated ServiceUnavailable, TooManyRequests and problem responses, from the config option or the spec’s own member', async () => {
    const responses = {
      '429': { $ref: `${GEN}/responses/TooManyRequests` },
      '503': { $ref: `${GEN}/responses/ServiceUnavailable` },
      '500': { description: 'down', content: { 'application/problem+json': { schema: { $ref: `${GEN}/schemas/Problem` } } } },
    };
    expect(await lint(document(responses), { config })).toEqual([]);
    expect(await lint(document(responses, { 'x-agent-errors': config }))).toEqual([]);
  });

  it('passes a copy of the envelope in the spec itself, and still holds a team schema that is neither to the team’s format', async () => {
    const envelope = { type: 'object', required: ['error'], properties: { error: { type: 'object', required: ['code', 'message', 'retry'], properties: { field: {}, retry_after: {} } } } };
    const example = { error: { code: 'temporarily_unavailable', message: 'Down for maintenance.', field: null, retry: 'after_delay', retry_after: 120 } };
    const copy = { '503': { description: 'down', headers: { 'Retry-After': { schema: { type: 'integer' }, example: 120 } }, content: { 'application/json': { schema: envelope, example } } } };
    expect(await lint(document(copy), { config })).toEqual([]);
    const other = { '500': { description: 'down', content: { 'application/json': { schema: { type: 'object', properties: { message: { type: 'string' } } } } } } };
    const found = await lint(document(other), { config });
    expect(found.map((f) => f.rule)).toEqual(['error-code', 'error-retry', 'error-message']);
    for (const f of found) expect(f.pointer).toBe('/paths/~1a/get/responses/500/content/application~1json/schema');
    expect(found[0]!.message).toBe("the error body has no /kind (where the lint config's format keeps the code): an agent cannot tell one error from another");
  });
});
