// An app's own JSON errors, as convertAppError answers an agent: the status and every member kept,
// what the contract needs added in the body's own format, and read back by fromResponse.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { convertAppError, isAgentRequest } from '../../src/site/index.js';
import { agentFriendlyFetch } from '../../src/site/fetch.js';
import { fromResponse } from '../../src/agent/index.js';
import { CODES } from '../../src/index.js';
import { agentError } from '../../src/site/agent-error.js';

const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };
const AGENT = 'application/json';
const AXIOS = 'application/json, text/plain, */*';
const BASE = 'https://shop.example';

/** The body an agent gets, parsed, and the conversion. */
function answer(status: number, body: unknown, options = {}, accept = AGENT, headers: Record<string, string> = JSON_TYPE) {
  const converted = convertAppError({ status, headers, body: JSON.stringify(body) }, accept, BASE, options);
  return { converted, body: converted === null ? body : (JSON.parse(converted.body) as Record<string, unknown>) };
}

/** True when every member `original` has is in `after` with the same value, at any depth. */
function keeps(original: unknown, after: unknown): boolean {
  if (original === null || typeof original !== 'object') return Object.is(original, after);
  if (Array.isArray(original)) return Array.isArray(after) && after.length === original.length && original.every((item, i) => keeps(item, after[i]));
  if (after === null || typeof after !== 'object' || Array.isArray(after)) return false;
  return Object.entries(original).every(([key, value]) => Object.hasOwn(after, key) && keeps(value, (after as Record<string, unknown>)[key]));
}

describe("convertAppError on an app's own JSON errors", () => {
  it('keeps the status and every member, and adds the word in the body\'s own places', () => {
    const locked = { message: 'Order is locked', code: 'ORDER_LOCKED' };
    for (const accept of [AGENT, AXIOS]) {
      const { converted, body } = answer(423, locked, {}, accept);
      expect(converted!.status).toBe(423);
      expect(body).toEqual({ ...locked, retry: 'refetch' });
      expect(converted!.set['content-type']).toBe(JSON_TYPE['content-type']);
      expect(converted!.set.vary).toBe('Accept');
    }
    // A 404 whose body is only a code keeps it, and gains the message and the word.
    expect(answer(404, { code: 'NOT_FOUND' }).body).toEqual({ code: 'NOT_FOUND', message: 'Not Found', retry: 'no' });
  });

  it("writes in the team's declared format, with its retryByCode", () => {
    const format = { code: '/code', message: '/message', field: '/param', retry: '/next_step', delay: '/retry_after_seconds' };
    const { body } = answer(423, { message: 'Order is locked', code: 'ORDER_LOCKED' }, { format, retryByCode: { ORDER_LOCKED: 'refetch' } });
    expect(body).toEqual({ message: 'Order is locked', code: 'ORDER_LOCKED', next_step: 'refetch' });
    const sku = answer(422, { message: 'Bad sku', code: 'BAD_SKU', param: 'sku' }, { format, retryByCode: { BAD_SKU: 'fix_input' } });
    expect(sku.body).toEqual({ message: 'Bad sku', code: 'BAD_SKU', param: 'sku', next_step: 'fix_input' });
    // An agent with no config reads both as the site meant them.
    const lockedText = answer(423, { message: 'Order is locked', code: 'ORDER_LOCKED' }, { format, retryByCode: { ORDER_LOCKED: 'refetch' } }).converted!.body;
    expect(fromResponse(423, JSON_TYPE, lockedText).error).toMatchObject({ code: 'order_locked', retry: 'refetch' });
    expect(fromResponse(422, JSON_TYPE, sku.converted!.body).error).toMatchObject({ code: 'bad_sku', retry: 'fix_input', field: 'sku' });
  });

  it('sends the delay of a wait in both places, one number: a delay only in the body becomes Retry-After too', () => {
    const { converted, body } = answer(429, { message: 'Slow down', code: 'SLOW_DOWN', retry_after_seconds: 7 });
    expect(converted!.status).toBe(429);
    expect(converted!.set['retry-after']).toBe('7');
    expect(body).toEqual({ message: 'Slow down', code: 'SLOW_DOWN', retry_after_seconds: 7, retry: 'after_delay' });
    // A delay only in Retry-After goes into the body too; the app's header is not touched.
    const told = answer(503, { message: 'Down for maintenance' }, {}, AGENT, { ...JSON_TYPE, 'retry-after': '120' });
    expect(told.body).toMatchObject({ message: 'Down for maintenance', code: 'temporarily_unavailable', retry: 'after_delay', retry_after: 120 });
    expect(told.converted!.set['retry-after']).toBeUndefined();
    // A wait the response names no delay for gets the site's.
    expect(answer(503, { message: 'Busy' }, { retryAfter: 30 }).converted!.set['retry-after']).toBe('30');
  });

  it('adds into an error member and into every error of a list, where those formats keep the parts', () => {
    expect(answer(409, { error: { code: 'ORDER_CHANGED', message: 'Changed' } }).body).toEqual({ error: { code: 'ORDER_CHANGED', message: 'Changed', retry: 'refetch' } });
    const list = answer(422, { errors: [{ code: 'BAD_SKU', message: 'Bad sku', field: 'sku' }, { code: 'BAD_QTY', message: 'Bad quantity', field: 'qty' }] });
    expect(list.body).toEqual({ errors: [{ code: 'BAD_SKU', message: 'Bad sku', field: 'sku', retry: 'fix_input' }, { code: 'BAD_QTY', message: 'Bad quantity', field: 'qty', retry: 'fix_input' }] });
  });

  it("adds to a framework's {statusCode, error, message} at the top, since its error member is a string, and only once", () => {
    const fastify = { statusCode: 404, error: 'Not Found', message: 'Route GET:/nowhere not found' };
    const first = answer(404, fastify);
    expect(first.body).toEqual({ ...fastify, retry: 'no' });
    expect(answer(404, first.body).converted).toBeNull();
  });

  it("adds in a declared format's places whatever the top of the body holds (a numeric code there is no code of the format's)", () => {
    const format = { code: '/fault/id', retry: '/fault/then' };
    expect(answer(423, { code: 423, fault: { text: 'Locked' } }, { format }).body).toEqual({ code: 423, fault: { text: 'Locked', id: 'conflict', then: 'refetch' }, message: 'Locked' });
  });

  it('sends back as it was a body that says everything, JSON that is no object, and JSON that does not parse', () => {
    expect(answer(409, { code: 'ORDER_CHANGED', message: 'Changed', retry: 'refetch' }).converted).toBeNull();
    expect(answer(400, [{ message: 'Bad' }]).converted).toBeNull();
    expect(convertAppError({ status: 400, headers: JSON_TYPE, body: '{"message": "Bad"' }, AGENT, BASE)).toBeNull();
  });

  it('converts a page, and answers an agent that asks for problem details by name, with the app\'s status', () => {
    const page = convertAppError({ status: 404, headers: { 'content-type': 'text/html' }, body: '<title>Sold out</title><h1>Sold out</h1>' }, AGENT, BASE);
    expect(page!.status).toBe(404);
    expect(JSON.parse(page!.body).error.code).toBe('out_of_stock');
    const problem = convertAppError({ status: 423, headers: JSON_TYPE, body: '{"message":"Order is locked","code":"ORDER_LOCKED"}' }, 'application/problem+json', BASE);
    expect(problem!.status).toBe(423);
    expect(JSON.parse(problem!.body)).toMatchObject({ status: 423, code: 'order_locked', retry: 'refetch' });
  });

  it('refuses options it does not know, and bad formats, by name', () => {
    const captured = { status: 400, headers: JSON_TYPE, body: '{}' };
    expect(() => convertAppError(captured, AGENT, BASE, { formats: {} } as never)).toThrow(/convertAppError: unknown option "formats" \(did you mean "format"\?\)/);
    expect(() => convertAppError(captured, AGENT, BASE, { format: { code: 'code' } })).toThrow(/convertAppError: format must be an error format/);
  });

  // Any JSON object an app sends as an error: the status and every member it had are the agent's too.
  it('keeps the status and every member of any JSON object error body (property)', () => {
    const json = fc.jsonValue({ maxDepth: 3 });
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 12 }), json, { maxKeys: 6 }), fc.integer({ min: 400, max: 599 }), fc.constantFrom(AGENT, AXIOS), (body, status, accept) => {
        const text = JSON.stringify(body);
        const converted = convertAppError({ status, headers: JSON_TYPE, body: text }, accept, BASE);
        if (converted === null) return;
        expect(converted.status).toBe(status);
        expect(keeps(JSON.parse(text), JSON.parse(converted.body))).toBe(true);
        // What was added once is not added again: an answer that passes a second adapter (Nest's filter, then its middleware) keeps its body.
        const again = convertAppError({ status, headers: { ...JSON_TYPE, ...converted.set }, body: converted.body }, accept, BASE);
        expect(again === null ? converted.body : again.body).toBe(converted.body);
      }),
    );
  });

  // What is added in a declared format reads back through fromResponse, with the format, to the same word, field and delay.
  it("reads back what it added in a declared format to the same word, field and delay (property)", () => {
    const format = { code: '/fault/id', message: '/fault/text', retry: '/fault/then', field: '/fault/at', delay: '/fault/wait' };
    const word = fc.constantFrom('fix_input', 'no', 'refetch', 'get_grant', 'ask_human', 'after_delay', 'once', undefined);
    fc.assert(
      fc.property(
        fc.record({ id: fc.stringMatching(/^[A-Z][A-Z_]{0,10}$/), text: fc.option(fc.string({ maxLength: 20 }), { nil: undefined }), then: word, at: fc.option(fc.stringMatching(/^[a-z]{1,8}$/), { nil: undefined }), wait: fc.option(fc.integer({ min: 0, max: 3600 }), { nil: undefined }) }, { requiredKeys: ['id'] }),
        fc.integer({ min: 400, max: 599 }),
        (fault, status) => {
          const body = { fault: Object.fromEntries(Object.entries(fault).filter(([, v]) => v !== undefined)) };
          const converted = convertAppError({ status, headers: JSON_TYPE, body: JSON.stringify(body) }, AGENT, BASE, { format });
          const sent = converted === null ? body : JSON.parse(converted.body);
          const headers = { ...JSON_TYPE, ...(converted?.set['retry-after'] ? { 'retry-after': converted.set['retry-after'] } : {}) };
          const before = fromResponse(status, JSON_TYPE, body, { format }).error;
          const after = fromResponse(status, headers, sent, { format }).error;
          expect([after.code, after.retry, after.field]).toEqual([before.code, before.retry, before.field]);
          // The word is in the body now, and a wait says how long in the body and in Retry-After, the same number.
          if (fault.then === undefined) expect(sent.fault.then).toBe(after.retry);
          if (after.retry_after !== null) expect([sent.fault.wait, Number(headers['retry-after'] ?? sent.fault.wait)]).toEqual([after.retry_after, after.retry_after]);
        },
      ),
    );
  });
});

describe("AgentError in a team's own format", () => {
  const format = { code: '/code', message: '/message', field: '/param', retry: '/next_step', delay: '/retry_after_seconds' };

  it('puts the four fields at the format\'s places, keeping the team\'s own members', () => {
    const error = agentError('rate_limited', { retryAfter: 30, message: 'Slow down' });
    expect(error.toFormat(format, { request_id: 'r-1' })).toEqual({ request_id: 'r-1', code: 'rate_limited', message: 'Slow down', next_step: 'after_delay', retry_after_seconds: 30 });
    expect(agentError('missing_field', { field: 'sku' }).toFormat({ code: '/errors/*/code', field: '/errors/*/source/parameter', message: '/errors/*/detail' })).toEqual({
      errors: [{ code: 'missing_field', source: { parameter: 'sku' }, detail: CODES.missing_field.title }],
    });
    const rendered = error.render('application/json', 'https://shop.example', { format });
    expect([rendered.status, rendered.headers['retry-after'], JSON.parse(rendered.body)]).toEqual([429, '30', { code: 'rate_limited', message: 'Slow down', next_step: 'after_delay', retry_after_seconds: 30 }]);
    // What it renders reads back, with no config, to the error itself.
    expect(fromResponse(rendered.status, rendered.headers, rendered.body).error).toMatchObject({ code: 'rate_limited', retry: 'after_delay', retry_after: 30 });
    // Problem details and Markdown are the contract's whatever the format.
    expect(JSON.parse(error.render('application/problem+json', 'https://shop.example', { format }).body)).toMatchObject({ code: 'rate_limited', status: 429 });
  });

  it('refuses a format it cannot use, members that are no object, and a place the members cannot hold', () => {
    const error = agentError('not_found');
    expect(() => error.toFormat({ code: 'code' })).toThrow(/toFormat: format must be an error format/);
    expect(() => error.toFormat(format, [] as never)).toThrow(/toFormat: members must be an object of the team's own members/);
    expect(() => error.toFormat({ code: '/meta/code' }, { meta: 'x' })).toThrow(/toFormat: format must be places the members can hold \(code at \/meta\/code/);
    expect(() => error.render('application/json', undefined, { formats: format } as never)).toThrow(/render: unknown option "formats" \(did you mean "format"\?\)/);
  });
});

describe("who counts as an agent, narrowed with agents: 'signed'", () => {
  const signed = { accept: 'application/json', signature: 'sig1=:AAAA:', 'signature-input': 'sig1=("@authority");created=1700000000;keyid="k"' };
  const page = () => new Response('<title>Sold out</title>', { status: 404, headers: { 'content-type': 'text/html' } });

  it('answers only a caller that signs its requests; a JSON client that does not gets the app\'s own answer', async () => {
    const site = agentFriendlyFetch(page, { agents: 'signed' });
    const json = await site(new Request('https://shop.example/x', { headers: { accept: 'application/json' } }));
    expect([json.status, await json.text()]).toEqual([404, '<title>Sold out</title>']);
    const agent = await site(new Request('https://shop.example/x', { headers: signed }));
    expect([agent.status, (await agent.json()).error.code]).toEqual([404, 'out_of_stock']);
    expect(isAgentRequest({ headers: { accept: 'application/json' } }, { agents: 'signed' })).toBe(false);
    expect(isAgentRequest({ headers: { accept: 'application/json' } })).toBe(true);
    expect(isAgentRequest({ headers: signed }, { agents: 'signed' })).toBe(true);
  });

  it('refuses any other value, by name', () => {
    expect(() => agentFriendlyFetch(page, { agents: 'json' as never })).toThrow(/agentFriendlyFetch: agents must be "accept" or "signed" \(got "json"\)/);
    expect(() => isAgentRequest({ headers: {} }, { agent: 'signed' } as never)).toThrow(/isAgentRequest: unknown option "agent" \(did you mean "agents"\?\)/);
  });
});
