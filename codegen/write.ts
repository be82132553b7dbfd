// Compares generated/ with what codegen renders, and writes it in one swap.
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { GENERATED_DIR, README, ROOT } from './paths.js';

/** Every file under a directory, as paths relative to it; none when it does not exist. */
async function listFiles(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true });
    return entries.filter((e) => e.isFile()).map((e) => relative(dir, join(e.parentPath, e.name)).split('\\').join('/'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

const readOrNull = (path: string): Promise<string | null> => readFile(path, 'utf8').catch(() => null);

/** What differs between generated/ (and README.md) on disk and what codegen would write. */
export async function staleFiles(files: Map<string, string>, readme: string): Promise<string[]> {
  const stale: string[] = [];
  for (const [path, text] of files) {
    const onDisk = await readOrNull(join(GENERATED_DIR, path));
    if (onDisk === null) stale.push(`generated/${path} is missing`);
    else if (onDisk !== text) stale.push(`generated/${path} is stale`);
  }
  for (const path of await listFiles(GENERATED_DIR)) {
    if (!files.has(path)) stale.push(`generated/${path} is orphaned: codegen no longer writes it`);
  }
  if ((await readOrNull(README)) !== readme) stale.push('README.md has a stale code table');
  return stale;
}

/** Writes into a fresh directory beside generated/, then swaps it in, so a failure leaves generated/ as it was. */
export async function writeGenerated(files: Map<string, string>): Promise<void> {
  const next = join(ROOT, `.generated-next-${process.pid}`);
  const old = join(ROOT, `.generated-old-${process.pid}`);
  await rm(next, { recursive: true, force: true });
  for (const [path, text] of files) {
    await mkdir(dirname(join(next, path)), { recursive: true });
    await writeFile(join(next, path), text);
  }
  const hadOld = (await listFiles(GENERATED_DIR)).length > 0 || (await readdir(ROOT)).includes('generated');
  if (hadOld) await rename(GENERATED_DIR, old);
  await rename(next, GENERATED_DIR);
  if (hadOld) await rm(old, { recursive: true, force: true });
}

