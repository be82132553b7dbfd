// Where `agent-errors codegen --extend` may write. It replaces its output folder whole, so it refuses
// a folder that holds the working directory, its own input, or this package, whatever is in them.
// Paths are compared as paths: resolved from the working directory, with symbolic links followed as
// far as the path exists, so ./generated, generated/ and /abs/generated are one folder.
import { realpathSync } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { OutputFolderError } from './write.js';

/**
 * `path` resolved from `cwd`, with the symbolic links of the part of it that exists resolved too, so
 * that two spellings of one folder, even one that does not exist yet, give one string.
 */
export function realPath(path: string, cwd: string = process.cwd()): string {
  const absolute = resolve(cwd, path);
  const rest: string[] = [];
  for (let dir = absolute; ; ) {
    try {
      return join(realpathSync(dir), ...rest);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    }
    const up = dirname(dir);
    if (up === dir) return absolute;
    rest.unshift(basename(dir));
    dir = up;
  }
}

/** Whether `inner` is `outer` or inside it; both absolute and real. */
export function within(outer: string, inner: string): boolean {
  const rel = relative(outer, inner);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * A path as the generated headers name it: relative to the working directory, with / separators, so
 * that the header (and so every file) is the same however the same path was spelled.
 */
export function commandPath(path: string, cwd: string = process.cwd()): string {
  const rel = relative(realPath(cwd), realPath(path, cwd));
  if (isAbsolute(rel)) return rel.split(sep).join('/');
  return rel === '' ? '.' : rel.split(sep).join('/');
}

/** At most this many of a refused folder's entries are named. */
const NAMED = 20;

/** The entries directly in `dir`, a folder's name ending in /, sorted; none if it does not exist. */
async function entries(dir: string): Promise<{ names: string[]; more: boolean }> {
  try {
    const all = (await readdir(dir, { withFileTypes: true })).map((e) => (e.isDirectory() ? `${e.name}/` : e.name)).sort();
    return { names: all.slice(0, NAMED), more: all.length > NAMED };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { names: [], more: false };
    throw error;
  }
}

/**
 * The folder `out` names (as realPath gives it), once it is one codegen may write: not the working
 * directory or a folder above it, not the folder of the `extend` file or above it, not this package's
 * folder (`packageRoot`), a folder inside it or above it, and not a file. Else an OutputFolderError
 * naming the folder as given and what is in it, which a write would have replaced.
 */
export async function checkOutFolder(out: string, options: { extend: string; packageRoot: string; cwd?: string }): Promise<string> {
  const cwd = options.cwd ?? process.cwd();
  const target = realPath(out, cwd);
  const here = realPath(cwd);
  const input = realPath(options.extend, cwd);
  const pkg = realPath(options.packageRoot);
  const why = [
    [within(target, here), target === here ? 'the working directory' : `${target}, a folder above the working directory`],
    [within(target, dirname(input)), `${target}, which holds the --extend file ${options.extend}`],
    [within(target, pkg) || within(pkg, target), `${target}, inside or above the @agent-index/errors package itself`],
  ].find(([refused]) => refused)?.[1] as string | undefined;
  if (why !== undefined) {
    const { names, more } = await entries(target);
    throw new OutputFolderError(
      out,
      `--out ${out} is ${why}. Codegen replaces its output folder whole, so it never writes to the working directory or a folder above it, ` +
        `the folder of its --extend file or above it, or this package's own folder. Choose a folder of its own, such as --out generated` +
        (names.length > 0 ? '; in this one it would have replaced:' : '.'),
      names,
      more,
    );
  }
  const stats = await lstat(target).catch(() => undefined);
  if (stats !== undefined && !stats.isDirectory()) throw new OutputFolderError(out, `--out ${out} is a file, not a folder.`);
  return target;
}
