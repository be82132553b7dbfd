// generated/catalog.ts (catalog.js and .d.ts for a site): the catalog as typed constant data, with every code's vendor equivalents and example bodies.
import { STATUS_CODES } from 'node:http';
import type { Catalog } from './catalog-model.js';
import { allExamples } from './examples.js';
import { headerSentence, scriptHeader, type HeaderSentence } from './header.js';
import { constant, types, type GeneratedModule } from './module.js';

/** Reason phrases of the 4xx and 5xx statuses Node knows. */
function statusText(): Record<number, string> {
  const out: Record<number, string> = {};
  for (const [status, text] of Object.entries(STATUS_CODES)) if (Number(status) >= 400 && Number(status) <= 599 && text) out[Number(status)] = text;
  return out;
}

/**
 * The codes as run-time code reads them: what each code means. Its example goes to EXAMPLES and its
 * names in other vocabularies to EQUIVALENTS, tables a bundler leaves out of an app that does not
 * import them (the vendor names alone are about 200 B of every gzipped entry point).
 */
function meanings(codes: Catalog['codes']): Record<string, unknown> {
  return Object.fromEntries(Object.entries(codes).map(([code, { example: _example, google: _google, stripe: _stripe, ...entry }]) => [code, entry]));
}

/** Each code's names in Google's and Stripe's vocabularies. */
function equivalents(codes: Catalog['codes']): Record<string, unknown> {
  return Object.fromEntries(Object.entries(codes).map(([code, { google, stripe }]) => [code, { google, stripe }]));
}

/** generated/catalog.ts as a module; `codePattern` is the Code pattern of schema/common.schema.json. */
export function emitCatalog(catalog: Catalog, codePattern: string, header: HeaderSentence = headerSentence): GeneratedModule {
  // As a JavaScript literal, its groups made non-capturing: the same language, matched without captures.
  const pattern = new RegExp(codePattern.replace(/\((?!\?)/g, '(?:'));
  return {
    header: scriptHeader('schema/catalog.json', header),
    parts: [
      types("import type { Code, CodeRetry, RetryWord, NextStep } from './types.js';"),
      types(
        [
          '/** How a retry word is rendered, what an error carrying it must include, and what an agent does. */',
          'export interface RetryWordEntry {',
          '  readonly next_step: NextStep;',
          "  readonly requires: readonly ('field' | 'retry_after')[];",
          '  readonly default_retry_after?: number;',
          '  readonly idempotent_only?: boolean;',
          '  readonly advice: string;',
          '  /** The advice for an error of this word whose delay is unknown (retry_after null), in place of the code\'s. */',
          '  readonly advice_without_delay?: string;',
          '}',
        ].join('\n'),
      ),
      types(
        [
          '/** One code of the catalog. */',
          'export interface CodeEntry {',
          '  readonly status: number;',
          '  readonly retry: RetryWord;',
          '  readonly title: string;',
          '  readonly advice: string;',
          "  readonly family: 'core' | 'identity' | 'payment' | 'negotiation' | 'site';",
          '  readonly draft?: boolean;',
          '}',
        ].join('\n'),
      ),
      types(
        [
          "/** What a code is called in other vendors' error vocabularies. */",
          'export interface EquivalentEntry {',
          "  /** The google.rpc.Code name (AIP-193) an API in Google's dialect would send. */",
          '  readonly google: string;',
          '  /** The error type Stripe would send. */',
          '  readonly stripe: string;',
          '}',
        ].join('\n'),
      ),
      constant({ doc: '/** Every retry word, keyed by the word. */', name: 'RETRY_WORDS', value: catalog.retry_words, asConst: true, satisfies: 'Record<RetryWord, RetryWordEntry>' }),
      constant({
        doc: '/** Every code, keyed by the code, in catalog order. Its example is in EXAMPLES, which no run-time path loads. */',
        name: 'CODES',
        value: meanings(catalog.codes),
        asConst: true,
        satisfies: '{ readonly [C in Code]: CodeEntry & { readonly retry: CodeRetry[C] } }',
      }),
      constant({
        doc: "/** Every code's names in Google's and Stripe's vocabularies, for rendering an error in their dialects. */",
        name: 'EQUIVALENTS',
        value: equivalents(catalog.codes),
        asConst: true,
        satisfies: '{ readonly [C in Code]: EquivalentEntry }',
      }),
      constant({ doc: '/** The code an agent gives a response that names none, by HTTP status. */', name: 'STATUS_DEFAULTS', value: catalog.status_defaults, type: 'Readonly<Record<string, Code>>' }),
      constant({
        doc: '/** The code for an error status that STATUS_DEFAULTS does not list, by class. */',
        name: 'STATUS_FALLBACKS',
        value: catalog.status_fallbacks,
        asConst: true,
        satisfies: "{ readonly '4xx': Code; readonly '5xx': Code }",
      }),
      constant({ doc: "/** What a code looks like, a catalog's or a site's own: lowercase snake case (common.schema.json, Code). */", name: 'CODE_PATTERN', value: pattern }),
      constant({
        doc: "/** The catalog code whose status and retry word an agent gives a code it does not know (a site's own). */",
        name: 'UNKNOWN_CODE',
        value: catalog.unknown_code,
        satisfies: 'Code',
      }),
      constant({
        doc: "/** How an agent reads other vendors' error vocabularies: each table maps a vendor's value to a catalog code. */",
        name: 'READERS',
        value: catalog.readers,
        asConst: true,
        // Every other table's values are codes (load-catalog.ts checks them); crawler_error_header's are header names.
        satisfies:
          '{ readonly next_step: Readonly<Record<NextStep, RetryWord>>; readonly signals: Readonly<Record<string, Code>>; readonly x402_error: Readonly<Record<string, Code>>; readonly crawler_error: Readonly<Record<string, Code>> } & Record<string, Readonly<Record<string, string>>>',
      }),
      constant({
        doc: '/** The reason phrase of every error status (RFC 9110 section 15), for messages when a response says nothing better. */',
        name: 'STATUS_TEXT',
        value: statusText(),
        type: 'Readonly<Record<number, string>>',
      }),
      constant({ doc: '/** The origin the documentation examples use for problem type URIs. */', name: 'EXAMPLE_BASE', value: catalog.example_base }),
      constant({
        doc: "/** Each code's example: status, headers, envelope and problem body, as the docs and OpenAPI components show them. */",
        name: 'EXAMPLES',
        value: allExamples(catalog),
        asConst: true,
      }),
    ],
  };
}
