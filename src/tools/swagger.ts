// Swagger 2.0, read as OpenAPI 3.0: Kubernetes', Azure's and many older APIs' published documents
// are 2.0. swagger2openapi (the converter Redoc and others have long used) makes the 3.0 document;
// swaggerPointer maps a place in it back to the place in the 2.0 document the user wrote.
import { isRecord } from '../core/json.js';
import { LintInputError } from './lint-documents.js';

import type { OpenAPIV2 } from 'openapi-types';

/**
 * The OpenAPI 3.0 document swagger2openapi makes of a Swagger 2.0 one; `document` is not changed.
 * Nothing is resolved or fetched: external $refs are left for the lint's own guarded loading.
 */
export async function fromSwagger2(document: Record<string, unknown>, label: string): Promise<Record<string, unknown>> {
  // An optional peer, loaded when a 2.0 document comes: a 3.x lint, and every other user, never pays for it.
  let convertObj: typeof import('swagger2openapi').convertObj;
  try {
    ({ convertObj } = await import('swagger2openapi'));
  } catch (error) {
    throw new LintInputError(`${label} is Swagger 2.0, which lint reads through swagger2openapi: npm install -D swagger2openapi@7 (${(error as Error).message})`, { cause: error });
  }
  try {
    const { openapi } = await convertObj(structuredClone(document) as unknown as OpenAPIV2.Document, { patch: true, warnOnly: true, resolve: false });
    if (!isRecord(openapi) || typeof openapi.openapi !== 'string') throw new Error('the converter returned no OpenAPI document');
    return openapi as unknown as Record<string, unknown>;
  } catch (error) {
    throw new LintInputError(`${label} is Swagger 2.0 that cannot be read as OpenAPI 3.0: ${(error as Error).message}`, { cause: error });
  }
}

const MOVED: readonly [RegExp, string][] = [
  [/^\/components\/schemas\//, '/definitions/'],
  [/^\/components\/responses\//, '/responses/'],
  [/^\/components\/parameters\//, '/parameters/'],
  [/^\/components\/securitySchemes\//, '/securityDefinitions/'],
];

/**
 * Where a place in the converted 3.0 document was in the 2.0 one: components back under
 * definitions, responses and parameters; a body's `content/<type>/schema` back to `schema`, its
 * `content/<type>/example` to `examples/<type>`; a header's `schema` to the header itself.
 */
export function swaggerPointer(pointer: string): string {
  let out = pointer;
  for (const [from, to] of MOVED) out = out.replace(from, to);
  out = out.replace(/\/content\/([^/]+)\/schema(?=\/|$)/, '/schema').replace(/\/content\/([^/]+)\/example(?=\/|$)/, '/examples/$1').replace(/\/content(?:\/[^/]+)?$/, '');
  out = out.replace(/(\/headers\/[^/]+)\/schema$/, '$1');
  return out;
}
