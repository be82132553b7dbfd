// generated/types.ts: body types from the schemas (json-schema-to-typescript), code and word
// unions from the catalog, and the per-code requirements builders use to refuse bad errors at compile time.
import { compile } from 'json-schema-to-typescript';
import type { Catalog } from './catalog-model.js';
import { hoistedSchemas, type Schema } from './body-schemas.js';
import { headerSentence, scriptHeader, type HeaderSentence } from './header.js';
import { types, type GeneratedModule } from './module.js';

const OPTIONS = {
  bannerComment: '',
  declareExternallyReferenced: false,
  additionalProperties: false,
  strictIndexSignatures: true,
  format: true,
  unreachableDefinitions: false,
} as const;

/**
 * The definitions as json-schema-to-typescript should see them: conditions dropped (TypeScript
 * cannot state them; the validators do), and scalar definitions inlined so that a described
 * property does not become a new named type.
 */
function forTypes(defs: Record<string, Schema>): Record<string, Schema> {
  const scalar = (name: string): boolean => {
    const def = defs[name]!;
    return def.type !== 'object' && !('enum' in def) && name !== 'Code';
  };
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== 'object') return node;
    const out: Schema = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === 'allOf' && Array.isArray(value) && value.every((v) => 'if' in v)) continue;
      if (key === '$ref' && typeof value === 'string') {
        const name = value.slice('#/$defs/'.length);
        if (scalar(name)) {
          const { title: _title, description: _description, ...inline } = defs[name]!;
          Object.assign(out, inline);
          continue;
        }
      }
      out[key] = walk(value);
    }
    return out;
  };
  return Object.fromEntries(Object.entries(defs).map(([name, def]) => [name, walk(def) as Schema]));
}

/** json-schema-to-typescript for one named definition, with the others reachable by reference. */
async function typeOf(name: string, defs: Record<string, Schema>): Promise<string> {
  const { $defs: _ignored, ...schema } = defs[name]!;
  return (await compile({ ...schema, $defs: defs } as never, name, OPTIONS)).trim();
}

const union = (values: string[]): string => values.map((v) => `\n  | ${JSON.stringify(v)}`).join('');

/** What a builder must be given for a code whose retry word has these requirements. */
function requirementType(requires: string[]): string {
  const members: string[] = [];
  if (requires.includes('field')) members.push('field: string');
  if (requires.includes('retry_after')) members.push('retryAfter: number');
  return members.length ? `{ ${members.join('; ')} }` : '{}';
}

/** generated/types.ts as a module: declarations only, so a site's types.js is an empty module beside its types.d.ts. */
export async function emitTypes(catalog: Catalog, header: HeaderSentence = headerSentence): Promise<GeneratedModule> {
  const defs = forTypes(await hoistedSchemas('#/$defs/'));
  // Any code is a catalog code or a site's own; keep the catalog's literals visible to editors.
  defs.Code = { ...defs.Code, title: 'AnyCode', tsType: 'Code | (string & {})' };
  // A bounded list (maxItems, which the validators check) is a plain array to TypeScript, not a union of tuples of every length.
  const payment = defs.Payment as { properties: Record<string, Schema> };
  payment.properties.options = { ...payment.properties.options, tsType: 'PaymentOption[]' };
  const codes = Object.keys(catalog.codes);
  const names = ['Envelope', 'EnvelopeError', 'FieldError', 'Problem', 'ProblemFieldError', 'RetryWord', 'NextStep', 'Payment', 'PaymentResource', 'PaymentOption', 'PaymentPrice'];
  const bodies = await Promise.all(names.map((name) => typeOf(name, defs)));
  const anyCode = await typeOf('Code', defs);
  const perCode = codes.map((code) => `  ${code}: ${requirementType(catalog.retry_words[catalog.codes[code]!.retry]!.requires)};`);
  const retryOf = codes.map((code) => `  ${code}: ${JSON.stringify(catalog.codes[code]!.retry)};`);
  const text = [
    '/** A code of the catalog. */',
    `export type Code = ${union(codes)};`,
    '',
    anyCode,
    '',
    '/** The delay a wait carries, in whole seconds. */',
    'export type DelaySeconds = number;',
    '',
    ...bodies.flatMap((b) => [b, '']),
    '/** The retry word of each code. */',
    'export interface CodeRetry {',
    ...retryOf,
    '}',
    '',
    '/** What an error with each code must carry: the field at fault (`field`), a delay (`retryAfter`), or nothing more. */',
    'export interface CodeRequirements {',
    ...perCode,
    '}',
  ].join('\n');
  return { header: scriptHeader('schema/catalog.json and schema/*.schema.json', header), parts: [types(text)] };
}
