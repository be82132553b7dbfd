// Example bodies for every code, built from the catalog's example values: the docs, the OpenAPI
// components and the parity tests all show these same bodies.
import type { Catalog } from './catalog-model.js';

export interface CodeExamples {
  status: number;
  headers: Record<string, string>;
  envelope: { error: { code: string; message: string; field: string | null; retry: string; retry_after: number | null } };
  problem: Record<string, unknown>;
}

/** The envelope, the problem body and the headers an example of `code` is sent with. */
export function codeExamples(catalog: Catalog, code: string): CodeExamples {
  const entry = catalog.codes[code]!;
  const word = catalog.retry_words[entry.retry]!;
  const { message, detail, field, retry_after } = entry.example;
  const delay = retry_after ?? word.default_retry_after ?? null;
  const problem: Record<string, unknown> = {
    type: `${catalog.example_base}/problems/${code}`,
    title: entry.title,
    status: entry.status,
    detail,
    code,
    next_step: word.next_step,
    retry: entry.retry,
  };
  if (field !== undefined) problem.param = field;
  if (delay !== null) problem.retry_after_seconds = delay;
  const headers: Record<string, string> = {};
  if (delay !== null) headers['retry-after'] = String(delay);
  return {
    status: entry.status,
    headers,
    envelope: { error: { code, message, field: field ?? null, retry: entry.retry, retry_after: delay } },
    problem,
  };
}

/** Examples for every code, in catalog order. */
export function allExamples(catalog: Catalog): Record<string, CodeExamples> {
  return Object.fromEntries(Object.keys(catalog.codes).map((code) => [code, codeExamples(catalog, code)]));
}
