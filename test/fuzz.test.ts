// The fuzz targets of npm run fuzz (fuzz/targets.ts), 10,000 inputs each on a fixed seed. No time
// limit here: tests never assert on wall-clock speed; npm run fuzz holds each input to 50 ms.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkPrototypes, describeFailure, runTarget } from '../fuzz/run.js';
import { TARGETS, type Target } from '../fuzz/targets.js';

const SEED = 20_261_130;
const RUNS = 10_000;

describe('the fuzz targets', () => {
  it.each(TARGETS.map((target) => [target.name, target] as const))('%s keeps its promises on 10,000 inputs', (_name, target) => {
    const report = runTarget(target, { seed: SEED, numRuns: RUNS });
    expect(report.failed ? describeFailure(report) : '').toBe('');
    expect(report.runs).toBe(RUNS);
  });
});

describe('the fuzz runner', () => {
  const quiet: Target<number> = { name: 'quiet', arbitrary: fc.nat(), check: () => 0 };

  it('fails an input that pollutes a prototype, names the member, and removes it', () => {
    const polluting: Target<number> = {
      ...quiet,
      check: (n) => {
        if (n > 5) (Object.prototype as Record<string, unknown>).polluted = true;
        return 0;
      },
    };
    const report = runTarget(polluting, { seed: SEED, numRuns: 100 });
    expect(report.failed).toBe(true);
    expect(report.error).toMatch(/prototype pollution: added polluted/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(() => checkPrototypes()).not.toThrow();
  });

  it('fails an input over the time limit only when asked to, and prints the command that replays it', () => {
    // The check reports its own time here, so no clock is involved.
    const slow: Target<number> = { ...quiet, check: (n) => (n > 100 ? 51 : 1) };
    expect(runTarget(slow, { seed: SEED, numRuns: 100 }).failed).toBe(false);
    const report = runTarget(slow, { seed: SEED, numRuns: 100, limitMs: 50 });
    expect(report.failed).toBe(true);
    expect(report.error).toMatch(/over the 50 ms limit/);
    expect(report.counterexample).toBe('101');
    expect(describeFailure(report)).toContain(`npx tsx fuzz/main.ts --target quiet --seed ${SEED} --path ${report.path}`);
    const replayed = runTarget(slow, { seed: SEED, numRuns: 100, limitMs: 50, path: report.path! });
    expect([replayed.failed, replayed.counterexample]).toEqual([true, '101']);
  });
});
