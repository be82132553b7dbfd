// The orders shop on Express 5. express-openapi-validator checks every request and every JSON
// response against orders.openapi.yaml; the shop's own error middleware, last, turns every thrown
// error into its JSON, {"message", "code", ...}.
//
// The seam `install` lets a caller mount middleware of its own without changing the app:
//   install.before(app)  right after express(), before the body parser, the validator and the routes;
//   install.after(app)   after the routes, before the shop's error middleware.
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { ApiError, BAD_SKU, HOME_PAGE, INTERNAL, INVALID_REQUEST_CODE, MALFORMED_JSON, NOT_FOUND, QUOTA, Shop, slowDown, SPEC_PATH } from './shop.js';

export interface ExpressInstall {
  before?(app: Express): void;
  after?(app: Express): void;
}

/** The shop's answer to a thrown error: its status and JSON. */
function errorAnswer(error: unknown): { status: number; body: Record<string, unknown> } {
  if (error instanceof ApiError) return { status: error.status, body: error.body() };
  const { status, type, errors } = (error ?? {}) as { status?: number; type?: string; errors?: { path?: string; message: string }[] };
  // express.json() could not parse the body.
  if (status === 400 && type === 'entity.parse.failed') return { status: 400, body: { ...MALFORMED_JSON } };
  // express-openapi-validator refused the request: what was wrong, one entry per problem.
  if (status === 400 && Array.isArray(errors))
    return { status: 400, body: { message: 'Invalid request', code: INVALID_REQUEST_CODE, details: errors.map(({ path, message }) => ({ path: path ?? '', message })) } };
  if (status === 404) return { status: 404, body: { message: 'Not found', code: 'NOT_FOUND' } };
  if (status === 405) return { status: 405, body: { message: 'Method not allowed', code: 'METHOD_NOT_ALLOWED' } };
  // Anything else, a response the validator refused included, is the server's fault.
  return { status: 500, body: { ...INTERNAL } };
}

export function createExpressApp(install: ExpressInstall = {}): Express {
  const shop = new Shop();
  const app = express();
  install.before?.(app);
  app.use(express.json());
  app.use(OpenApiValidator.middleware({ apiSpec: SPEC_PATH, validateRequests: true, validateResponses: true }));

  app.get('/', (_req, res) => void res.type('html').send(HOME_PAGE));
  app.get('/orders/:id', (req, res) => {
    const order = shop.find(req.params.id as string);
    if (!order) return void res.status(404).json(NOT_FOUND);
    res.json(order);
  });
  app.post('/orders', (req, res) => {
    const { sku, quantity } = req.body as { sku: string; quantity: number };
    const order = shop.create(sku, quantity);
    if (!order) return void res.status(422).json(BAD_SKU);
    res.status(201).json(order);
  });
  app.post('/orders/:id/cancel', (req, res) => {
    const order = shop.cancel(req.params.id as string);
    if (!order) return void res.status(404).json(NOT_FOUND);
    res.json(order);
  });
  app.get('/quota', (_req, res) => void res.status(429).json(slowDown(7)));
  app.get('/quota-once', (_req, res) => {
    shop.quotaOnceCalls += 1;
    if (shop.quotaOnceCalls === 1) return void res.status(429).json(slowDown(1));
    res.json(QUOTA);
  });
  app.get('/boom', () => {
    throw new Error('connection to the orders database lost');
  });

  install.after?.(app);
  app.use((error: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    const { status, body } = errorAnswer(error);
    res.status(status).json(body);
  });
  return app;
}
