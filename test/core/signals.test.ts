// challengeSignal, rule by rule: each vendor's documented signal fires, and its near misses (the same vendor's cookie,
// script or words on an ordinary page) do not. The properties hold for any page: a CAPTCHA widget beside an ordinary
// form never makes a wall, no input throws, and a 256 KiB adversarial page still returns. The rules' regular
// expressions have no nested quantifiers (each applies to one character or class, and the one that scans an
// input's attributes is bounded at 300), so each test is one pass; these tests assert the shape, never a wall-clock time.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromResponse, MAX_BODY_BYTES } from '../../src/core/from-response.js';
import { toHeaders } from '../../src/core/headers.js';
import { readPage } from '../../src/core/html.js';
import { challengeSignal, type ChallengeSignal } from '../../src/core/signals.js';

/** challengeSignal of a page (or none) with these headers, on an error status unless told otherwise. */
function signal(page: string | null, headers: Record<string, string> | null = null, isError = true): ChallengeSignal | null {
  return challengeSignal(toHeaders(headers), page === null ? null : readPage(page), isError);
}

const HTML = { 'content-type': 'text/html; charset=utf-8' };

// Each widget as its vendor documents the embed: the script, then what renders it.
const WIDGETS: readonly [ChallengeSignal, string, string][] = [
  ['recaptcha-wall', '<script src="https://www.google.com/recaptcha/api.js" async defer></script>', '<div class="g-recaptcha" data-sitekey="k"></div>'],
  ['recaptcha-wall', '<script src="https://www.recaptcha.net/recaptcha/enterprise.js"></script>', '<div class="g-recaptcha" data-sitekey="k"></div>'],
  ['hcaptcha-wall', '<script src="https://js.hcaptcha.com/1/api.js" async defer></script>', '<div class="h-captcha" data-sitekey="k"></div>'],
  ['turnstile-wall', '<script src="https://challenges.cloudflare.com/turnstile/v0/api.js"></script>', '<div class="cf-turnstile" data-sitekey="k"></div>'],
  [
    'arkose-wall',
    '<script src="//acme-api.arkoselabs.com/v2/KEY/api.js" data-callback="setup"></script>',
    '<script>function setup(e) { e.setConfig({ selector: "#c" }); }</script>',
  ],
  // GeeTest's gt4.js may be served from the site itself, so its initialisation call stands for the script.
  [
    'geetest-wall',
    '<script src="https://static.geetest.com/v4/gt4.js"></script><script>initGeetest4({ captchaId: "id" }, show);</script>',
    '<script>function show(c) { c.appendTo("#c"); }</script>',
  ],
  [
    'geetest-wall',
    '<script src="/js/gt.js"></script><script>initGeetest({ gt: "g", challenge: "c", offline: false, new_captcha: true }, show);</script>',
    '<script>function show(c) { c.appendTo("#c"); }</script>',
  ],
];

// What a person fills in, in the spellings pages use.
const FIELDS = [
  '<input type="email" name="email">', '<input type="password" name="password">', '<input name="q">', '<input type=text name=q>', '<INPUT TYPE="Search">',
  '<textarea name="message"></textarea>', '<select name="country"><option>NL</option></select>', '<input type="tel" name="phone">',
  '<input id="x" class="a b" type="number">',
];

/** A wall page: the widget, a form of hidden inputs and a button, around it the text a wall says. */
const wall = (script: string, render: string, extra = ''): string =>
  `<!doctype html><html><head><title>One more step</title>${script}</head><body><h1>Verify you are human</h1><form method="post" action="/verify">`
  + `<input type="hidden" name="next" value="/p">${render}${extra}<button type="submit">Continue</button></form></body></html>`;

describe('the header rules', () => {
  it('reads X-DD-B, which DataDome adds only when it blocks, on an error status, with or without a page', () => {
    expect(signal(null, { 'x-dd-b': '1', 'x-datadome': 'protected' })).toBe('x-dd-b');
    expect(signal('<title>shop</title>', { 'x-dd-b': '2' })).toBe('x-dd-b');
    expect(signal(null, { 'x-dd-b': '1' }, false)).toBeNull();
  });

  it('reads nothing from the headers DataDome, Imperva, Akamai and Kasada send on every response', () => {
    const everyResponse: Record<string, string>[] = [
      { 'x-datadome': 'protected', 'set-cookie': 'datadome=abc; Path=/' },
      { 'x-cdn': 'Imperva', 'x-iinfo': '1-2-3', 'set-cookie': 'visid_incap_1=abc; incap_ses_1_1=def' },
      { server: 'AkamaiGHost', 'set-cookie': '_abck=abc~0~; bm_sz=def' },
      { 'x-kpsdk-ct': 'token', 'x-kpsdk-r': '1-AA' },
    ];
    for (const headers of everyResponse) {
      expect(signal('<title>Page not found</title><h1>Page not found</h1>', headers)).toBeNull();
      expect(signal(null, headers)).toBeNull();
    }
  });
});

describe("Fastly's client challenge cookie", () => {
  it('reads a Set-Cookie of _fs_ch_st_ (an initiated challenge) on any status, not the solved _fs_ch_cp_ cookie or a look-alike name', () => {
    expect(signal(null, { 'set-cookie': '_fs_ch_st_Fq3Ln8=abc; Path=/; Secure' }, false)).toBe('fastly-challenge');
    expect(challengeSignal(toHeaders([['set-cookie', 'session=1; Path=/'], ['set-cookie', '_fs_ch_st_x=1; Path=/']]), null, true)).toBe('fastly-challenge');
    expect(signal(null, { 'set-cookie': '_fs_ch_cp_Fq3Ln8=abc; Path=/' }, false)).toBeNull();
    expect(signal(null, { 'set-cookie': 'my_fs_ch_st_=1; Path=/' }, false)).toBeNull();
    expect(signal(null, { cookie: '_fs_ch_st_x=1' })).toBeNull();
  });
});

describe('the vendor page rules', () => {
  it('reads a DataDome page only when it loads the CAPTCHA from geo.captcha-delivery.com and says it is DataDome', () => {
    const page = "<script>var dd={'host':'geo.captcha-delivery.com'}</script><script src=\"https://ct.captcha-delivery.com/c.js\"></script>";
    expect(signal(page, { 'x-datadome': 'protected' })).toBe('datadome-block');
    expect(signal(page)).toBeNull();
    expect(signal('<script src="https://js.datadome.co/tags.js"></script><h1>Not found</h1>', { 'x-datadome': 'protected' })).toBeNull();
  });

  it("reads Imperva's block iframe, not the _Incapsula_Resource script it injects into every page", () => {
    const block = '<iframe id="main-iframe" src="/_Incapsula_Resource?CWUDNSAI=23&incident_id=1-2&edet=12">'
      + 'Request unsuccessful. Incapsula incident ID: 1-2</iframe>';
    expect(signal(block)).toBe('imperva-block');
    expect(signal(block, null, false)).toBeNull();
    expect(signal('<h1>Page not found</h1><script src="/_Incapsula_Resource?SWJIYLWA=719d&ns=2&cb=1"></script>')).toBeNull();
    expect(signal('<p>Quote your incident_id=42 when you write to us.</p>')).toBeNull();
  });

  it("reads Kasada's KPSDK bootstrap with its ips.js solver, not the bootstrap or the path alone", () => {
    const challenge = '<script>window.KPSDK={};KPSDK.start=Date.now();</script><script src="/a/b/ips.js?KP_UIDz=x"></script>';
    expect(signal(challenge)).toBe('kasada-challenge');
    expect(signal(challenge, null, false)).toBeNull();
    expect(signal('<script>window.KPSDK={};KPSDK.configure([]);</script><script src="/a/b/p.js"></script><h1>Not found</h1>')).toBeNull();
    expect(signal('<a href="/docs/ips.js">ips.js</a>')).toBeNull();
  });

  it("reads Akamai's challenge container on an error status only", () => {
    expect(signal('<div id="sec-if-cpt-container"><iframe src="/_sec/cp_challenge/x.htm"></iframe></div>')).toBe('akamai-challenge');
    expect(signal('<div id="sec-if-cpt-container"></div>', null, false)).toBeNull();
  });

  it('reads a marker in any case', () => {
    expect(signal('<DIV ID="SEC-IF-CPT-CONTAINER"></DIV>')).toBe('akamai-challenge');
    expect(signal('<script>window.KPSDK={};</script><SCRIPT SRC="/A/B/IPS.JS"></SCRIPT>')).toBe('kasada-challenge');
  });
});

describe('CAPTCHA walls', () => {
  it.each(WIDGETS)('reads %s when the page loads and renders the widget and asks for nothing else', (name, script, render) => {
    expect(signal(wall(script, render))).toBe(name);
    // Uppercase markup is the same page.
    expect(signal(wall(script, render).toUpperCase())).toBe(name);
  });

  it.each(WIDGETS)('does not read %s from its script alone, its render alone, or on a success status', (_name, script, render) => {
    expect(signal(wall(script, ''))).toBeNull();
    expect(signal(wall('', render))).toBeNull();
    expect(signal(wall(script, render), null, false)).toBeNull();
  });

  it.each(WIDGETS)('does not read %s beside any field a person fills in', (_name, script, render) => {
    for (const field of FIELDS) expect(signal(wall(script, render, field)), field).toBeNull();
  });

  it('pairs each script with its own render: a scored reCAPTCHA v3 page beside jQuery or another setConfig is no wall', () => {
    const v3 = '<script src="https://www.google.com/recaptcha/api.js?render=KEY"></script><script>grecaptcha.execute("KEY", { action: "view" });</script>';
    expect(signal(`${v3}<h1>Forbidden</h1>`)).toBeNull();
    expect(signal(`${v3}<script>$("<p>").appendTo("body"); Sentry.setConfig({});</script><h1>Forbidden</h1>`)).toBeNull();
  });

  it('counts hidden inputs and buttons as part of a wall, and the widget textarea of the noscript fallback as a field', () => {
    const [, script, render] = WIDGETS[0]!;
    expect(signal(wall(script, render, '<input type="hidden" name="a"><input type="submit" value="Go"><input type=button>'))).toBe('recaptcha-wall');
    expect(signal(wall(script, render, '<noscript><textarea name="g-recaptcha-response"></textarea></noscript>'))).toBeNull();
  });

  it("keeps the corpus negatives' shapes: a login on a 401, a contact form on a 500, a CSP naming the vendors", () => {
    const [, script, render] = WIDGETS[2]!;
    expect(fromResponse(401, HTML, wall(script, render, FIELDS[0]! + FIELDS[1]!)).error.code).toBe('auth_required');
    expect(fromResponse(500, HTML, wall(script, render, FIELDS[5]!)).error.code).toBe('internal');
    const policy = 'script-src https://js.hcaptcha.com https://www.google.com/recaptcha/ https://challenges.cloudflare.com';
    const csp = { ...HTML, 'content-security-policy': policy };
    expect(fromResponse(403, csp, '<title>Forbidden</title><h1>Forbidden</h1>').error.code).toBe('not_allowed');
    expect(fromResponse(403, HTML, wall(script, render)).error.code).toBe('needs_human');
  });
});

describe('for any page', () => {
  const filler = fc.oneof(
    fc.string({ maxLength: 200 }),
    fc.constantFrom('<p>Please try again later.</p>', '<h1>Error</h1>', '<nav><a href="/">Home</a></nav>', '<!-- -->', ''),
  );
  const field = fc.tuple(
    fc.constantFrom('input', 'INPUT', 'Input'),
    fc.constantFrom('', ' type="text"', ' type=email', " type='password'", ' type="search"', ' type="tel"', ' type="url"', ' type="number"', ' TYPE="Text"'),
    fc.stringMatching(/^[a-z0-9 _-]{0,40}$/),
  ).map(([tag, type, name]) => `<${tag} name="${name}"${type}>`);
  const anyField = fc.oneof(field, fc.constantFrom('<textarea></textarea>', '<TEXTAREA rows=3>x</TEXTAREA>', '<select><option>a</option></select>'));

  it('(a) never reads a CAPTCHA widget beside an ordinary form as a wall', () => {
    fc.assert(
      fc.property(fc.constantFrom(...WIDGETS), anyField, filler, filler, fc.integer({ min: 0, max: 3 }), fc.integer({ min: 400, max: 599 }),
        ([, script, render], input, before, after, order, status) => {
          const parts = [script, render, input];
          // The field may come before, between or after the widget's script and render.
          const page = before + [...parts.slice(0, order), ...parts.slice(order).reverse()].join(after) + after;
          expect(challengeSignal(toHeaders(null), readPage(page), true)).toBeNull();
          expect(fromResponse(status, HTML, page).error.code).not.toBe('needs_human');
        }),
      { numRuns: 2_000 },
    );
  });

  it('(b) never throws, whatever the headers, the page and the status', () => {
    const fragments = fc.constantFrom(
      ...WIDGETS.flatMap(([, s, r]) => [s, r]), ...FIELDS, '<input type="hidden">', 'window.KPSDK', '/ips.js', '/_Incapsula_Resource?', 'incident_id=',
      'sec-if-cpt-container', 'geo.captcha-delivery.com', 'datadome', 'px-captcha', 'window._pxAppId', 'window._cf_chl_opt', '/cdn-cgi/challenge-platform/',
      '<title>Just a moment...</title>', '<input', 'type=', '"', "'", '>', '<', 'İ', '\u0000', '\ud800',
    );
    const page = fc.oneof(fc.constant(null), fc.string(), fc.string({ unit: 'binary' }), fc.array(fragments, { maxLength: 30 }).map((p) => p.join('')));
    const names = fc.constantFrom('x-dd-b', 'x-datadome', 'cf-mitigated', 'x-amzn-waf-action', 'x-vercel-mitigated', 'set-cookie', 'x-kpsdk-ct');
    const headers = fc.dictionary(names, fc.string());
    fc.assert(
      fc.property(headers, page, fc.boolean(), fc.oneof(fc.integer({ min: 100, max: 599 }), fc.integer()), (h, p, isError, status) => {
        const found = challengeSignal(toHeaders(h), p === null ? null : readPage(p), isError);
        expect(found === null || typeof found === 'string').toBe(true);
        fromResponse(status, h, p);
      }),
      { numRuns: 3_000 },
    );
  });

  it('(c) returns on 256 KiB adversarial pages built to make a backtracking expression work hard', () => {
    const [, script, render] = WIDGETS[0]!;
    // The widget comes first, so the field scan runs over everything after it.
    const widget = script + render;
    const runs = [
      '<input', '<input ', `<input ${'a'.repeat(299)}`, `<input ${'a'.repeat(299)} type=hidden>`, '<input type=hidden>', '<input type="', ' type=',
      '<textarea', '/recaptcha/', '/recaptcha/api.js', 'initgeetest', 'initgeetest4', '-api.arkoselabs.com/v2', 'g-recaptch', 'window.kpsdk',
      '/_incapsula_resource?',
      'geo.captcha-delivery.co', 'a', ' ', '<',
    ];
    for (const run of runs) {
      const body = run.repeat(Math.ceil(MAX_BODY_BYTES / run.length)).slice(0, MAX_BODY_BYTES);
      for (const page of [body, widget + body, body + widget]) {
        expect(() => challengeSignal(toHeaders({ 'x-datadome': 'protected' }), readPage(page), true)).not.toThrow();
      }
    }
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...runs), { minLength: 1, maxLength: 4 }), (mix) => {
        const run = mix.join('');
        const page = widget + run.repeat(Math.ceil(MAX_BODY_BYTES / run.length)).slice(0, MAX_BODY_BYTES);
        expect(() => challengeSignal(toHeaders(null), readPage(page), true)).not.toThrow();
      }),
      { numRuns: 30 },
    );
  });
});
