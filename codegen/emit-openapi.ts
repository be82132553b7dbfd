// generated/openapi.json (3.1) and generated/openapi-3.0.json (3.0.3): components a user's spec
// can $ref: the body schemas, a Retry-After header, one response per catalog status carrying
// both bodies, and one example of each body per code.
import { STATUS_CODES } from 'node:http';
import type { OpenAPIV3, OpenAPIV3_1 } from 'openapi-types';
import type { Catalog } from './catalog-model.js';
import { hoistedSchemas, type Schema } from './body-schemas.js';
import { allExamples } from './examples.js';
import { headerSentence, type HeaderSentence } from './header.js';

const PREFIX = '#/components/schemas/';
const SOURCE = 'schema/catalog.json and schema/*.schema.json';

/** The response component name for a status: its reason phrase in PascalCase (429 -> TooManyRequests). */
export function responseName(status: number): string {
  const phrase = STATUS_CODES[status];
  if (!phrase) throw new Error(`no reason phrase is known for status ${status}`);
  return phrase.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase()).replace(/^./, (c) => c.toUpperCase());
}

/** The statuses the catalog's codes use, ascending, each with its codes in catalog order. */
export function codesByStatus(catalog: Catalog): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const status of [...new Set(Object.values(catalog.codes).map((c) => c.status))].sort((a, b) => a - b)) {
    out.set(status, Object.keys(catalog.codes).filter((code) => catalog.codes[code]!.status === status));
  }
  return out;
}

/** The Retry-After header; required on a response whose codes must all be able to send a delay. */
function retryAfterHeader(required: boolean): OpenAPIV3_1.HeaderObject {
  return {
    description: `Seconds to wait before retrying: the same number as the body's retry_after (envelope) or retry_after_seconds (problem).${required ? ' Sent with every error of this status that must wait.' : ''}`,
    required,
    schema: { type: 'integer', minimum: 0 },
  };
}

/** The 3.1 document. */
export async function openApi31(catalog: Catalog, version: string, header: HeaderSentence = headerSentence): Promise<OpenAPIV3_1.Document> {
  const schemas = (await hoistedSchemas(PREFIX)) as Record<string, OpenAPIV3_1.SchemaObject>;
  schemas.KnownCode = {
    title: 'KnownCode',
    description: 'A code of the catalog. Responses may also carry a site\'s own code, so bodies use Code.',
    type: 'string',
    enum: Object.keys(catalog.codes),
  };
  const examples: Record<string, OpenAPIV3_1.ExampleObject> = {};
  for (const [code, example] of Object.entries(allExamples(catalog))) {
    const entry = catalog.codes[code]!;
    examples[`${code}_envelope`] = { summary: `${code}: ${entry.title} (envelope)`, value: example.envelope };
    examples[`${code}_problem`] = { summary: `${code}: ${entry.title} (problem details)`, value: example.problem };
  }
  const waits = new Set(Object.entries(catalog.retry_words).filter(([, w]) => w.requires.includes('retry_after')).map(([word]) => word));
  const responses: Record<string, OpenAPIV3_1.ResponseObject> = {};
  for (const [status, codes] of codesByStatus(catalog)) {
    const delayRequired = codes.some((code) => waits.has(catalog.codes[code]!.retry));
    const media = (body: 'envelope' | 'problem', schema: string): OpenAPIV3_1.MediaTypeObject => ({
      schema: { $ref: PREFIX + schema },
      examples: Object.fromEntries(codes.map((code) => [code, { $ref: `#/components/examples/${code}_${body}` }])),
    });
    responses[responseName(status)] = {
      description: `${status} ${STATUS_CODES[status]}: ${codes.join(', ')}.`,
      // Inline, not a $ref: openapi-typescript ignores `required: false` on a referenced header.
      headers: { 'Retry-After': retryAfterHeader(delayRequired) },
      content: { 'application/json': media('envelope', 'Envelope'), 'application/problem+json': media('problem', 'Problem') },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: '@agent-index/errors components',
      version,
      description: 'Error bodies an autonomous agent can act on. Reference the components from your own spec; this document declares no paths.',
    },
    'x-generated': header(SOURCE),
    paths: {},
    components: {
      schemas,
      headers: { RetryAfter: retryAfterHeader(false) },
      responses,
      examples,
    },
  } as OpenAPIV3_1.Document;
}

/** A 3.1 (JSON Schema 2020-12) schema written as 3.0 allows: no const, no type arrays, no conditions. */
export function toSchema30(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toSchema30);
  if (schema === null || typeof schema !== 'object') return schema;
  const { $ref, ...rest } = schema as Schema;
  // A 3.0 Reference Object takes no siblings: keep the description beside an allOf.
  if (typeof $ref === 'string' && Object.keys(rest).length > 0) return toSchema30({ ...rest, allOf: [{ $ref }] });
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema as Schema)) {
    if (key === '$schema' || key === '$id' || key === '$defs' || key === 'propertyNames') continue;
    if (key === 'allOf' && Array.isArray(value) && value.every((v) => 'if' in v)) continue; // 3.0 has no if/then
    if (key === 'const') out.enum = [value];
    else if (key === 'type' && Array.isArray(value)) {
      const types = value.filter((t) => t !== 'null');
      if (types.length !== 1) throw new Error(`3.0 cannot express type ${JSON.stringify(value)}`);
      out.type = types[0];
      if (types.length < value.length) out.nullable = true;
    } else if (key === 'examples' && Array.isArray(value)) out.example = value[0];
    else out[key] = toSchema30(value);
  }
  return out;
}

/** The 3.0.3 document, derived from the 3.1 one. */
export function openApi30(doc31: OpenAPIV3_1.Document): OpenAPIV3.Document {
  const components = doc31.components!;
  return {
    ...doc31,
    openapi: '3.0.3',
    components: {
      ...components,
      schemas: toSchema30(components.schemas) as Record<string, OpenAPIV3.SchemaObject>,
    },
  } as OpenAPIV3.Document;
}
