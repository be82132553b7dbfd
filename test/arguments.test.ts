// Every error speaks in the package's own words (issue 35, item 4): an exported function given an
// argument it cannot use returns normally (a reader of responses and headers never throws) or
// throws a TypeError whose message starts with the function's name, never Node's or a dependency's
// words ("Cannot read properties of undefined", "Failed to parse URL"). Each function of every
// subpath is called with each wrong value at each position; /lint has its own such test
// (test/tools/lint-arguments.test.ts) and /vitest registers matchers, not functions.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };

/** Values no function of the package takes where it asks for something else. */
const WRONG: readonly (readonly [string, unknown])[] = [
  ['undefined', undefined],
  ['null', null],
  ['42', 42],
  ['"x"', 'x'],
  ['{}', {}],
  ['[]', []],
  ['a symbol', Symbol('s')],
  ['a function', () => {}],
];

/**
 * Calls that would act on the world with a wrong value that happens to be valid: createDiskStore("x")
 * opens a file x in the working directory, and agentFriendlyFastify is a plugin only Fastify calls
 * (test/options.test.ts registers it).
 */
const SKIP: Readonly<Record<string, (position: number, value: unknown) => boolean>> = {
  createDiskStore: (position, value) => position === 0 && typeof value === 'string',
  agentFriendlyFastify: () => true,
};

const isClass = (fn: Function): boolean => /^class\b/.test(Function.prototype.toString.call(fn));

/** What a call did: returned (a promise settled or left running for a moment) or threw this. */
async function outcome(fn: Function, args: unknown[]): Promise<unknown> {
  try {
    const result = isClass(fn) ? new (fn as new (...a: unknown[]) => unknown)(...args) : fn(...args);
    if (result instanceof Promise) await Promise.race([result, new Promise((resolve) => setTimeout(resolve, 100))]);
    return undefined;
  } catch (error) {
    return error;
  }
}

const entries = await Promise.all(
  Object.entries(pkg.exports)
    .filter(([subpath, target]) => typeof target === 'object' && target !== null && subpath !== './lint' && subpath !== './vitest')
    .map(async ([subpath, target]) => {
      const file = join(ROOT, (target as { types: string }).types.replace('./dist/', '').replace(/\.d\.ts$/, '.ts'));
      const module = (await import(file)) as Record<string, unknown>;
      return [subpath, Object.entries(module).filter((e): e is [string, Function] => typeof e[1] === 'function')] as const;
    }),
);
const FUNCTIONS = entries.flatMap(([subpath, fns]) => fns.map(([name, fn]) => [`${subpath} ${name}`, name, fn] as const));

/** The builders a class's errors name: AgentError is built by agentError or siteError, and says which. */
const NAMED_AS: Readonly<Record<string, readonly string[]>> = { AgentError: ['agentError', 'siteError'] };

/** Whether an error is one in the package's own words: a TypeError naming `name` (or the builder it stands for). */
const ownWords = (error: unknown, name: string): boolean =>
  error instanceof TypeError && (NAMED_AS[name] ?? [name]).some((n) => error.message.startsWith(`${n}:`) || error.message.startsWith(`${n}(`) || error.message.startsWith(`${n} takes`));

describe("every exported function speaks in the package's words about an argument it cannot use", () => {
  it('finds the functions of every subpath', () => {
    expect(FUNCTIONS.length).toBeGreaterThan(60);
  });

  it.each(FUNCTIONS)('%s', async (_label, name, fn) => {
    const said: string[] = [];
    const positions = Math.min(Math.max(fn.length, 1) + 1, 4);
    for (let position = 0; position < positions; position++) {
      for (const [label, value] of WRONG) {
        if (SKIP[name]?.(position, value)) continue;
        const args = Array.from({ length: position + 1 }, (_, i) => (i === position ? value : undefined));
        const error = await outcome(fn, args);
        if (error !== undefined && !ownWords(error, name)) said.push(`argument ${position + 1} ${label}: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
      }
    }
    expect(said, `${name} threw in words not its own`).toEqual([]);
  });

  it('holds for any value in the first argument of the readers of responses, which never throw', async () => {
    const { fromResponse, explainResponse, retryAfterSeconds, delayFrom, quotaFrom } = await import('../src/agent/index.js');
    fc.assert(
      fc.property(fc.anything(), fc.anything(), fc.anything(), (a, b, c) => {
        for (const read of [() => fromResponse(a as never, b as never, c), () => explainResponse(a as never, b as never, c), () => retryAfterSeconds(a as never), () => delayFrom(a as never), () => quotaFrom(a as never)]) read();
      }),
      { numRuns: 500 },
    );
  });
});
