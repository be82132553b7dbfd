// Markdown answers: an agent that ranks text/markdown first gets its error as Markdown, the problem's
// members as YAML front matter (parsed here by the yaml library, independently of the package's own
// reader), then prose; fromResponse reads it back to the envelope the JSON bodies give.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { CODES, RETRY_WORDS, type Code } from '../../src/index.js';
import { fromResponse } from '../../src/core/from-response.js';
import { agentError, type AgentError } from '../../src/site/agent-error.js';
import { prefersMarkdown } from '../../src/site/accept.js';

/** The front matter of a Markdown body, as text. */
const frontMatterText = (body: string): string => {
  const match = /^---\n([^]*?)\n---\n/.exec(body);
  expect(match, body).not.toBeNull();
  return match![1]!;
};

/** Any catalog code with what its retry word requires. */
const anError = (message: fc.Arbitrary<string>): fc.Arbitrary<AgentError> =>
  fc
    .record({
      code: fc.constantFrom(...(Object.keys(CODES) as Code[])),
      message,
      field: fc.oneof(fc.constant(undefined), fc.stringMatching(/^[a-z][a-z0-9_.]{0,20}$/)),
      retryAfter: fc.nat({ max: 86_400 }),
      errors: fc.oneof(fc.constant(undefined), fc.array(fc.record({ field: fc.stringMatching(/^[a-z][a-z0-9_]{0,12}$/), code: fc.constantFrom('invalid_input', 'missing_field'), message }), { minLength: 2, maxLength: 4 })),
    })
    .map(({ code, message: text, field, retryAfter, errors: listed }) => {
      let errors = listed;
      const word = RETRY_WORDS[CODES[code].retry];
      const options: Record<string, unknown> = { message: text };
      if (word.next_step === 'wait') options.retryAfter = retryAfter;
      // Fields at fault are a client's error: fromResponse reads them off a 4xx only.
      if (errors && CODES[code].status < 500) options.errors = errors;
      else errors = undefined;
      // A body that lists fields at fault names the first as its field, as fromResponse reads it.
      if (field !== undefined || (word.requires as readonly string[]).includes('field') || errors) options.field = errors?.[0]?.field ?? field ?? 'email';
      return agentError(code, options as never);
    });

const anyText = fc.string({ minLength: 1, maxLength: 300 }).filter((s) => s.trim() !== '');
// A message fromResponse gives back as it is: one line, no dump, within its 200 characters.
const plainText = fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ,'’:;()!?"é€-]{0,150}[A-Za-z0-9.]$/).filter((s) => !/ {2}/.test(s));

describe('Markdown error answers', () => {
  it('go to a caller that names text/markdown and ranks it above JSON, and to no other', () => {
    expect(prefersMarkdown('text/markdown')).toBe(true);
    expect(prefersMarkdown('text/markdown, text/html, */*')).toBe(true);
    expect(prefersMarkdown('text/markdown, application/json;q=0.9')).toBe(true);
    expect(prefersMarkdown('text/markdown;q=0.9, */*')).toBe(false);
    expect(prefersMarkdown('application/json, text/markdown')).toBe(false);
    expect(prefersMarkdown('text/markdown, application/problem+json')).toBe(false);
    expect(prefersMarkdown('*/*')).toBe(false);
    expect(prefersMarkdown('text/*')).toBe(false);
    expect(prefersMarkdown(null)).toBe(false);
  });

  it('carry the problem as front matter a YAML library reads to the same members, and read back to the envelope the JSON problem gives', () => {
    fc.assert(
      fc.property(anError(anyText), (error) => {
        const markdown = error.render('text/markdown', 'https://shop.example');
        expect(markdown.headers['content-type']).toBe('text/markdown; charset=utf-8');
        expect(markdown.headers.vary).toBe('Accept');
        const problem = error.toProblem({ base: 'https://shop.example' });
        expect(parseYaml(frontMatterText(markdown.body))).toEqual(problem);
        const json = error.render('application/problem+json', 'https://shop.example');
        expect(fromResponse(markdown.status, markdown.headers, markdown.body)).toEqual(fromResponse(json.status, json.headers, json.body));
      }),
      { numRuns: 400 },
    );
  });

  it('read back to the very envelope the site built when its sentences are plain', () => {
    fc.assert(
      fc.property(anError(plainText), (error) => {
        const { status, headers, body } = error.render('text/markdown, */*');
        expect(fromResponse(status, headers, body)).toEqual(error.toEnvelope());
      }),
      { numRuns: 400 },
    );
  });

  it('keep the prose to one line per sentence: no message can end the front matter or start a heading', () => {
    const error = agentError('invalid_input', { field: 'email', message: 'first\n---\n# not a heading\nretry: no' });
    const { body } = error.render('text/markdown');
    expect(body.split('\n').filter((line) => line === '---')).toHaveLength(2);
    expect(body.split('\n').filter((line) => line.startsWith('# '))).toEqual(['# Invalid input']);
    expect(fromResponse(400, { 'content-type': 'text/markdown' }, body).error).toMatchObject({ code: 'invalid_input', retry: 'fix_input', field: 'email' });
  });
});
