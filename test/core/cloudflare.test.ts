// Cloudflare's agent error responses (https://developers.cloudflare.com/fundamentals/reference/error-responses/),
// as JSON and as Markdown front matter, and the front matter reader itself. The corpus has the
// documented examples; these properties hold for any such body.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { READERS, validateEnvelope } from '../../src/index.js';
import { explainResponse, fromResponse } from '../../src/core/from-response.js';
import { frontMatter } from '../../src/core/front-matter.js';

const RUNS = { numRuns: 2000 };
const CATEGORIES = ['origin', 'cloudflare', 'ssl', 'access_denied', 'rate_limit', 'dns', 'config', 'tls', 'legal', 'worker', 'rewrite', 'snippet', 'unsupported'];

/** The code the catalog's tables give a category, retryable or not. */
function expected(category: string, retryable: boolean): string {
  const table: Readonly<Record<string, string>> = retryable ? READERS.cloudflare_retryable : READERS.cloudflare_category;
  return Object.hasOwn(table, category) ? table[category]! : table.default!;
}

/** A Cloudflare error's fields, as the documentation lists them, with any category, status and delay. */
const cloudflareError = fc.record({
  error_code: fc.integer({ min: 500, max: 1300 }),
  error_name: fc.stringMatching(/^[a-z_]{1,30}$/),
  error_category: fc.oneof(fc.constantFrom(...CATEGORIES), fc.stringMatching(/^[a-z_]{1,20}$/)),
  status: fc.constantFrom(403, 409, 429, 500, 502, 503, 504, 520, 522, 525, 526, 530),
  retryable: fc.boolean(),
  retry_after: fc.integer({ min: 0, max: 86_400 }),
  title: fc.string({ maxLength: 120 }),
  detail: fc.string({ maxLength: 300 }),
});

/** The same fields as Cloudflare's Markdown answer: front matter, a heading, prose. */
function markdown(f: { error_code: number; error_name: string; error_category: string; status: number; retryable: boolean; retry_after: number; title: string; detail: string }): string {
  const lines = ['---', `error_code: ${f.error_code}`, `error_name: ${f.error_name}`, `error_category: ${f.error_category}`, `status: ${f.status}`, 'cloudflare_error: true', `retryable: ${f.retryable}`];
  if (f.retryable) lines.push(`retry_after: ${f.retry_after}`);
  return [...lines, '---', '', `# ${f.title.replace(/[\r\n]/g, ' ')}`, '', f.detail, ''].join('\n');
}

describe("Cloudflare's agent error responses", () => {
  it('read, as JSON and as Markdown, to the code the catalog gives the category, with the body\'s delay when retryable and none when not', () => {
    fc.assert(
      fc.property(cloudflareError, (f) => {
        const json = { type: `https://developers.cloudflare.com/x/error-${f.error_code}/`, ...f, cloudflare_error: true, ...(f.retryable ? {} : { retry_after: undefined }) };
        for (const body of [json, JSON.stringify(json), markdown(f)]) {
          const { error } = fromResponse(f.status, {}, body);
          expect(error.code).toBe(expected(f.error_category, f.retryable));
          expect(error.retry_after).toBe(f.retryable ? f.retry_after : null);
          expect(validateEnvelope({ error }, { received: true }).errors).toEqual([]);
        }
      }),
      RUNS,
    );
  });

  it('names the rule it used: the category, whether retryable, and the catalog table', () => {
    const { because } = explainResponse(403, {}, { cloudflare_error: true, error_code: 1020, error_category: 'access_denied', retryable: false, title: 'Error 1020: Access denied' });
    expect(because).toContain('the body is Cloudflare\'s agent error response');
    expect(because).toContain('Cloudflare\'s error_category "access_denied" with retryable false is not_allowed (the catalog\'s cloudflare_category table)');
  });

  it('are not read without cloudflare_error: true and a numeric error_code: a problem with an error_category alone stays a problem', () => {
    for (const body of [
      { type: 'https://example.com/x', title: 'Busy', status: 503, error_code: 522, error_category: 'rate_limit', retryable: true, retry_after: 5 },
      { type: 'https://example.com/x', title: 'Busy', status: 503, cloudflare_error: 'true', error_code: 522, error_category: 'rate_limit', retryable: true },
      { type: 'https://example.com/x', title: 'Busy', status: 503, cloudflare_error: true, error_code: '522', error_category: 'rate_limit', retryable: true },
    ]) {
      expect(explainResponse(503, {}, body).because[0]).toBe('the body is RFC 9457 problem details');
    }
  });
});

describe('frontMatter', () => {
  it('reads flat key: scalar lines, quoted strings, booleans, numbers and null, and the first heading as the title', () => {
    const text = "---\ncode: 'rate_limited'\nretry_after: 30\nratio: 1.5\nok: false\nnothing: ~\nnote: \"a \\\"quoted\\\" value\"\nlist:\n  - one\n# a comment\n---\n\n# Slow down\n\ntext";
    expect(frontMatter(text)).toEqual({ code: 'rate_limited', retry_after: 30, ratio: 1.5, ok: false, nothing: null, note: 'a "quoted" value', list: null, title: 'Slow down' });
  });

  it('reads CR LF line ends as LF ones, and passes over a __proto__ line', () => {
    fc.assert(
      fc.property(cloudflareError, (f) => {
        const text = markdown(f);
        expect(frontMatter(text.replace(/\n/g, '\r\n'))).toEqual(frontMatter(text));
      }),
      RUNS,
    );
    const fields = frontMatter('---\r\n__proto__: x\r\ncode: a\r\n---\r\n\r\n# T\r\n');
    expect(fields).toEqual({ code: 'a', title: 'T' });
    expect(Object.getPrototypeOf(fields)).toBe(Object.prototype);
  });

  it('is null for a body that does not open with front matter holding a field, or never closes it', () => {
    for (const text of ['', 'no front matter', '--- \n---\n', '---\nkey: value\n', '# ---\nkey: value\n---', '----\nkey: value\n---']) expect(frontMatter(text), JSON.stringify(text)).toBeNull();
  });

  it('never throws and gives only scalars, or a list or map written as JSON (an error list in flow style), whatever the text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), fc.array(fc.tuple(fc.string({ maxLength: 20 }), fc.string({ maxLength: 40 })), { maxLength: 8 }), (tail, pairs) => {
        for (const text of [tail, `---\n${pairs.map(([k, v]) => `${k}: ${v}`).join('\n')}\n---\n${tail}`]) {
          const fields = frontMatter(text);
          if (fields === null) continue;
          for (const value of Object.values(fields)) {
            if (value !== null && typeof value === 'object') {
              // A flow collection is read as JSON reads it: plain data, nothing a prototype or a function could hide in.
              expect(Array.isArray(value) || Object.getPrototypeOf(value) === Object.prototype).toBe(true);
              expect(JSON.parse(JSON.stringify(value))).toEqual(value);
            } else expect(value === null || ['string', 'number', 'boolean'].includes(typeof value)).toBe(true);
          }
        }
      }),
      RUNS,
    );
  });

  it('reads at most 64 KiB: front matter that closes later is none, and within it is read', () => {
    expect(frontMatter(`---\nkey: value\n${'x: y\n'.repeat(14_000)}---\n`)).toBeNull();
    expect(frontMatter(`---\nkey: value\n${'x: y\n'.repeat(12_000)}---\n`)).toEqual({ key: 'value', x: 'y' });
  });
});

describe('a Markdown body with front matter no dialect knows', () => {
  it('is read as the page it is: its heading is the message, as before front matter was read', () => {
    const page = '---\nlayout: error\nauthor: ops\n---\n\n# Down for maintenance\n\nBack soon.\n';
    expect(fromResponse(503, { 'content-type': 'text/markdown' }, page).error).toMatchObject({ code: 'temporarily_unavailable', message: 'Down for maintenance' });
    expect(fromResponse(404, {}, '## Not here\n\nNothing at this address.').error.message).toBe('Not here');
    expect(explainResponse(503, {}, page).because[0]).toBe('status 503 means temporarily_unavailable');
  });
});
