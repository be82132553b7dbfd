// The bytes of one error as each caller gets it: the HTML page a browser gets, the Markdown an
// agent that ranks text/markdown first gets, the envelope and problem details; for a thrown
// AgentError (whose own page is small) and for error pages of the corpus as AgentFriendly converts
// them. No clock is involved: the ratios are of sizes, Markdown / HTML and JSON / HTML.
//
//   npx tsx bench/answer-bytes.ts          a table
//   npx tsx bench/answer-bytes.ts --json   the same as JSON
import { readFileSync } from 'node:fs';
import { fromResponse } from '../src/core/from-response.js';
import { agentError, type AgentError } from '../src/site/agent-error.js';
import { renderEnvelope } from '../src/site/friendly.js';

const BASE = 'https://shop.example';

/** The errors measured: a rate limit (Cloudflare measured its 1015 page), a missing page, a field at fault. */
const ERRORS: readonly [string, AgentError][] = [
  ['rate_limited (429, 30 s)', agentError('rate_limited', { retryAfter: 30, message: 'Too many requests from this client; slow down.' })],
  ['not_found (404)', agentError('not_found', { message: 'No order 1234 exists.' })],
  ['invalid_input (400, field email)', agentError('invalid_input', { field: 'email', message: 'The email address is not valid.' })],
];

const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/** Error pages of the corpus an app (or its CDN) sends, as AgentFriendly converts them for an agent. */
const PAGES = ['cloudflare-522-connection-timed-out.json', 'django-500-debug-on-html.json'];

async function main(): Promise<void> {
  const rows = [];
  for (const [measure, error] of ERRORS) {
    const html = await error.toPage('/docs/errors').body;
    const markdown = error.render('text/markdown', BASE).body;
    const envelope = error.render('application/json', BASE).body;
    const problem = error.render('application/problem+json', BASE).body;
    rows.push({ measure, html: bytes(html), markdown: bytes(markdown), envelope: bytes(envelope), problem: bytes(problem) });
  }
  for (const file of PAGES) {
    const fixture = JSON.parse(readFileSync(new URL(`../test/fixtures/responses/${file}`, import.meta.url), 'utf8')) as { status: number; headers: Record<string, string>; body: string };
    const envelope = fromResponse(fixture.status, fixture.headers, fixture.body);
    const as = (accept: string): string => renderEnvelope(envelope, fixture.status, accept, BASE).body;
    rows.push({ measure: `${file.replace(/\.json$/, '')}, converted by AgentFriendly`, html: bytes(fixture.body), markdown: bytes(as('text/markdown')), envelope: bytes(as('application/json')), problem: bytes(as('application/problem+json')) });
  }
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify({ rows: rows.flatMap((r) => [
      { measure: `${r.measure}: Markdown / HTML page bytes (${r.markdown} / ${r.html})`, ratio: r.markdown / r.html, target: null, verdict: 'informational' },
      { measure: `${r.measure}: envelope JSON / HTML page bytes (${r.envelope} / ${r.html}; problem details ${r.problem})`, ratio: r.envelope / r.html, target: null, verdict: 'informational' },
    ]) }));
    return;
  }
  console.log('the same error as each caller gets it, in bytes (UTF-8)\n');
  console.log('error                                                          HTML page  Markdown  envelope  problem  Markdown/HTML');
  for (const r of rows) console.log(`${r.measure.padEnd(62)} ${String(r.html).padStart(9)} ${String(r.markdown).padStart(9)} ${String(r.envelope).padStart(9)} ${String(r.problem).padStart(8)}  ${(r.markdown / r.html).toFixed(2).padStart(13)}`);
}

await main();
