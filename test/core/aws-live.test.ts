// AWS-shaped error responses, live: dynalite (DynamoDB) and s3rver (S3) are started on loopback by
// captureAws of scripts/capture-aws.ts and sent the same requests as when the corpus fixtures
// aws-dynamodb-*.json and aws-s3-*.json were captured. Each emulator must still answer as captured
// (status, kept headers, body), so an upgrade that changes an answer fails here and the fixtures
// are captured again. What fromResponse makes of them is checked by test/core/corpus.test.ts.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { AWS_FIXTURES, CASES, captureAws, sourceOf, type AwsCapture, type AwsFixture } from '../../scripts/capture-aws.js';

/** The fixture of a case, which the capture script must have written. */
function fixtureOf(file: string): AwsFixture {
  const path = join(AWS_FIXTURES, file);
  if (!existsSync(path)) throw new Error(`${file} is missing: run npx tsx scripts/capture-aws.ts`);
  return JSON.parse(readFileSync(path, 'utf8')) as AwsFixture;
}

/** The body's own message: DynamoDB's JSON message, S3's XML <Message>. */
function ownMessage(body: unknown): string | undefined {
  if (typeof body === 'string') return /<Message>([^<]*)<\/Message>/.exec(body)?.[1];
  return (body as { message?: string } | null)?.message;
}

describe('the AWS emulators, live', () => {
  let run: AwsCapture;

  beforeAll(async () => {
    run = await captureAws();
  }, 20_000);

  it.each(CASES.map((c) => [c.file, c] as const))('%s answers as captured', (file, c) => {
    const fixture = fixtureOf(file);
    // The fixture carries the case's hand-written expectations and source (with the installed versions).
    expect(fixture.expect).toEqual(c.expect);
    expect(fixture.source, 'the installed version: capture again after an upgrade').toBe(sourceOf(c));
    const live = run.responses.get(file);
    expect(live).toEqual({ status: fixture.status, headers: fixture.headers, body: fixture.body });
    expect(fixture.expect.message).toBe(ownMessage(fixture.body));
  });

  it('closes both servers and removes its directory', async () => {
    expect(existsSync(run.directory)).toBe(false);
    for (const url of [run.urls.dynamodb, run.urls.s3]) await expect(fetch(url), url).rejects.toThrow();
  });
});
