// Where codegen reads and writes, relative to the project root.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

/** The package's root: the nearest folder above this file with schema/catalog.json (codegen/ in the repo, dist/codegen/ when installed). */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'schema', 'catalog.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('codegen cannot find schema/catalog.json above its own folder');
    dir = up;
  }
  return dir;
}

export const ROOT = packageRoot();
export const SCHEMA_DIR = join(ROOT, 'schema');
export const GENERATED_DIR = join(ROOT, 'generated');
export const README = join(ROOT, 'README.md');
export const CATALOG_FILE = 'schema/catalog.json';

/** The schema files that describe bodies on the wire, in the order their definitions are hoisted. */
export const BODY_SCHEMA_FILES = ['common.schema.json', 'envelope.schema.json', 'problem.schema.json'] as const;
