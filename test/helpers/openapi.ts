// The smallest OpenAPI documents the lint tests build: one operation and the responses under test.

/** Where the one operation sits, and what else the document holds at its top (components, x-agent-errors). */
export interface OneOperationOptions {
  /** @default '/a' */
  readonly path?: string;
  /** @default 'get' */
  readonly method?: string;
  readonly extra?: Record<string, unknown>;
}

/** An OpenAPI 3.1 document whose one operation answers 200 and `responses`. */
export function oneOperation(responses: Record<string, unknown>, { path = '/a', method = 'get', extra = {} }: OneOperationOptions = {}): Record<string, any> {
  return { openapi: '3.1.0', info: { title: 't', version: '1' }, paths: { [path]: { [method]: { responses: { '200': { description: 'ok' }, ...responses } } } }, ...extra };
}
