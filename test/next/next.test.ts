// agentFriendlyNext in a real Next.js app: a tiny App Router app written into a temporary folder,
// importing the BUILT package as an app would (@agent-index/errors/site/next, linked to this repo),
// built with `next build` (its default bundler) and served with `next start` on 127.0.0.1. Run by
// npm run test:slow (vitest.slow.config.ts); the default suite leaves it out, as it takes a minute.
//
// The routes are JavaScript: a TypeScript app makes next build look for @types/react, which this
// repo does not install, and Next would try to install it. test/site/next.test.ts checks the types.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, parse, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateEnvelope } from '../../src/index.js';
import { AGENT, BROWSER, PROBLEM } from '../helpers/agents.js';
import { freePort } from '../helpers/server.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const NEXT_BIN = join(REPO, 'node_modules/next/dist/bin/next');
/** Nothing reaches the network: no telemetry, and in CI mode Next never tries to install a package. */
const ENV = { ...process.env, NEXT_TELEMETRY_DISABLED: '1', CI: '1', NODE_ENV: 'production' };

const ROUTE = (log: string): string => `
import { appendFileSync } from 'node:fs';
import { notFound, redirect } from 'next/navigation';
import { agentError } from '@agent-index/errors/site';
import { agentFriendlyNext } from '@agent-index/errors/site/next';

export const GET = agentFriendlyNext(async (request, { params }) => {
  const { id } = await params;
  switch (id) {
    case 'busy': throw agentError('rate_limited', { retryAfter: 30 });
    case 'missing-json': return Response.json({ message: 'Order not found' }, { status: 404 });
    case 'missing-html': return new Response('<title>Order not found</title>', { status: 404, headers: { 'content-type': 'text/html' } });
    case 'gone': notFound();
    case 'moved': redirect('/api/orders/42');
    case 'boom': throw new Error('secret db password');
    default: return Response.json({ id });
  }
}, { onError: (error) => appendFileSync(${JSON.stringify(log)}, String(error?.message) + '\\n') });
`;

const DOCS = `
import { agentFriendlyNextDocs } from '@agent-index/errors/site/next';

export const GET = agentFriendlyNextDocs();
`;

/** The deepest folder holding both paths: Turbopack reads no file outside its root, and the app's packages are links into this repo. */
function commonRoot(a: string, b: string): string {
  const [x, y] = [a.split(sep), b.split(sep)];
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  return x.slice(0, i).join(sep) || parse(a).root;
}

let dir: string;
let log: string;
let base: string;
let server: ChildProcess | undefined;
let serverOutput = '';
const timing = { build: 0, start: 0 };

/** Builds the package when its dist is missing or older than the wrapper's source. */
function ensureBuilt(): void {
  const built = join(REPO, 'dist/src/site/next.js');
  if (existsSync(built) && statSync(built).mtimeMs >= statSync(join(REPO, 'src/site/next.ts')).mtimeMs) return;
  const result = spawnSync('npm', ['run', '-s', 'build'], { cwd: REPO, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`npm run build failed:\n${result.stdout}${result.stderr}`);
}

beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'agent-errors-next-'));
  log = join(dir, 'errors.log');
  writeFileSync(log, '');
  const files: Record<string, string> = {
    'package.json': JSON.stringify({ name: 'agent-errors-next-test', private: true, type: 'module' }),
    'next.config.mjs': `export default { turbopack: { root: ${JSON.stringify(commonRoot(dir, REPO))} } };\n`,
    'app/layout.js': 'export default function RootLayout({ children }) { return children; }\n',
    'app/api/orders/[id]/route.js': ROUTE(log),
    'app/problems/[code]/route.js': DOCS,
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  // The package resolves to this repo (its exports map and dist), Next and React to this repo's copies.
  mkdirSync(join(dir, 'node_modules/@agent-index'), { recursive: true });
  symlinkSync(REPO, join(dir, 'node_modules/@agent-index/errors'), 'dir');
  for (const name of ['next', 'react', 'react-dom']) symlinkSync(join(REPO, 'node_modules', name), join(dir, 'node_modules', name), 'dir');

  let started = performance.now();
  const build = spawnSync(process.execPath, [NEXT_BIN, 'build'], { cwd: dir, env: ENV, encoding: 'utf8' });
  timing.build = performance.now() - started;
  if (build.status !== 0) throw new Error(`next build failed:\n${build.stdout}${build.stderr}`);

  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  started = performance.now();
  // Its own process group, so that afterAll stops next start and any worker it forks, and nothing else.
  server = spawn(process.execPath, [NEXT_BIN, 'start', '-p', String(port), '-H', '127.0.0.1'], { cwd: dir, env: ENV, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  server.stdout!.on('data', (chunk: Buffer) => (serverOutput += chunk));
  server.stderr!.on('data', (chunk: Buffer) => (serverOutput += chunk));
  for (;;) {
    if (server.exitCode !== null) throw new Error(`next start exited:\n${serverOutput}`);
    if (performance.now() - started > 60_000) throw new Error(`next start did not answer in 60 s:\n${serverOutput}`);
    const ok = await fetch(`${base}/api/orders/42`).then((r) => r.ok, () => false);
    if (ok) break;
    await new Promise((done) => setTimeout(done, 100));
  }
  timing.start = performance.now() - started;
  process.stdout.write(`next build: ${(timing.build / 1000).toFixed(1)} s; next start, first answer: ${(timing.start / 1000).toFixed(1)} s\n`);
});

afterAll(() => {
  if (server?.pid !== undefined && server.exitCode === null) {
    try {
      process.kill(-server.pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const get = (path: string, headers: Record<string, string>): Promise<Response> => fetch(`${base}${path}`, { headers, redirect: 'manual' });
const varies = (response: Response): string[] => (response.headers.get('vary') ?? '').split(',').map((name) => name.trim().toLowerCase());

describe('agentFriendlyNext in a built Next.js app', () => {
  it('answers a success as the handler made it', async () => {
    const response = await get('/api/orders/42', AGENT);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ id: '42' });
  });

  it('renders a thrown rate_limited for an agent: 429 JSON with Retry-After', async () => {
    const response = await get('/api/orders/busy', AGENT);
    expect(response.status).toBe(429);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('retry-after')).toBe('30');
    const body = await response.json();
    expect(validateEnvelope(body).valid).toBe(true);
    expect(body.error).toMatchObject({ code: 'rate_limited', retry: 'after_delay', retry_after: 30 });
  });

  it('renders a thrown rate_limited as problem details for an agent that asks for them', async () => {
    const response = await get('/api/orders/busy', PROBLEM);
    expect(response.status).toBe(429);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await response.json()).toMatchObject({ type: `${base}/problems/rate_limited`, status: 429 });
  });

  it("gives a browser a thrown AgentError's catalog page with its status, Retry-After and Vary: Accept", async () => {
    const response = await get('/api/orders/busy', BROWSER);
    expect(response.status).toBe(429);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('retry-after')).toBe('30');
    expect(varies(response)).toContain('accept');
    expect(await response.text()).toContain('<a href="/problems/rate_limited">');
  });

  it("converts the handler's own 404 page for an agent, and keeps its own 404 JSON with what an agent needs added", async () => {
    const page = await get('/api/orders/missing-html', AGENT);
    expect(page.status).toBe(404);
    const body = await page.json();
    expect(validateEnvelope(body, { received: true }).valid).toBe(true);
    expect(body.error.code).toBe('not_found');
    const json = await get('/api/orders/missing-json', AGENT);
    expect([json.status, await json.json()]).toEqual([404, { message: 'Order not found', code: 'not_found', retry: 'no' }]);
  });

  it("gives a browser the handler's own 404s unchanged, with Vary: Accept", async () => {
    const json = await get('/api/orders/missing-json', BROWSER);
    expect(json.status).toBe(404);
    expect(varies(json)).toContain('accept');
    expect(await json.json()).toEqual({ message: 'Order not found' });
    const html = await get('/api/orders/missing-html', BROWSER);
    expect(html.status).toBe(404);
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await html.text()).toBe('<title>Order not found</title>');
  });

  it('leaves notFound() and redirect() to Next, for agents and browsers alike', async () => {
    for (const headers of [AGENT, BROWSER]) {
      const gone = await get('/api/orders/gone', headers);
      expect(gone.status).toBe(404);
      expect(await gone.text()).toBe('');
      const moved = await get('/api/orders/moved', headers);
      expect(moved.status).toBe(307);
      expect(moved.headers.get('location')).toMatch(/\/api\/orders\/42$/);
    }
    expect(readFileSync(log, 'utf8')).not.toMatch(/NEXT_/);
  });

  it('answers a plain thrown Error with a generic 500 for both, and hands it to onError', async () => {
    const before = readFileSync(log, 'utf8').split('\n').filter((line) => line === 'secret db password').length;
    const agent = await get('/api/orders/boom', AGENT);
    expect(agent.status).toBe(500);
    const text = await agent.text();
    expect(text).not.toContain('secret');
    expect(JSON.parse(text).error.code).toBe('internal');
    const browser = await get('/api/orders/boom', BROWSER);
    expect(browser.status).toBe(500);
    expect(varies(browser)).toContain('accept');
    expect(await browser.text()).toBe('Internal Server Error');
    const after = readFileSync(log, 'utf8').split('\n').filter((line) => line === 'secret db password').length;
    expect(after - before).toBe(2);
  });

  it('serves the problem pages from app/problems/[code]/route.js', async () => {
    const page = await get('/problems/rate_limited', BROWSER);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain(base);
    const entry = await get('/problems/rate_limited', AGENT);
    expect(entry.status).toBe(200);
    expect(await entry.json()).toMatchObject({ code: 'rate_limited', status: 429 });
    const unknown = await get('/problems/no_such_code', AGENT);
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.code).toBe('not_found');
  });
});
