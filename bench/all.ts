// npm run bench: every benchmark under bench/ but size.ts, one after another, and one table of the
// ratios they measured against baselines of their own run, each with its target and a mark where
// it is missed.
//
//   npx tsx bench/all.ts                       all of them (about 11 minutes here)
//   npx tsx bench/all.ts --only site,agent     some of them
//
// Each benchmark runs in a child process of its own with --json, never two at once: they load the
// machine, and a ratio is only as good as the quiet around its two sides. The table goes to stdout;
// a run of all of them also writes it to bench/results/latest.md and between the bench markers of
// docs/benchmarks.md. The scripts under bench/explore/ (where the time goes) have no targets and are
// not run. Exit code 1 only when a benchmark could not measure at all.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { publish } from './publish.js';
import { targetText, verdictMark, type Verdict } from './stats.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Where a run of every benchmark publishes its table, between the bench markers. */
export const TABLE_PAGE = 'docs/benchmarks.md';

/** One line of the report. */
export interface ReportRow {
  readonly bench: string;
  readonly measure: string;
  readonly ratio: number | null;
  /** `<= 0.10`, `>= 0.97`, or '' for a row that only informs. */
  readonly target: string;
  readonly verdict: Verdict;
}

type Json = Record<string, any>;

/** Rows of a benchmark whose JSON has `rows` of { measure, ratio, target, verdict } (validators, agent). */
const plainRows = (bench: string) => (json: Json): ReportRow[] =>
  (json.rows as Json[]).map((r) => ({ bench, measure: String(r.measure), ratio: r.ratio, target: targetText(r.target), verdict: r.verdict }));

const ADAPTER_NAMES: Record<string, string> = { node: 'node:http', express: 'Express', fastify: 'Fastify', hono: 'Hono, middleware', fetch: 'Hono, agentFriendlyFetch(app.fetch)' };
const CASE_NAMES: Record<string, string> = { json: '1 KB JSON', stream: '1 MiB stream', '404': "app's 404, converted", error: "app's own JSON 423, augmented" };

/** The benchmarks, in the order they run. */
export const BENCHES: readonly { name: string; file: string; what: string; rows: (json: Json) => ReportRow[] }[] = [
  { name: 'validators', file: 'bench/validators.ts', what: 'standalone validators vs ajv.compile at run time', rows: plainRows('validators') },
  { name: 'bytes', file: 'bench/answer-bytes.ts', what: 'the bytes of one error as an HTML page, Markdown, the envelope and problem details', rows: plainRows('bytes') },
  { name: 'agent', file: 'bench/agent.ts', what: 'fromResponse vs JSON.parse, large pages, the client vs bare fetch', rows: plainRows('agent') },
  { name: 'agent-ab', file: 'bench/from-response-ab.ts', what: 'fromResponse against the commit before it, over the corpus', rows: plainRows('agent') },
  { name: 'lint', file: 'bench/lint.ts', what: "agent-errors lint beside Redocly's on GitHub's, Stripe's and Cloudflare's specs", rows: plainRows('lint') },
  {
    name: 'site',
    file: 'bench/site.ts',
    what: 'requests per second with and without each AgentFriendly adapter',
    // A row judged against the no-op middleware (the Hono middleware's 1 KB JSON and stream) says so,
    // and shows what the no-op and the adapter each keep of bare.
    rows: (json) =>
      (json.rows as Json[]).map((r) => ({
        bench: 'site',
        measure:
          `${ADAPTER_NAMES[r.adapter] ?? r.adapter}, ${CASE_NAMES[r.case] ?? r.case}: ` +
          (r.baseline === 'no-op'
            ? `wrapped / a no-op Hono middleware req/s, same run (A/A ${Number(r.control).toFixed(2)}; no-op / bare ${Number(r.floor).toFixed(2)}, wrapped / bare ${Number(r.overBare).toFixed(2)})`
            : `wrapped / bare req/s (A/A ${Number(r.control).toFixed(2)}, a no-op integration ${Number(r.floor).toFixed(2)})`),
        ratio: r.ratio,
        target: targetText(r.target),
        verdict: r.verdict,
      })),
  },
  {
    name: 'redis',
    file: 'bench/redis-store.ts',
    what: 'store operations per second, Redis vs in memory',
    // No target: a network store is not expected to keep up with memory; the rows say how far it is.
    rows: (json) => (json.rows as Json[]).map((r) => ({ bench: 'redis', measure: `${r.measure}: Redis / memory ops/s`, ratio: r.ratio, target: '', verdict: 'informational' as const })),
  },
  {
    name: 'peers',
    file: 'bench/peers.ts',
    what: "seed 002's service and three vendors' on a real clock through ky, got, undici, axios-retry, openai, @anthropic-ai/sdk and @octokit/rest, each alone and with its plug-in, and this client",
    rows: (json) => {
      const peers = json.peers as string[];
      const rows = json.rows as { cells: { calls: number; outcome: string }[] }[];
      const ours = peers.length - 1;
      const calls = (i: number): number => rows.reduce((sum, row) => sum + row.cells[i]!.calls, 0);
      return peers.map((name, i) => ({
        bench: 'peers',
        measure: `${name}: calls over ${rows.length} cells (${rows.filter((row) => row.cells[i]!.outcome === 'ok').length} ended ok), / this package's`,
        ratio: calls(i) / calls(ours),
        target: '',
        verdict: 'informational' as const,
      }));
    },
  },
];

/** The report as Markdown: one table, then what the marks mean. */
export function formatReport(rows: readonly ReportRow[], context: string): string {
  const lines = ['| benchmark | measure | ratio | target | met |', '| --- | --- | ---: | ---: | :---: |'];
  // Two decimals, or two significant digits for a ratio under 0.01 (a network store against memory).
  const ratio = (x: number | null): string => (x === null ? '' : x >= 0.01 ? x.toFixed(2) : x.toPrecision(2));
  for (const r of rows) lines.push(`| ${r.bench} | ${r.measure} | ${ratio(r.ratio)} | ${r.target} | ${verdictMark(r.verdict)} |`);
  return [
    ...lines,
    '',
    'yes: met; yes*: missed by no more than the same run\'s A/A control strayed (equal within noise); no: missed; -: no target.',
    context,
  ].join('\n');
}

/** The last JSON object a child printed (anything logged before it is skipped). */
function lastJson(stdout: string): Json {
  const at = stdout.lastIndexOf('\n{');
  return JSON.parse(stdout.slice(at < 0 ? stdout.indexOf('{') : at + 1)) as Json;
}

async function main(): Promise<void> {
  const at = process.argv.indexOf('--only');
  const only = at < 0 ? null : new Set((process.argv[at + 1] ?? '').split(','));
  const started = Date.now();
  const rows: ReportRow[] = [];
  const failed: string[] = [];
  for (const bench of BENCHES.filter((b) => only === null || only.has(b.name))) {
    process.stderr.write(`bench: ${bench.name} (${bench.what}) ...\n`);
    const t0 = Date.now();
    const child = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, bench.file), '--json'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'inherit'] });
    if (child.status !== 0) {
      failed.push(`${bench.name} (exit ${child.status})`);
      continue;
    }
    try {
      rows.push(...bench.rows(lastJson(child.stdout)));
    } catch (error) {
      failed.push(`${bench.name} (unreadable output: ${error instanceof Error ? error.message : String(error)})`);
    }
    process.stderr.write(`bench: ${bench.name} done in ${Math.round((Date.now() - t0) / 1000)} s\n`);
  }
  const context = `Run ${new Date(started).toISOString().slice(0, 10)} on Node ${process.version}, ${Math.round((Date.now() - started) / 1000)} s, with \`npm run bench\`${only ? ` --only ${[...only].join(',')}` : ''}.`;
  const report = formatReport(rows, context);
  console.log(report);
  if (failed.length > 0) {
    console.error(`bench: could not measure: ${failed.join(', ')}`);
    process.exitCode = 1;
  }
  if (only === null && failed.length === 0) {
    mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
    writeFileSync(join(ROOT, 'bench', 'results', 'latest.md'), `# npm run bench\n\n${report}\n`);
    publish(TABLE_PAGE, 'bench', report);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
