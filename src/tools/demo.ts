// The seed 002 experiment: four failures, each rendered in every dialect, fed to three scripted
// policies and to this package's agent client on a virtual clock; calls made and seconds slept.
import { DIALECTS, renderDialect, type Dialect, type WireResponse } from '../core/dialects.js';
import { createAgentClient } from '../agent/client.js';
import { decode } from '../agent/decode.js';
import { formatCell, outcomeOf, POLICIES, runLoop, type LoopResult, type PolicyName } from '../agent/loop.js';
import { createMemoryStore } from '../agent/store.js';
import { agentError, siteError, type AgentError } from '../site/agent-error.js';

/** The seed's four failures, built with this package's builder. */
export const FAILURES = {
  missing_parameter: () => agentError('missing_field', { field: 'currency', message: 'currency is required', detail: 'A payment needs a currency.' }),
  rate_limited: () => agentError('rate_limited', { retryAfter: 30, message: 'Too many requests', detail: '60 requests per minute per key' }),
  maintenance: () => agentError('temporarily_unavailable', { retryAfter: 30, message: 'Down for maintenance', detail: 'Scheduled maintenance ends within the minute.' }),
  account_suspended: () => siteError('account_suspended', { status: 403, retry: 'ask_human', message: 'This account is suspended', detail: 'The account holder must contact support.' }),
} satisfies Record<string, () => AgentError>;

export type FailureName = keyof typeof FAILURES;

/** Seconds after which the scripted service's temporary failures clear, as their delays say. */
export const CLEARS_AFTER_SECONDS = 30;

/** The scripted service: the failure in the dialect until it clears (temporary ones at 30 s), then a 200. */
export function scriptedService(failure: FailureName, dialect: Dialect, elapsedSeconds: number): WireResponse {
  const error = FAILURES[failure]();
  const temporary = decode(renderDialect('envelope', error)).action === 'wait';
  if (temporary && elapsedSeconds >= CLEARS_AFTER_SECONDS) return { status: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' };
  return renderDialect(dialect, error);
}

/** A clock that sleeping moves at once. */
export function virtualClock() {
  let ms = 0;
  return { now: () => ms, sleep: (seconds: number) => void (ms += seconds * 1000) };
}

/** One cell: a policy against one failure in one dialect, on a fresh virtual clock. */
export async function policyCell(policy: PolicyName, failure: FailureName, dialect: Dialect): Promise<LoopResult> {
  const clock = virtualClock();
  return runLoop(() => scriptedService(failure, dialect, clock.now() / 1000), POLICIES[policy], clock);
}

/** One cell of the fourth table: this package's agent client (budget 8) on the same virtual clock. */
export async function clientCell(failure: FailureName, dialect: Dialect): Promise<LoopResult> {
  const clock = virtualClock();
  let calls = 0;
  let slept = 0;
  const client = createAgentClient({
    maxCalls: 8,
    now: clock.now,
    sleep: async (ms) => {
      clock.sleep(ms / 1000);
      slept += ms / 1000;
    },
    store: createMemoryStore({ now: clock.now }),
    fetch: async () => {
      calls += 1;
      const r = scriptedService(failure, dialect, clock.now() / 1000);
      return new Response(r.body, { status: r.status, headers: r.headers });
    },
  });
  const result = await client.fetch('https://api.example.com/pay');
  if (result.ok) return { outcome: 'ok', calls, slept };
  const { error } = result;
  const decoded = decode({ status: result.response?.status ?? 0, headers: {}, body: { error } });
  const outcome = decoded.action === 'wait' ? `wait ${error.retry_after === null ? '(no delay)' : `${error.retry_after}s`}` : outcomeOf(decoded);
  return { outcome, calls, slept };
}

/** A table of the experiment. */
export interface DemoTable {
  readonly title: string;
  readonly rows: readonly { readonly failure: FailureName; readonly cells: Readonly<Record<Dialect, LoopResult>> }[];
}

const TEMPORARY: FailureName[] = ['rate_limited', 'maintenance'];

/** The seed's three tables, each with an envelope column, and the client's table. */
export async function demoTables(): Promise<DemoTable[]> {
  const table = async (title: string, failures: FailureName[], cell: (f: FailureName, d: Dialect) => Promise<LoopResult>): Promise<DemoTable> => ({
    title,
    rows: await Promise.all(
      failures.map(async (failure) => ({
        failure,
        cells: Object.fromEntries(await Promise.all(DIALECTS.map(async (d) => [d, await cell(failure, d)] as const))) as Record<Dialect, LoopResult>,
      })),
    ),
  });
  const all = Object.keys(FAILURES) as FailureName[];
  return [
    await table('a loop that reads the body, calls made and seconds slept', all, (f, d) => policyCell('contract', f, d)),
    await table('a loop that reads only the Retry-After header', TEMPORARY, (f, d) => policyCell('header', f, d)),
    await table('a loop that retries at once', TEMPORARY, (f, d) => policyCell('hammer', f, d)),
    await table("this package's agent client, calls made and seconds slept", all, clientCell),
  ];
}

/** The tables as the seed prints them: a two-space indent, an 18-character first column, 22-character cells. */
export function formatTables(tables: readonly DemoTable[]): string {
  return tables
    .map((t) => {
      const line = (first: string, cells: string[]) => `  ${first.padEnd(18)}${cells.map((c) => c.padEnd(22)).join('')}`.trimEnd();
      return [t.title, line('failure', [...DIALECTS]), ...t.rows.map((r) => line(r.failure, DIALECTS.map((d) => formatCell(r.cells[d]))))].join('\n');
    })
    .join('\n\n');
}
