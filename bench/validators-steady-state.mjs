// One steady-state sample for bench/validators.ts, run in a plain Node process (no tsx loader, so
// generated/validators.js runs exactly as shipped). argv[2] is a JSON config written by the parent.
// Prints one JSON line: validations per second of each side in every round, or {"error": ...}.
//
// Four sides share this process, two copies of each contender: the standalone envelope validator
// imported twice (two module instances, so two sets of functions), and the envelope validator ajv
// compiles at run time, compiled twice. The parent's headline compares the first copies (an
// application has one of each); a second copy against its first runs the same code, so how far
// that ratio strays from 1.00 is this harness's own noise here and now (JIT luck, code placement).
import { readFileSync } from 'node:fs';

const cfg = JSON.parse(process.argv[2]);
const { inputs, valid } = JSON.parse(readFileSync(cfg.inputsFile, 'utf8'));
const schema = JSON.parse(readFileSync(cfg.schemaFile, 'utf8'));
const { envelope: standalone1 } = await import(cfg.validators);
const { envelope: standalone2 } = await import(`${cfg.validators}?copy=2`);
const ajvModule = await import(cfg.ajv);
const Ajv2020 = ajvModule.Ajv2020 ?? ajvModule.default;

function compile() {
  const ajv = new Ajv2020(cfg.options);
  ajv.addSchema(schema);
  return ajv.getSchema(cfg.ref);
}

const validators = [standalone1, standalone2, compile(), compile()];
const names = ['standalone 1', 'standalone 2', 'runtime 1', 'runtime 2'];
if (validators[0] === validators[1]) throw new Error('the second import of the standalone module gave the same functions');

// Every side must agree with the intent of every input and with each other, or the ratio compares
// different things (a stale generated/validators.js, most likely).
for (const [i, input] of inputs.entries()) {
  const expected = i < valid;
  const seen = validators.map((v) => ({ ok: v(input), errors: v.errors?.length ?? 0 }));
  if (seen.some((s) => s.ok !== expected || s.errors !== seen[0].errors)) {
    const said = seen.map((s, k) => `${names[k]} ${s.ok} (${s.errors} errors)`).join(', ');
    process.stdout.write(
      JSON.stringify({ error: `input ${i} ${JSON.stringify(input)}: expected ${expected ? 'valid' : 'invalid'}; ${said}` }),
    );
    process.exit(0);
  }
}

// One loop function per side, each compiled from its own source text, so each call site stays
// monomorphic (as in an application) and one side's type feedback cannot shape the other's code.
const sink = { accepted: 0 };
const loops = names.map((name) =>
  new Function(
    'inputs',
    'sink',
    `// batch loop of ${name}
    return function batch(validate, iterations) {
      const n = inputs.length;
      let accepted = 0;
      const start = performance.now();
      for (let i = 0; i < iterations; i++) if (validate(inputs[i % n])) accepted++;
      const ms = performance.now() - start;
      sink.accepted += accepted;
      return iterations / (ms / 1000);
    };`,
  )(inputs, sink),
);
const batch = (side, iterations) => loops[side](validators[side], iterations);

// Warm-up, rotating the sides, long enough for all to reach the optimizing tier; then size a batch
// so the slowest side spends about batchMs in it.
let iterations = 10_000;
let slowest = 0;
const warmUntil = performance.now() + cfg.warmupMs;
while (performance.now() < warmUntil) slowest = Math.min(...validators.map((_, side) => batch(side, iterations)));
iterations = Math.max(10_000, Math.round((slowest * cfg.batchMs) / 1000));

// Rounds: one batch per side, cycling through all 24 orders so no side has a favourite position.
const permutations = (xs) =>
  xs.length <= 1 ? [xs] : xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));
const orders = permutations([0, 1, 2, 3]);
const ops = validators.map(() => []);
for (let round = 0; round < cfg.rounds; round++) {
  for (const side of orders[round % orders.length]) ops[side].push(batch(side, iterations));
}

process.stdout.write(JSON.stringify({ standalone: [ops[0], ops[1]], runtime: [ops[2], ops[3]], iterations, accepted: sink.accepted }));
