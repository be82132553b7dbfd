// Records every path the process opens through node:fs (promises, callbacks, sync calls and read
// streams), so a test can prove that a file was never read, not only that its content did not show.
// ES modules see the wrapped functions through syncBuiltinESMExports(), which updates the live
// bindings of `import { readFile } from 'node:fs/promises'` in modules that loaded before.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

type Patchable = Record<string, unknown>;

/** Starts recording; `paths` fills as files are opened, `restore()` puts node:fs back. */
export function spyOnReads(): { readonly paths: string[]; readonly restore: () => void } {
  const paths: string[] = [];
  const note = (target: unknown): void => {
    if (typeof target === 'string') paths.push(resolve(target));
    else if (target instanceof URL) paths.push(fileURLToPath(target));
    else if (Buffer.isBuffer(target)) paths.push(resolve(target.toString()));
  };
  const undo: (() => void)[] = [];
  const wrap = (module: Patchable, name: string): void => {
    const original = module[name] as (...args: unknown[]) => unknown;
    module[name] = function (this: unknown, ...args: unknown[]) {
      note(args[0]);
      return original.apply(this, args);
    };
    undo.push(() => void (module[name] = original));
  };
  for (const name of ['readFile', 'open']) wrap(fsp as unknown as Patchable, name);
  for (const name of ['readFile', 'readFileSync', 'open', 'openSync', 'createReadStream']) wrap(fs as unknown as Patchable, name);
  syncBuiltinESMExports();
  return {
    paths,
    restore: () => {
      for (const u of undo) u();
      syncBuiltinESMExports();
    },
  };
}

/** The code a leaked file's example names: a finding that quotes it shows the file was read. */
export const MARKER = 'leaked_marker';

/** A response file whose example names a code the catalog does not have: linted, it is an example-code-known finding naming MARKER. */
export const LEAK_YAML = [
  'components:',
  '  responses:',
  '    Leak:',
  '      description: leak',
  '      content:',
  '        application/json:',
  '          schema: { type: object, required: [error], properties: { error: { type: object, required: [code, message, retry] } } }',
  `          example: { error: { code: ${MARKER}, message: x, field: null, retry: no, retry_after: null } }`,
  '',
].join('\n');
