// Part of npm run build: tsc compiles src/ and generated/*.ts into dist/, but the standalone
// validators are already JavaScript, so they are copied beside the compiled catalog.
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { GENERATED_DIR, ROOT } from './paths.js';

const target = join(ROOT, 'dist', 'generated');
await mkdir(target, { recursive: true });
for (const name of ['validators.js', 'validators.d.ts']) await copyFile(join(GENERATED_DIR, name), join(target, name));
