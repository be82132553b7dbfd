import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CatalogError, type Catalog } from '../../codegen/catalog-model.js';
import { parseCatalog } from '../../codegen/load-catalog.js';
import { ROOT } from '../../codegen/paths.js';

const text = readFileSync(join(ROOT, 'schema/catalog.json'), 'utf8');
const good = (): Catalog => JSON.parse(text) as Catalog;

/** The problems parseCatalog names for a catalog text, or [] when it accepts it. */
async function problemsOf(source: string): Promise<{ pointer: string; reason: string }[]> {
  try {
    await parseCatalog(source, 'test.json');
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(CatalogError);
    return (error as CatalogError).problems;
  }
}

const mutate = (change: (c: Catalog & Record<string, unknown>) => void): string => {
  const c = good() as Catalog & Record<string, unknown>;
  change(c);
  return JSON.stringify(c);
};

describe('the catalog meta-schema', () => {
  it('accepts the catalog as committed', async () => {
    expect(await problemsOf(text)).toEqual([]);
  });

  const cases: [string, () => string, string, RegExp][] = [
    ['an unknown retry word', () => mutate((c) => void (c.codes.not_found!.retry = 'maybe')), '/codes/not_found/retry', /allowed values/],
    [
      'a code written twice',
      () => text.replace('"codes": {', '"codes": {\n    "not_found": { "status": 404 },'),
      '/codes/not_found',
      /written twice/,
    ],
    ['an uppercase code', () => mutate((c) => void (c.codes.Not_Found = c.codes.not_found!)), '/codes', /"Not_Found" is not allowed/],
    ['status 200', () => mutate((c) => void (c.codes.not_found!.status = 200)), '/codes/not_found/status', />= 400/],
    ['status 600', () => mutate((c) => void (c.codes.internal!.status = 600)), '/codes/internal/status', /<= 599/],
    ['missing advice', () => mutate((c) => void delete (c.codes.conflict as Partial<Catalog['codes'][string]>).advice), '/codes/conflict', /advice/],
    ['empty advice', () => mutate((c) => void (c.codes.conflict!.advice = '  ')), '/codes/conflict/advice', /pattern/],
    ['empty title', () => mutate((c) => void (c.codes.conflict!.title = '')), '/codes/conflict/title', /pattern/],
    ['a retry word with a fourth next step', () => mutate((c) => void ((c.retry_words.no as { next_step: string }).next_step = 'panic')), '/retry_words/no/next_step', /allowed values/],
    ['a retry word the vocabulary lacks', () => mutate((c) => void (c.retry_words.later = c.retry_words.no!)), '/retry_words', /"later" is not allowed/],
    ['a retry word left undescribed', () => mutate((c) => void delete (c.retry_words as Record<string, unknown>).pay), '/retry_words', /"pay" is not described/],
    ['a draft family code not marked draft', () => mutate((c) => void delete c.codes.key_unknown!.draft), '/codes/key_unknown', /draft/],
    ['a status default naming no code', () => mutate((c) => void (c.status_defaults['404'] = 'gone_away')), '/status_defaults/404', /not a code/],
    ['a 5xx fallback with a 4xx code', () => mutate((c) => void (c.status_fallbacks['5xx'] = 'not_found')), '/status_fallbacks/5xx', /outside 5xx/],
    ['a fix_input example without a field', () => mutate((c) => void delete c.codes.invalid_input!.example.field), '/codes/invalid_input/example', /^the example of a fix_input code needs a field$/],
    ['an after_delay example without a delay', () => mutate((c) => void delete c.codes.rate_limited!.example.retry_after), '/codes/rate_limited/example', /^the example of an after_delay code needs a retry_after$/],
    ['a fractional example delay', () => mutate((c) => void (c.codes.rate_limited!.example.retry_after = 1.5)), '/codes/rate_limited/example/retry_after', /integer/],
    ['an unknown member', () => mutate((c) => void ((c.codes.conflict as unknown as Record<string, unknown>).retries = 3)), '/codes/conflict', /additional properties/],
    ['text that is not JSON', () => '{"codes": ', '', /not JSON/],
  ];

  it.each(cases)('refuses %s and names the pointer', async (_name, make, pointer, reason) => {
    const problems = await problemsOf(make());
    expect(problems.length).toBeGreaterThan(0);
    expect(problems).toContainEqual({ pointer, reason: expect.stringMatching(reason) });
  });

  it('names the file, the pointer and the reason in its message', async () => {
    await expect(parseCatalog(mutate((c) => void (c.codes.not_found!.status = 200)), 'schema/catalog.json')).rejects.toThrow(
      /schema\/catalog\.json#\/codes\/not_found\/status: must be >= 400/,
    );
  });
});
