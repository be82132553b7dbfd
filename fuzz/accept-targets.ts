// Fuzz targets on who is an agent: the Accept parser, checked against the definition on Accept
// values whose answer is known and by metamorphic relations on any value, and isAgentRequest on
// requests in every shape, signed or not, with 64 KB Accept values.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { acceptsLikeAnAgent, parseAccept, preference, prefersProblem, type MediaRange } from '../src/site/accept.js';
import { isAgentRequest } from '../src/site/friendly.js';
import { timed, type Target } from './check.js';
import { acceptValue } from './inputs.js';

const AGENT_TYPES = ['application/json', 'application/problem+json', 'text/markdown'];
const QS = ['1', '0.9', '0.5', '0.1', '0.001', '0'];

/** Accept values built from distinct media ranges with valid q-values, so the expected answer is known without the parser. */
interface Plan {
  readonly ranges: readonly (readonly [media: string, q: string | null])[];
  readonly separator: string;
}

const plan: fc.Arbitrary<Plan> = fc.record({
  ranges: fc.uniqueArray(fc.tuple(fc.constantFrom('text/html', 'text/*', '*/*', 'application/*', 'image/png', ...AGENT_TYPES), fc.option(fc.constantFrom(...QS), { nil: null })), { maxLength: 7, selector: ([media]) => media }),
  separator: fc.constantFrom(',', ', ', ' ,\t'),
});
const write = ({ ranges, separator }: Plan): string => ranges.map(([media, q]) => (q === null ? media : `${media};q=${q}`)).join(separator);

/** The q a plan gives `media` by RFC 9110 section 12.5.1: the most specific range that matches, else 0. */
function planQ(p: Plan, media: string): { q: number; exact: boolean } {
  const q = (m: string): number | undefined => {
    const found = p.ranges.find(([r]) => r === m);
    return found ? Number(found[1] ?? '1') : undefined;
  };
  const exact = q(media);
  if (exact !== undefined) return { q: exact, exact: true };
  return { q: q(`${media.split('/')[0]}/*`) ?? q('*/*') ?? 0, exact: false };
}

/** The definition: an agent names JSON, problem details or Markdown and ranks it at least as high as HTML. */
function planIsAgent(p: Plan): boolean {
  const html = planQ(p, 'text/html').q;
  return AGENT_TYPES.some((t) => {
    const { q, exact } = planQ(p, t);
    return exact && q > 0 && q >= html;
  });
}

/** Problem details are preferred only when ranked above plain JSON, or equal to JSON reached only by a wildcard. */
function planPrefersProblem(p: Plan): boolean {
  const problem = planQ(p, 'application/problem+json');
  const json = planQ(p, 'application/json');
  return problem.exact && problem.q > 0 && (problem.q > json.q || (problem.q === json.q && !json.exact));
}

type AcceptInput = { readonly kind: 'raw'; readonly value: string | null | undefined } | { readonly kind: 'plan'; readonly plan: Plan };

function checkRanges(ranges: readonly MediaRange[]): void {
  assert.ok(ranges.length <= 64, `${ranges.length} ranges`);
  for (const { type, subtype, q } of ranges) {
    for (const part of [type, subtype]) assert.ok(part !== '' && part === part.trim() && part === part.toLowerCase() && !/[,;]/.test(part), `range part ${JSON.stringify(part)}`);
    assert.ok(type !== '*' || subtype === '*', `${type}/${subtype}`);
    assert.ok(q >= 0 && q <= 1 && Math.round(q * 1000) === q * 1000, `q ${q}`);
  }
}

/**
 * The Accept parser: never throws; at most 64 ranges, each lowercase, trimmed, with a q of at most
 * three decimals in [0, 1]; writing the ranges back parses to the same ranges; the agent and
 * problem verdicts match the definition on known plans; appending `text/html;q=0` never turns an
 * agent into a browser, appending `text/html` never turns a browser into an agent, a value made of
 * wildcards alone is never an agent, and letter case changes nothing.
 */
export const acceptTarget: Target<AcceptInput> = {
  name: 'parseAccept',
  arbitrary: fc.oneof(
    { arbitrary: acceptValue.map((value) => ({ kind: 'raw' as const, value })), weight: 3 },
    { arbitrary: plan.map((p) => ({ kind: 'plan' as const, plan: p })), weight: 2 },
  ),
  check(input) {
    const value = input.kind === 'raw' ? input.value : write(input.plan);
    const [[ranges, agent, problem], ms] = timed(() => [parseAccept(value), acceptsLikeAnAgent(value), prefersProblem(value)] as const);
    checkRanges(ranges);
    const again = ranges.map(({ type, subtype, q }) => `${type}/${subtype};q=${q}`).join(',');
    if (again.length <= 4096) assert.deepEqual(parseAccept(again), ranges, 'the ranges written back parse differently');
    assert.equal(acceptsLikeAnAgent(value), agent, 'asked twice, answered differently');
    if (problem) assert.ok(preference(ranges, 'application/problem+json').exact, 'prefers problem details it did not name');
    if (input.kind === 'plan') {
      assert.equal(agent, planIsAgent(input.plan), `agent verdict on ${value}`);
      assert.equal(problem, planPrefersProblem(input.plan), `problem verdict on ${value}`);
      const wildcards = { ...input.plan, ranges: input.plan.ranges.filter(([m]) => m.endsWith('/*')) };
      assert.equal(acceptsLikeAnAgent(write(wildcards)), false, `wildcards alone make an agent: ${write(wildcards)}`);
    }
    if (typeof value === 'string') {
      if (agent) assert.ok(acceptsLikeAnAgent(`${value}, text/html;q=0`), `appending text/html;q=0 to an agent's ${JSON.stringify(value.slice(-80))} made a browser`);
      if (!agent) assert.ok(!acceptsLikeAnAgent(`${value}, text/html`), `appending text/html to a browser's ${JSON.stringify(value.slice(-80))} made an agent`);
      if (/^[\x00-\x7f]*$/.test(value)) assert.equal(acceptsLikeAnAgent(value.toUpperCase()), agent, 'letter case changed the verdict');
    }
    return ms;
  },
};

interface RequestInput {
  readonly accept: string | null | undefined | readonly string[];
  readonly signature: string | undefined;
  readonly signatureInput: string | undefined;
  readonly shape: 'Headers' | 'record' | 'Request';
}

/**
 * isAgentRequest: never throws; a request carrying Signature and Signature-Input is an agent
 * whatever its Accept; otherwise the verdict is its Accept's, read the same from Headers, a
 * Request or Node's header record (repeated fields joined with ", "), and without Accept it is none.
 */
export const isAgentRequestTarget: Target<RequestInput> = {
  name: 'isAgentRequest',
  arbitrary: fc.record({
    accept: fc.oneof({ arbitrary: acceptValue, weight: 4 }, { arbitrary: fc.array(fc.string({ maxLength: 30 }), { minLength: 1, maxLength: 3 }), weight: 1 }),
    signature: fc.option(fc.constantFrom('sig1=:dGVzdA==:', '', 'x'), { nil: undefined }),
    signatureInput: fc.option(fc.constantFrom('sig1=("@authority");created=1;keyid="k";tag="web-bot-auth"', '', 'x'), { nil: undefined }),
    shape: fc.constantFrom('Headers', 'record', 'Request'),
  }),
  check({ accept, signature, signatureInput, shape }) {
    const fields: [string, string][] = [];
    for (const value of Array.isArray(accept) ? accept : accept === null || accept === undefined ? [] : [accept as string]) fields.push(['accept', value]);
    if (signature !== undefined) fields.push(['signature', signature]);
    if (signatureInput !== undefined) fields.push(['signature-input', signatureInput]);
    const headers = new Headers();
    for (const [name, value] of fields) {
      try {
        headers.append(name, value);
      } catch {
        // The platform refuses this value (a line break, a character above U+00FF): no request can carry it.
      }
    }
    const request =
      shape === 'Headers' ? { headers } : shape === 'Request' ? new Request('https://shop.example/x', { headers }) : { headers: Object.fromEntries([...new Set(headers.keys())].map((n) => [n, n === 'accept' && Array.isArray(accept) ? headers.get(n)!.split(', ') : headers.get(n)!])) };
    const [verdict, ms] = timed(() => isAgentRequest(request));
    const signed = headers.get('signature') !== null && headers.get('signature-input') !== null;
    assert.equal(verdict, signed || acceptsLikeAnAgent(headers.get('accept')), `signed ${signed}, accept ${JSON.stringify(headers.get('accept')?.slice(0, 120))}`);
    if (!signed) {
      const withSignature = new Headers(headers);
      withSignature.set('signature', 'sig1=:dGVzdA==:');
      withSignature.set('signature-input', 'sig1=();created=1');
      assert.ok(isAgentRequest({ headers: withSignature }), 'a signed request is not an agent');
      const withoutAccept = new Headers(headers);
      withoutAccept.delete('accept');
      assert.ok(!isAgentRequest({ headers: withoutAccept }), 'an unsigned request without Accept is an agent');
    }
    return ms;
  },
};
