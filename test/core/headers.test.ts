import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { headerValue, toHeaders, type Fields, type HeadersInput } from '../../src/core/headers.js';

/** The headers as sorted [name, value] pairs, for comparing. */
const entries = (headers: Fields): [string, string][] => [...headers].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

describe('toHeaders', () => {
  it('returns a Headers instance it is given unchanged', () => {
    const headers = new Headers({ 'Retry-After': '30' });
    expect(toHeaders(headers)).toBe(headers);
  });

  it('keeps of any record or entry list exactly what a WHATWG Headers keeps of it', () => {
    // The reference: undici's Headers, given the same field lines one by one, each refused line skipped.
    const reference = (lines: [string, string][]): [string, string][] => {
      const headers = new Headers();
      for (const [name, value] of lines) {
        try {
          headers.append(name, value);
        } catch {
          // refused, as toHeaders skips it
        }
      }
      return [...headers];
    };
    const char = fc.oneof(fc.constantFrom(' ', '\t', '\r', '\n', '\0', ':', 'é', '€', '"', ',', 'A', 'a', '-', '_'), fc.string({ maxLength: 1 }));
    const text = fc.array(char, { maxLength: 12 }).map((parts) => parts.join(''));
    const name = fc.oneof(text, fc.constantFrom('Retry-After', 'retry-after', 'RateLimit', 'x-a', 'X-A', 'date'));
    fc.assert(
      fc.property(fc.array(fc.tuple(name, text), { maxLength: 8 }), (lines) => {
        expect(entries(toHeaders(lines))).toEqual(reference(lines));
      }),
      { numRuns: 5000 },
    );
  });

  it('reads a record, by name in any case and as a whole, exactly as its entries (a lower-case record is read when asked, not copied)', () => {
    const char = fc.oneof(fc.constantFrom(' ', '\t', '\r', '\n', '\0', 'é', '€', ',', 'A', 'a', '-', '5'), fc.string({ maxLength: 1 }));
    const text = fc.array(char, { maxLength: 10 }).map((parts) => parts.join(''));
    const name = fc.oneof(text, fc.constantFrom('retry-after', 'Retry-After', 'date', 'x-a', 'a b', '__proto__', 'constructor'));
    const value = fc.oneof(text, fc.integer(), fc.double(), fc.constant(null), fc.array(fc.oneof(text, fc.integer()), { maxLength: 3 }));
    fc.assert(
      fc.property(fc.array(fc.tuple(name, value), { maxLength: 8 }), fc.array(name, { maxLength: 6 }), (pairs, asked) => {
        const record: Record<string, unknown> = {};
        for (const [key, v] of pairs) Object.defineProperty(record, key, { value: v, enumerable: true, configurable: true, writable: true });
        const fromRecord = toHeaders(record as HeadersInput);
        const fromEntries = toHeaders(Object.entries(record) as [string, string][]);
        for (const key of [...asked, ...Object.keys(record)]) {
          for (const spelled of [key, key.toUpperCase(), key.toLowerCase()]) {
            expect(fromRecord.get(spelled)).toBe(fromEntries.get(spelled));
            expect(fromRecord.has(spelled)).toBe(fromEntries.has(spelled));
          }
        }
        expect(entries(fromRecord)).toEqual(entries(fromEntries));
      }),
      { numRuns: 3000 },
    );
  });

  it.each<[string, HeadersInput]>([
    ['null', null],
    ['undefined', undefined],
    ['an empty record', {}],
    ['an empty array of entries', []],
  ])('gives empty headers for %s', (_label, input) => {
    expect(entries(toHeaders(input))).toEqual([]);
  });

  it.each<[string, HeadersInput, [string, string][]]>([
    ['a record, with names in any case', { 'Retry-After': '30', 'X-RATELIMIT-RESET': '5' }, [['retry-after', '30'], ['x-ratelimit-reset', '5']]],
    ['a record with a number value', { 'retry-after': 30 }, [['retry-after', '30']]],
    ['a record with an array value (Node repeated fields), joined with ", "', { ratelimit: ['"a";r=0;t=5', '"b";r=1;t=9'] }, [['ratelimit', '"a";r=0;t=5, "b";r=1;t=9']]],
    ['a record whose null and undefined values are dropped', { a: null, b: undefined, c: '1' }, [['c', '1']]],
    ['entry pairs', [['Retry-After', '30'], ['Date', 'Sun, 06 Nov 1994 08:49:37 GMT']], [['date', 'Sun, 06 Nov 1994 08:49:37 GMT'], ['retry-after', '30']]],
    ['entry pairs repeating a name, joined with ", "', [['X-A', '1'], ['x-a', '2']], [['x-a', '1, 2']]],
    ['a Map', new Map([['Retry-After', '7']]), [['retry-after', '7']]],
    ['surrounding whitespace in a value, trimmed', { 'retry-after': '  30 \t' }, [['retry-after', '30']]],
    ['a Latin-1 value, kept', { 'x-note': 'café' }, [['x-note', 'café']]],
  ])('copies %s', (_label, input, expected) => {
    expect(entries(toHeaders(input))).toEqual(expected);
  });

  it.each<[string, Record<string, unknown>]>([
    ['a value with CR LF (header injection)', { 'x-bad': 'a\r\nSet-Cookie: x=1' }],
    ['a value with NUL', { 'x-bad': 'a\u0000b' }],
    ['a value outside Latin-1', { 'x-bad': 'wait 30 s \u20ac' }],
    ['a name with a space', { 'x bad': '1' }],
    ['a name with a colon', { 'x-bad:': '1' }],
    ['an empty name', { '': '1' }],
    ['a boolean value', { 'x-bad': true }],
    ['an object value', { 'x-bad': { a: 1 } }],
    ['a NaN value', { 'x-bad': Number.NaN }],
  ])('skips %s without throwing and keeps the other fields', (_label, bad) => {
    const input = { ...bad, 'retry-after': '30' } as HeadersInput;
    expect(entries(toHeaders(input))).toEqual([['retry-after', '30']]);
  });

  it('skips entries that are not name-value pairs', () => {
    const input = [['retry-after', '30'], ['lonely'], 'string', null, [1, 2]] as unknown as HeadersInput;
    expect(entries(toHeaders(input))).toEqual([['retry-after', '30']]);
  });

  it('keeps the fields read before a getter throws, skipping only that field', () => {
    const input = { a: '1' } as Record<string, unknown>;
    Object.defineProperty(input, 'b', { enumerable: true, get: () => { throw new Error('boom'); } });
    input.c = '3';
    expect(entries(toHeaders(input as HeadersInput))).toEqual([['a', '1'], ['c', '3']]);
  });

  it('keeps the fields read before an iterator throws', () => {
    function* broken(): Generator<[string, string]> {
      yield ['a', '1'];
      throw new Error('boom');
    }
    expect(entries(toHeaders(broken()))).toEqual([['a', '1']]);
  });

  it('gives empty headers for a proxy whose every trap throws', () => {
    const hostile = new Proxy({}, { get: () => { throw new Error('get'); }, has: () => { throw new Error('has'); }, ownKeys: () => { throw new Error('ownKeys'); } });
    expect(entries(toHeaders(hostile as HeadersInput))).toEqual([]);
  });

  it.each<[string, unknown]>([
    ['a string', 'retry-after: 30'],
    ['a number', 30],
    ['a function', () => 30],
  ])('gives empty headers for %s, which is not a headers shape', (_label, input) => {
    expect(entries(toHeaders(input as HeadersInput))).toEqual([]);
  });

  it('never throws on arbitrary records and entry lists', () => {
    const value = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.constant(null), fc.constant(undefined), fc.array(fc.string(), { maxLength: 3 }), fc.boolean());
    fc.assert(
      fc.property(fc.oneof(fc.dictionary(fc.string(), value), fc.array(fc.tuple(fc.string(), fc.string()))), (input) => {
        const fields = toHeaders(input as HeadersInput);
        expect(typeof fields.get).toBe('function');
        expect([...fields].every(([n, v]) => typeof n === 'string' && typeof v === 'string')).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('headerValue', () => {
  it.each([
    ['retry-after', '30'],
    ['Retry-After', '30'],
    ['RETRY-AFTER', '30'],
    ['date', null],
    ['not a name', null],
    ['', null],
  ])('reads %s as %s, null when absent or not a valid name', (name, expected) => {
    expect(headerValue(new Headers({ 'Retry-After': '30' }), name)).toBe(expected);
  });

  it('gives null instead of throwing when handed something that is not a Headers', () => {
    expect(headerValue({} as Headers, 'retry-after')).toBeNull();
    expect(headerValue(null as unknown as Headers, 'retry-after')).toBeNull();
  });
});
