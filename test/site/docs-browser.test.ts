// The documentation page a problem type URI points at, and the page of a thrown AgentError, as a
// person sees them in a real browser.
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODES, RETRY_WORDS } from '../../src/index.js';
import { agentFriendlyNode } from '../../src/site/node.js';
import { APP_PAGE, ROUTES, SETUPS } from '../helpers/conformance.js';
import { serve, type TestServer } from '../helpers/server.js';
import { chromiumPath } from '../../scripts/test-prerequisites.js';

let browser: Browser;
let server: TestServer;
beforeAll(async () => {
  server = await serve(agentFriendlyNode((_req, res) => void res.writeHead(404).end()));
  browser = await chromium.launch({
    executablePath: chromiumPath() ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('the documentation page of a code, in Chromium', () => {
  it('shows rate_limited with its status, retry word, next step and advice', async () => {
    const page = await browser.newPage();
    const response = await page.goto(`${server.url}/problems/rate_limited`);
    expect(response?.status()).toBe(200);
    expect(await page.title()).toBe(`${CODES.rate_limited.title} (rate_limited)`);
    const text = await page.locator('body').innerText();
    expect(text).toContain(CODES.rate_limited.advice);
    const row = async (name: string) => page.locator('tr', { has: page.locator('th', { hasText: name }) }).locator('td').innerText();
    expect(await row('Code')).toBe('rate_limited');
    expect(await row('HTTP status')).toBe('429');
    expect(await row('Retry')).toContain(CODES.rate_limited.retry);
    expect(await row('Next step')).toBe(RETRY_WORDS[CODES.rate_limited.retry].next_step);
    // The example bodies are shown as text, not markup, their type URI on the site's own origin.
    expect(text).toContain('"retry_after_seconds": 30');
    expect(text).toContain(`"type": "${server.url}/problems/rate_limited"`);
    await page.close();
  });
});

describe('a thrown rate_limited AgentError, in Chromium, on every adapter', () => {
  // One page for every setup: a page of its own each cost about half a second more.
  let page: Page;
  beforeAll(async () => {
    page = await browser.newPage();
  });
  afterAll(() => page?.close());

  it.each(SETUPS)('$label: a 429 HTML page with Retry-After and Vary: Accept, and no stack', async (setup) => {
    const site = await setup.start({ routes: ROUTES, options: {}, ownPage: setup.ownPage, log: () => undefined });
    try {
      const response = await page.goto(`${site.url}/slow-down`);
      expect(response?.status()).toBe(429);
      const headers = response!.headers();
      expect([headers['retry-after'], headers['content-type']?.split(';')[0]]).toEqual(['30', 'text/html']);
      expect(headers.vary?.toLowerCase()).toContain('accept');
      expect(await page.title()).toBe(setup.ownPage ? /<title>(.*?)<\/title>/.exec(APP_PAGE)![1] : CODES.rate_limited.title);
      const text = await page.locator('body').innerText();
      expect(text).not.toMatch(/\bat \S|node_modules|AgentError|\.ts:\d/);
      if (!setup.ownPage) expect(text).toContain(CODES.rate_limited.advice);
    } finally {
      await site.close();
    }
  });
});
