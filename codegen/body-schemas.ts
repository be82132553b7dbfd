// Loads the body schemas and hoists their definitions into one flat, named set, the form that
// OpenAPI components, json-schema-to-typescript and ajv each take.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BODY_SCHEMA_FILES, SCHEMA_DIR } from './paths.js';

export type Schema = Record<string, unknown>;
interface SchemaFile extends Schema {
  title: string;
  $defs: Record<string, Schema>;
}

export interface BodySchemas {
  common: SchemaFile;
  envelope: SchemaFile;
  problem: SchemaFile;
}

let cache: Promise<BodySchemas> | undefined;

/** Reads common, envelope and problem schema files once per process. */
export function loadBodySchemas(): Promise<BodySchemas> {
  cache ??= (async () => {
    const [common, envelope, problem] = await Promise.all(
      BODY_SCHEMA_FILES.map(async (name) => JSON.parse(await readFile(join(SCHEMA_DIR, name), 'utf8')) as SchemaFile),
    );
    return { common: common!, envelope: envelope!, problem: problem! };
  })();
  return cache;
}

/** Rewrites every $ref in a schema with `rename`, returning a copy. */
export function mapRefs(schema: unknown, rename: (ref: string) => string): unknown {
  if (Array.isArray(schema)) return schema.map((item) => mapRefs(item, rename));
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    out[key] = key === '$ref' && typeof value === 'string' ? rename(value) : mapRefs(value, rename);
  }
  return out;
}

/**
 * Every definition of the body schemas under its own name, each file's root under its title,
 * with references pointing at `prefix + name` (e.g. `#/components/schemas/`).
 */
export async function hoistedSchemas(prefix: string): Promise<Record<string, Schema>> {
  const files = await loadBodySchemas();
  const byFile = new Map<string, string>();
  for (const [key, file] of Object.entries(files)) byFile.set(`${key}.schema.json`, (file as SchemaFile).title);
  const out: Record<string, Schema> = {};
  for (const [key, file] of Object.entries(files) as [string, SchemaFile][]) {
    const rename = (ref: string): string => {
      const [target = '', pointer = ''] = ref.split('#');
      const defName = /^\/\$defs\/([^/]+)$/.exec(pointer)?.[1];
      if (defName) return prefix + defName;
      if (pointer === '' && byFile.has(target)) return prefix + byFile.get(target)!;
      throw new Error(`schema/${key}.schema.json: the reference ${ref} does not name a definition`);
    };
    const { $defs, $schema: _schema, ...root } = file;
    if (key !== 'common') out[file.title] = mapRefs(root, rename) as Schema;
    for (const [name, def] of Object.entries($defs)) {
      out[name] = { title: name, ...(mapRefs(def, rename) as Schema) };
    }
  }
  return out;
}
