// The real OpenAPI documents of test/fixtures/specs/ (each folder's SOURCE.json says where it comes
// from, its version and licence). The large ones are stored gzipped; specFile() unpacks one into a
// temporary folder, once per process, and gives its path, as a team's checkout would hold it.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

export const SPECS = fileURLToPath(new URL('../fixtures/specs/', import.meta.url));

let unpacked: string | undefined;

/** The path of a spec fixture: `stripe/spec3.json` is unpacked from `stripe/spec3.json.gz`; a file stored as it is is used in place. */
export function specFile(relative: string): string {
  const [name, file] = relative.split('/') as [string, string];
  const source = JSON.parse(readFileSync(join(SPECS, name, 'SOURCE.json'), 'utf8')) as { stored?: string };
  if (source.stored !== `${file}.gz`) return join(SPECS, relative);
  unpacked ??= mkdtempSync(join(tmpdir(), 'agent-errors-specs-'));
  const target = join(unpacked, `${name}-${file}`);
  if (!existsSync(target)) writeFileSync(target, gunzipSync(readFileSync(join(SPECS, name, `${file}.gz`))));
  return target;
}
