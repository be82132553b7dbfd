// generated/envelope-output-schema.ts: the envelope's JSON Schema as one self-contained object
// schema, the form an MCP tool's outputSchema takes. Every reference is inlined (no $ref, no $defs,
// no $schema or $id), so any client reads it alike: the MCP SDK's client compiles it with ajv's
// draft-07 default, other clients with 2020-12, and the keywords left mean the same in both.
import { hoistedSchemas, type Schema } from './body-schemas.js';
import { headerSentence, scriptHeader, type HeaderSentence } from './header.js';
import { constant, types, type GeneratedModule } from './module.js';

const PREFIX = '#/$defs/';
/** Members a reference's own siblings may set over its target's: words for readers, not rules. */
const ANNOTATIONS = new Set(['title', 'description']);

/**
 * `node` with every `#/$defs/Name` reference replaced by a copy of its definition, without the
 * definition's title (a type name, which means nothing once inlined) and with its siblings' annotations.
 */
function inline(node: unknown, defs: Record<string, Schema>, seen: readonly string[] = []): unknown {
  if (Array.isArray(node)) return node.map((item) => inline(item, defs, seen));
  if (node === null || typeof node !== 'object') return node;
  const { $ref, ...rest } = node as Schema;
  const own = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, inline(value, defs, seen)]));
  if (typeof $ref !== 'string') return own;
  const name = $ref.startsWith(PREFIX) ? $ref.slice(PREFIX.length) : undefined;
  const target = name === undefined ? undefined : defs[name];
  if (!target) throw new Error(`the envelope's reference ${$ref} names no definition`);
  if (seen.includes(name!)) throw new Error(`the envelope's definition ${name} refers to itself; it cannot be inlined`);
  const { title: _typeName, ...definition } = target;
  const resolved = inline(definition, defs, [...seen, name!]) as Schema;
  for (const key of Object.keys(own)) {
    if (key in resolved && !ANNOTATIONS.has(key)) throw new Error(`the envelope's reference ${$ref} has a sibling ${key} that its definition also sets`);
  }
  return { ...resolved, ...own };
}

/**
 * The envelope a tool returns after a failed call, as one schema: the envelope's shape, without the
 * rules that the sender name a field or a delay (a response may not have given them, and the agent
 * reads it as it came: validateEnvelope with `received: true`).
 */
export async function envelopeOutputSchema(): Promise<Schema> {
  const defs = await hoistedSchemas(PREFIX);
  const { allOf: _senderRules, ...receivedError } = defs.EnvelopeError!;
  const { title: _title, ...envelope } = defs.Envelope!;
  return inline(
    {
      ...envelope,
      description:
        "Why the tool's call failed, as the JSON error envelope: a stable code, the field at fault, one retry word and the delay. A field or delay the site did not give is null.",
    },
    { ...defs, EnvelopeError: receivedError },
  ) as Schema;
}

/** generated/envelope-output-schema.ts as a module. */
export async function emitOutputSchemaModule(header: HeaderSentence = headerSentence): Promise<GeneratedModule> {
  return {
    header: scriptHeader('schema/envelope.schema.json and schema/common.schema.json', header),
    parts: [
      types(
        [
          "/** A JSON Schema of an object: the form an MCP tool's inputSchema and outputSchema take. */",
          'export interface ObjectJsonSchema {',
          "  readonly type: 'object';",
          '  readonly properties?: { readonly [name: string]: object };',
          '  readonly required?: string[];',
          '  readonly [keyword: string]: unknown;',
          '}',
        ].join('\n'),
      ),
      constant({
        doc: [
          '/**',
          " * The envelope's JSON Schema as one self-contained object schema (no $ref), for an MCP tool's",
          ' * outputSchema: what toToolResult puts in structuredContent. A field or delay the site did not give is null.',
          ' */',
        ].join('\n'),
        name: 'ENVELOPE_OUTPUT_SCHEMA',
        value: await envelopeOutputSchema(),
        type: 'ObjectJsonSchema',
      }),
    ],
  };
}
