// The orders shop on Hono 4, served with @hono/node-server. A middleware of the shop's validates
// every JSON response against orders.openapi.yaml with openapi-response-validator, and the JSON
// body of POST /orders with ajv against the document's NewOrder schema; the shop's own error
// handler (app.onError) turns every thrown error into its JSON, {"message", "code", ...}.
//
// The seam `install` lets a caller add middleware of its own without changing the app:
//   install.before(app)  right after new Hono(), before the shop's middleware and routes;
//   install.after(app)   after the routes and the shop's app.onError.
import { Ajv } from 'ajv';
import { Hono, type Context, type Next } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { validator } from 'hono/validator';
import OpenAPIResponseValidatorModule from 'openapi-response-validator';
import { ApiError, BAD_SKU, dereferencedSpec, HOME_PAGE, INTERNAL, INVALID_REQUEST_CODE, MALFORMED_JSON, NOT_FOUND, operationsOf, QUOTA, Shop, slowDown } from './shop.js';

export interface HonoInstall {
  before?(app: Hono): void;
  after?(app: Hono): void;
}

// openapi-response-validator is CommonJS with its class on `exports.default`: Node's ESM import gives
// the exports object, a bundler's interop the class itself.
type ValidatorClass = typeof OpenAPIResponseValidatorModule.default;
const OpenAPIResponseValidator: ValidatorClass = (OpenAPIResponseValidatorModule as { default?: ValidatorClass }).default ?? (OpenAPIResponseValidatorModule as unknown as ValidatorClass);

/** A response the document does not allow: the shop answers 500 rather than send it. */
class ResponseValidationError extends Error {
  constructor(
    readonly route: string,
    readonly errors: unknown,
  ) {
    super(`the response of ${route} does not match the OpenAPI document`);
  }
}

/** Each operation of the document with a matcher for its path and a validator of its responses. */
function responseValidators() {
  const spec = dereferencedSpec();
  return operationsOf(spec).map(({ method, path, operation }) => ({
    method: method.toUpperCase(),
    route: `${method.toUpperCase()} ${path}`,
    matches: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    validator: new OpenAPIResponseValidator({ responses: operation.responses as never, components: spec.components as never }),
  }));
}

/** The shop's answer to a thrown error: its status and JSON. */
function errorAnswer(error: Error): { status: number; body: Record<string, unknown> } {
  if (error instanceof ApiError) return { status: error.status, body: error.body() };
  // hono/validator could not parse the JSON body.
  if (error instanceof HTTPException && error.status === 400) return { status: 400, body: { ...MALFORMED_JSON } };
  // Anything else, a response the validator refused included, is the server's fault.
  return { status: 500, body: { ...INTERNAL } };
}

export function createHonoApp(install: HonoInstall = {}): Hono {
  const shop = new Shop();
  const validators = responseValidators();
  const spec = dereferencedSpec();
  const newOrder = new Ajv({ allErrors: true }).compile<{ sku: string; quantity: number }>(spec.components.schemas.NewOrder!);
  const app = new Hono();
  install.before?.(app);

  // Every JSON response of a documented operation must match the document; a thrown error here goes to app.onError.
  app.use(async (c: Context, next: Next) => {
    await next();
    if (!/^application\/json\b/.test(c.res.headers.get('content-type') ?? '')) return;
    const operation = validators.find((v) => v.method === c.req.method && v.matches.test(c.req.path));
    if (!operation) return;
    const invalid = operation.validator.validateResponse(c.res.status, await c.res.clone().json());
    if (invalid) throw new ResponseValidationError(operation.route, invalid.errors);
  });

  app.get('/', (c) => c.html(HOME_PAGE));
  app.get('/orders/:id', (c) => {
    const order = shop.find(c.req.param('id'));
    return order ? c.json(order) : c.json(NOT_FOUND, 404);
  });
  app.post(
    '/orders',
    validator('json', (body, c) => {
      if (newOrder(body)) return body;
      const details = (newOrder.errors ?? []).map((e) => ({ path: e.instancePath, message: e.message ?? 'invalid' }));
      return c.json({ message: 'Invalid request', code: INVALID_REQUEST_CODE, details }, 400);
    }),
    (c) => {
      const { sku, quantity } = c.req.valid('json');
      const order = shop.create(sku, quantity);
      return order ? c.json(order, 201) : c.json(BAD_SKU, 422);
    },
  );
  app.post('/orders/:id/cancel', (c) => {
    const order = shop.cancel(c.req.param('id'));
    return order ? c.json(order) : c.json(NOT_FOUND, 404);
  });
  app.get('/quota', (c) => c.json(slowDown(7), 429));
  app.get('/quota-once', (c) => {
    shop.quotaOnceCalls += 1;
    return shop.quotaOnceCalls === 1 ? c.json(slowDown(1), 429) : c.json(QUOTA);
  });
  app.get('/boom', () => {
    throw new Error('connection to the orders database lost');
  });
  app.notFound((c) => c.json({ message: 'Not found', code: 'NOT_FOUND' }, 404));
  app.onError((error, c) => {
    const { status, body } = errorAnswer(error);
    return c.json(body, status as 400);
  });

  install.after?.(app);
  return app;
}
