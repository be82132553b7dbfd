// The validation error responses of the npm frameworks, served for real on loopback: one small app
// per framework (Fastify, NestJS, hapi, express-validator, Zod, ts-japi), each left to answer a bad
// request the way the framework does by default or by its documented pattern, and the cases that
// provoke them. scripts/capture-validation.ts writes each case's answer to a fixture, and
// test/core/validation-live.test.ts checks that the frameworks still answer so. The expectations of
// each case are written by hand, from the body as the framework sends it, not computed by code.
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Hapi from '@hapi/hapi';
import { Body, Controller, Module, Post, StandardSchemaValidationPipe, ValidationPipe, type ValidationPipeOptions } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { Type } from 'class-transformer';
import { IsArray, IsEmail, IsInt, IsNotEmpty, IsOptional, IsString, Min, ValidateNested } from 'class-validator';
import express from 'express';
import { body, query, validationResult } from 'express-validator';
import Fastify, { type FastifyServerOptions } from 'fastify';
import Joi from 'joi';
// ts-japi is CommonJS whose named exports Node cannot see, so it is read through its default export.
import japi, { type JapiError } from 'ts-japi';
import { z } from 'zod';
import { ROOT } from '../../codegen/paths.js';
import { serve } from './server.js';

/** An app listening on a loopback port. */
export interface Running {
  /** Its origin, http://127.0.0.1:port. */
  readonly url: string;
  readonly close: () => Promise<void>;
}

/** One app, and what the fixtures say about where its answers come from. */
export interface ValidationApp {
  /** The vendor column of the fixtures README table. */
  readonly vendor: string;
  /** The npm packages whose versions the fixture's source names, in that order. */
  readonly packages: readonly string[];
  /** The page documenting the body's format. */
  readonly docs: string;
  readonly start: () => Promise<Running>;
}

/** The envelope fields fromResponse must give for a case (see test/fixtures/responses/README.md), plus every field at fault when the body names several. */
export interface ValidationExpect {
  readonly code: 'missing_field' | 'invalid_input';
  readonly retry: 'fix_input';
  readonly field: string | null;
  readonly retry_after: null;
  readonly message: string;
  readonly fields?: readonly string[];
}

/** The request a case sends. */
export interface ValidationRequest {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** One captured response: the request that provokes it and what it must read as. */
export interface ValidationCase {
  /** The fixture's file name in test/fixtures/responses/. */
  readonly fixture: string;
  /** The key of its app in APPS. */
  readonly framework: AppKey;
  /** The fixture's name member. */
  readonly name: string;
  /** What the app validates the request against, for the fixture's source ("against ..."). */
  readonly against: string;
  /** The "what it shows" column of the README table. */
  readonly shows: string;
  /** A page documenting this case's format when it is not the app's own docs page. */
  readonly docs?: string;
  readonly request: ValidationRequest;
  readonly expect: ValidationExpect;
}

/** The version of an installed package, read from its package.json. */
export function packageVersion(name: string): string {
  return (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The origin of a node server listening on loopback. */
function originOf(address: string | AddressInfo | null): string {
  if (address === null || typeof address === 'string') throw new Error(`not a TCP address: ${String(address)}`);
  return `http://127.0.0.1:${address.port}`;
}

// ---------------------------------------------------------------------------------------------------
// Fastify 5: JSON schemas on the route, checked by its default Ajv; the default error handler answers.

const address = { type: 'object', required: ['city'], properties: { city: { type: 'string' }, zip: { type: 'string' } } } as const;
const item = { type: 'object', required: ['sku'], properties: { sku: { type: 'string' }, qty: { type: 'integer', minimum: 1 } } } as const;
const userSchema = {
  type: 'object',
  required: ['email', 'name'],
  properties: {
    email: { type: 'string', format: 'email' },
    name: { type: 'string' },
    age: { type: 'integer' },
    address,
    items: { type: 'array', items: item },
  },
} as const;

async function startFastify(options: FastifyServerOptions): Promise<Running> {
  const app = Fastify({ logger: false, ...options });
  app.post('/users', { schema: { body: userSchema } }, async () => ({ ok: true }));
  app.get('/users', { schema: { querystring: { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: 100 } } } } }, async () => []);
  app.get('/users/:id', { schema: { params: { type: 'object', properties: { id: { type: 'integer' } } } } }, async () => ({ ok: true }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { url: originOf(app.server.address()), close: () => app.close() };
}

// ---------------------------------------------------------------------------------------------------
// NestJS 12: a DTO of class-validator rules behind the global ValidationPipe, on Nest's Express platform.
// The repository compiles with standard decorators (no experimentalDecorators) and esbuild emits no
// design:paramtypes, so the legacy decorators are applied as the functions they are, in the order
// TypeScript's __decorate applies `@A() @B() key` (the last first), and the parameter type TypeScript
// would emit is defined by hand. The pipe, the rules and the body are Nest's and class-validator's own.

/** A property decorator of class-validator or class-transformer, as a function. */
type PropertyRule = (target: object, key: string) => void;

/** Applies the decorators of one property as `@decorators[0] ... @decorators[n] key` would. */
function decorate(target: object, key: string, ...decorators: PropertyRule[]): void {
  for (const decorator of decorators.slice().reverse()) decorator(target, key);
}

class AddressDto {
  declare city: string;
  declare zip?: string;
}
decorate(AddressDto.prototype, 'city', IsString(), IsNotEmpty());
decorate(AddressDto.prototype, 'zip', IsOptional(), IsString());

class ItemDto {
  declare sku: string;
  declare qty?: number;
}
decorate(ItemDto.prototype, 'sku', IsString(), IsNotEmpty());
decorate(ItemDto.prototype, 'qty', IsOptional(), IsInt(), Min(1));

class CreateUserDto {
  declare email: string;
  declare name: string;
  declare age?: number;
  declare address?: AddressDto;
  declare items?: ItemDto[];
}
// The DTO of the NestJS validation docs (@IsEmail() @IsNotEmpty() email), with a few more properties.
decorate(CreateUserDto.prototype, 'email', IsEmail(), IsNotEmpty());
decorate(CreateUserDto.prototype, 'name', IsString(), IsNotEmpty());
decorate(CreateUserDto.prototype, 'age', IsOptional(), IsInt());
decorate(CreateUserDto.prototype, 'address', IsOptional(), ValidateNested(), Type(() => AddressDto));
decorate(CreateUserDto.prototype, 'items', IsOptional(), IsArray(), ValidateNested({ each: true }), Type(() => ItemDto));

/** The same user as a Zod schema, for Nest's StandardSchemaValidationPipe. */
const nestZodUser = z.object({ email: z.email(), name: z.string() });

class UsersController {
  create(dto: CreateUserDto): { ok: boolean } {
    return { ok: dto !== undefined };
  }
  createWithSchema(dto: unknown): { ok: boolean } {
    return { ok: dto !== undefined };
  }
}
/** Applies a method decorator to a method of UsersController. */
function onMethod(key: 'create' | 'createWithSchema', decorator: MethodDecorator): void {
  const descriptor = Object.getOwnPropertyDescriptor(UsersController.prototype, key);
  if (descriptor === undefined) throw new Error(`no method ${key}`);
  decorator(UsersController.prototype, key, descriptor);
}
Controller()(UsersController);
onMethod('create', Post('users'));
Body()(UsersController.prototype, 'create', 0);
Reflect.defineMetadata('design:paramtypes', [CreateUserDto], UsersController.prototype, 'create');
onMethod('createWithSchema', Post('standard-schema/users'));
Body({ schema: nestZodUser })(UsersController.prototype, 'createWithSchema', 0);
Reflect.defineMetadata('design:paramtypes', [Object], UsersController.prototype, 'createWithSchema');

class AppModule {}
Module({ controllers: [UsersController] })(AppModule);

async function startNest(pipe: ValidationPipeOptions): Promise<Running> {
  const app = await NestFactory.create(AppModule, new ExpressAdapter(), { logger: false, forceCloseConnections: true });
  // ValidationPipe checks the parameters typed with a class, StandardSchemaValidationPipe those that declare a schema.
  app.useGlobalPipes(new ValidationPipe(pipe), new StandardSchemaValidationPipe());
  await app.listen(0, '127.0.0.1');
  return { url: originOf((app.getHttpServer() as import('node:http').Server).address()), close: () => app.close() };
}

// ---------------------------------------------------------------------------------------------------
// hapi 21 with Joi 18: route validation, with hapi's default failAction (which hides the details) and
// with the failAction hapi documents for sending them (throw err).

const joiUser = Joi.object({
  email: Joi.string().email().required(),
  name: Joi.string().required(),
  age: Joi.number().integer(),
  address: Joi.object({ city: Joi.string().required(), zip: Joi.string() }),
  items: Joi.array().items(Joi.object({ sku: Joi.string().required(), qty: Joi.number().integer().min(1) })),
});

async function startHapi(): Promise<Running> {
  const server = Hapi.server({ host: '127.0.0.1', port: 0 });
  const failAction: Hapi.Lifecycle.Method = (_request, _h, err) => {
    throw err;
  };
  const handler: Hapi.Lifecycle.Method = () => ({ ok: true });
  server.route({ method: 'POST', path: '/users', options: { handler, validate: { payload: joiUser, failAction } } });
  server.route({ method: 'POST', path: '/all-errors/users', options: { handler, validate: { payload: joiUser, failAction, options: { abortEarly: false } } } });
  server.route({ method: 'POST', path: '/default/users', options: { handler, validate: { payload: joiUser } } });
  const limit = Joi.object({ limit: Joi.number().integer().min(1).max(100) });
  server.route({ method: 'GET', path: '/users', options: { handler, validate: { query: limit, failAction } } });
  await server.start();
  return { url: originOf(server.listener.address()), close: () => server.stop({ timeout: 100 }) };
}

// ---------------------------------------------------------------------------------------------------
// express 5 + express-validator 7: chains on the route, then the getting-started pattern
// res.status(400).json({ errors: result.array() }) (or result.mapped()).

async function startExpressValidator(): Promise<Running> {
  const app = express();
  app.use(express.json());
  const user = [body('email').isEmail(), body('name').notEmpty(), body('age').optional().isInt()];
  const order = [
    body('address.city').notEmpty().isString(),
    body('items').isArray({ min: 1 }),
    body('items.*.sku').notEmpty(),
    body('items.*.qty').isInt({ min: 1 }),
  ];
  // The messages of the docs' "Custom error messages" page, on a chain that stops at its first failure.
  const withMessages = [body('email').notEmpty().withMessage('Email is required').bail().isEmail().withMessage('Email must be a valid email address')];
  const answer = (shape: 'array' | 'mapped'): express.RequestHandler => (req, res) => {
    const result = validationResult(req);
    if (!result.isEmpty()) return void res.status(400).json({ errors: shape === 'array' ? result.array() : result.mapped() });
    res.json({ ok: true });
  };
  app.post('/users', ...user, answer('array'));
  app.post('/orders', ...order, answer('array'));
  app.post('/mapped/users', ...user, answer('mapped'));
  app.post('/messages/users', ...withMessages, answer('array'));
  app.get('/users', query('limit').optional().isInt({ min: 1, max: 100 }), answer('array'));
  const server = await serve(app);
  return { url: server.url, close: server.close };
}

// ---------------------------------------------------------------------------------------------------
// Zod 4 in an express 5 handler: safeParse, then each of the ways APIs send a ZodError.

const zodUser = z.object({
  email: z.email(),
  name: z.string(),
  age: z.number().int().optional(),
  address: z.object({ city: z.string(), zip: z.string().optional() }).optional(),
  items: z.array(z.object({ sku: z.string(), qty: z.number().int().min(1) })).optional(),
});

/** The bodies APIs build from a ZodError, by the path segment that selects them. */
const ZOD_BODIES: Record<string, (error: z.ZodError) => unknown> = {
  'flatten-error': (error) => z.flattenError(error),
  flatten: (error) => error.flatten(),
  'treeify-error': (error) => z.treeifyError(error),
  format: (error) => error.format(),
  issues: (error) => ({ errors: error.issues }),
  'error-object': (error) => ({ error }),
};

async function startZod(): Promise<Running> {
  const app = express();
  app.use(express.json());
  app.post('/:shape/users', (req, res) => {
    const toBody = ZOD_BODIES[req.params.shape];
    if (toBody === undefined) return void res.status(404).json({ error: 'no such shape' });
    const result = zodUser.safeParse(req.body);
    if (!result.success) return void res.status(400).json(toBody(result.error));
    res.json({ ok: true });
  });
  const server = await serve(app);
  return { url: server.url, close: server.close };
}

// ---------------------------------------------------------------------------------------------------
// JSON:API error documents serialized by ts-japi, from a node:http handler that checks a JSON:API
// request document itself (ts-japi serializes; it does not validate).

const JSONAPI = 'application/vnd.api+json';
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

async function startJsonApi(): Promise<Running> {
  const serializer = new japi.ErrorSerializer();
  const send = (res: import('node:http').ServerResponse, status: number, errors: JapiError[]) => {
    res.writeHead(status, { 'content-type': JSONAPI }).end(JSON.stringify(serializer.serialize(errors)));
  };
  const server = await serve((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname === '/articles') {
      const include = url.searchParams.get('include');
      if (include !== null && include !== 'comments') {
        // The JSON:API spec: an unsupported inclusion path MUST be answered 400 Bad Request.
        const detail = `The resource does not have an \`${include}\` relationship path.`;
        send(res, 400, [new japi.JapiError({ status: '400', source: { parameter: 'include' }, title: 'Invalid Query Parameter', detail })]);
        return;
      }
      res.writeHead(200, { 'content-type': JSONAPI }).end(JSON.stringify({ data: [] }));
      return;
    }
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => void (text += chunk));
    req.on('end', () => {
      const document = JSON.parse(text) as { data?: { attributes?: Record<string, unknown> } };
      const attributes = document.data?.attributes ?? {};
      const errors: JapiError[] = [];
      const invalid = (name: string, title: string, detail: string) =>
        new japi.JapiError({ status: '422', source: { pointer: `/data/attributes/${name}` }, title, detail });
      if (attributes.email === undefined) {
        errors.push(invalid('email', 'Missing Attribute', 'The email attribute is required.'));
      } else if (typeof attributes.email !== 'string' || !EMAIL.test(attributes.email)) {
        errors.push(invalid('email', 'Invalid Attribute', 'Email must be a valid email address.'));
      }
      // The JSON:API spec's own example of an error object.
      if (typeof attributes.firstName === 'string' && attributes.firstName.length < 2) {
        errors.push(invalid('firstName', 'Invalid Attribute', 'First name must contain at least two characters.'));
      }
      if (errors.length > 0) send(res, 422, errors);
      else res.writeHead(201, { 'content-type': JSONAPI }).end(JSON.stringify({ data: { type: 'users', id: '1', attributes } }));
    });
  });
  return { url: server.url, close: server.close };
}

// ---------------------------------------------------------------------------------------------------

export const APPS = {
  fastify: {
    vendor: 'Fastify',
    packages: ['fastify'],
    docs: 'https://fastify.dev/docs/latest/Reference/Validation-and-Serialization/',
    start: () => startFastify({}),
  },
  'fastify-all-errors': {
    vendor: 'Fastify',
    packages: ['fastify'],
    docs: 'https://fastify.dev/docs/latest/Reference/Validation-and-Serialization/',
    start: () => startFastify({ ajv: { customOptions: { allErrors: true } } }),
  },
  nestjs: {
    vendor: 'NestJS',
    packages: ['@nestjs/core', '@nestjs/common', '@nestjs/platform-express', 'class-validator', 'class-transformer'],
    docs: 'https://docs.nestjs.com/application/validation',
    start: () => startNest({}),
  },
  'nestjs-grouped': {
    vendor: 'NestJS',
    packages: ['@nestjs/core', '@nestjs/common', '@nestjs/platform-express', 'class-validator', 'class-transformer'],
    docs: 'https://docs.nestjs.com/application/validation',
    start: () => startNest({ errorFormat: 'grouped' }),
  },
  hapi: {
    vendor: 'hapi',
    packages: ['@hapi/hapi', 'joi'],
    docs: 'https://hapi.dev/api/#-routeoptionsvalidatefailaction',
    start: startHapi,
  },
  'express-validator': {
    vendor: 'express-validator',
    packages: ['express', 'express-validator'],
    docs: 'https://express-validator.github.io/docs/guides/getting-started',
    start: startExpressValidator,
  },
  zod: {
    vendor: 'Zod',
    packages: ['zod', 'express'],
    docs: 'https://zod.dev/error-formatting',
    start: startZod,
  },
  jsonapi: {
    vendor: 'JSON:API (ts-japi)',
    packages: ['ts-japi'],
    docs: 'https://jsonapi.org/format/#error-objects',
    start: startJsonApi,
  },
} satisfies Record<string, ValidationApp>;

export type AppKey = keyof typeof APPS;

/** The expectation of a case: every validation error is fixed by the caller, with no delay. */
const fix = (code: ValidationExpect['code'], field: string | null, message: string, fields?: readonly string[]): ValidationExpect => ({
  code, retry: 'fix_input', field, retry_after: null, message, ...(fields === undefined ? {} : { fields }),
});

/** A request that accepts `type` and, with a body, sends it as `type`. */
const requestOf =
  (type: string) =>
  (method: 'GET' | 'POST', path: string, requestBody?: unknown): ValidationRequest =>
    requestBody === undefined
      ? { method, path, headers: { accept: type } }
      : { method, path, body: requestBody, headers: { accept: type, 'content-type': type } };
const json = requestOf('application/json');
const jsonApi = requestOf(JSONAPI);

const ADA = { email: 'ada@example.com', name: 'Ada' };

/** A request that breaks several rules at once: a bad email, a nested object missing its city, and the second item's qty below 1. */
const SEVERAL = { email: 'not-an-email', name: 'Ada', address: {}, items: [{ sku: 'A1', qty: 1 }, { sku: 'B2', qty: 0 }] };
const ZOD_MISSING = 'Invalid input: expected string, received undefined';

export const CASES: readonly ValidationCase[] = [
  // Fastify: one message naming the part of the request (body, querystring, params) and the JSON path of the value.
  {
    fixture: 'fastify-400-body-missing-required.json',
    framework: 'fastify',
    name: 'Fastify 400 FST_ERR_VALIDATION: body missing a required property',
    against: 'a JSON schema body requiring email and name (default Ajv, default error handler)',
    shows: "FST_ERR_VALIDATION \"body must have required property 'email'\": missing_field, field email",
    request: json('POST', '/users', {}),
    expect: fix('missing_field', 'email', "body must have required property 'email'"),
  },
  {
    fixture: 'fastify-400-body-wrong-type.json',
    framework: 'fastify',
    name: 'Fastify 400 FST_ERR_VALIDATION: body property of the wrong type',
    against: 'a JSON schema body with age of type integer (default Ajv, default error handler)',
    shows: '"body/age must be integer": invalid_input, field age',
    request: json('POST', '/users', { ...ADA, age: 'ten' }),
    expect: fix('invalid_input', 'age', 'body/age must be integer'),
  },
  {
    fixture: 'fastify-400-body-invalid-format.json',
    framework: 'fastify',
    name: 'Fastify 400 FST_ERR_VALIDATION: body property failing its format',
    against: 'a JSON schema body with email of format email (default Ajv with ajv-formats, default error handler)',
    shows: '\'body/email must match format "email"\': invalid_input, field email',
    request: json('POST', '/users', { email: 'not-an-email', name: 'Ada' }),
    expect: fix('invalid_input', 'email', 'body/email must match format "email"'),
  },
  {
    fixture: 'fastify-400-body-nested-missing-required.json',
    framework: 'fastify',
    name: 'Fastify 400 FST_ERR_VALIDATION: nested object missing a required property',
    against: 'a JSON schema body whose address object requires city (default Ajv, default error handler)',
    shows: "\"body/address must have required property 'city'\": missing_field, field address.city (the parent path plus the quoted name)",
    request: json('POST', '/users', { ...ADA, address: {} }),
    expect: fix('missing_field', 'address.city', "body/address must have required property 'city'"),
  },
  {
    fixture: 'fastify-400-body-array-item.json',
    framework: 'fastify',
    name: 'Fastify 400 FST_ERR_VALIDATION: array item property out of range',
    against: 'a JSON schema body whose items have qty an integer of minimum 1 (default Ajv, default error handler)',
    shows: '"body/items/0/qty must be >= 1": invalid_input, field items.0.qty',
    request: json('POST', '/users', { ...ADA, items: [{ sku: 'A1', qty: 0 }] }),
    expect: fix('invalid_input', 'items.0.qty', 'body/items/0/qty must be >= 1'),
  },
  {
    fixture: 'fastify-400-querystring-wrong-type.json',
    framework: 'fastify',
    name: 'Fastify 400 FST_ERR_VALIDATION: query-string parameter of the wrong type',
    against: 'a querystring JSON schema with limit an integer (default Ajv, default error handler)',
    shows: '"querystring/limit must be integer": invalid_input, field limit',
    request: json('GET', '/users?limit=abc'),
    expect: fix('invalid_input', 'limit', 'querystring/limit must be integer'),
  },
  {
    fixture: 'fastify-400-params-wrong-type.json',
    framework: 'fastify',
    name: 'Fastify 400 FST_ERR_VALIDATION: path parameter of the wrong type',
    against: 'a params JSON schema for /users/:id with id an integer (default Ajv, default error handler)',
    shows: '"params/id must be integer": invalid_input, field id',
    request: json('GET', '/users/abc'),
    expect: fix('invalid_input', 'id', 'params/id must be integer'),
  },
  {
    fixture: 'fastify-400-all-errors-two-violations.json',
    framework: 'fastify-all-errors',
    name: 'Fastify 400 FST_ERR_VALIDATION with Ajv allErrors: two violations in one message',
    against: "a JSON schema body requiring email, age an integer, with ajv: { customOptions: { allErrors: true } } (default error handler)",
    shows: "allErrors joins the violations with \", \" in one message: missing_field, field email, fields [email, age]",
    request: json('POST', '/users', { name: 'Ada', age: 'ten' }),
    expect: fix('missing_field', 'email', "body must have required property 'email'", ['email', 'age']),
  },

  // NestJS: message is an array of class-validator sentences, each starting with the property's dotted path.
  {
    fixture: 'nestjs-400-validation-pipe-missing-email.json',
    framework: 'nestjs',
    name: 'NestJS 400 ValidationPipe: missing email (IsEmail and IsNotEmpty both fail)',
    against: 'the global ValidationPipe and a class-validator DTO with @IsEmail() @IsNotEmpty() email',
    shows: 'message ["email should not be empty", "email must be an email"]: missing_field, field email, fields [email, email]',
    request: json('POST', '/users', { name: 'Ada' }),
    expect: fix('missing_field', 'email', 'email should not be empty', ['email', 'email']),
  },
  {
    fixture: 'nestjs-400-validation-pipe-wrong-type.json',
    framework: 'nestjs',
    name: 'NestJS 400 ValidationPipe: a second property of the wrong type',
    against: 'the global ValidationPipe and a class-validator DTO with @IsOptional() @IsInt() age',
    shows: 'message ["age must be an integer number"]: invalid_input, field age',
    request: json('POST', '/users', { ...ADA, age: 'ten' }),
    expect: fix('invalid_input', 'age', 'age must be an integer number'),
  },
  {
    fixture: 'nestjs-400-validation-pipe-nested.json',
    framework: 'nestjs',
    name: 'NestJS 400 ValidationPipe: nested DTO missing a property',
    against: 'the global ValidationPipe and a DTO with @ValidateNested() @Type(() => AddressDto) address whose city is @IsString() @IsNotEmpty()',
    shows: 'message ["address.city should not be empty", "address.city must be a string"]: missing_field, field address.city',
    request: json('POST', '/users', { ...ADA, address: {} }),
    expect: fix('missing_field', 'address.city', 'address.city should not be empty', ['address.city', 'address.city']),
  },
  {
    fixture: 'nestjs-400-validation-pipe-array-item.json',
    framework: 'nestjs',
    name: 'NestJS 400 ValidationPipe: array item property out of range',
    against: 'the global ValidationPipe and a DTO with @ValidateNested({ each: true }) @Type(() => ItemDto) items whose qty is @IsInt() @Min(1)',
    shows: 'message ["items.0.qty must not be less than 1"]: invalid_input, field items.0.qty',
    request: json('POST', '/users', { ...ADA, items: [{ sku: 'A1', qty: 0 }] }),
    expect: fix('invalid_input', 'items.0.qty', 'items.0.qty must not be less than 1'),
  },
  {
    fixture: 'nestjs-400-validation-pipe-grouped.json',
    framework: 'nestjs-grouped',
    name: "NestJS 400 ValidationPipe with errorFormat 'grouped': messages keyed by property path",
    against: "the global ValidationPipe with errorFormat: 'grouped' and the same DTO (missing email, address without city)",
    shows: 'message is an object from dotted path to sentences, whose nested sentences name only "city": missing_field, field email, '
      + 'fields [email, email, address.city, address.city]',
    request: json('POST', '/users', { name: 'Ada', address: {} }),
    expect: fix('missing_field', 'email', 'email should not be empty', ['email', 'email', 'address.city', 'address.city']),
  },
  {
    fixture: 'nestjs-400-standard-schema-missing-email.json',
    framework: 'nestjs',
    name: 'NestJS 400 StandardSchemaValidationPipe (Zod schema): missing email',
    against: 'the global StandardSchemaValidationPipe and @Body({ schema: z.object({ email: z.email(), name: z.string() }) })',
    shows: 'message ["email: Invalid input: expected string, received undefined"] (Nest prefixes the issue path): missing_field, field email',
    request: json('POST', '/standard-schema/users', { name: 'Ada' }),
    expect: fix('missing_field', 'email', `email: ${ZOD_MISSING}`),
  },

  // hapi with Joi: the default failAction hides the details; failAction throwing err sends Joi's message and validation.keys.
  {
    fixture: 'hapi-400-payload-default-fail-action.json',
    framework: 'hapi',
    name: 'hapi 400 with the default failAction: no field named',
    against: "a Joi payload schema requiring email, with hapi's default failAction ('error')",
    shows: 'Default failAction hides Joi\'s details: "Invalid request payload input", invalid_input, field null',
    request: json('POST', '/default/users', { name: 'Ada' }),
    expect: fix('invalid_input', null, 'Invalid request payload input'),
  },
  {
    fixture: 'hapi-400-payload-missing-required.json',
    framework: 'hapi',
    name: 'hapi 400 Joi payload validation: missing required key',
    against: 'a Joi payload schema requiring email, with failAction: (request, h, err) => { throw err; }',
    shows: 'message \'"email" is required\', validation.keys [email]: missing_field, field email',
    request: json('POST', '/users', { name: 'Ada' }),
    expect: fix('missing_field', 'email', '"email" is required'),
  },
  {
    fixture: 'hapi-400-payload-wrong-type.json',
    framework: 'hapi',
    name: 'hapi 400 Joi payload validation: key of the wrong type',
    against: 'a Joi payload schema with age Joi.number().integer(), with failAction: (request, h, err) => { throw err; }',
    shows: 'message \'"age" must be a number\': invalid_input, field age',
    request: json('POST', '/users', { ...ADA, age: 'ten' }),
    expect: fix('invalid_input', 'age', '"age" must be a number'),
  },
  {
    fixture: 'hapi-400-payload-nested-missing-required.json',
    framework: 'hapi',
    name: 'hapi 400 Joi payload validation: nested key missing',
    against: 'a Joi payload schema whose address object requires city, with failAction: (request, h, err) => { throw err; }',
    shows: 'message \'"address.city" is required\', validation.keys [address.city]: missing_field, field address.city',
    request: json('POST', '/users', { ...ADA, address: {} }),
    expect: fix('missing_field', 'address.city', '"address.city" is required'),
  },
  {
    fixture: 'hapi-400-payload-array-item.json',
    framework: 'hapi',
    name: 'hapi 400 Joi payload validation: array item key out of range',
    against: 'a Joi payload schema whose items have qty Joi.number().integer().min(1), with failAction: (request, h, err) => { throw err; }',
    shows: 'Joi\'s label "items[0].qty" in the message, validation.keys [items.0.qty]: invalid_input, field items.0.qty',
    request: json('POST', '/users', { ...ADA, items: [{ sku: 'A1', qty: 0 }] }),
    expect: fix('invalid_input', 'items.0.qty', '"items[0].qty" must be greater than or equal to 1'),
  },
  {
    fixture: 'hapi-400-query-wrong-type.json',
    framework: 'hapi',
    name: 'hapi 400 Joi query validation: parameter of the wrong type',
    against: 'a Joi query schema with limit Joi.number().integer(), with failAction: (request, h, err) => { throw err; }',
    shows: 'message \'"limit" must be a number\', validation.source query: invalid_input, field limit',
    request: json('GET', '/users?limit=abc'),
    expect: fix('invalid_input', 'limit', '"limit" must be a number'),
  },
  {
    fixture: 'hapi-400-payload-abort-early-false.json',
    framework: 'hapi',
    name: 'hapi 400 Joi payload validation with abortEarly false: two violations',
    against: 'a Joi payload schema requiring email, age a number, with validate.options { abortEarly: false } and '
      + 'failAction: (request, h, err) => { throw err; }',
    shows: 'Joi joins the messages with ". ", validation.keys [email, age]: missing_field, field email, fields [email, age]',
    request: json('POST', '/all-errors/users', { name: 'Ada', age: 'ten' }),
    expect: fix('missing_field', 'email', '"email" is required', ['email', 'age']),
  },

  // express-validator: errors[] of { type, value?, msg, path, location }; a missing value has no value member once sent as JSON.
  {
    fixture: 'express-validator-400-missing-field.json',
    framework: 'express-validator',
    name: 'express-validator 400: missing field (no value member)',
    against: "body('email').isEmail() and res.status(400).json({ errors: result.array() })",
    shows: 'msg "Invalid value" without a value member: missing_field, field email, message "email: Invalid value"',
    request: json('POST', '/users', { name: 'Ada' }),
    expect: fix('missing_field', 'email', 'email: Invalid value'),
  },
  {
    fixture: 'express-validator-400-invalid-email.json',
    framework: 'express-validator',
    name: 'express-validator 400: invalid email',
    against: "body('email').isEmail() and res.status(400).json({ errors: result.array() })",
    shows: 'msg "Invalid value" with the value sent: invalid_input, field email, message "email: Invalid value"',
    request: json('POST', '/users', { email: 'not-an-email', name: 'Ada' }),
    expect: fix('invalid_input', 'email', 'email: Invalid value'),
  },
  {
    fixture: 'express-validator-400-nested-and-array.json',
    framework: 'express-validator',
    name: 'express-validator 400: nested field missing and an array item out of range',
    against: "body('address.city').notEmpty().isString(), body('items.*.qty').isInt({ min: 1 }) and res.status(400).json({ errors: result.array() })",
    shows: 'Two errors on path "address.city" (one per failed validator) and one on "items[1].qty": missing_field, field address.city, '
      + 'fields [address.city, address.city, items.1.qty]',
    request: json('POST', '/orders', { address: {}, items: [{ sku: 'A1', qty: 1 }, { sku: 'B2', qty: 0 }] }),
    expect: fix('missing_field', 'address.city', 'address.city: Invalid value', ['address.city', 'address.city', 'items.1.qty']),
  },
  {
    fixture: 'express-validator-400-array-item.json',
    framework: 'express-validator',
    name: 'express-validator 400: array item out of range (bracket path)',
    against: "body('items.*.qty').isInt({ min: 1 }) and res.status(400).json({ errors: result.array() })",
    shows: 'path "items[1].qty" in bracket notation: invalid_input, field items.1.qty, message "items.1.qty: Invalid value"',
    request: json('POST', '/orders', { address: { city: 'Paris' }, items: [{ sku: 'A1', qty: 1 }, { sku: 'B2', qty: 0 }] }),
    expect: fix('invalid_input', 'items.1.qty', 'items.1.qty: Invalid value'),
  },
  {
    fixture: 'express-validator-400-query-param.json',
    framework: 'express-validator',
    name: 'express-validator 400: query parameter of the wrong type',
    against: "query('limit').optional().isInt({ min: 1, max: 100 }) and res.status(400).json({ errors: result.array() })",
    shows: 'location "query", path "limit": invalid_input, field limit, message "limit: Invalid value"',
    request: json('GET', '/users?limit=abc'),
    expect: fix('invalid_input', 'limit', 'limit: Invalid value'),
  },
  {
    fixture: 'express-validator-400-mapped.json',
    framework: 'express-validator',
    name: 'express-validator 400: result.mapped(), errors keyed by path',
    against: "body('email').isEmail(), body('name').notEmpty() and res.status(400).json({ errors: result.mapped() })",
    shows: 'errors as an object keyed by path: missing_field, field email, fields [email, name]',
    docs: 'https://express-validator.github.io/docs/api/validation-result#mapped',
    request: json('POST', '/mapped/users', {}),
    expect: fix('missing_field', 'email', 'email: Invalid value', ['email', 'name']),
  },
  {
    fixture: 'express-validator-400-with-message.json',
    framework: 'express-validator',
    name: 'express-validator 400: custom message naming the field',
    against: "body('email').notEmpty().withMessage('Email is required').bail().isEmail().withMessage('Email must be a valid email address') "
      + 'and res.status(400).json({ errors: result.array() })',
    shows: 'msg "Email is required" already names the field (case aside), so it is kept as is: missing_field, field email',
    docs: 'https://express-validator.github.io/docs/guides/customizing#error-messages',
    request: json('POST', '/messages/users', {}),
    expect: fix('missing_field', 'email', 'Email is required'),
  },

  // Zod: the same issues in each of the shapes APIs send.
  {
    fixture: 'zod-400-flatten-error-missing-key.json',
    framework: 'zod',
    name: 'Zod 400 z.flattenError(): missing key',
    against: 'a z.object schema with email: z.email(), answered res.status(400).json(z.flattenError(result.error))',
    shows: 'fieldErrors.email ["Invalid input: expected string, received undefined"]: missing_field, field email',
    request: json('POST', '/flatten-error/users', { name: 'Ada' }),
    expect: fix('missing_field', 'email', `email: ${ZOD_MISSING}`),
  },
  {
    fixture: 'zod-400-flatten-error-several.json',
    framework: 'zod',
    name: 'Zod 400 z.flattenError(): invalid email, nested and array issues (paths cut to their first key)',
    against: 'a z.object schema (email, address.city, items[].qty min 1), answered res.status(400).json(z.flattenError(result.error))',
    shows: 'fieldErrors keeps only the first path segment (address, items): invalid_input, field email, '
      + 'message "Invalid email address" (it names email already), fields [email, address, items]',
    request: json('POST', '/flatten-error/users', SEVERAL),
    expect: fix('invalid_input', 'email', 'Invalid email address', ['email', 'address', 'items']),
  },
  {
    fixture: 'zod-400-flatten-missing-key.json',
    framework: 'zod',
    name: 'Zod 400 error.flatten() (deprecated in Zod 4): missing key',
    against: 'a z.object schema with email: z.email(), answered res.status(400).json(result.error.flatten())',
    shows: 'Same body as z.flattenError(): missing_field, field email',
    request: json('POST', '/flatten/users', { name: 'Ada' }),
    expect: fix('missing_field', 'email', `email: ${ZOD_MISSING}`),
  },
  {
    fixture: 'zod-400-treeify-error-missing-key.json',
    framework: 'zod',
    name: 'Zod 400 z.treeifyError(): missing key',
    against: 'a z.object schema with email: z.email(), answered res.status(400).json(z.treeifyError(result.error))',
    shows: 'properties.email.errors: missing_field, field email',
    request: json('POST', '/treeify-error/users', { name: 'Ada' }),
    expect: fix('missing_field', 'email', `email: ${ZOD_MISSING}`),
  },
  {
    fixture: 'zod-400-treeify-error-nested.json',
    framework: 'zod',
    name: 'Zod 400 z.treeifyError(): nested key missing',
    against: 'a z.object schema with address: z.object({ city: z.string() }), answered res.status(400).json(z.treeifyError(result.error))',
    shows: 'properties.address.properties.city.errors: missing_field, field address.city',
    request: json('POST', '/treeify-error/users', { ...ADA, address: {} }),
    expect: fix('missing_field', 'address.city', `address.city: ${ZOD_MISSING}`),
  },
  {
    fixture: 'zod-400-treeify-error-array-item.json',
    framework: 'zod',
    name: 'Zod 400 z.treeifyError(): second array item out of range',
    against: 'a z.object schema with items: z.array(z.object({ qty: z.number().int().min(1) })), answered res.status(400).json(z.treeifyError(result.error))',
    shows: 'properties.items.items is [null, {...}] (the valid first item a hole): invalid_input, field items.1.qty',
    request: json('POST', '/treeify-error/users', { ...ADA, items: [{ sku: 'A1', qty: 1 }, { sku: 'B2', qty: 0 }] }),
    expect: fix('invalid_input', 'items.1.qty', 'items.1.qty: Too small: expected number to be >=1'),
  },
  {
    fixture: 'zod-400-treeify-error-several.json',
    framework: 'zod',
    name: 'Zod 400 z.treeifyError(): invalid email, nested and array issues',
    against: 'a z.object schema (email, address.city, items[].qty min 1), answered res.status(400).json(z.treeifyError(result.error))',
    shows: 'Three issues in the tree: invalid_input, field email, fields [email, address.city, items.1.qty]',
    request: json('POST', '/treeify-error/users', SEVERAL),
    expect: fix('invalid_input', 'email', 'Invalid email address', ['email', 'address.city', 'items.1.qty']),
  },
  {
    fixture: 'zod-400-format-nested.json',
    framework: 'zod',
    name: 'Zod 400 error.format() (deprecated in Zod 4): nested key missing',
    against: 'a z.object schema with address: z.object({ city: z.string() }), answered res.status(400).json(result.error.format())',
    shows: '{ _errors, address: { _errors, city: { _errors } } }: missing_field, field address.city',
    request: json('POST', '/format/users', { ...ADA, address: {} }),
    expect: fix('missing_field', 'address.city', `address.city: ${ZOD_MISSING}`),
  },
  {
    fixture: 'zod-400-format-several.json',
    framework: 'zod',
    name: 'Zod 400 error.format() (deprecated in Zod 4): invalid email, nested and array issues',
    against: 'a z.object schema (email, address.city, items[].qty min 1), answered res.status(400).json(result.error.format())',
    shows: 'Array items keyed "1" before "_errors" (integer keys first): invalid_input, field email, fields [email, address.city, items.1.qty]',
    request: json('POST', '/format/users', SEVERAL),
    expect: fix('invalid_input', 'email', 'Invalid email address', ['email', 'address.city', 'items.1.qty']),
  },
  {
    fixture: 'zod-400-issues-missing-key.json',
    framework: 'zod',
    name: 'Zod 400 { errors: error.issues }: missing key',
    against: 'a z.object schema with email: z.email(), answered res.status(400).json({ errors: result.error.issues })',
    shows: 'Issue with code invalid_type, path ["email"]: missing_field, field email',
    docs: 'https://zod.dev/basics',
    request: json('POST', '/issues/users', { name: 'Ada' }),
    expect: fix('missing_field', 'email', `email: ${ZOD_MISSING}`),
  },
  {
    fixture: 'zod-400-issues-invalid-email.json',
    framework: 'zod',
    name: 'Zod 400 { errors: error.issues }: invalid email',
    against: 'a z.object schema with email: z.email(), answered res.status(400).json({ errors: result.error.issues })',
    shows: 'Issue with code invalid_format, path ["email"], "Invalid email address": invalid_input, field email',
    docs: 'https://zod.dev/basics',
    request: json('POST', '/issues/users', { email: 'not-an-email', name: 'Ada' }),
    expect: fix('invalid_input', 'email', 'Invalid email address'),
  },
  {
    fixture: 'zod-400-issues-nested.json',
    framework: 'zod',
    name: 'Zod 400 { errors: error.issues }: nested key missing',
    against: 'a z.object schema with address: z.object({ city: z.string() }), answered res.status(400).json({ errors: result.error.issues })',
    shows: 'path ["address", "city"]: missing_field, field address.city',
    docs: 'https://zod.dev/basics',
    request: json('POST', '/issues/users', { ...ADA, address: {} }),
    expect: fix('missing_field', 'address.city', `address.city: ${ZOD_MISSING}`),
  },
  {
    fixture: 'zod-400-issues-array-item.json',
    framework: 'zod',
    name: 'Zod 400 { errors: error.issues }: second array item out of range',
    against: 'a z.object schema with items: z.array(z.object({ qty: z.number().int().min(1) })), '
      + 'answered res.status(400).json({ errors: result.error.issues })',
    shows: 'path ["items", 1, "qty"] with a number segment: invalid_input, field items.1.qty',
    docs: 'https://zod.dev/basics',
    request: json('POST', '/issues/users', { ...ADA, items: [{ sku: 'A1', qty: 1 }, { sku: 'B2', qty: 0 }] }),
    expect: fix('invalid_input', 'items.1.qty', 'items.1.qty: Too small: expected number to be >=1'),
  },
  {
    fixture: 'zod-400-issues-two-missing.json',
    framework: 'zod',
    name: 'Zod 400 { errors: error.issues }: two keys missing',
    against: 'a z.object schema requiring email and name, answered res.status(400).json({ errors: result.error.issues })',
    shows: 'Two invalid_type issues: missing_field, field email, fields [email, name]',
    docs: 'https://zod.dev/basics',
    request: json('POST', '/issues/users', {}),
    expect: fix('missing_field', 'email', `email: ${ZOD_MISSING}`, ['email', 'name']),
  },
  {
    fixture: 'zod-400-error-object-missing-key.json',
    framework: 'zod',
    name: 'Zod 400 { error: err }: a ZodError sent as it serializes',
    against: 'a z.object schema with email: z.email(), answered res.status(400).json({ error: result.error })',
    shows: 'JSON.stringify of a ZodError is { name: "ZodError", message: <the issues as indented JSON text> }: missing_field, field email',
    docs: 'https://zod.dev/basics',
    request: json('POST', '/error-object/users', { name: 'Ada' }),
    expect: fix('missing_field', 'email', `email: ${ZOD_MISSING}`),
  },
  {
    fixture: 'zod-400-error-object-several.json',
    framework: 'zod',
    name: 'Zod 400 { error: err }: several issues inside the serialized message',
    against: 'a z.object schema (email, address.city, items[].qty min 1), answered res.status(400).json({ error: result.error })',
    shows: 'Three issues as JSON text in error.message: invalid_input, field email, fields [email, address.city, items.1.qty]',
    docs: 'https://zod.dev/basics',
    request: json('POST', '/error-object/users', SEVERAL),
    expect: fix('invalid_input', 'email', 'Invalid email address', ['email', 'address.city', 'items.1.qty']),
  },

  // JSON:API error documents from ts-japi: source.pointer for a request document member, source.parameter for a query parameter.
  {
    fixture: 'jsonapi-422-pointer-invalid-attributes.json',
    framework: 'jsonapi',
    name: 'JSON:API 422 (ts-japi): two invalid attributes by source.pointer',
    against: 'a node:http handler checking data.attributes, errors serialized by ts-japi ErrorSerializer from JapiError objects',
    shows: 'errors[].source.pointer /data/attributes/email and /data/attributes/firstName: invalid_input, field email, fields [email, firstName]',
    request: jsonApi('POST', '/users', { data: { type: 'users', attributes: { email: 'not-an-email', firstName: 'A' } } }),
    expect: fix('invalid_input', 'email', 'Email must be a valid email address.', ['email', 'firstName']),
  },
  {
    fixture: 'jsonapi-422-pointer-missing-attribute.json',
    framework: 'jsonapi',
    name: 'JSON:API 422 (ts-japi): missing attribute by source.pointer',
    against: 'a node:http handler checking data.attributes, errors serialized by ts-japi ErrorSerializer from JapiError objects',
    shows: 'detail "The email attribute is required." at /data/attributes/email: missing_field, field email',
    request: jsonApi('POST', '/users', { data: { type: 'users', attributes: { firstName: 'Ada' } } }),
    expect: fix('missing_field', 'email', 'The email attribute is required.'),
  },
  {
    fixture: 'jsonapi-422-pointer-spec-example.json',
    framework: 'jsonapi',
    name: "JSON:API 422 (ts-japi): the spec's own error object example",
    against: 'a node:http handler checking data.attributes, errors serialized by ts-japi ErrorSerializer from JapiError objects',
    shows: 'detail "First name must contain at least two characters." does not contain "firstName": invalid_input, field firstName, message prefixed',
    request: jsonApi('POST', '/users', { data: { type: 'users', attributes: { email: 'ada@example.com', firstName: 'A' } } }),
    expect: fix('invalid_input', 'firstName', 'firstName: First name must contain at least two characters.'),
  },
  {
    fixture: 'jsonapi-400-parameter-include.json',
    framework: 'jsonapi',
    name: 'JSON:API 400 (ts-japi): unsupported include path by source.parameter',
    against: 'a node:http handler supporting only include=comments, errors serialized by ts-japi ErrorSerializer from JapiError objects',
    shows: 'errors[0].source.parameter "include": invalid_input, field include, message prefixed',
    docs: 'https://jsonapi.org/format/#fetching-includes',
    request: jsonApi('GET', '/articles?include=author'),
    expect: fix('invalid_input', 'include', 'include: The resource does not have an `author` relationship path.'),
  },
];

/** What a loopback app answered to a case: the status, the headers a fixture keeps, and the parsed body. */
export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: unknown;
}

/** Headers a fixture leaves out: they change from run to run or describe the connection, not the response. */
const DROPPED = new Set(['date', 'connection', 'keep-alive']);

/** Sends a case's request to an app with the platform fetch. */
export async function send(url: string, request: ValidationRequest): Promise<Answer> {
  const init: RequestInit = { method: request.method, headers: { ...request.headers } };
  if (request.body !== undefined) init.body = JSON.stringify(request.body);
  const response = await fetch(url + request.path, init);
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) if (!DROPPED.has(name)) headers[name] = value;
  const text = await response.text();
  return { status: response.status, headers, body: JSON.parse(text) as unknown };
}
