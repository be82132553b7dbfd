// How many responses of the corpus (test/fixtures/responses/) a fromResponse reads as their fixture
// expects: code, retry word, field and delay, all four. By default this tree's; given a folder, the
// fromResponse of another checkout of the package (a git worktree of an earlier commit), read
// against this tree's corpus, so a change can be measured before and after on the same responses.
//   npx tsx scripts/corpus-score.ts                 this tree
//   npx tsx scripts/corpus-score.ts /tmp/before     another checkout's src/core/from-response.ts
// Prints the score and each response read otherwise; exits 0 either way (it measures, not judges).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readCorpus } from '../test/helpers/corpus.js';

type Read = (status: number, headers: Record<string, string>, body: unknown, options?: { now?: number }) => { error: { code: string; retry: string; field: string | null; retry_after: number | null } };

const root = resolve(process.argv[2] ?? '.');
const { fromResponse } = (await import(pathToFileURL(resolve(root, 'src/core/from-response.ts')).href)) as { fromResponse: Read };
const corpus = readCorpus();
const wrong: string[] = [];
for (const [file, f] of corpus) {
  let got: string;
  try {
    const { error } = fromResponse(f.status, f.headers, f.body, { now: Date.UTC(2026, 10, 30) });
    got = `${error.code}/${error.retry}/${error.field}/${error.retry_after}`;
  } catch (e) {
    got = `threw ${(e as Error).message}`;
  }
  const want = `${f.expect.code}/${f.expect.retry}/${f.expect.field}/${f.expect.retry_after}`;
  if (got !== want) wrong.push(`  ${file}: ${got}, expected ${want}`);
}
console.log(`${root}: ${corpus.length - wrong.length} of ${corpus.length} responses read as expected (code, retry, field, delay)`);
if (wrong.length > 0) console.log(wrong.join('\n'));
