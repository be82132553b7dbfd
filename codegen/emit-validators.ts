// generated/validators.js (+ .d.ts): ajv standalone validators, so no schema is compiled at run
// time and ajv is a build-time dependency only. Besides the schemas' own rules, each validator
// checks a known code against the catalog: its retry word, its status, and the word's next step.
import { Ajv2020 } from 'ajv/dist/2020.js';
import standalone from 'ajv/dist/standalone/index.js';
import type { Catalog, Requirement } from './catalog-model.js';
import { hoistedSchemas, type Schema } from './body-schemas.js';
import { headerSentence, scriptHeader, type HeaderSentence } from './header.js';

const standaloneCode = standalone.default;
const ID = 'agent-errors';

/** The catalog's codes grouped by a value computed from each. */
function groupBy(catalog: Catalog, key: (code: string) => string | number): Record<string, string[]> {
  const groups: Record<string, string[]> = {};
  for (const code of Object.keys(catalog.codes)) (groups[key(code)] ??= []).push(code);
  return groups;
}

/**
 * `if code is one of these then member is V`, one rule per distinct value of `member` across the
 * catalog's codes. Grouping by value keeps the standalone module small.
 */
function codeRules(catalog: Catalog, member: 'retry' | 'status'): Schema[] {
  return Object.entries(groupBy(catalog, (code) => catalog.codes[code]![member])).map(([value, codes]) => ({
    if: { required: ['code'], properties: { code: { enum: codes } } },
    then: { properties: { [member]: { const: member === 'status' ? Number(value) : value } } },
  }));
}

/** `if code is one of these then ...` for the codes whose retry word requires `requirement`. */
function requirementRule(catalog: Catalog, requirement: Requirement, then: Schema): Schema[] {
  const codes = Object.keys(catalog.codes).filter((code) => catalog.retry_words[catalog.codes[code]!.retry]!.requires.includes(requirement));
  return codes.length ? [{ if: { required: ['code'], properties: { code: { enum: codes } } }, then }] : [];
}

/**
 * The schemas the validators are compiled from: the body schemas plus the catalog's rules. A known
 * code must carry its own retry word (and, in a problem, its status and next step) and what its
 * word requires, even when a problem body leaves the optional retry member out.
 */
export async function validatorSchema(catalog: Catalog): Promise<Schema> {
  const $defs = await hoistedSchemas('#/$defs/');
  $defs.CatalogEnvelope = {
    allOf: [
      { $ref: '#/$defs/Envelope' },
      {
        properties: {
          error: {
            allOf: [
              ...codeRules(catalog, 'retry'),
              ...requirementRule(catalog, 'field', { properties: { field: { type: 'string' } } }),
              ...requirementRule(catalog, 'retry_after', { properties: { retry_after: { type: 'integer' } } }),
            ],
          },
        },
      },
    ],
  };
  // An envelope an agent built from a response that did not say everything: the same shape and
  // catalog agreement, without the rules that the sender name a field or a delay.
  const { allOf: _contractRules, ...receivedError } = $defs.EnvelopeError!;
  $defs.ReceivedEnvelopeError = receivedError;
  $defs.CatalogReceivedEnvelope = {
    allOf: [
      { ...$defs.Envelope, properties: { error: { $ref: '#/$defs/ReceivedEnvelopeError' } } },
      { properties: { error: { allOf: codeRules(catalog, 'retry') } } },
    ],
  };
  // Agreement of a known code with its status, retry word and next step, for both problem validators.
  const problemAgreement = [
    ...codeRules(catalog, 'retry'),
    ...codeRules(catalog, 'status'),
    ...Object.entries(catalog.retry_words).map(([word, entry]) => ({
      if: { required: ['retry'], properties: { retry: { const: word } } },
      then: { properties: { next_step: { const: entry.next_step } } },
    })),
    ...Object.entries(groupBy(catalog, (code) => catalog.retry_words[catalog.codes[code]!.retry]!.next_step)).map(([step, codes]) => ({
      if: { required: ['code'], properties: { code: { enum: codes } } },
      then: { properties: { next_step: { const: step } } },
    })),
  ];
  $defs.CatalogProblem = {
    allOf: [
      { $ref: '#/$defs/Problem' },
      ...problemAgreement,
      ...requirementRule(catalog, 'field', { required: ['param'] }),
      ...requirementRule(catalog, 'retry_after', { required: ['retry_after_seconds'] }),
    ],
  };
  // A problem converted from a response that named no field or delay: shape and agreement only.
  const { allOf: _problemRules, ...receivedProblem } = $defs.Problem!;
  $defs.CatalogReceivedProblem = { allOf: [receivedProblem, ...problemAgreement] };
  return { $id: ID, $defs };
}

/** Named exports of the standalone module, each a validator for one body. */
export const VALIDATOR_EXPORTS = {
  envelope: 'CatalogEnvelope',
  receivedEnvelope: 'CatalogReceivedEnvelope',
  problem: 'CatalogProblem',
  receivedProblem: 'CatalogReceivedProblem',
} as const;

/** A fresh ajv with the options both the standalone build and the run-time comparison use. */
export function newAjv(): Ajv2020 {
  return new Ajv2020({ allErrors: true, strict: true, strictTypes: false, strictRequired: false, code: { source: true, esm: true } });
}

/** The text of generated/validators.js. */
export async function emitValidators(catalog: Catalog, header: HeaderSentence = headerSentence): Promise<string> {
  const ajv = newAjv();
  ajv.addSchema(await validatorSchema(catalog));
  const refs = Object.fromEntries(Object.entries(VALIDATOR_EXPORTS).map(([name, def]) => [name, `${ID}#/$defs/${def}`]));
  const code = standaloneCode(ajv, refs);
  if (/\brequire\(/.test(code)) throw new Error('ajv standalone output requires a runtime module; avoid the keyword that needs it');
  // ajv emits `export const name = validateN;` at the top. The validators run a little faster with
  // their schema constants in a function scope than at module scope, so wrap them in one.
  const exported: [string, string][] = [];
  const body = code
    .replace(/^"use strict";/, '')
    .replace(/export const (\w+) = (\w+);/g, (_m, name: string, fn: string) => {
      exported.push([name, fn]);
      return '';
    });
  const names = exported.map(([name]) => name).join(', ');
  return [
    scriptHeader('schema/*.schema.json and schema/catalog.json', header),
    `export const { ${names} } = (() => {`,
    body,
    `return { ${exported.map(([name, fn]) => `${name}: ${fn}`).join(', ')} };`,
    '})();',
    '',
  ].join('\n');
}

/** The text of generated/validators.d.ts. */
export function emitValidatorTypes(header: HeaderSentence = headerSentence): string {
  return [
    scriptHeader('schema/*.schema.json and schema/catalog.json', header),
    "import type { Envelope, Problem } from './types.js';",
    '',
    '/** One reason a value was refused, as ajv reports it. */',
    'export interface ValidatorError {',
    '  instancePath: string;',
    '  schemaPath: string;',
    '  keyword: string;',
    '  params: Record<string, unknown>;',
    '  message?: string;',
    '}',
    '',
    '/** A compiled validator: a type guard whose `errors` says why the last value was refused. */',
    'export interface Validator<T> {',
    '  (value: unknown): value is T;',
    '  errors?: ValidatorError[] | null;',
    '}',
    '',
    '/** Checks an envelope against the schema and the catalog. */',
    'export declare const envelope: Validator<Envelope>;',
    '',
    '/** Checks an envelope an agent built from a response: the shape and the catalog, without requiring a field or delay the response did not give. */',
    'export declare const receivedEnvelope: Validator<Envelope>;',
    '',
    '/** Checks a problem body against the schema and the catalog. */',
    'export declare const problem: Validator<Problem>;',
    '',
    '/** Checks a problem body converted from a response: the shape and the catalog, without requiring a param or delay the response did not give. */',
    'export declare const receivedProblem: Validator<Problem>;',
    '',
  ].join('\n');
}
