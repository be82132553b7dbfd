// The size budgets of the entry points people load on a hot path: each bundled with esbuild
// (minified ESM for Node), then gzipped at level 9. /agent, what an agent loads, at most 31 KB;
// /site and each adapter's own subpath, what a site loads, at most 29 KB each (/site itself 31). (They were 11 and 13
// KB until fromResponse learnt to read the field of every framework's validation body and every bot
// manager's wall, about 2.3 KB that both sides load: an agent to act on a fix_input, a site to turn
// its framework's validation page into the contract. /agent was 14 KB until the client learnt to
// pace a fleet, about 2.7 KB that every agent runs on every call: reading the quota of every
// rate-limit header dialect (quotaFrom, 3.5 KB minified), and the one probe per window and shared
// quota of the memory store and the client's rules. /agent was 17 KB and the site entries 16 KB
// until fromResponse learnt the vendors' own dialects, which both sides load (an agent to act on
// the APIs it calls, a site to translate the errors of the APIs it calls): Cloudflare's agent
// error responses and a Markdown body's front matter, AWS's error types in JSON and XML (about 80
// names in four catalog tables), Google's ErrorInfo reasons, Azure's, Kubernetes', Salesforce's,
// HubSpot's, Notion's, Elasticsearch's and Jira's errors, Anthropic's error types, Bearer challenges, the errors GraphQL, JSON-RPC and Slack send
// with a 2xx (and the client's reading of them), and the delays Azure, Discord, Telegram,
// Kubernetes and Shopify put in their own places: about 5 KB in all, most of it the catalog's
// vendor tables (about 3 KB of the gzip; grouping each table by code would save 0.14 KB of it). The vendors still to come cannot all join the hot path this way: their tables
// belong in a module loaded when a body's shape asks for it, which fromResponse, being synchronous,
// cannot do by itself. The site entries were 21 KB until every adapter learnt to answer an agent
// that asks for Markdown with its error as Markdown, front matter and prose, about 0.3 KB. /agent
// was 23 KB and the site entries 22 KB until a 402's price was read and sent (x402's requirements
// in a header or a body, pay-per-crawl's price and errors, the two catalog tables of their failure
// reasons, and the client's payment hook): about 2 KB that both sides load, since a site sends what
// an agent reads. /site itself, which also exports the builders, was 24 KB until a site's own codes
// were built, titled and served like the catalog's (defineSiteCodes and the lookups of the codes it
// registers in the builder and the problem pages, about 0.35 KB); it alone is 25 KB, and each
// adapter's subpath stays at 24. /agent was 26 KB, /site 25 and each adapter 24 until every
// option of every function was checked by name (issue 35): the table of each function's options,
// what each takes in words, and the closest known name offered for one it does not know, about
// 0.55 KB on /agent and on each adapter, and 1.3 KB on /site, whose builders, translateUpstream and
// the low-level pieces it exports for custom adapters (isAgentRequest, renderEnvelope,
// convertAppError, renderProblemPage) check theirs too, so /site is 27 KB. /agent was 27 KB, /site
// 27 and each adapter 25 until a team's own error format was read and written (issue 36): fromResponse
// reading a declared format and a site's retryByCode, about 0.55 KB on /agent; and on the site side,
// AgentFriendly adding the contract to an app's own JSON errors in their own format's places, with
// the table of those places (generated/formats.ts's FORMAT_PLACES, without the names and sources
// the lint prints) and the checks of the new options, about 1.7 KB on /site and on each adapter. So
// /agent is 28 KB, each adapter 27 and /site 29. /agent was 28 KB until failureOf read what an SDK
// threw (issue 37): the shapes of openai's and Anthropic's APIError, octokit's RequestError,
// Stripe's, the AWS SDK v3's, Google's genai ApiError, axios', got's and ky's errors, and the codes
// and names of a failure before any response, about 0.8 KB, so it is 29 KB. Each adapter was 27 KB
// until the IETF RateLimit draft's problem types were read and sent (issue 37): the catalog's
// problem_type table, which both sides load, and violated-policies with the registered type in the
// problem a site sends, about 0.3 KB; Fastify's adapter, the largest, had 32 B left, so it is 28 KB.
// /site was 29 KB until A2A's errors were read (issue 37): the catalog's a2a_reason and
// a2a_jsonrpc_code tables, which both sides load, about 0.3 KB, so it is 30 KB. /agent was 29 KB,
// /site 30 and each adapter 28 until the vendor errors still misread were read (issue 37): Slack's
// common errors and the table of its strings' shapes, a GraphQL mutation's userErrors, Gemini's
// failed preconditions, Cloudflare's owner_action_required, Zendesk's details and Twilio's quoted
// parameter, about 0.3 KB that both sides load; and on /agent, MCP at its current revision (the
// MCP SDKs' validation text, v1's and v2's, read as fields, input_required results, v2's errors),
// about 1 KB. So /agent is 31 KB, /site 31 and each adapter 29. The catalog's vendor tables are now
// about 4 KB of every entry's gzip: the next vendor belongs in a module loaded on demand, as said
// above; and MCP, which an agent calling HTTP APIs never runs, belongs in a subpath of its own.
// /agent was 31 KB until a fleet stopped making an outage worse (issue 38): the retry budget and
// the circuit the memory store keeps per scope on every call, their options and the checks of
// their members, the waits that cover one path and say where they were learnt, and the advice of
// a failure a guard held back, about 1.8 KB that every agent runs, so it is 33 KB.) The budget counts
// only this package's own code: node: builtins, its runtime dependencies, its optional peers and the
// generated standalone validators (one large module shared by every entry) are left external.
//
// test/pack.test.ts checks the budgets on the packed tarball; `tsx bench/size.ts [dir]` prints
// the same table for a built package folder (default: this repo, after npm run build).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Plugin } from 'esbuild';

/** What an agent's hot path may weigh: 33 KB, minified and gzipped. */
export const AGENT_BUDGET_BYTES = 33 * 1024;
/** What a site's entry may weigh, the core or one framework's adapter: 29 KB, minified and gzipped. */
export const SITE_BUDGET_BYTES = 29 * 1024;

/** What /site, which also exports the builders (a site's own codes' among them), may weigh: 31 KB. */
export const SITE_ROOT_BUDGET_BYTES = 31 * 1024;

/** The entry points under budget: subpath, its file in the built package, and its budget. */
export const BUDGETED = [
  { subpath: './agent', file: 'dist/src/agent/index.js', budget: AGENT_BUDGET_BYTES },
  { subpath: './site', file: 'dist/src/site/index.js', budget: SITE_ROOT_BUDGET_BYTES },
  { subpath: './site/node', file: 'dist/src/site/entries/node.js', budget: SITE_BUDGET_BYTES },
  { subpath: './site/express', file: 'dist/src/site/express.js', budget: SITE_BUDGET_BYTES },
  { subpath: './site/fetch', file: 'dist/src/site/entries/fetch.js', budget: SITE_BUDGET_BYTES },
  { subpath: './site/fastify', file: 'dist/src/site/fastify.js', budget: SITE_BUDGET_BYTES },
  { subpath: './site/hono', file: 'dist/src/site/hono.js', budget: SITE_BUDGET_BYTES },
  { subpath: './site/koa', file: 'dist/src/site/koa.js', budget: SITE_BUDGET_BYTES },
  { subpath: './site/nest', file: 'dist/src/site/nest.js', budget: SITE_BUDGET_BYTES },
  { subpath: './site/next', file: 'dist/src/site/entries/next.js', budget: SITE_BUDGET_BYTES },
] as const;

/** One module's share of a bundle. */
export interface Contributor {
  /** The module, relative to the package folder. */
  readonly path: string;
  /** Its bytes in the minified bundle (esbuild's metafile). */
  readonly minified: number;
  /**
   * How many gzipped bytes the bundle loses when this module is left out, with whatever only it
   * imports (so the shares can add up to more than the whole); for the top contributors only.
   */
  readonly gzipShare?: number;
}

/** What one entry point weighs. */
export interface EntrySize {
  readonly subpath: string;
  readonly minified: number;
  readonly gzip: number;
  readonly budget: number;
  /** Gzipped bytes of the chunks the entry loads only on demand (dynamic import), outside the budget. */
  readonly lazyGzip: number;
  /** The modules of the bundle, largest first. */
  readonly contributors: readonly Contributor[];
}

/** The validators' path, for the plugin that leaves them out. */
const VALIDATORS = /[\\/]generated[\\/]validators\.js$/;

/** Leaves out the generated validators, and any module in `extra` (absolute paths). */
function leaveOut(extra: ReadonlySet<string>): Plugin {
  return {
    name: 'leave-out',
    setup(b) {
      b.onResolve({ filter: /^\.\.?\// }, (args) => {
        const path = resolve(args.resolveDir, args.path);
        // External under the specifier as written, so the bundle keeps the import it would have.
        return VALIDATORS.test(path) || extra.has(path) ? { path: args.path, external: true } : undefined;
      });
    },
  };
}

/**
 * Bundles an entry with code splitting, so a dynamic import (the problem pages /site serves on
 * request) lands in a chunk of its own: the budget counts the entry chunk and every chunk it imports
 * statically, i.e. what importing the subpath loads; the dynamically imported chunks are `lazy`.
 */
async function bundle(entry: string, external: readonly string[], leftOut: ReadonlySet<string> = new Set()) {
  const outdir = resolve('/size-limit-out');
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    splitting: true,
    outdir,
    minify: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    write: false,
    metafile: true,
    logLevel: 'silent',
    external: [...external],
    plugins: [leaveOut(leftOut)],
  });
  const files = new Map(result.outputFiles.map((f) => [f.path, f.contents]));
  const outputs = new Map(Object.entries(result.metafile.outputs).map(([path, output]) => [resolve(path), output]));
  const start = [...outputs].find(([, output]) => output.entryPoint !== undefined)![0];
  const loaded = new Set<string>();
  const visit = (path: string): void => {
    if (loaded.has(path)) return;
    loaded.add(path);
    for (const link of outputs.get(path)!.imports) {
      if (link.external || !outputs.has(resolve(link.path))) continue;
      if (link.kind !== 'dynamic-import') visit(resolve(link.path));
    }
  };
  visit(start);
  const concat = (paths: Iterable<string>): Buffer => Buffer.concat([...paths].map((p) => Buffer.from(files.get(p)!)));
  const code = concat(loaded);
  // Whatever importing the entry does not load: the dynamically imported chunks and what they import.
  const later = concat([...outputs.keys()].filter((p) => !loaded.has(p)));
  const inputs: Record<string, { bytesInOutput: number }> = {};
  for (const path of loaded) for (const [input, { bytesInOutput }] of Object.entries(outputs.get(path)!.inputs)) inputs[input] = { bytesInOutput: (inputs[input]?.bytesInOutput ?? 0) + bytesInOutput };
  return {
    minified: code.byteLength,
    gzip: gzipSync(code, { level: 9 }).byteLength,
    lazyGzip: later.byteLength === 0 ? 0 : gzipSync(later, { level: 9 }).byteLength,
    inputs,
  };
}

/**
 * Measures the budgeted entry points of the built package in `packageDir` (a folder with
 * package.json and dist/). The `top` largest modules also get their gzipped share: the bundle is
 * built again without each, and the difference is reported.
 */
export async function measure(packageDir: string, top = 4): Promise<EntrySize[]> {
  const pkg = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
  };
  // A package name also leaves out its subpaths (esbuild matches a package path as a prefix).
  const external = ['node:*', ...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})];
  const sizes: EntrySize[] = [];
  for (const { subpath, file, budget } of BUDGETED) {
    const entry = join(packageDir, file);
    const whole = await bundle(entry, external);
    const ranked = Object.entries(whole.inputs)
      .map(([path, { bytesInOutput }]) => ({ absolute: resolve(path), minified: bytesInOutput }))
      .sort((a, b) => b.minified - a.minified);
    const contributors: Contributor[] = [];
    for (const [i, { absolute, minified }] of ranked.entries()) {
      const path = relative(packageDir, absolute);
      if (i >= top || absolute === resolve(entry)) {
        contributors.push({ path, minified });
        continue;
      }
      const without = await bundle(entry, external, new Set([absolute]));
      contributors.push({ path, minified, gzipShare: whole.gzip - without.gzip });
    }
    sizes.push({ subpath, minified: whole.minified, gzip: whole.gzip, budget, lazyGzip: whole.lazyGzip, contributors });
  }
  return sizes;
}

/** The table a person reads: one line per entry, then its largest modules. */
export function formatSizes(sizes: readonly EntrySize[], top = 6): string {
  const lines: string[] = [];
  for (const s of sizes) {
    const mark = s.gzip <= s.budget ? 'ok' : `OVER by ${s.gzip - s.budget}`;
    const lazy = s.lazyGzip > 0 ? `; ${s.lazyGzip} B gzip more loaded on demand` : '';
    lines.push(`${s.subpath.padEnd(15)} ${String(s.gzip).padStart(6)} B gzip (${s.minified} B minified), budget ${s.budget} B: ${mark}${lazy}`);
    for (const c of s.contributors.slice(0, top)) {
      const share = c.gzipShare === undefined ? '' : `, ~${c.gzipShare} B of the gzip`;
      lines.push(`                  ${c.path}: ${c.minified} B minified${share}`);
    }
  }
  return lines.join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
  if (!existsSync(join(dir, BUDGETED[0].file))) {
    console.error(`bench/size: ${join(dir, BUDGETED[0].file)} is missing; run npm run build first.`);
    process.exit(2);
  }
  const sizes = await measure(dir);
  console.log(formatSizes(sizes));
  process.exitCode = sizes.every((s) => s.gzip <= s.budget) ? 0 : 1;
}
