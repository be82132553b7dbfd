// One agent host, one request, in a process of its own, measured: how long the host's promise
// took to settle and how far the process's RSS grew meanwhile. test/agent/hostile.test.ts starts it
// against a hostile site:
//
//   node --import tsx test/helpers/host-child.ts '<ChildSpec as JSON>'
//
// It makes the host (with a fresh memory store), warms it up with one small request, then samples
// process.memoryUsage().rss every 20 ms from just before the call until just after it settles, and
// prints one JSON line, a ChildReport, then exits. It gives up (settledMs null) after `giveUpMs`,
// and stops early when RSS grew past `rssCapBytes`, so a host that buffers without bound reports
// rather than takes the machine down.
import { createMemoryStore } from '../../src/agent/index.js';
import { hostNamed, type HostOptions, type HostRequest, type HostResult } from './agent-hosts.js';

/** What the parent asks for. */
export interface ChildSpec {
  readonly host: string;
  readonly url: string;
  /** A small 200 requested first, so that what the host loads lazily is loaded before measuring. */
  readonly warmUrl?: string;
  readonly request: HostRequest;
  /** The host's options, but the store (each child makes its own). */
  readonly options: Omit<HostOptions, 'store' | 'sleep' | 'now' | 'fetch' | 'scope'>;
  readonly giveUpMs: number;
  readonly rssCapBytes: number;
}

/** The result, as much of it as a JSON line carries. */
export interface ChildResult {
  readonly ok: boolean;
  readonly status: number | null;
  readonly code?: string;
  readonly retry?: string;
  readonly retryAfter?: number | null;
  readonly remembered?: boolean;
  /** True when the host said it kept no body (body: null). */
  readonly bodyNull: boolean;
  readonly bodyLength?: number;
  /** Whether the host handed a stream over (fetchPage's passed-through body), and whether cancelling it settled. */
  readonly stream: 'none' | 'cancelled' | 'cancel-hung';
  readonly rejected?: { readonly name: string; readonly message: string; readonly code?: string };
  readonly cause?: string;
}

/** What the child prints. */
export interface ChildReport {
  /** Ms from the call to its settling, or null when it had not settled by giveUpMs (or RSS passed the cap). */
  readonly settledMs: number | null;
  /** The highest RSS sampled from just before the call to just after it settled, less the RSS just before it. */
  readonly rssGrowthBytes: number;
  readonly result: ChildResult | null;
  /** Why the child stopped before the call settled. */
  readonly stopped?: 'gave-up' | 'rss-cap';
}

function describeError(error: unknown): ChildResult['rejected'] {
  const e = error as { name?: unknown; message?: unknown; code?: unknown };
  return { name: String(e?.name ?? typeof error), message: String(e?.message ?? error), ...(typeof e?.code === 'string' ? { code: e.code } : {}) };
}

async function summarise(result: HostResult): Promise<ChildResult> {
  let stream: ChildResult['stream'] = 'none';
  if (result.stream) {
    const cancelled = result.stream.cancel().then(
      () => true,
      () => true,
    );
    const hung = new Promise<false>((resolve) => setTimeout(() => resolve(false), 1000).unref());
    stream = (await Promise.race([cancelled, hung])) ? 'cancelled' : 'cancel-hung';
  }
  return {
    ok: result.ok,
    status: result.status,
    ...(result.code !== undefined ? { code: result.code } : {}),
    ...(result.retry !== undefined ? { retry: result.retry } : {}),
    ...(result.retryAfter !== undefined ? { retryAfter: result.retryAfter } : {}),
    ...(result.remembered !== undefined ? { remembered: result.remembered } : {}),
    bodyNull: result.body === null,
    ...(typeof result.body === 'string' ? { bodyLength: result.body.length } : {}),
    stream,
    ...(result.rejected !== undefined ? { rejected: describeError(result.rejected) } : {}),
    ...(result.cause !== undefined ? { cause: String(result.cause) } : {}),
  };
}

function report(line: ChildReport): never {
  process.stdout.write(`${JSON.stringify(line)}\n`, () => process.exit(0));
  // Exit once stdout has flushed; nothing else runs meanwhile that matters.
  return undefined as never;
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '') as ChildSpec;
  const host = hostNamed(spec.host);
  // Each host is given only the options it takes: an option it does not know is a TypeError (test/options.test.ts).
  const given = Object.fromEntries(Object.entries(spec.options).filter(([name]) => host.takes.has(name as never)));
  const binding = host.make({ ...(given as HostOptions), store: createMemoryStore() });
  if (spec.warmUrl) {
    const warm = await binding.request(spec.warmUrl);
    await warm.release();
  }
  // Let what warming allocated settle before the baseline.
  (globalThis as { gc?: () => void }).gc?.();
  await new Promise((resolve) => setTimeout(resolve, 50));

  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  let done = false;
  const sample = (): void => {
    peak = Math.max(peak, process.memoryUsage().rss);
  };
  const sampler = setInterval(() => {
    sample();
    if (!done && peak - baseline > spec.rssCapBytes) {
      done = true;
      report({ settledMs: null, rssGrowthBytes: peak - baseline, result: null, stopped: 'rss-cap' });
    }
  }, 20);
  const giveUp = setTimeout(() => {
    if (done) return;
    done = true;
    sample();
    report({ settledMs: null, rssGrowthBytes: peak - baseline, result: null, stopped: 'gave-up' });
  }, spec.giveUpMs);

  const started = performance.now();
  const result = await binding.request(spec.url, spec.request);
  const settledMs = performance.now() - started;
  sample();
  if (done) return;
  done = true;
  clearTimeout(giveUp);
  clearInterval(sampler);
  const summary = await summarise(result);
  // Exiting closes the sockets: whatever body is left unread goes with them.
  report({ settledMs, rssGrowthBytes: peak - baseline, result: summary });
}

main().catch((error: unknown) => {
  process.stderr.write(`host-child: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(2);
});
