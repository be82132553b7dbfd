// The orders shop's domain, shared by its three servers (Express, Fastify, Hono): its OpenAPI
// document, its orders and catalog, its home page, and the error it throws. The shop writes its
// errors as {"message", "code", ...}; orders.openapi.yaml is its contract.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/** The shop's OpenAPI document, on disk (express-openapi-validator reads it from there). */
export const SPEC_PATH = fileURLToPath(new URL('./orders.openapi.yaml', import.meta.url));

/** The OpenAPI document as it is written, its `$ref`s in place. */
export const SPEC: OpenApiDocument = parse(readFileSync(SPEC_PATH, 'utf8')) as OpenApiDocument;

/** What the shop's code reads of its OpenAPI document. */
export interface OpenApiDocument {
  readonly paths: Record<string, Record<string, Operation | Parameter[]>>;
  readonly components: { readonly schemas: Record<string, JsonSchema> } & Record<string, unknown>;
}
export interface Parameter {
  readonly name: string;
  readonly in: string;
  readonly required?: boolean;
  readonly schema: JsonSchema;
}
export interface MediaTypes {
  readonly content?: Record<string, { readonly schema: JsonSchema }>;
}
export interface Operation {
  readonly operationId: string;
  readonly requestBody?: MediaTypes;
  readonly responses: Record<string, MediaTypes & { readonly description: string }>;
}
export type JsonSchema = Record<string, unknown>;

/** A copy of `node` with every local `$ref` (`#/a/b`) replaced by what it points to. The document has no cycles. */
function dereference(node: unknown, root: unknown): unknown {
  if (Array.isArray(node)) return node.map((item) => dereference(item, root));
  if (node === null || typeof node !== 'object') return node;
  const ref = (node as { $ref?: unknown }).$ref;
  if (typeof ref === 'string') {
    const target = ref
      .slice(2)
      .split('/')
      .reduce<unknown>((at, key) => (at as Record<string, unknown>)[key.replaceAll('~1', '/').replaceAll('~0', '~')], root);
    return dereference(target, root);
  }
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, dereference(value, root)]));
}

/** The OpenAPI document with its `$ref`s resolved: a fresh copy on every call, for a framework free to change it. */
export const dereferencedSpec = (): OpenApiDocument => dereference(SPEC, SPEC) as OpenApiDocument;

/** The operations of the document: method (lower case), OpenAPI path, the operation, and the path-level parameters. */
export function operationsOf(spec: OpenApiDocument): { method: string; path: string; operation: Operation; parameters: Parameter[] }[] {
  const found = [];
  for (const [path, item] of Object.entries(spec.paths)) {
    const parameters = (item.parameters ?? []) as Parameter[];
    for (const [method, operation] of Object.entries(item)) if (method !== 'parameters') found.push({ method, path, operation: operation as Operation, parameters });
  }
  return found;
}

/** `/orders/{id}` as a framework's route path, `/orders/:id`. */
export const routePath = (path: string): string => path.replace(/\{([^}]+)\}/g, ':$1');

/** The page a browser gets at `/`. */
export const HOME_PAGE = '<!doctype html><html><head><title>Orders</title></head><body><h1>Orders</h1><p>Track and manage your orders.</p></body></html>';

/** An order, its members in the order the schema lists them (so that every framework writes the same bytes). */
export interface Order {
  readonly id: string;
  readonly sku: string;
  readonly quantity: number;
  readonly status: 'open' | 'fulfilling' | 'cancelled';
  readonly total_cents: number;
}

/** The shop's price list, in cents. */
const PRICES: Readonly<Record<string, number>> = { 'TEA-1': 600, 'MUG-2': 1500 };

/** An error of the shop's, thrown by its code: its status, its code, its message, and any members of its own. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The shop's JSON for it. */
  body(): Record<string, unknown> {
    return { message: this.message, code: this.code, ...this.extra };
  }
}

/** The shop's JSON errors that its routes send themselves. */
export const NOT_FOUND = { message: 'No such order', code: 'NOT_FOUND' } as const;
export const BAD_SKU = { message: 'Bad sku', code: 'BAD_SKU', param: 'sku' } as const;
export const MALFORMED_JSON = { message: 'Malformed JSON body', code: 'MALFORMED_JSON' } as const;
export const INTERNAL = { message: 'Internal error', code: 'INTERNAL' } as const;
export const INVALID_REQUEST_CODE = 'INVALID_REQUEST';
export const slowDown = (seconds: number) => ({ message: 'Slow down', code: 'RATE_LIMITED', retry_after_seconds: seconds });
export const QUOTA = { limit: 100, remaining: 99 } as const;

/** The orders of one server, in memory: each server starts with the same ones. */
export class Shop {
  private readonly orders = new Map<string, Order>([
    ['42', { id: '42', sku: 'TEA-1', quantity: 2, status: 'open', total_cents: 1200 }],
    ['7', { id: '7', sku: 'MUG-2', quantity: 1, status: 'fulfilling', total_cents: 1500 }],
    ['8', { id: '8', sku: 'MUG-2', quantity: 3, status: 'open', total_cents: 4500 }],
    // Imported from the old system without a total: the response validator keeps it from clients.
    ['legacy', { id: 'legacy', sku: 'TEA-1', quantity: 1, status: 'open' } as Order],
  ]);
  private nextId = 100;
  /** How many times /quota-once was asked: the first call is refused, the rest answered. */
  quotaOnceCalls = 0;

  find(id: string): Order | undefined {
    return this.orders.get(id);
  }

  /** A new order, or null for a SKU the catalog does not have. */
  create(sku: string, quantity: number): Order | null {
    const price = PRICES[sku];
    if (price === undefined) return null;
    const order: Order = { id: String(this.nextId++), sku, quantity, status: 'open', total_cents: price * quantity };
    this.orders.set(order.id, order);
    return order;
  }

  /** The order, cancelled; undefined when there is none; throws 423 ORDER_LOCKED once it is being fulfilled. */
  cancel(id: string): Order | undefined {
    const order = this.orders.get(id);
    if (!order) return undefined;
    if (order.status === 'fulfilling') throw new ApiError(423, 'ORDER_LOCKED', 'Order is locked');
    const cancelled: Order = { ...order, status: 'cancelled' };
    this.orders.set(id, cancelled);
    return cancelled;
  }
}
