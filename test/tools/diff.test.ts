import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RETRY_WORDS } from '../../generated/catalog.js';
import { BREAKING_RULES, NON_BREAKING_RULES, contractKind, diffCatalog, formatDiff, type Change, type DiffResult, type DiffRule, type DiffRuleInfo } from '../../src/tools/diff.js';
import { serve } from '../helpers/server.js';
import { spyOnReads } from './read-spy.js';

const ROOT = new URL('../../', import.meta.url);
const readJson = (path: string): unknown => JSON.parse(readFileSync(fileURLToPath(new URL(path, ROOT)), 'utf8'));
const fixture = (name: string): unknown => readJson(`test/fixtures/diff/${name}`);

interface Word {
  next_step: string;
  requires: string[];
  advice: string;
  [member: string]: unknown;
}
interface Entry {
  status: number;
  retry: string;
  title: string;
  advice: string;
  family: string;
  draft?: boolean;
  [member: string]: unknown;
}
interface Catalog {
  retry_words: Record<string, Word>;
  codes: Record<string, Entry>;
  [member: string]: unknown;
}

const CATALOG = readJson('schema/catalog.json') as Catalog;
const OPENAPI_31 = readJson('generated/openapi.json');
const OPENAPI_30 = readJson('generated/openapi-3.0.json');

/** A copy of the real catalog after `edit`. */
const catalog = (edit: (c: Catalog) => void = () => {}): Catalog => {
  const copy = structuredClone(CATALOG);
  edit(copy);
  return copy;
};

/** The part of each change a test pins down. */
const brief = (changes: readonly Change[]) => changes.map(({ rule, code, word, pointer }) => ({ rule, code, word, pointer }));

/** The changes of the real catalog against an edited copy. */
const against = (edit: (c: Catalog) => void, options = {}): DiffResult => diffCatalog(catalog(), catalog(edit), options);

/** A parsed OpenAPI document, edited freely by the tests. */
type Json = any;

/** A copy of an OpenAPI document after `edit`. */
const openapi = (document: unknown, edit: (d: Json) => void): unknown => {
  const copy = structuredClone(document);
  edit(copy);
  return copy;
};

const RULE_IDS = new Set<string>([...BREAKING_RULES, ...NON_BREAKING_RULES].map((r) => r.rule));

describe('an unchanged contract', () => {
  it('gives no changes for the real catalog against itself', () => {
    expect(diffCatalog(CATALOG, structuredClone(CATALOG))).toEqual({ breaking: [], nonBreaking: [] });
  });

  it('gives no changes for each generated OpenAPI document against itself, or for the 3.0 one against the 3.1 one', () => {
    expect(diffCatalog(OPENAPI_31, structuredClone(OPENAPI_31))).toEqual({ breaking: [], nonBreaking: [] });
    expect(diffCatalog(OPENAPI_30, structuredClone(OPENAPI_30))).toEqual({ breaking: [], nonBreaking: [] });
    expect(diffCatalog(OPENAPI_30, OPENAPI_31)).toEqual({ breaking: [], nonBreaking: [] });
  });

  it('gives no changes for the catalog against the OpenAPI document generated from it, whose codes, statuses and retry words agree', () => {
    expect(diffCatalog(CATALOG, OPENAPI_31)).toEqual({ breaking: [], nonBreaking: [] });
    expect(diffCatalog(OPENAPI_30, CATALOG)).toEqual({ breaking: [], nonBreaking: [] });
  });

  it('says so in one summary line when formatted', () => {
    expect(formatDiff(diffCatalog(CATALOG, CATALOG))).toBe('No changes to the error contract.');
  });
});

describe('breaking changes to a catalog', () => {
  it('reports a removed code at its place in the before catalog', () => {
    const result = against((c) => delete c.codes.not_found);
    expect(brief(result.breaking)).toEqual([{ rule: 'code-removed', code: 'not_found', pointer: '/codes/not_found' }]);
    expect(result.nonBreaking).toEqual([]);
    expect(result.breaking[0]!.message).toContain('not_found');
  });

  it('reports a code removed and another added with the same status, retry word and title as one rename, not a removal and an addition', () => {
    const result = against((c) => {
      c.codes.sold_out = c.codes.out_of_stock!;
      delete c.codes.out_of_stock;
    });
    expect(brief(result.breaking)).toEqual([{ rule: 'code-renamed', code: 'out_of_stock', pointer: '/codes/sold_out' }]);
    expect(result.nonBreaking).toEqual([]);
    expect(result.breaking[0]!.message).toMatch(/"out_of_stock" was renamed to "sold_out"/);
  });

  it('reports a removal and an addition, not a rename, when the new code has another title', () => {
    const result = against((c) => {
      c.codes.sold_out = { ...c.codes.out_of_stock!, title: 'Sold out' };
      delete c.codes.out_of_stock;
    });
    expect(brief(result.breaking)).toEqual([{ rule: 'code-removed', code: 'out_of_stock', pointer: '/codes/out_of_stock' }]);
    expect(brief(result.nonBreaking)).toEqual([{ rule: 'code-added', code: 'sold_out', pointer: '/codes/sold_out' }]);
  });

  it('pairs each removed code with at most one added code when several could be renames', () => {
    const result = against((c) => {
      c.codes.sold_out = c.codes.out_of_stock!;
      c.codes.gone_for_good = c.codes.out_of_stock!;
      delete c.codes.out_of_stock;
    });
    expect(brief(result.breaking)).toEqual([{ rule: 'code-renamed', code: 'out_of_stock', pointer: '/codes/sold_out' }]);
    expect(brief(result.nonBreaking)).toEqual([{ rule: 'code-added', code: 'gone_for_good', pointer: '/codes/gone_for_good' }]);
  });

  it("reports a code's status change", () => {
    const result = against((c) => void (c.codes.offer_expired!.status = 404));
    expect(brief(result.breaking)).toEqual([{ rule: 'status-changed', code: 'offer_expired', pointer: '/codes/offer_expired/status' }]);
    expect(result.breaking[0]!.message).toContain('404, not 410');
    expect(result.nonBreaking).toEqual([]);
  });

  it("reports a code's retry word change alone when the new word has the same next step and requirements", () => {
    const result = against((c) => void (c.codes.not_found!.retry = 'ask_human'));
    expect(brief(result.breaking)).toEqual([{ rule: 'retry-changed', code: 'not_found', pointer: '/codes/not_found/retry' }]);
  });

  it("reports the next step a code's new retry word maps to", () => {
    const result = against((c) => void (c.codes.conflict!.retry = 'no'));
    expect(brief(result.breaking)).toEqual([
      { rule: 'retry-changed', code: 'conflict', pointer: '/codes/conflict/retry' },
      { rule: 'next-step-changed', code: 'conflict', word: 'no', pointer: '/codes/conflict/retry' },
    ]);
    expect(result.breaking[1]!.message).toContain('"give_up", not "fix_request"');
  });

  it("reports a retry word's own next step change once, at the word, naming the codes that use it", () => {
    const result = against((c) => void (c.retry_words.no!.next_step = 'wait'));
    expect(brief(result.breaking)).toEqual([{ rule: 'next-step-changed', word: 'no', pointer: '/retry_words/no/next_step' }]);
    expect(result.breaking[0]!.message).toMatch(/not_allowed.*not_found.*out_of_stock/);
  });

  it('reports, code by code, a next step that changed through retry words when only one side carries its own', () => {
    const before = { codes: { coupon_expired: { status: 409, retry: 'no', title: 'Coupon expired' } } };
    const after = { ...before, retry_words: { ...structuredClone(RETRY_WORDS), no: { ...RETRY_WORDS.no, next_step: 'wait' } } };
    const result = diffCatalog(before, after);
    expect(brief(result.breaking)).toEqual([{ rule: 'next-step-changed', code: 'coupon_expired', word: 'no', pointer: '/codes/coupon_expired/retry' }]);
  });

  it("reports a code's family change", () => {
    const result = against((c) => void (c.codes.signature_invalid!.family = 'payment'));
    expect(brief(result.breaking)).toEqual([{ rule: 'family-changed', code: 'signature_invalid', pointer: '/codes/signature_invalid/family' }]);
  });

  it('reports a code whose new retry word requires the field at fault', () => {
    const result = against((c) => void (c.codes.conflict!.retry = 'fix_input'));
    expect(brief(result.breaking)).toEqual([
      { rule: 'retry-changed', code: 'conflict', pointer: '/codes/conflict/retry' },
      { rule: 'field-now-required', code: 'conflict', word: 'fix_input', pointer: '/codes/conflict/retry' },
    ]);
  });

  it('reports a retry word that now requires the field at fault, at the word', () => {
    const result = against((c) => void (c.retry_words.refetch!.requires = ['field']));
    expect(brief(result.breaking)).toEqual([{ rule: 'field-now-required', word: 'refetch', pointer: '/retry_words/refetch/requires' }]);
    expect(result.breaking[0]!.message).toContain('conflict');
  });

  it('reports a code whose new retry word requires a delay', () => {
    const result = against((c) => void (c.codes.internal!.retry = 'after_delay'));
    expect(brief(result.breaking)).toEqual([
      { rule: 'retry-changed', code: 'internal', pointer: '/codes/internal/retry' },
      { rule: 'delay-now-required', code: 'internal', word: 'after_delay', pointer: '/codes/internal/retry' },
    ]);
  });

  it('reports a retry word that now requires a delay, at the word', () => {
    const result = against((c) => void (c.retry_words.once!.requires = ['retry_after']));
    expect(brief(result.breaking)).toEqual([{ rule: 'delay-now-required', word: 'once', pointer: '/retry_words/once/requires' }]);
  });

  it('reports a removed retry word at its place in the before catalog', () => {
    const result = against((c) => delete c.retry_words.pay);
    expect(brief(result.breaking)).toEqual([{ rule: 'retry-word-removed', word: 'pay', pointer: '/retry_words/pay' }]);
    expect(result.breaking[0]!.message).toContain('payment_required');
  });

  it('reports a stable code that became a draft as breaking', () => {
    const result = against((c) => void (c.codes.not_found!.draft = true));
    expect(brief(result.breaking)).toEqual([{ rule: 'code-now-draft', code: 'not_found', pointer: '/codes/not_found/draft' }]);
    expect(result.nonBreaking).toEqual([]);
  });

  it('reports a code moved out of core into a draft family as a family change and a stable code made draft', () => {
    const result = against((c) => Object.assign(c.codes.payment_declined!, { family: 'payment', draft: true }));
    expect(brief(result.breaking).map((c) => c.rule)).toEqual(['family-changed', 'code-now-draft']);
  });
});

describe('non-breaking changes to a catalog', () => {
  it('reports an added code as non-breaking and says it breaks consumers whose enum is closed', () => {
    const result = against((c) => void (c.codes.coupon_expired = { ...c.codes.out_of_stock!, title: 'Coupon expired' }));
    expect(result.breaking).toEqual([]);
    expect(brief(result.nonBreaking)).toEqual([{ rule: 'code-added', code: 'coupon_expired', pointer: '/codes/coupon_expired' }]);
    expect(result.nonBreaking[0]!.message).toMatch(/breaking for consumers whose enum is declared closed \(exhaustive switches, closed enums in generated clients\)/);
  });

  it('moves an added code to the breaking changes with closedEnums', () => {
    const result = against((c) => void (c.codes.coupon_expired = { ...c.codes.out_of_stock!, title: 'Coupon expired' }), { closedEnums: true });
    expect(brief(result.breaking)).toEqual([{ rule: 'code-added', code: 'coupon_expired', pointer: '/codes/coupon_expired' }]);
    expect(result.breaking[0]!.message).toContain('closedEnums');
    expect(result.nonBreaking).toEqual([]);
  });

  it('reports an added retry word as non-breaking, and as breaking with closedEnums', () => {
    const edit = (c: Catalog) => void (c.retry_words.renegotiate = { next_step: 'fix_request', requires: [], advice: 'Make a new offer.' });
    expect(brief(against(edit).nonBreaking)).toEqual([{ rule: 'retry-word-added', word: 'renegotiate', pointer: '/retry_words/renegotiate' }]);
    expect(brief(against(edit, { closedEnums: true }).breaking)).toEqual([{ rule: 'retry-word-added', word: 'renegotiate', pointer: '/retry_words/renegotiate' }]);
  });

  it("reports a code's title change", () => {
    const result = against((c) => void (c.codes.not_found!.title = 'No such thing'));
    expect(result.breaking).toEqual([]);
    expect(brief(result.nonBreaking)).toEqual([{ rule: 'title-changed', code: 'not_found', pointer: '/codes/not_found/title' }]);
  });

  it("reports a code's advice change and a retry word's advice change", () => {
    const result = against((c) => {
      c.codes.not_found!.advice = 'Stop; nothing is there.';
      c.retry_words.no!.advice = 'Stop.';
    });
    expect(result.breaking).toEqual([]);
    expect(brief(result.nonBreaking)).toEqual([
      { rule: 'advice-changed', word: 'no', pointer: '/retry_words/no/advice' },
      { rule: 'advice-changed', code: 'not_found', pointer: '/codes/not_found/advice' },
    ]);
  });

  it('reports a draft code that became stable as non-breaking, pointing at its draft member or at the code when the member is gone', () => {
    const flagged = against((c) => void (c.codes.signature_invalid!.draft = false));
    expect(flagged.breaking).toEqual([]);
    expect(brief(flagged.nonBreaking)).toEqual([{ rule: 'draft-changed', code: 'signature_invalid', pointer: '/codes/signature_invalid/draft' }]);
    const dropped = against((c) => delete c.codes.signature_invalid!.draft);
    expect(brief(dropped.nonBreaking)).toEqual([{ rule: 'draft-changed', code: 'signature_invalid', pointer: '/codes/signature_invalid' }]);
  });

  it('reports a requirement a retry word no longer has as non-breaking', () => {
    const result = against((c) => void (c.retry_words.fix_input!.requires = []));
    expect(result.breaking).toEqual([]);
    expect(brief(result.nonBreaking)).toEqual([{ rule: 'requirement-dropped', word: 'fix_input', pointer: '/retry_words/fix_input/requires' }]);
  });
});

describe("a site's extension catalogs", () => {
  it("reads codes without retry words through the package's own retry words", () => {
    const result = diffCatalog(fixture('site-codes-before.json'), fixture('site-codes-after.json'));
    expect(brief(result.breaking)).toEqual([
      { rule: 'code-removed', code: 'gift_card_empty', pointer: '/codes/gift_card_empty' },
      { rule: 'retry-changed', code: 'coupon_expired', pointer: '/codes/coupon_expired/retry' },
      { rule: 'next-step-changed', code: 'coupon_expired', word: 'fix_input', pointer: '/codes/coupon_expired/retry' },
      { rule: 'field-now-required', code: 'coupon_expired', word: 'fix_input', pointer: '/codes/coupon_expired/retry' },
    ]);
    expect(brief(result.nonBreaking)).toEqual([
      { rule: 'advice-changed', code: 'coupon_expired', pointer: '/codes/coupon_expired/advice' },
      { rule: 'code-added', code: 'basket_too_large', pointer: '/codes/basket_too_large' },
    ]);
  });
});

describe('OpenAPI documents', () => {
  it('reports a code removed from the KnownCode enum of the 3.1 components at its place in the before document', () => {
    const after = openapi(OPENAPI_31, (d) => {
      d.components.schemas.KnownCode.enum = d.components.schemas.KnownCode.enum.filter((c: string) => c !== 'offer_rejected');
    });
    const result = diffCatalog(OPENAPI_31, after);
    expect(brief(result.breaking)).toEqual([{ rule: 'code-removed', code: 'offer_rejected', pointer: '/components/schemas/KnownCode/enum/24' }]);
    expect(result.breaking[0]!.message).toContain('examples still show it');
    expect(result.nonBreaking).toEqual([]);
  });

  it("reports a code an example of the 3.0 components now shows as added, at the example's code", () => {
    const after = openapi(OPENAPI_30, (d) => void (d.components.examples.rate_limited_envelope.value.error.code = 'too_many_requests'));
    const result = diffCatalog(OPENAPI_30, after);
    expect(result.breaking).toEqual([]);
    expect(brief(result.nonBreaking)).toEqual([
      { rule: 'code-added', code: 'too_many_requests', pointer: '/components/examples/rate_limited_envelope/value/error/code' },
    ]);
  });

  it('moves that added code to the breaking changes with closedEnums', () => {
    const after = openapi(OPENAPI_30, (d) => void (d.components.examples.rate_limited_envelope.value.error.code = 'too_many_requests'));
    expect(brief(diffCatalog(OPENAPI_30, after, { closedEnums: true }).breaking)).toEqual([
      { rule: 'code-added', code: 'too_many_requests', pointer: '/components/examples/rate_limited_envelope/value/error/code' },
    ]);
  });

  it('reports a code removed from the enum and from every example once', () => {
    const after = openapi(OPENAPI_30, (d) => {
      d.components.schemas.KnownCode.enum = d.components.schemas.KnownCode.enum.filter((c: string) => c !== 'not_found');
      const media = d.components.responses.NotFound.content;
      for (const type of Object.keys(media)) delete media[type].examples.not_found;
    });
    const result = diffCatalog(OPENAPI_30, after);
    expect(brief(result.breaking)).toEqual([{ rule: 'code-removed', code: 'not_found', pointer: '/components/schemas/KnownCode/enum/8' }]);
    expect(result.nonBreaking).toEqual([]);
  });

  it('reports a code whose example moved to a response of another status as a status change', () => {
    const after = openapi(OPENAPI_31, (d) => {
      const { responses } = d.components;
      for (const type of ['application/json', 'application/problem+json']) {
        responses.NotFound.content[type].examples.offer_expired = responses.Gone.content[type].examples.offer_expired;
        delete responses.Gone.content[type].examples.offer_expired;
      }
    });
    const result = diffCatalog(OPENAPI_31, after);
    expect(brief(result.breaking)).toEqual([{ rule: 'status-changed', code: 'offer_expired', pointer: '/components/examples/offer_expired_envelope/value/error/code' }]);
    expect(result.breaking[0]!.message).toContain('404, not 410');
  });

  it("reads the error responses of a spec's operations: inline code enums, statuses from the response keys, renames, and examples' retry words", () => {
    const result = diffCatalog(fixture('orders-before.json'), fixture('orders-after.json'));
    expect(brief(result.breaking)).toEqual([
      { rule: 'code-renamed', code: 'payment_stale', pointer: '/components/schemas/OrderErrorCode/enum/2' },
      { rule: 'code-removed', code: 'coupon_expired', pointer: '/components/schemas/OrderErrorCode/enum/3' },
      {
        rule: 'status-changed',
        code: 'order_locked',
        pointer: '/paths/~1orders~1{id}/get/responses/423/content/application~1problem+json/examples/order_locked/value/code',
      },
      { rule: 'retry-changed', code: 'rate_limited', pointer: '/components/responses/TooManyRequests/content/application~1json/example/error/retry' },
    ]);
    // The 200 response's own `code` enum (a discount code) is not an error code.
    expect(brief(result.nonBreaking)).toEqual([{ rule: 'code-added', code: 'order_archived', pointer: '/components/schemas/OrderErrorCode/enum/4' }]);
  });

  it('compares a catalog with an OpenAPI document on the codes both declare', () => {
    const after = openapi(OPENAPI_31, (d) => {
      d.components.schemas.KnownCode.enum = d.components.schemas.KnownCode.enum.filter((c: string) => c !== 'offer_rejected');
      const media = d.components.responses.UnprocessableEntity.content;
      for (const type of Object.keys(media)) delete media[type].examples.offer_rejected;
    });
    expect(brief(diffCatalog(CATALOG, after).breaking)).toEqual([{ rule: 'code-removed', code: 'offer_rejected', pointer: '/codes/offer_rejected' }]);
  });

  it('follows local $refs through cycles, reference loops and deep nesting without hanging', () => {
    const schema: Record<string, unknown> = { type: 'object', properties: { code: { enum: ['looped'] } } };
    (schema.properties as Record<string, unknown>).self = schema;
    let deep: Record<string, unknown> = { properties: { code: { enum: ['deep'] } } };
    for (let i = 0; i < 5000; i++) deep = { properties: { inner: deep } };
    const document = {
      openapi: '3.1.0',
      paths: {
        '/a': { get: { responses: { '400': { content: { 'application/json': { schema } } }, '500': { $ref: '#/components/responses/A' } } } },
        '/b': { $ref: '#/paths/~1b' },
      },
      components: {
        responses: { A: { $ref: '#/components/responses/B' }, B: { $ref: '#/components/responses/A' }, C: { content: { 'application/json': { schema: deep } } } },
        schemas: { KnownCode: { $ref: '#/components/schemas/KnownCode', enum: ['known'] }, ErrorCode: { $ref: '#' } },
      },
    };
    const result = diffCatalog(document, { openapi: '3.1.0' });
    expect(result.breaking.map((c) => c.code).sort()).toEqual(['known', 'looped']);
  });
});

describe('$refs to other files and URLs (issue 16, part 3)', () => {
  it('follows only local #/ $refs: an http $ref reaches no server and a ../ $ref reads no file, whatever the $ref string', async () => {
    const server = await serve((_req, res) => void res.end('{}'));
    const spy = spyOnReads();
    try {
      const remote = `${server.url}/codes.json#/components/schemas/ErrorCode`;
      const document = (ref: string, code: string) => ({
        openapi: '3.1.0',
        info: { title: 't', version: '1' },
        paths: { '/a': { get: { responses: { '404': { $ref: ref }, '409': { description: 'c', content: { 'application/json': { schema: { $ref: ref }, example: { error: { code, retry: 'refetch' } } } } } } } } },
        components: { schemas: { ErrorCode: { $ref: ref } } },
      });
      const result = diffCatalog(document(remote, 'stale'), document('../outside.yaml#/components/schemas/Code', 'fresh'));
      expect(result.breaking.map((c) => [c.rule, c.code])).toEqual([['code-removed', 'stale']]);
      fc.assert(
        fc.property(fc.string(), fc.string(), (a, b) => {
          diffCatalog(document(a, 'x'), document(b, 'x'));
        }),
        { numRuns: 200 },
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(server.calls()).toBe(0);
      expect(spy.paths).toEqual([]);
    } finally {
      spy.restore();
      await server.close();
    }
  });
});

describe('malformed input', () => {
  it('throws a TypeError naming what was expected when a side is neither a catalog nor an OpenAPI document', () => {
    for (const bad of [null, undefined, 42, 'schema/catalog.json', [], [CATALOG], {}, { error: {} }]) {
      expect(() => diffCatalog(bad, CATALOG)).toThrow(TypeError);
      expect(() => diffCatalog(CATALOG, bad)).toThrow(/`codes` member.*`openapi` member/);
    }
    expect(contractKind({ codes: {} })).toBe('catalog');
    expect(contractKind({ openapi: '3.0.3' })).toBe('openapi');
    expect(contractKind([])).toBeUndefined();
  });

  it('skips entries of unexpected shape instead of reporting on them', () => {
    const before = { codes: { a: { status: 400, retry: 'no' }, b: 'not an entry', c: { status: '409', retry: 7 } }, retry_words: [] };
    const after = { codes: { a: { status: 'four hundred', retry: null }, b: { status: 400 }, c: null }, retry_words: 'none' };
    expect(diffCatalog(before, after)).toEqual({ breaking: [], nonBreaking: [] });
  });

  it('never throws on arbitrary objects that have a codes member or an openapi member', () => {
    const anything = fc.anything({
      maxDepth: 3,
      withBigInt: true,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withObjectString: true,
      withSparseArray: true,
      withTypedArray: true,
    });
    const word = fc.oneof(fc.constantFrom(...Object.keys(RETRY_WORDS)), anything);
    const ref = fc.oneof(
      fc.constantFrom('#', '#/', '#/components', '#/components/schemas/KnownCode', '#/components/responses/A', '#/paths', '#%E0%A4%A', './x.json#/a', '#/a~1b/~0', '#/codes/0'),
      fc.string().map((s) => `#${s}`),
    );
    const schema = fc.letrec((tie) => ({
      schema: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        anything,
        fc.record({ $ref: ref }),
        fc.record(
          {
            enum: fc.oneof(fc.array(fc.oneof(fc.string(), anything)), anything),
            const: anything,
            properties: fc.oneof(fc.dictionary(fc.constantFrom('code', 'error', 'x'), tie('schema')), anything),
            allOf: fc.array(tie('schema'), { maxLength: 2 }),
            items: tie('schema'),
          },
          { requiredKeys: [] },
        ),
      ),
    })).schema;
    const example = fc.oneof(
      anything,
      fc.record(
        {
          error: fc.oneof(anything, fc.record({ code: fc.oneof(fc.string(), anything), retry: word }, { requiredKeys: [] })),
          code: fc.oneof(fc.string(), anything),
          status: fc.oneof(fc.integer({ min: 100, max: 600 }), anything),
          title: anything,
          retry: word,
          next_step: anything,
        },
        { requiredKeys: [] },
      ),
    );
    const response = fc.oneof(
      anything,
      fc.record({ $ref: ref }),
      fc.record(
        {
          description: fc.oneof(fc.constantFrom('404 Not Found', '200 OK', '  503', 'default'), anything),
          content: fc.oneof(
            anything,
            fc.dictionary(
              fc.string(),
              fc.record(
                { schema, example, examples: fc.oneof(anything, fc.dictionary(fc.string(), fc.oneof(fc.record({ $ref: ref }), fc.record({ value: example })))) },
                { requiredKeys: [] },
              ),
            ),
          ),
        },
        { requiredKeys: [] },
      ),
    );
    const operation = fc.record({ responses: fc.oneof(anything, fc.dictionary(fc.constantFrom('404', '4XX', 'default', '200', 'x'), response)) }, { requiredKeys: [] });
    const openApiDocument = fc.record(
      {
        openapi: anything,
        paths: fc.oneof(anything, fc.dictionary(fc.string(), fc.oneof(anything, fc.record({ $ref: ref }), fc.dictionary(fc.constantFrom('get', 'post', 'x'), operation)))),
        components: fc.oneof(
          anything,
          fc.record(
            {
              schemas: fc.oneof(anything, fc.dictionary(fc.constantFrom('KnownCode', 'ErrorCode', 'Other'), schema)),
              responses: fc.oneof(anything, fc.dictionary(fc.constantFrom('A', 'B', 'C'), response)),
              examples: fc.dictionary(fc.string(), fc.record({ value: example }, { requiredKeys: [] })),
            },
            { requiredKeys: [] },
          ),
        ),
      },
      { requiredKeys: ['openapi'] },
    );
    const catalogDocument = fc.record(
      {
        codes: fc.oneof(
          anything,
          fc.dictionary(
            fc.string(),
            fc.oneof(
              anything,
              fc.record(
                { status: fc.oneof(fc.integer({ min: 400, max: 599 }), anything), retry: word, title: fc.oneof(fc.constantFrom('A', 'B'), anything), advice: anything, family: anything, draft: anything },
                { requiredKeys: [] },
              ),
            ),
          ),
        ),
        retry_words: fc.oneof(
          anything,
          fc.dictionary(
            fc.string(),
            fc.oneof(anything, fc.record({ next_step: anything, requires: fc.oneof(anything, fc.array(fc.constantFrom('field', 'retry_after'))), advice: anything }, { requiredKeys: [] })),
          ),
        ),
      },
      { requiredKeys: ['codes'] },
    );
    /** Any object, given a codes or openapi member. */
    const bare = fc.tuple(fc.object(), fc.constantFrom('codes', 'openapi'), anything).map(([o, key, value]) => Object.assign(o, { [key]: value }));
    /** A real document with one subtree replaced by anything. */
    const mutated = fc.tuple(fc.constantFrom(CATALOG, OPENAPI_31, OPENAPI_30), fc.array(fc.nat(), { minLength: 1, maxLength: 8 }), anything).map(([source, path, value]) => {
      const copy = structuredClone(source) as Record<string, unknown>;
      let node: unknown = copy;
      for (let i = 0; i < path.length; i++) {
        if (typeof node !== 'object' || node === null) break;
        const keys = Object.keys(node);
        if (keys.length === 0) break;
        const key = keys[path[i]! % keys.length]!;
        if (i === path.length - 1 && !(node === copy && (key === 'codes' || key === 'openapi'))) (node as Record<string, unknown>)[key] = value;
        else node = (node as Record<string, unknown>)[key];
      }
      return copy;
    });
    const side = fc.oneof(bare, openApiDocument, catalogDocument, mutated);
    fc.assert(
      fc.property(side, side, fc.boolean(), (before, after, closedEnums) => {
        const result = diffCatalog(before, after, { closedEnums });
        for (const change of [...result.breaking, ...result.nonBreaking]) {
          expect(RULE_IDS.has(change.rule)).toBe(true);
          expect(typeof change.pointer).toBe('string');
          expect(typeof change.message).toBe('string');
        }
        expect(typeof formatDiff(result)).toBe('string');
      }),
      { numRuns: 1000 },
    );
  });
});

describe('the rule tables and the text output', () => {
  it('gives every rule a unique kebab-case id, a summary and a fix, in exactly one of the two tables', () => {
    // Typed, so that the generated tables keep the shape DiffRuleInfo promises.
    const all: readonly DiffRuleInfo[] = [...BREAKING_RULES, ...NON_BREAKING_RULES];
    expect(new Set(all.map((r) => r.rule)).size).toBe(all.length);
    for (const r of all) {
      expect(r.rule).toMatch(/^[a-z]+(-[a-z]+)*$/);
      expect(r.summary.length).toBeGreaterThan(20);
      expect(r.fix.length).toBeGreaterThan(10);
    }
    expect(BREAKING_RULES.map((r) => r.rule)).toEqual([
      'code-removed', 'code-renamed', 'status-changed', 'retry-changed', 'next-step-changed', 'family-changed',
      'field-now-required', 'delay-now-required', 'retry-word-removed', 'code-now-draft',
    ]);
    expect(NON_BREAKING_RULES.map((r) => r.rule)).toEqual(['code-added', 'retry-word-added', 'title-changed', 'advice-changed', 'draft-changed', 'requirement-dropped']);
  });

  // The type makes this list name every rule of schema/diff-rules.json and no other, so a rule the
  // schema adds needs a change here that diffCatalog reports under it.
  const CAUSES: Record<DiffRule, () => DiffResult> = {
    'code-removed': () => against((c) => delete c.codes.not_found),
    'code-renamed': () => against((c) => {
      c.codes.sold_out = c.codes.out_of_stock!;
      delete c.codes.out_of_stock;
    }),
    'status-changed': () => against((c) => void (c.codes.offer_expired!.status = 404)),
    'retry-changed': () => against((c) => void (c.codes.not_found!.retry = 'ask_human')),
    'next-step-changed': () => against((c) => void (c.retry_words.no!.next_step = 'wait')),
    'family-changed': () => against((c) => void (c.codes.not_found!.family = 'payment')),
    'field-now-required': () => against((c) => void (c.retry_words.no!.requires = ['field'])),
    'delay-now-required': () => against((c) => void (c.retry_words.no!.requires = ['retry_after'])),
    'retry-word-removed': () => against((c) => delete c.retry_words.ask_human),
    'code-now-draft': () => against((c) => void (c.codes.not_found!.draft = true)),
    'code-added': () => against((c) => void (c.codes.coupon_expired = { ...c.codes.out_of_stock!, title: 'Coupon expired' })),
    'retry-word-added': () => against((c) => void (c.retry_words.later = { ...c.retry_words.after_delay! })),
    'title-changed': () => against((c) => void (c.codes.not_found!.title = 'Nothing here')),
    'advice-changed': () => against((c) => void (c.codes.not_found!.advice = 'Look elsewhere.')),
    'draft-changed': () => diffCatalog(catalog((c) => void (c.codes.not_found!.draft = true)), catalog()),
    'requirement-dropped': () => against((c) => void (c.retry_words.fix_input!.requires = [])),
  };

  it.each(Object.entries(CAUSES))('reports %s for a change that makes it, in the table it is listed in', (rule, cause) => {
    const result = cause();
    const breaking = BREAKING_RULES.some((r) => r.rule === rule);
    expect((breaking ? result.breaking : result.nonBreaking).map((c) => c.rule)).toContain(rule);
    expect((breaking ? result.nonBreaking : result.breaking).map((c) => c.rule)).not.toContain(rule);
  });

  it('prints one line per change, breaking first, and a summary line', () => {
    const result = against((c) => {
      c.codes.coupon_expired = { ...c.codes.out_of_stock!, title: 'Coupon expired' };
      c.codes.not_found!.status = 410;
    });
    const lines = formatDiff(result).split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^breaking status-changed not_found at \/codes\/not_found\/status: .* Fix: /);
    expect(lines[1]).toMatch(/^non-breaking code-added coupon_expired at \/codes\/coupon_expired: /);
    expect(lines[2]).toBe('1 breaking change, 1 non-breaking change.');
  });
});
