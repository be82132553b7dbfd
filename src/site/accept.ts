// Accept (RFC 9110 section 12.5.1) with q-values and specificity: what a caller prefers, and
// whether the caller is an agent. Hand-written because deciding "agent" needs each range's q and
// whether a type matched exactly or only through a wildcard, which the usual negotiators keep private.

/** One media range of an Accept header. */
export interface MediaRange {
  readonly type: string;
  readonly subtype: string;
  readonly q: number;
}

/** The longest Accept value read; browsers send a few hundred bytes, and the rest is ignored. */
const MAX_ACCEPT_LENGTH = 4096;
/** The most ranges read. */
const MAX_RANGES = 64;

/** The first MAX_ACCEPT_LENGTH characters of a value, less the range the cut falls in: a range read cut short (`text/html;q` of `text/html;q=0`) would say what the caller did not. */
function readable(value: string): string {
  if (value.length <= MAX_ACCEPT_LENGTH) return value;
  return value.slice(0, Math.max(0, value.lastIndexOf(',', MAX_ACCEPT_LENGTH)));
}

/** Parses an Accept value into media ranges; malformed ranges are skipped, never thrown. */
export function parseAccept(value: string | null | undefined): MediaRange[] {
  if (!value || typeof value !== 'string') return [];
  const ranges: MediaRange[] = [];
  for (const part of readable(value).split(',', MAX_RANGES)) {
    const [range = '', ...params] = part.split(';');
    const slash = range.indexOf('/');
    if (slash < 0) continue;
    const type = range.slice(0, slash).trim().toLowerCase();
    const subtype = range.slice(slash + 1).trim().toLowerCase();
    if (!type || !subtype || (type === '*' && subtype !== '*')) continue;
    let q = 1;
    for (const param of params) {
      const eq = param.indexOf('=');
      if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'q') continue;
      // qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ), RFC 9110 section 12.4.2
      const text = param.slice(eq + 1).trim();
      q = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(text) ? Number(text) : 1;
    }
    ranges.push({ type, subtype, q });
  }
  return ranges;
}

/** How much a caller wants `mediaType`: the q of the most specific range matching it, and whether that range named it exactly. */
export function preference(ranges: readonly MediaRange[], mediaType: string): { q: number; exact: boolean } {
  const [type, subtype] = mediaType.toLowerCase().split('/') as [string, string];
  let best = -1;
  let specificity = -1;
  for (const r of ranges) {
    const s = r.type === type && r.subtype === subtype ? 2 : r.type === type && r.subtype === '*' ? 1 : r.type === '*' ? 0 : -1;
    if (s > specificity) {
      specificity = s;
      best = r.q;
    }
  }
  return { q: Math.max(0, best), exact: specificity === 2 };
}

/** The media types that mark an agent when a caller ranks one at least as high as HTML. */
const AGENT_TYPES = ['application/json', 'application/problem+json', 'text/markdown'];

// Callers send few distinct Accept values, and every request asks: remember the answers, boundedly.
const MEMO_LIMIT = 256;
const agentMemo = new Map<string, boolean>();
const problemMemo = new Map<string, boolean>();
const markdownMemo = new Map<string, boolean>();

function memo(cache: Map<string, boolean>, accept: string | null | undefined, decide: (accept: string | null | undefined) => boolean): boolean {
  // A value that is no string (a header read by a framework that keeps repeats as a list) is no Accept.
  if (typeof accept !== 'string') return decide(null);
  if (!accept || accept.length > 512) return decide(accept);
  const known = cache.get(accept);
  if (known !== undefined) return known;
  if (cache.size >= MEMO_LIMIT) cache.clear();
  const answer = decide(accept);
  cache.set(accept, answer);
  return answer;
}

/** True when an Accept value names an agent's type explicitly and ranks it at least as high as text/html. */
export function acceptsLikeAnAgent(accept: string | null | undefined): boolean {
  return memo(agentMemo, accept, decideAgent);
}

function decideAgent(accept: string | null | undefined): boolean {
  const ranges = parseAccept(accept);
  const html = preference(ranges, 'text/html').q;
  // A bare */* (or application/*) says nothing: the agent's type must be named.
  return AGENT_TYPES.some((t) => {
    const p = preference(ranges, t);
    return p.exact && p.q > 0 && p.q >= html;
  });
}

/** Which error body a caller prefers: problem details only when it ranks them above plain JSON. */
export function prefersProblem(accept: string | null | undefined): boolean {
  return memo(problemMemo, accept, decideProblem);
}

function decideProblem(accept: string | null | undefined): boolean {
  const ranges = parseAccept(accept);
  const problem = preference(ranges, 'application/problem+json');
  const json = preference(ranges, 'application/json');
  return problem.exact && problem.q > 0 && (problem.q > json.q || (problem.q === json.q && !json.exact));
}

/**
 * Whether a caller prefers its error as Markdown: it names text/markdown and ranks it above JSON and
 * problem details (at an equal q, above a JSON type it reached only through a wildcard). An LLM's
 * fetch tool that asks for Markdown first gets Markdown, not JSON put before a model as it is.
 */
export function prefersMarkdown(accept: string | null | undefined): boolean {
  return memo(markdownMemo, accept, decideMarkdown);
}

function decideMarkdown(accept: string | null | undefined): boolean {
  const ranges = parseAccept(accept);
  const markdown = preference(ranges, 'text/markdown');
  if (!markdown.exact || markdown.q <= 0) return false;
  return ['application/json', 'application/problem+json'].every((type) => {
    const json = preference(ranges, type);
    return markdown.q > json.q || (markdown.q === json.q && !json.exact);
  });
}

/** The error body a caller gets: Markdown, problem details or the envelope, by its Accept. */
export type ErrorBodyKind = 'envelope' | 'problem' | 'markdown';

/** Which error body a caller's Accept asks for. */
export const errorBodyKind = (accept: string | null | undefined): ErrorBodyKind => (prefersMarkdown(accept) ? 'markdown' : prefersProblem(accept) ? 'problem' : 'envelope');
