// How AgentFriendly for Fastify reads a schema validation failure, in a module loaded only when an
// agent gets the first one, with the AgentError class, which the plugin itself never loads: it only
// tells an AgentError by its brand.
import { READERS } from '../../generated/catalog.js';
import { AgentError } from './agent-error.js';

interface SchemaError {
  readonly keyword?: unknown;
  readonly instancePath?: unknown;
  readonly params?: { readonly missingProperty?: unknown };
  readonly message?: unknown;
}

/**
 * A Fastify schema validation failure (FST_ERR_VALIDATION) as the AgentError it is: missing_field or
 * invalid_input naming the field, which Fastify's {statusCode, error, message} body does not, and
 * without which a fix_input error would not tell an agent what to change, each item's code the
 * catalog's for its validation keyword (READERS.validation_keyword).
 */
export function validationError(error: unknown): AgentError | null {
  const readers: Readonly<Record<string, string>> = READERS.validation_keyword;
  const { validation, validationContext, message } = error as { validation?: unknown; validationContext?: unknown; message?: unknown };
  if (!Array.isArray(validation) || validation.length === 0) return null;
  const context = typeof validationContext === 'string' && validationContext.trim() !== '' ? validationContext : 'body';
  const items = (validation as SchemaError[]).map((item) => {
    const path = typeof item.instancePath === 'string' ? item.instancePath.split('/').filter(Boolean).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~')) : [];
    const missing = item.keyword === 'required' && typeof item.params?.missingProperty === 'string' ? item.params.missingProperty : null;
    if (missing !== null) path.push(missing);
    // Names from the request's own keys: no control characters, and a bounded length.
    const field = path.join('.').replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 200).trim() || context;
    const text = typeof item.message === 'string' && item.message.trim() !== '' ? `${context}${String(item.instancePath ?? '')} ${item.message}` : `${field} is not valid`;
    const keyword = typeof item.keyword === 'string' && Object.hasOwn(readers, item.keyword) ? item.keyword : 'default';
    return { field, code: readers[keyword]!, message: text.slice(0, 500) };
  });
  const first = items[0]!;
  const options = {
    field: first.field,
    message: typeof message === 'string' && message.trim() !== '' ? message.slice(0, 500) : first.message,
    ...(items.length > 1 ? { errors: items } : {}),
  };
  return new AgentError(first.code, options);
}
