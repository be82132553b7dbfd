// The public corpus of real-world error responses (test/fixtures/responses/, see its README):
// each is read by fromResponse and must give the code, retry word, field and delay it documents.
import { describe, expect, it } from 'vitest';
import { RETRY_WORDS, validateEnvelope } from '../../src/index.js';
import { fromResponse } from '../../src/core/from-response.js';
import { readCorpus } from '../helpers/corpus.js';

const fixtures = readCorpus();

describe('the response corpus', () => {
  it('holds at least 40 responses, each saying where its behaviour is documented', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(40);
    for (const [file, f] of fixtures) expect(f.source, file).toMatch(/\S{8}/);
  });

  it.each(fixtures)('%s', (_file, f) => {
    // JSON bodies are read the same whether the caller parsed them or not.
    const bodies = typeof f.body === 'string' || f.body === null ? [f.body] : [f.body, JSON.stringify(f.body), new TextEncoder().encode(JSON.stringify(f.body))];
    for (const body of bodies) {
      const { error } = fromResponse(f.status, f.headers, body, { now: Date.UTC(2026, 10, 30) });
      expect({ code: error.code, retry: error.retry, field: error.field, retry_after: error.retry_after }).toEqual({
        code: f.expect.code, retry: f.expect.retry, field: f.expect.field, retry_after: f.expect.retry_after,
      });
      if (f.expect.message !== undefined) expect(error.message).toBe(f.expect.message);
      // Every field a body reports at fault is kept, in its order; one alone is the field itself.
      expect(error.errors?.map((e) => e.field)).toEqual(f.expect.fields);
      for (const fragment of f.expect.message_excludes ?? []) expect(error.message).not.toContain(fragment);
      // What a 402 asks to be paid, whole, where the fixture says (and nothing where it does not).
      expect(error.payment ?? null).toEqual(f.expect.payment ?? null);
      expect(validateEnvelope({ error }, { received: true }).errors).toEqual([]);
      // When the response gave what the code's retry word needs, the envelope meets the full contract.
      const needs = RETRY_WORDS[error.retry].requires as readonly string[];
      if (!(needs.includes('field') && error.field === null) && !(needs.includes('retry_after') && error.retry_after === null)) {
        expect(validateEnvelope({ error }).errors).toEqual([]);
      }
    }
  });
});
