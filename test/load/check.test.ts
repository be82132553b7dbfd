// The load test's response check (test/helpers/load-client.ts) is what makes its "zero problems"
// mean something: it must refuse a corrupted or cut body, an invalid or wrong agent error, a page
// that differs from the app's own, and any sight of the thrown error's text.

import { describe, expect, it } from 'vitest';
import { check, limiterMisses, refKey, type Outcome, type Planned, type References, type RunResult } from '../helpers/load-client.js';
import { AGENT_ERROR, JSON_BODY, SECRET, streamBody } from '../helpers/load-shared.js';

const envelope = (error: Record<string, unknown>) => JSON.stringify({ error });
const NOT_FOUND = { code: 'not_found', message: 'Not Found', field: null, retry: 'no', retry_after: null };
const PAGE = '<!DOCTYPE html><title>Error</title><pre>Cannot GET /missing</pre>';

const refs: References = new Map([[refKey('express', 'missing', 'browser', 404), { status: 404, contentType: 'text/html; charset=utf-8', body: PAGE }]]);

function outcome(status: number, body: Buffer | string, headers: Record<string, string> = {}, kind: Outcome['kind'] = 'complete'): Outcome {
  return { kind, status, headers, body: Buffer.from(body) };
}

const stream: Planned = { adapter: 'node', profile: 'browser', route: 'stream', path: '/ok/stream?seed=3', seed: 3 };
const json: Planned = { adapter: 'hono', profile: 'signed', route: 'json', path: '/ok/json' };
const missingAgent: Planned = { adapter: 'express', profile: 'json', route: 'missing', path: '/missing' };
const missingProblem: Planned = { adapter: 'express', profile: 'problem', route: 'missing', path: '/missing' };
const missingBrowser: Planned = { adapter: 'express', profile: 'browser', route: 'missing', path: '/missing' };
const agentError: Planned = { adapter: 'fastify', profile: 'markdown', route: 'agent-error', path: '/agent-error' };
const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

const flipped = Buffer.from(streamBody(3));
flipped[1000] = flipped[1000]! ^ 1;

describe('the load check', () => {
  it.each([
    ['a streamed body whole', stream, outcome(200, streamBody(3))],
    ['the JSON body as JSON.stringify writes it', json, outcome(200, JSON.stringify(JSON_BODY))],
    ['a valid not_found envelope', missingAgent, outcome(404, envelope(NOT_FOUND), JSON_HEADERS)],
    ['the thrown AgentError with Retry-After from its delay', agentError, outcome(503, envelope(AGENT_ERROR), { ...JSON_HEADERS, 'retry-after': '7' })],
    ["the app's own page for a browser", missingBrowser, outcome(404, PAGE, { 'content-type': 'text/html; charset=utf-8' })],
  ])('accepts %s', (_name, request, response) => {
    expect(check(request, response, refs)).toEqual([]);
  });

  it.each([
    ['a streamed body with one bit flipped', stream, outcome(200, flipped), /hash differs/],
    ['a streamed body cut short, though complete', stream, outcome(200, streamBody(3).subarray(0, 4096)), /hash differs/],
    ['another seed', stream, outcome(200, streamBody(4)), /hash differs/],
    ['a body cut off', stream, outcome(200, streamBody(3).subarray(0, 100), {}, 'cut'), /^cut/],
    ['no response', json, outcome(0, '', {}, 'reset'), /^reset/],
    ['an envelope without retry_after', missingAgent, outcome(404, JSON.stringify({ error: { ...NOT_FOUND, retry_after: undefined } }), JSON_HEADERS), /invalid envelope/],
    ['the wrong code', missingAgent, outcome(404, envelope({ ...NOT_FOUND, code: 'internal', retry: 'once', retry_after: 1 }), { ...JSON_HEADERS, 'retry-after': '1' }), /code internal/],
    ['the wrong status', missingAgent, outcome(400, envelope(NOT_FOUND), JSON_HEADERS), /status 400/],
    ['an HTML page for an agent', missingAgent, outcome(404, PAGE, { 'content-type': 'text/html' }), /content-type|not JSON/],
    ['an envelope for an agent that asked for problem details', missingProblem, outcome(404, envelope(NOT_FOUND), JSON_HEADERS), /content-type|invalid problem/],
    ['a Retry-After that disagrees with the body', agentError, outcome(503, envelope(AGENT_ERROR), { ...JSON_HEADERS, 'retry-after': '30' }), /Retry-After 30/],
    ['a page one byte off', missingBrowser, outcome(404, PAGE.replace('GET', 'GOT'), { 'content-type': 'text/html; charset=utf-8' }), /page differs/],
    ['a page with another content type', missingBrowser, outcome(404, PAGE, { 'content-type': 'text/plain' }), /content-type text\/plain/],
    ['a page with a status the app never sent', missingBrowser, outcome(500, PAGE, { 'content-type': 'text/html; charset=utf-8' }), /no bare page/],
    ["the thrown error's text in a header", json, outcome(200, JSON.stringify(JSON_BODY), { 'x-debug': SECRET }), /thrown error text/],
  ])('refuses %s', (_name, request, response, problem) => {
    const problems = check(request, response, refs);
    expect(problems.some((p) => problem.test(p)), problems.join('; ')).toBe(true);
  });

  it('finds a rate limiter that let more or fewer than its limit through', () => {
    const limited = new Map([
      ['node w-0', { ok: 3, total: 6 }],
      ['node w-1', { ok: 2, total: 2 }],
      ['express w-0', { ok: 4, total: 6 }],
      ['hono w-0', { ok: 1, total: 5 }],
    ]);
    expect(limiterMisses({ limited } as RunResult)).toEqual(['express w-0: 4 of 6 let through', 'hono w-0: 1 of 5 let through']);
  });
});
