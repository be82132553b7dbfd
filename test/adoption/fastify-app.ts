// The orders shop on Fastify 5. Each route's schema is taken from orders.openapi.yaml: Fastify
// validates the request (params, body) with it, serializes the response with it, and
// @fastify/response-validation validates every JSON response against it before it is serialized.
// The shop's own error handler (setErrorHandler) turns every thrown error into its JSON,
// {"message", "code", ...}.
//
// The seam `install(app)` is awaited right after Fastify() is made, before the shop's error handler
// and its routes: a plugin registered there (not encapsulated) covers every route.
import responseValidation from '@fastify/response-validation';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { ApiError, BAD_SKU, dereferencedSpec, HOME_PAGE, INTERNAL, INVALID_REQUEST_CODE, MALFORMED_JSON, NOT_FOUND, operationsOf, QUOTA, routePath, Shop, slowDown, type JsonSchema } from './shop.js';

export type FastifyInstall = (app: FastifyInstance) => unknown;

/** The Fastify schema of each operation (by operationId), from the OpenAPI document. */
function routeSchemas(): Record<string, { params?: JsonSchema; body?: JsonSchema; response: Record<string, unknown> }> {
  const schemas: Record<string, { params?: JsonSchema; body?: JsonSchema; response: Record<string, unknown> }> = {};
  for (const { operation, parameters } of operationsOf(dereferencedSpec())) {
    const inPath = parameters.filter((p) => p.in === 'path');
    const body = operation.requestBody?.content?.['application/json']?.schema;
    schemas[operation.operationId] = {
      ...(inPath.length ? { params: { type: 'object', properties: Object.fromEntries(inPath.map((p) => [p.name, p.schema])), required: inPath.map((p) => p.name) } } : {}),
      ...(body ? { body } : {}),
      // Response objects as OpenAPI writes them ({description, content: {media type: {schema}}}): Fastify and the plugin both read that shape.
      response: operation.responses,
    };
  }
  return schemas;
}

/** The shop's answer to a thrown error: its status and JSON. */
function errorAnswer(error: FastifyError | ApiError): { status: number; body: Record<string, unknown> } {
  if (error instanceof ApiError) return { status: error.status, body: error.body() };
  if (error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return { status: 400, body: { ...MALFORMED_JSON } };
  // Fastify refused the request against the route's schema. (A response @fastify/response-validation
  // refused carries `validation` too, but no `validationContext`: it is the server's fault, below.)
  if (error.validation && error.validationContext)
    return {
      status: 400,
      body: { message: 'Invalid request', code: INVALID_REQUEST_CODE, details: error.validation.map((v) => ({ path: v.instancePath, message: v.message ?? 'invalid' })) },
    };
  if (error.statusCode === 404) return { status: 404, body: { message: 'Not found', code: 'NOT_FOUND' } };
  if (error.statusCode === 415) return { status: 415, body: { message: 'Unsupported media type', code: 'UNSUPPORTED_MEDIA_TYPE' } };
  // Anything else, a response the validator refused included, is the server's fault.
  return { status: 500, body: { ...INTERNAL } };
}

export async function createFastifyApp(install?: FastifyInstall): Promise<FastifyInstance> {
  const shop = new Shop();
  const schemas = routeSchemas();
  const app = Fastify();
  if (install) await install(app);
  await app.register(responseValidation);
  // axios sends Content-Type: application/x-www-form-urlencoded with a POST that has no body (a
  // cancel), which Fastify would refuse with 415 for want of a parser: an empty one is no body.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => done(null, body === '' ? undefined : body));
  app.setErrorHandler((error: FastifyError | ApiError, _request: FastifyRequest, reply: FastifyReply) => {
    const { status, body } = errorAnswer(error);
    return reply.code(status).send(body);
  });
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ message: 'Not found', code: 'NOT_FOUND' }));

  const route = (method: 'GET' | 'POST', path: string, operationId: string, handler: (request: FastifyRequest, reply: FastifyReply) => unknown) =>
    app.route({ method, url: routePath(path), schema: schemas[operationId]!, handler: handler as never });

  route('GET', '/', 'home', (_request, reply) => reply.type('text/html; charset=utf-8').send(HOME_PAGE));
  route('GET', '/orders/{id}', 'getOrder', (request, reply) => {
    const order = shop.find((request.params as { id: string }).id);
    return order ? reply.send(order) : reply.code(404).send(NOT_FOUND);
  });
  route('POST', '/orders', 'createOrder', (request, reply) => {
    const { sku, quantity } = request.body as { sku: string; quantity: number };
    const order = shop.create(sku, quantity);
    return order ? reply.code(201).send(order) : reply.code(422).send(BAD_SKU);
  });
  route('POST', '/orders/{id}/cancel', 'cancelOrder', (request, reply) => {
    const order = shop.cancel((request.params as { id: string }).id);
    return order ? reply.send(order) : reply.code(404).send(NOT_FOUND);
  });
  route('GET', '/quota', 'getQuota', (_request, reply) => reply.code(429).send(slowDown(7)));
  route('GET', '/quota-once', 'getQuotaOnce', (_request, reply) => {
    shop.quotaOnceCalls += 1;
    return shop.quotaOnceCalls === 1 ? reply.code(429).send(slowDown(1)) : reply.send(QUOTA);
  });
  route('GET', '/boom', 'boom', async () => {
    throw new Error('connection to the orders database lost');
  });
  return app;
}
