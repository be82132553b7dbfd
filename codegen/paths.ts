// Where codegen reads and writes, relative to the project root.
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

export const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
export const SCHEMA_DIR = join(ROOT, 'schema');
export const GENERATED_DIR = join(ROOT, 'generated');
export const README = join(ROOT, 'README.md');
export const CATALOG_FILE = 'schema/catalog.json';

/** The schema files that describe bodies on the wire, in the order their definitions are hoisted. */
export const BODY_SCHEMA_FILES = ['common.schema.json', 'envelope.schema.json', 'problem.schema.json'] as const;
