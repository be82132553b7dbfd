// Where fromResponse's time goes, for bench/agent.ts's corpus row. No verdict of its own: each part
// of the reading, run alone over the responses of the corpus it applies to, as µs per pass and as a
// ratio to JSON.parse of the whole corpus (the row's baseline), measured in this same run.
//
//   npx tsx bench/explore/from-response-parts.ts          a table
//   npx tsx bench/explore/from-response-parts.ts --json   the same as JSON
//
// A part run alone costs less than it does inside fromResponse, where every response takes a
// different path through the same code (so the sum of the parts is below the whole): read the
// parts as shares, not as what removing one would save.
//
// Exit code 0 unless it cannot measure.

import { performance } from 'node:perf_hooks';
import { RETRY_WORDS } from '../../generated/catalog.js';
import { delayFrom } from '../../src/core/delay.js';
import { violationsOf } from '../../src/core/field-errors.js';
import { fromResponse } from '../../src/core/from-response.js';
import { toHeaders } from '../../src/core/headers.js';
import { readPage } from '../../src/core/html.js';
import { paymentFrom } from '../../src/core/payment.js';
import { challengeSignal, looksLikeDump } from '../../src/core/signals.js';
import { loadCorpus } from '../agent.js';
import { median } from '../stats.js';

const WARMUP_PASSES = 400;
const BATCH_PASSES = 40;
const ROUNDS = 24;

let sink = 0;

interface Part {
  readonly what: string;
  readonly over: string;
  readonly run: () => void;
}

const { items } = loadCorpus();
const parsed = items.map((item) => {
  const text = item.body;
  let json: unknown;
  if (text !== null && /^\s*[[{]/.test(text)) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  const page = text !== null && json === undefined ? readPage(text) : null;
  const envelope = fromResponse(item.status, item.headers, text);
  return { ...item, json, page, fields: toHeaders(item.headers), envelope };
});
const isError = (status: number): boolean => status >= 400 && status <= 599;
const pages = parsed.filter((item) => item.page !== null);
const errorPages = pages.filter((item) => isError(item.status));
const validation = parsed.filter((item) => item.status >= 400 && item.status < 500 && item.json !== undefined);
const waiting = parsed.filter((item) => RETRY_WORDS[item.envelope.error.retry].next_step === 'wait');
const paying = parsed.filter((item) => item.status === 402 || Object.keys(item.headers).some((name) => /^(?:x-)?payment-|^crawler-/.test(name)));

const parts: Part[] = [
  { what: 'JSON.parse (the baseline)', over: `all ${items.length}`, run: () => items.forEach((item) => (sink += typeof JSON.parse(item.baseline) === 'string' ? 1 : 2)) },
  { what: 'fromResponse, whole', over: `all ${items.length}`, run: () => items.forEach((item) => (sink += fromResponse(item.status, item.headers, item.body).error.message.length)) },
  { what: 'toHeaders', over: `all ${items.length}`, run: () => items.forEach((item) => (sink += toHeaders(item.headers).has('date') ? 1 : 0)) },
  { what: 'readPage (title, heading)', over: `${pages.length} pages`, run: () => pages.forEach((item) => (sink += readPage(item.body!).title?.length ?? 0)) },
  {
    what: 'challengeSignal (headers, page)',
    over: `${errorPages.length} error pages`,
    run: () => errorPages.forEach((item) => (sink += challengeSignal(item.fields, item.page, true, item.status >= 500) === null ? 0 : 1)),
  },
  { what: 'violationsOf (fields at fault)', over: `${validation.length} 4xx JSON bodies`, run: () => validation.forEach((item) => (sink += violationsOf(item.json).length)) },
  { what: 'looksLikeDump (each message)', over: `all ${items.length}`, run: () => parsed.forEach((item) => (sink += looksLikeDump(item.envelope.error.message) ? 1 : 0)) },
  { what: 'delayFrom', over: `${waiting.length} that wait`, run: () => waiting.forEach((item) => (sink += delayFrom(item.fields, item.json) ?? 0)) },
  { what: 'paymentFrom', over: `${paying.length} with a price`, run: () => paying.forEach((item) => (sink += paymentFrom(item.fields, item.json) === null ? 0 : 1)) },
];

function measure(): number[] {
  for (let pass = 0; pass < WARMUP_PASSES; pass++) for (const part of parts) part.run();
  // Rounds in rotating order: each round starts one part later, so every part runs in every position.
  const perPass: number[][] = parts.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < parts.length; k++) {
      const i = (k + round) % parts.length;
      const t0 = performance.now();
      for (let pass = 0; pass < BATCH_PASSES; pass++) parts[i]!.run();
      perPass[i]!.push(((performance.now() - t0) / BATCH_PASSES) * 1000);
    }
  }
  return perPass.map(median);
}

const us = measure();
const baseline = us[0]!;
const rows = parts.map((part, i) => ({ what: part.what, over: part.over, usPerPass: Math.round(us[i]! * 10) / 10, ofJsonParse: Math.round((us[i]! / baseline) * 100) / 100 }));
const partsAlone = us.slice(2).reduce((sum, value) => sum + value, 0);
if (process.argv.includes('--json')) {
  console.log(JSON.stringify({ rows, partsAloneOfWhole: partsAlone / us[1]! }, null, 2));
} else {
  const width = Math.max(...rows.map((row) => row.what.length));
  const overWidth = Math.max(...rows.map((row) => row.over.length));
  console.log(`${'part'.padEnd(width)}  ${'over'.padEnd(overWidth)}  us/pass  / JSON.parse`);
  for (const row of rows) console.log(`${row.what.padEnd(width)}  ${row.over.padEnd(overWidth)}  ${row.usPerPass.toFixed(1).padStart(7)}  ${row.ofJsonParse.toFixed(2).padStart(11)}`);
  console.log(`\nthe parts below the whole, run alone, add up to ${((partsAlone / us[1]!) * 100).toFixed(0)}% of it (sink ${sink > 0 ? 'used' : 'unused'})`);
}
