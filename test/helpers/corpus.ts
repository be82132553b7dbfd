// The response corpus (test/fixtures/responses/, see its README): one response a file, and what
// fromResponse must make of it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../codegen/paths.js';

/** The envelope members a fixture's response must give. */
export interface FixtureExpect {
  code: string;
  retry: string;
  field: string | null;
  retry_after: number | null;
  message?: string;
  message_excludes?: string[];
  /** What a 402 asks to be paid (the envelope's payment), when it says. */
  payment?: unknown;
  fields?: string[];
}

/** One response of the corpus. */
export interface Fixture {
  name: string;
  source: string;
  status: number;
  headers: Record<string, string>;
  body: unknown;
  expect: FixtureExpect;
}

/** The corpus folder. */
export const CORPUS = join(ROOT, 'test/fixtures/responses');

/** Every fixture of the corpus, by file name. */
export const readCorpus = (): (readonly [string, Fixture])[] =>
  readdirSync(CORPUS)
    .filter((f) => f.endsWith('.json'))
    .map((file) => [file, JSON.parse(readFileSync(join(CORPUS, file), 'utf8')) as Fixture] as const);
