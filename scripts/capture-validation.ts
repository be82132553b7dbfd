// Captures the validation error responses of the npm frameworks as fixtures of the response corpus:
// each app of test/helpers/validation-apps.ts is started on a loopback port, each of its cases is sent
// with the platform fetch, and the answer is written to test/fixtures/responses/<case>.json with the
// case's hand-written expectations. It also writes /tmp/rows-npm.md, the README table rows of the
// fixtures it wrote.
//
//   npx tsx scripts/capture-validation.ts
//
// test/core/validation-live.test.ts sends the same requests and checks that the answers are still these.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../codegen/paths.js';
import { APPS, CASES, packageVersion, send, type AppKey, type ValidationCase } from '../test/helpers/validation-apps.js';

const DIR = join(ROOT, 'test/fixtures/responses');
const ROWS = '/tmp/rows-npm.md';
const today = new Date().toISOString().slice(0, 10);

/** The request of a case as the fixture's source tells it: method, path and the JSON sent. */
function described(c: ValidationCase): string {
  const { method, path, body } = c.request;
  return body === undefined ? `${method} ${path}` : `${method} ${path} with ${JSON.stringify(body)}`;
}

/** Where a fixture comes from: the packages and their versions, Node, this script, the date, the request and the format's docs. */
function sourceOf(c: ValidationCase): string {
  const app = APPS[c.framework];
  const packages = app.packages.map((name) => `${name} ${packageVersion(name)}`).join(', ');
  const by = `by scripts/capture-validation.ts on ${today}`;
  return `Captured from ${packages} (Node ${process.version}) ${by}: ${described(c)} against ${c.against}; format: ${c.docs ?? app.docs}`;
}

/** A markdown table cell: no pipes or line breaks. */
const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

const rows: string[] = [];
const byApp = new Map<AppKey, ValidationCase[]>();
for (const c of CASES) byApp.set(c.framework, [...(byApp.get(c.framework) ?? []), c]);

for (const [key, cases] of byApp) {
  const app = APPS[key];
  const running = await app.start();
  try {
    for (const c of cases) {
      const answer = await send(running.url, c.request);
      const fixture = { name: c.name, source: sourceOf(c), status: answer.status, headers: answer.headers, body: answer.body, expect: c.expect };
      writeFileSync(join(DIR, c.fixture), `${JSON.stringify(fixture, null, 2)}\n`);
      rows.push(`| [\`${c.fixture}\`](${c.fixture}) | ${cell(app.vendor)} | ${cell(c.shows)} | ${cell(fixture.source)} |`);
      process.stdout.write(`${c.fixture}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 140)}\n`);
    }
  } finally {
    await running.close();
  }
}

rows.sort();
writeFileSync(ROWS, `${rows.join('\n')}\n`);
process.stdout.write(`\nwrote ${CASES.length} fixtures to ${DIR} and ${rows.length} table rows to ${ROWS}\n`);
