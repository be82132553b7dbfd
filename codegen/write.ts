// Compares generated/ with what codegen renders, and writes it in one swap.
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { GENERATED_DIR, ROOT } from './paths.js';

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

/**
 * What differs between a folder of generated files on disk and what codegen would write there, and
 * between the pages with generated tables (keyed by their path from the root) and theirs. The folder
 * is generated/ unless `target` names another, such as the --out of `agent-errors codegen --extend`;
 * `target.shown` is how the list names it.
 */
export async function staleFiles(
  files: Map<string, string>,
  pages: Map<string, string>,
  target = { dir: GENERATED_DIR, shown: 'generated' },
): Promise<string[]> {
  const stale: string[] = [];
  const shown = (path: string): string => `${target.shown.replace(/[\\/]+$/, '')}/${path}`;
  for (const [path, text] of files) {
    const onDisk = await readOrNull(join(target.dir, path));
    if (onDisk === null) stale.push(`${shown(path)} is missing`);
    else if (onDisk !== text) stale.push(`${shown(path)} is stale`);
  }
  for (const path of await listFiles(target.dir)) {
    if (!files.has(path)) stale.push(`${shown(path)} is orphaned: codegen no longer writes it`);
  }
  for (const [path, text] of pages) {
    if ((await readOrNull(join(ROOT, path))) !== text) stale.push(`${path} has a stale generated table`);
  }
  return stale;
}

/** Writes the pages whose generated tables changed, and leaves the others alone. */
export async function writePages(pages: Map<string, string>): Promise<string[]> {
  const written: string[] = [];
  for (const [path, text] of pages) {
    if ((await readOrNull(join(ROOT, path))) === text) continue;
    await writeFile(join(ROOT, path), text);
    written.push(path);
  }
  return written;
}

/** Writes into a fresh directory beside `target` (generated/ by default), then swaps it in, so a failure leaves the old one as it was. */
export async function writeGenerated(files: Map<string, string>, target = GENERATED_DIR): Promise<void> {
  const parent = dirname(target);
  const next = join(parent, `.generated-next-${process.pid}`);
  const old = join(parent, `.generated-old-${process.pid}`);
  await rm(next, { recursive: true, force: true });
  for (const [path, text] of files) {
    await mkdir(dirname(join(next, path)), { recursive: true });
    await writeFile(join(next, path), text);
  }
  await mkdir(parent, { recursive: true });
  const hadOld = (await readdir(parent)).includes(basename(target));
  if (hadOld) await rename(target, old);
  await rename(next, target);
  if (hadOld) await rm(old, { recursive: true, force: true });
}

