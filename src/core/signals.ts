// The few things a page or its headers may say that safely change what its status alone means.
// Each rule names its source. Words alone are never a signal: prose such as "Just a moment while
// we process your payment" or a CAPTCHA widget on a login form says nothing about this response.
import type { Fields } from './headers.js';
import { anyOfPattern, type PageSummary } from './html.js';

/** Which rule found a challenge, for tests and logs. */
export type ChallengeSignal =
  | 'cf-mitigated'
  | 'x-amzn-waf-action'
  | 'x-vercel-mitigated'
  | 'x-dd-b'
  | 'fastly-challenge'
  | 'cloudflare-interstitial'
  | 'perimeterx-block'
  | 'datadome-block'
  | 'akamai-challenge'
  | 'imperva-block'
  | 'kasada-challenge'
  | 'recaptcha-wall'
  | 'hcaptcha-wall'
  | 'turnstile-wall'
  | 'arkose-wall'
  | 'geetest-wall';

// A CAPTCHA widget by the script its vendor documents (the group names the vendor), then what renders it into the page:
// reCAPTCHA https://developers.google.com/recaptcha/docs/display (www.google.com or www.recaptcha.net /recaptcha/api.js,
// div.g-recaptcha) and https://cloud.google.com/recaptcha/docs/instrument-web-pages-with-checkbox (/recaptcha/enterprise.js);
// hCaptcha https://docs.hcaptcha.com/ (js.hcaptcha.com/1/api.js, div.h-captcha); Turnstile
// https://developers.cloudflare.com/turnstile/get-started/client-side-rendering/ (challenges.cloudflare.com/turnstile/v0/api.js,
// div.cf-turnstile); Arkose Labs https://developer.arkoselabs.com/docs/domain-policy and its client-side instructions
// (<company>-api.arkoselabs.com/v2/<key>/api.js, whose callback must call setConfig: https://developer.arkoselabs.com/docs/client-api);
// GeeTest v4 https://docs.geetest.com/BehaviorVerification/deploy/client/web and v3 https://docs.geetest.com/captcha/deploy/client/web
// (initGeetest4 or initGeetest, then captcha.appendTo). No quantifier here or below is nested: each test is one linear pass.
const WIDGET = /\/(recaptcha)\/(?:api|enterprise)\.js|(hcaptcha)\.com\/1\/api\.js|\/(turnstile)\/v0\/api\.js|-api\.(arkose)labs\.com\/v2\/|init(geetest)4?\(/;
const RENDERS: Readonly<Record<string, string>> = {
  recaptcha: 'g-recaptcha', hcaptcha: 'h-captcha', turnstile: 'cf-turnstile', arkose: '.setconfig(', geetest: '.appendto(',
};
// A field a person fills in: a textarea, a select, or an input that is neither hidden nor a button (an input with no
// type is a text box). The look at an input's attributes stops at 300 characters, so each input costs at most that much.
const FIELD = /<(?:textarea|select)\b|<input\b(?![^>]{0,300}?\stype=["']?(?:hidden|submit|button)\b)/;

// Every page rule below needs one of these: one pass over a page that has none, instead of one per rule,
// in any case, so that the page is lowercased only when one of them is there.
const PAGE_MARKERS =
  /window\.(?:_cf_chl_opt|kpsdk)|px-captcha|geo\.captcha-delivery\.com|sec-if-cpt-container|\/_incapsula_resource\?|\/recaptcha\/(?:api|enterprise)\.js|hcaptcha\.com\/1\/api\.js|\/turnstile\/v0\/api\.js|-api\.arkoselabs\.com\/v2\/|initgeetest/i;

/** The headers the header rules below read: a response with none of them is a challenge only by its page. */
export const CHALLENGE_HEADERS = ['cf-mitigated', 'x-amzn-waf-action', 'x-vercel-mitigated', 'set-cookie', 'x-dd-b'] as const;

/**
 * The vendor signal that marks this response as a bot challenge or CAPTCHA wall, or null.
 * `isError` says whether the status is an error; interstitial markers count only on errors.
 * `serverFailure` (a 5xx) keeps a bare CAPTCHA widget from counting: a server failure stays what
 * its status says whatever its page shows (seed 000), and only a vendor's own challenge marks it.
 */
export function challengeSignal(headers: Fields, page: PageSummary | null, isError: boolean, serverFailure = false): ChallengeSignal | null {
  return headerChallenge(headers, isError) ?? (isError && page ? pageChallenge(headers, page, serverFailure) : null);
}

/** The challenge a vendor's header marks (CHALLENGE_HEADERS), or null. */
export function headerChallenge(headers: Fields, isError: boolean): ChallengeSignal | null {
  // Cloudflare, "Detect a Challenge Page response": every challenge carries cf-mitigated: challenge.
  if (headers.get('cf-mitigated')?.trim().toLowerCase() === 'challenge') return 'cf-mitigated';
  // AWS WAF developer guide, CAPTCHA and Challenge actions: x-amzn-waf-action: captcha (HTTP 405) or challenge (HTTP 202).
  const waf = headers.get('x-amzn-waf-action')?.trim().toLowerCase();
  if (waf === 'captcha' || waf === 'challenge') return 'x-amzn-waf-action';
  // Vercel Firewall docs: challenged requests get x-vercel-mitigated: challenge.
  if (headers.get('x-vercel-mitigated')?.trim().toLowerCase() === 'challenge') return 'x-vercel-mitigated';
  // Fastly Bot Management, "About client challenges" (https://www.fastly.com/documentation/guides/security/bot-management/
  // client-challenges/about-client-challenges/): an initiated challenge is kept in a _fs_ch_st_<random> cookie (and a solved one
  // in _fs_ch_cp_<random>). Which response sets it, and with what status, is unverified: read whatever the status, as above.
  if (/(?:^|[\s,;])_fs_ch_st_/.test(headers.get('set-cookie') ?? '')) return 'fastly-challenge';
  // DataDome, https://docs.datadome.co/reference/validate-request: X-DD-B is added only when DataDome blocks a request
  // (401 or 403), on the JSON answer whose url leads to its CAPTCHA; x-datadome and the datadome cookie come on every response.
  return isError && headers.has('x-dd-b') ? 'x-dd-b' : null;
}

/** The challenge an error's page shows, by the vendor's own markup, or null. */
export function pageChallenge(headers: Fields, page: PageSummary, serverFailure: boolean): ChallengeSignal | null {
  if (!PAGE_MARKERS.test(page.text)) return null;
  const { title } = page;
  const lower = page.text.toLowerCase();
  // Cloudflare's interstitial: the _cf_chl_opt bootstrap, its challenge-platform orchestrator and the
  // fixed title. The jsd script Cloudflare injects into healthy pages is a different path and not enough.
  if (lower.includes('window._cf_chl_opt') && lower.includes('/cdn-cgi/challenge-platform/') && title === 'Just a moment...') {
    return 'cloudflare-interstitial';
  }
  // PerimeterX (HUMAN) block page: the px-captcha element with its fixed title, or the app id bootstrap.
  if (lower.includes('px-captcha') && (title === 'Access to this page has been denied' || lower.includes('window._pxappid'))) {
    return 'perimeterx-block';
  }
  // DataDome: a blocked request's page loads its CAPTCHA from geo.captcha-delivery.com (markup unverified: no first-party page shows it).
  if (lower.includes('geo.captcha-delivery.com') && (lower.includes('datadome') || headers.has('x-datadome'))) {
    return 'datadome-block';
  }
  // Akamai Bot Manager's challenge interstitial container (unverified: third-party reports; Akamai documents the challenge
  // actions, https://techdocs.akamai.com/application-security/reference/get-challenge-action, not their markup).
  if (lower.includes('sec-if-cpt-container')) return 'akamai-challenge';
  // Imperva (Incapsula) block page: an iframe of _Incapsula_Resource that carries the incident id (unverified: third-party
  // reports). The _Incapsula_Resource script alone is not enough: Imperva injects it into every page of a protected site.
  if (lower.includes('/_incapsula_resource?') && lower.includes('incident_id=')) return 'imperva-block';
  // Kasada's challenge: the KPSDK bootstrap and its ips.js solver (unverified: Kasada publishes no documentation; reports show a 429).
  if (lower.includes('window.kpsdk') && lower.includes('/ips.js')) return 'kasada-challenge';
  // A page whose purpose is a CAPTCHA widget: an error page that loads and renders the widget and asks a person for
  // nothing else. A widget beside a login, signup, contact or search form is part of an ordinary page, which stays what
  // its status says; so is a page that loads a script without rendering it (reCAPTCHA v3 scores every page, unseen).
  if (serverFailure) return null;
  const vendor = WIDGET.exec(lower)?.find((group, i) => i > 0 && group);
  if (vendor && lower.includes(RENDERS[vendor]!) && !FIELD.test(lower)) {
    return `${vendor}-wall` as ChallengeSignal;
  }
  return null;
}

/** True when a title or heading says sold out or out of stock. */
function saysSoldOut(text: string | null): boolean {
  if (!text) return false;
  const lower = text.toLowerCase();
  return lower.includes('sold out') || lower.includes('out of stock');
}

/** True when a 4xx page's own title or main heading says the item is sold out or out of stock. */
export function soldOut(page: PageSummary | null): boolean {
  if (!page) return false;
  // Only the page's own title or h1: "sold out" in a carousel of other products says nothing.
  return saysSoldOut(page.title) || saysSoldOut(page.heading);
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
const DUMP_PATTERN = anyOfPattern(DUMP_MARKERS, 'i');

/** True when a candidate message looks like (part of) a stack trace or debug dump. */
export function looksLikeDump(text: string): boolean {
  return DUMP_PATTERN.test(text) || /\b[A-Z][A-Za-z]*(Error|Exception) at \//.test(text) || hasFrameLocation(text);
}
