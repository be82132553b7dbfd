// The validation error responses of the npm frameworks, live: each app of test/helpers/validation-apps.ts
// is started once on a loopback port and sent every one of its cases with the platform fetch. The
// answer must still be the fixture scripts/capture-validation.ts captured (so an upgrade that changes
// a framework's body fails here, and the fixture is captured again), and fromResponse must read it as
// the case expects: the code, the retry word, the field at fault and the framework's own message.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromResponse } from '../../src/core/from-response.js';
import { CORPUS, type Fixture as CorpusFixture } from '../helpers/corpus.js';
import { APPS, CASES, send, type Answer, type AppKey, type Running, type ValidationCase, type ValidationExpect } from '../helpers/validation-apps.js';

/** A corpus fixture this test's cases wrote, with the expectations of a validation case. */
type Fixture = Omit<CorpusFixture, 'expect'> & { expect: ValidationExpect };

/** The fixture of a case, which the capture script must have written. */
function fixtureOf(c: ValidationCase): Fixture {
  const path = join(CORPUS, c.fixture);
  if (!existsSync(path)) throw new Error(`${c.fixture} is missing: run npx tsx scripts/capture-validation.ts`);
  return JSON.parse(readFileSync(path, 'utf8')) as Fixture;
}

const byApp = new Map<AppKey, ValidationCase[]>();
for (const c of CASES) byApp.set(c.framework, [...(byApp.get(c.framework) ?? []), c]);

describe.each([...byApp])('validation errors of %s, live', (key, cases) => {
  let running: Running | undefined;
  const answers = new Map<string, Answer>();

  beforeAll(async () => {
    running = await APPS[key].start();
    for (const c of cases) answers.set(c.fixture, await send(running.url, c.request));
  });
  afterAll(async () => {
    await running?.close();
  });

  /** The live answer to a case. */
  const answerTo = (c: ValidationCase): Answer => {
    const answer = answers.get(c.fixture);
    if (answer === undefined) throw new Error(`no answer to ${c.fixture}`);
    return answer;
  };

  it.each(cases.map((c) => [c.fixture, c] as const))('%s: the framework still answers as captured', (_file, c) => {
    const fixture = fixtureOf(c);
    const answer = answerTo(c);
    expect(answer.status).toBe(fixture.status);
    expect(answer.headers['content-type']).toBe(fixture.headers['content-type']);
    expect(answer.body).toEqual(fixture.body);
    // The fixture carries the case's hand-written expectations, not an older copy of them.
    expect(fixture.expect).toEqual(c.expect);
  });

  it.each(cases.map((c) => [c.fixture, c] as const))('%s: fromResponse names the field at fault', (_file, c) => {
    const { expect: wanted } = fixtureOf(c);
    const answer = answerTo(c);
    const { error } = fromResponse(answer.status, answer.headers, answer.body);
    expect({ code: error.code, retry: error.retry, field: error.field, retry_after: error.retry_after, message: error.message }).toEqual({
      code: wanted.code, retry: wanted.retry, field: wanted.field, retry_after: wanted.retry_after, message: wanted.message,
    });
    if (wanted.fields !== undefined) expect(error.errors?.map((e) => e.field)).toEqual(wanted.fields);
  });
});
