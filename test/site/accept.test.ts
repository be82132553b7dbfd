import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { acceptsLikeAnAgent, parseAccept, prefersProblem } from '../../src/site/accept.js';
import { isAgentRequest } from '../../src/site/friendly.js';

describe('who is an agent', () => {
  const cases: [string, Record<string, string>, boolean][] = [
    ['Accept: text/markdown, text/html, */*', { accept: 'text/markdown, text/html, */*' }, true],
    ['Accept: text/markdown, text/html;q=0.9, */*;q=0.8', { accept: 'text/markdown, text/html;q=0.9, */*;q=0.8' }, true],
    ['Accept: application/json', { accept: 'application/json' }, true],
    ['Accept: application/problem+json', { accept: 'application/problem+json' }, true],
    ['Accept: text/html, application/json (equal q)', { accept: 'text/html, application/json' }, true],
    ['Accept: */*', { accept: '*/*' }, false],
    ['no Accept at all', {}, false],
    ['Accept: text/html', { accept: 'text/html' }, false],
    ["a browser's Accept", { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8' }, false],
    ['JSON ranked below HTML', { accept: 'text/html, application/json;q=0.5' }, false],
    ['JSON refused with q=0', { accept: 'application/json;q=0' }, false],
    ['application/* alone', { accept: 'application/*' }, false],
    ['a Web Bot Auth signed request with */*', { accept: '*/*', signature: 'sig1=:abc:', 'signature-input': 'sig1=("@authority");tag="web-bot-auth"', 'signature-agent': '"https://a.example"' }, true],
    ['a Signature without Signature-Input', { accept: 'text/html', signature: 'sig1=:abc:' }, false],
  ];
  it.each(cases)('%s -> %s', (_name, headers, agent) => {
    expect(isAgentRequest(new Request('https://a.example/', { headers }))).toBe(agent);
    expect(isAgentRequest({ headers })).toBe(agent);
  });

  it('reads a hand-built record in any case: { Accept } as { accept }, { Signature-Input } as { signature-input }', () => {
    const respell = (name: string, flips: boolean[]): string => [...name].map((c, i) => (flips[i % flips.length] ? c.toUpperCase() : c)).join('');
    fc.assert(
      fc.property(fc.constantFrom(...cases), fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }), ([, headers, agent], flips) => {
        const spelled = Object.fromEntries(Object.entries(headers).map(([name, value]) => [respell(name, flips), value]));
        expect(isAgentRequest({ headers: spelled })).toBe(agent);
      }),
      { numRuns: 300 },
    );
    expect(isAgentRequest({ headers: { Accept: 'application/json' } })).toBe(true);
    expect(isAgentRequest({ headers: { ACCEPT: ['text/html', 'application/json'] } })).toBe(true);
  });
});

describe('parseAccept', () => {
  it('reads q-values, and falls back to 1 for a malformed one', () => {
    expect(parseAccept('text/html;q=0.5, application/json;level=1;q=0.9, */*;q=abc, bogus, */json')).toEqual([
      { type: 'text', subtype: 'html', q: 0.5 },
      { type: 'application', subtype: 'json', q: 0.9 },
      { type: '*', subtype: '*', q: 1 },
    ]);
  });

  it('prefers problem details only when ranked above plain JSON', () => {
    expect(prefersProblem('application/problem+json')).toBe(true);
    expect(prefersProblem('application/problem+json, application/json;q=0.9')).toBe(true);
    expect(prefersProblem('application/json, application/problem+json')).toBe(false);
    expect(prefersProblem('*/*')).toBe(false);
  });

  it('never throws and stays bounded on any header, including 64 KB ones', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.array(fc.constantFrom('text/html', 'application/json', '*/*', ';q=0.', ',', ';', '=', ' ', 'q=1'), { maxLength: 200 }).map((p) => p.join(''))), (value) => {
        const ranges = parseAccept(value);
        expect(ranges.length).toBeLessThanOrEqual(64);
        for (const r of ranges) expect(r.q).toBeGreaterThanOrEqual(0);
        acceptsLikeAnAgent(value);
        prefersProblem(value);
      }),
      { numRuns: 2000 },
    );
    const huge = `${'text/plain;q=0.1,'.repeat(4000)}application/json`;
    expect(huge.length).toBeGreaterThan(64 * 1024);
    expect(parseAccept(huge).length).toBeLessThanOrEqual(64);
  });

  it('does not read a range that the 4096-character limit cuts short (found by npm run fuzz)', () => {
    // The cut fell inside text/html;q=0, which was read as text/html at q=1: an agent became a browser.
    const cut = `application/json;q=0.5,${' '.repeat(4060)}, text/html;q=0`;
    expect(parseAccept(cut)).toEqual([{ type: 'application', subtype: 'json', q: 0.5 }]);
    expect(acceptsLikeAnAgent(cut)).toBe(true);
  });
});
