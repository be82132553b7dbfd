// Every agent host against a hostile site (test/helpers/hostile-sites.ts): a 50 MB error page, an
// error body that never ends, gzip and brotli bombs, a body that drips, headers then silence, and a
// success that never ends. Each (host, case) runs in a child process of its own
// (test/helpers/host-child.ts), which measures how long the host took to settle and how far its
// RSS grew. Each host is made with `bodyTimeoutSeconds: 1` and must settle within that second plus
// 2 s of slack, with less than 64 MB of RSS growth, and hand the error back (a Retry-After: 120
// is handed back, not waited). A success is the caller's to read: the host returns it at once,
// and fetchPage passes a body too long to keep through as a stream. Two children at a time, for
// 2 cores. Part of npm run test:slow.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, chai, describe, expect, it } from 'vitest';
import { HOSTS, type Host, type HostRequest } from '../helpers/agent-hosts.js';
import type { ChildReport, ChildSpec } from '../helpers/host-child.js';
import { HOSTILE_ROUTES, startHostileSite, type HostileRoute, type HostileSite } from '../helpers/hostile-sites.js';

// A failure shows what each host answered in full, not its first 40 characters.
chai.config.truncateThreshold = 0;

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CHILD = fileURLToPath(new URL('../helpers/host-child.ts', import.meta.url));

const MiB = 1024 * 1024;
/** The option every host is made with. */
const BODY_TIMEOUT_SECONDS = 1;
/** bodyTimeoutSeconds, plus 2 s of slack. */
const DEADLINE_MS = BODY_TIMEOUT_SECONDS * 1000 + 2000;
/** The child gives up a little after the deadline: a host that has not settled by then fails anyway. */
const GIVE_UP_MS = DEADLINE_MS + 300;
const RSS_LIMIT_BYTES = 64 * MiB;
/** The child stops when its RSS grew this far, so a host that buffers without bound cannot take the machine down. */
const RSS_CAP_BYTES = 768 * MiB;
/** A child that has not exited by then is killed. */
const KILL_MS = 30_000;
/** Children at a time. */
const PARALLEL = 2;

/** What the host's result must say, beside settling in time and within the RSS limit. */
type Check = (report: ChildReport, host: Host) => void;

interface HostileCase {
  readonly route: HostileRoute;
  readonly request: HostRequest;
  readonly check: Check;
}

/** The error handed back as the site sent it: its status, no rejection. */
const handedBack = (status: number): Check => ({ result }) => {
  expect(result?.rejected).toBeUndefined();
  expect(result).toMatchObject({ ok: false, status });
};

const CASES: readonly HostileCase[] = [
  { route: HOSTILE_ROUTES.big404, request: { read: false }, check: handedBack(404) },
  {
    route: HOSTILE_ROUTES.endless503,
    request: { read: false },
    check: (report, host) => {
      handedBack(503)(report, host);
      // Handed back, not waited: and where the host says what it means, with the delay the site gave.
      if (report.result?.code !== undefined) expect(report.result).toMatchObject({ code: 'temporarily_unavailable', retryAfter: 120 });
    },
  },
  { route: HOSTILE_ROUTES.gzip404, request: { read: false }, check: handedBack(404) },
  { route: HOSTILE_ROUTES.br404, request: { read: false }, check: handedBack(404) },
  // A POST, so that the 500's retry-once does not make two calls of a second each: one body, one deadline.
  { route: HOSTILE_ROUTES.drip500, request: { read: false, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }, check: handedBack(500) },
  { route: HOSTILE_ROUTES.silent503, request: { read: false }, check: handedBack(503) },
  {
    route: HOSTILE_ROUTES.endless200,
    request: { read: false, stream: true },
    check: ({ result }, host) => {
      expect(result?.rejected).toBeUndefined();
      // fetchPage keeps no copy of a body longer than maxCopyBytes: it passes it through. The others return the Response, unread.
      if (host.name === 'fetchPage') expect(result).toMatchObject({ ok: true, status: 200, bodyNull: true, stream: 'cancelled' });
      else expect(result).toMatchObject({ ok: true, status: 200 });
    },
  },
];

// ---- children, two at a time ----

const children = new Set<ChildProcess>();
let running = 0;
const waiting: (() => void)[] = [];

async function inSlot<T>(work: () => Promise<T>): Promise<T> {
  while (running >= PARALLEL) await new Promise<void>((resolve) => waiting.push(resolve));
  running += 1;
  try {
    return await work();
  } finally {
    running -= 1;
    waiting.shift()?.();
  }
}

interface Exited {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs host-child.ts with `spec`: node --import tsx, from the repository's root. */
function runChild(spec: ChildSpec): Promise<Exited> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', CHILD, JSON.stringify(spec)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const killer = setTimeout(() => child.kill('SIGKILL'), KILL_MS);
    child.once('error', (error) => {
      clearTimeout(killer);
      children.delete(child);
      reject(error);
    });
    // 'close' comes once the child exited and its pipes are drained.
    child.once('close', (code, signal) => {
      clearTimeout(killer);
      children.delete(child);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** The child's one JSON line, or an error saying how it died. */
function reportOf(exited: Exited): ChildReport {
  const line = exited.stdout.trim().split('\n').pop();
  if (!line) throw new Error(`host-child printed nothing (exit ${exited.code ?? exited.signal}): ${exited.stderr.slice(-2000)}`);
  return JSON.parse(line) as ChildReport;
}

let site: HostileSite;
beforeAll(async () => {
  site = await startHostileSite();
}, 30_000);
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await site?.close();
});

const mb = (bytes: number): string => `${(bytes / MiB).toFixed(1)} MB`;

describe.concurrent('agent hosts against hostile sites', () => {
  for (const host of HOSTS) {
    describe(host.name, () => {
      for (const { route, request, check } of CASES) {
        it(`${route.what}: settles within ${DEADLINE_MS} ms, RSS grows less than 64 MB`, { timeout: 120_000 }, async () => {
          const spec: ChildSpec = {
            host: host.name,
            url: `${site.url}${route.path}`,
            warmUrl: `${site.url}${HOSTILE_ROUTES.warm.path}`,
            request,
            // bodyTimeoutSeconds and maxCopyBytes: new options, issue 25.
            options: { maxWaitSeconds: 30, bodyTimeoutSeconds: BODY_TIMEOUT_SECONDS, maxCopyBytes: 1 * MiB },
            giveUpMs: GIVE_UP_MS,
            rssCapBytes: RSS_CAP_BYTES,
          };
          const report = reportOf(await inSlot(() => runChild(spec)));
          const said = `settled in ${report.settledMs === null ? `no time (${report.stopped} after ${report.stopped === 'gave-up' ? `${GIVE_UP_MS} ms` : mb(RSS_CAP_BYTES)})` : `${Math.round(report.settledMs)} ms`}, RSS grew ${mb(report.rssGrowthBytes)}; result ${JSON.stringify(report.result)}`;
          expect(report.settledMs, said).not.toBeNull();
          expect(report.settledMs!, said).toBeLessThanOrEqual(DEADLINE_MS);
          expect(report.rssGrowthBytes, said).toBeLessThan(RSS_LIMIT_BYTES);
          check(report, host);
        });
      }
    });
  }
});

describe('the hostile site', () => {
  it('stops writing once every child has gone: no response left open, no byte written after', async () => {
    let stats = site.stats();
    for (let waited = 0; stats.open > 0 && waited < 3000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      stats = site.stats();
    }
    expect(stats.open).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(site.stats().written).toEqual(stats.written);
  });
});
