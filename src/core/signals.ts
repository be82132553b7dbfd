// The few things a page or its headers may say that safely change what its status alone means.
// Each rule names its source. Words alone are never a signal: prose such as "Just a moment while
// we process your payment" or a CAPTCHA widget on a login form says nothing about this response.
import type { Fields } from './headers.js';
import type { PageSummary } from './html.js';

/** Which rule found a challenge, for tests and logs. */
export type ChallengeSignal =
  | 'cf-mitigated'
  | 'x-amzn-waf-action'
  | 'x-vercel-mitigated'
  | 'cloudflare-interstitial'
  | 'perimeterx-block'
  | 'datadome-block'
  | 'akamai-challenge'
  | 'imperva-block';

/**
 * The vendor signal that marks this response as a bot challenge or CAPTCHA wall, or null.
 * `isError` says whether the status is an error; interstitial markers count only on errors.
 */
export function challengeSignal(headers: Fields, page: PageSummary | null, isError: boolean): ChallengeSignal | null {
  // Cloudflare, "Detect a Challenge Page response": every challenge carries cf-mitigated: challenge.
  if (headers.get('cf-mitigated')?.trim().toLowerCase() === 'challenge') return 'cf-mitigated';
  // AWS WAF developer guide, CAPTCHA and Challenge actions: x-amzn-waf-action: captcha (HTTP 405) or challenge (HTTP 202).
  const waf = headers.get('x-amzn-waf-action')?.trim().toLowerCase();
  if (waf === 'captcha' || waf === 'challenge') return 'x-amzn-waf-action';
  // Vercel Firewall docs: challenged requests get x-vercel-mitigated: challenge.
  if (headers.get('x-vercel-mitigated')?.trim().toLowerCase() === 'challenge') return 'x-vercel-mitigated';
  if (!page || !isError) return null;
  const { lower, title } = page;
  // Cloudflare's interstitial: the _cf_chl_opt bootstrap, its challenge-platform orchestrator and the
  // fixed title. The jsd script Cloudflare injects into healthy pages is a different path and not enough.
  if (lower.includes('window._cf_chl_opt') && lower.includes('/cdn-cgi/challenge-platform/') && title === 'Just a moment...') {
    return 'cloudflare-interstitial';
  }
  // PerimeterX (HUMAN) block page: the px-captcha element with its fixed title, or the app id bootstrap.
  if (lower.includes('px-captcha') && (title === 'Access to this page has been denied' || lower.includes('window._pxappid'))) {
    return 'perimeterx-block';
  }
  // DataDome: a blocked request's page loads its CAPTCHA from geo.captcha-delivery.com.
  if (lower.includes('geo.captcha-delivery.com') && (lower.includes('datadome') || headers.has('x-datadome') || headers.has('x-dd-b'))) {
    return 'datadome-block';
  }
  // Akamai Bot Manager's challenge interstitial container.
  if (lower.includes('sec-if-cpt-container')) return 'akamai-challenge';
  // Imperva (Incapsula) block page, which loads its CAPTCHA through _Incapsula_Resource.
  if (lower.includes('_incapsula_resource')) return 'imperva-block';
  return null;
}

/** True when a 4xx page's own title or main heading says the item is sold out or out of stock. */
export function soldOut(page: PageSummary | null): boolean {
  if (!page) return false;
  const says = (text: string | null): boolean => {
    if (!text) return false;
    const lower = text.toLowerCase();
    return lower.includes('sold out') || lower.includes('out of stock');
  };
  // Only the page's own title or h1: "sold out" in a carousel of other products says nothing.
  return says(page.title) || says(page.heading);
}

// Fragments that mark a stack trace, a source path or a framework's debug dump. A message that
// carries one is replaced, never trimmed: trimming a dump still leaks what is left of it.
const DUMP_MARKERS = [
  'traceback (most recent call last)', // Python
  '\n    at ', '\tat ', '    at ', // Node and Java stack frames
  'node_modules/', '/home/', '/usr/', '/var/', '/srv/', '/opt/', '/app/', 'c:\\', // source paths
  '.js:', '.ts:', '.py"', '.py:', '.java:', '.rb:', '.php', '.go:', '.cs:line', // file:line
  '.mjs:', '.cjs:', '.jsx:', '.tsx:', '.mts:', '.cts:', 'node:internal', 'webpack-internal:', 'file:///', // Node module frames
  'exception report', 'root cause', 'stack trace', 'stacktrace', 'exception at ', ' error at /', // framework dumps
  'debug = true', 'django.', 'java.lang.', 'org.springframework', 'org.apache.', 'system.web', 'nested exception',
];

// The inside of a V8 frame's location, `(path:line:column)`, which stays recognisable after a
// page's white space is collapsed and its indentation lost.
const FRAME_LOCATION = /^([^\s()]+):\d+:\d+$/;

/**
 * True when `text` holds a frame location whose path is a path or a file name, not a time such as
 * (10:30:00). Each innermost parenthesis is looked at once, by index scans: linear time.
 */
function hasFrameLocation(text: string): boolean {
  for (let from = 0; ; ) {
    const first = text.indexOf('(', from);
    const close = first < 0 ? -1 : text.indexOf(')', first + 1);
    if (close < 0) return false;
    const location = FRAME_LOCATION.exec(text.slice(text.lastIndexOf('(', close) + 1, close));
    if (location && /[./]/.test(location[1]!)) return true;
    from = close + 1;
  }
}

// Every marker in one case-insensitive pattern: one pass over a candidate of up to 256 KiB, where an
// includes() per marker over a lowercased copy takes ten times as long on text such as "a.a.a.".
const DUMP_PATTERN = new RegExp(DUMP_MARKERS.map((marker) => marker.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'i');

/** True when a candidate message looks like (part of) a stack trace or debug dump. */
export function looksLikeDump(text: string): boolean {
  return DUMP_PATTERN.test(text) || /\b[A-Z][A-Za-z]*(Error|Exception) at \//.test(text) || hasFrameLocation(text);
}
