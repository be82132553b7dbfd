// AgentFriendly for NestJS beyond the conformance table: Nest's HttpExceptions, ValidationPipe failures
// and plain errors, on the Express and the Fastify platform, each app started once, real HTTP on loopback.
import 'reflect-metadata';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Body, ConflictException, Controller, Get, HttpException, Module, NotFoundException, Post, ValidationPipe, type INestApplication } from '@nestjs/common';
import { HttpAdapterHost, NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { IsEmail, IsInt, IsNotEmpty, IsString } from 'class-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromResponse } from '../../src/core/from-response.js';
import { AgentFriendlyFilter, AgentFriendlyModule } from '../../src/site/nest.js';
import { AGENT, BROWSER, PROBLEM, expectAugmented, expectEnvelope, expectNoLeak, ownJson } from '../helpers/agents.js';

class OrderDto {
  declare email: string;
  declare name: string;
  declare qty: number;
}
// The decorators as TypeScript's __decorate applies `@A() @B() key` (the last first): the repository has no experimentalDecorators.
for (const [key, rules] of [['email', [IsNotEmpty(), IsEmail()]], ['name', [IsNotEmpty(), IsString()]], ['qty', [IsInt()]]] as const) {
  for (const rule of rules) rule(OrderDto.prototype, key);
}

class OrdersController {
  missing(): never {
    throw new NotFoundException('No such order');
  }
  conflict(): never {
    throw new ConflictException();
  }
  teapot(): never {
    throw new HttpException('Short and stout', 418);
  }
  boom(): never {
    throw new TypeError('secret db password');
  }
  create(dto: OrderDto): { ok: boolean } {
    return { ok: dto !== undefined };
  }
}
const route = (key: keyof OrdersController, decorator: MethodDecorator): void => {
  decorator(OrdersController.prototype, key, Object.getOwnPropertyDescriptor(OrdersController.prototype, key)!);
};
route('missing', Get('orders/missing'));
route('conflict', Get('orders/conflict'));
route('teapot', Get('teapot'));
route('boom', Get('boom'));
route('create', Post('orders'));
Body()(OrdersController.prototype, 'create', 0);
// The parameter type TypeScript would emit, which ValidationPipe reads to know the DTO.
Reflect.defineMetadata('design:paramtypes', [OrderDto], OrdersController.prototype, 'create');
Controller()(OrdersController);

const heard: unknown[] = [];
class AppModule {}
Module({ imports: [AgentFriendlyModule.forRoot({ onError: (error) => heard.push(error) })], controllers: [OrdersController] })(AppModule);

const PLATFORMS = [
  { name: 'Express platform', adapter: () => new ExpressAdapter() },
  { name: 'Fastify platform', adapter: () => new FastifyAdapter() },
];

describe.each(PLATFORMS)('AgentFriendly for NestJS, $name', ({ adapter }) => {
  let app: INestApplication;
  let url: string;
  beforeAll(async () => {
    app = await NestFactory.create(AppModule, adapter(), { logger: false, forceCloseConnections: true });
    app.useGlobalPipes(new ValidationPipe());
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${((app.getHttpServer() as Server).address() as AddressInfo).port}`;
  });
  afterAll(() => app?.close());
  const get = (path: string, headers: Record<string, string>) => fetch(url + path, { headers });
  const post = (path: string, headers: Record<string, string>, body: unknown) =>
    fetch(url + path, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it("an HttpException keeps its status and Nest's JSON for an agent, the catalog code for its status and that code's word added where the body lacks them; problem details when asked; a browser gets Nest's JSON unchanged", async () => {
    const browser = await get('/orders/missing', BROWSER);
    expect([browser.status, browser.headers.get('vary')]).toEqual([404, 'Accept']);
    const missing = await ownJson(browser);
    expect(missing.body).toEqual({ message: 'No such order', error: 'Not Found', statusCode: 404 });
    // Nest's `error` member is a string, which has no room for a word: the word goes at the top of the body.
    await expectAugmented(await get('/orders/missing', AGENT), 404, missing, { retry: 'no' }, { code: 'not_found', message: 'No such order', retry: 'no' });
    const conflictOwn = await ownJson(await get('/orders/conflict', BROWSER));
    expect(conflictOwn.body).toEqual({ message: 'Conflict', statusCode: 409 });
    await expectAugmented(await get('/orders/conflict', AGENT), 409, conflictOwn, { code: 'conflict', retry: 'refetch' }, { code: 'conflict', message: 'Conflict', retry: 'refetch' });
    const conflict = await get('/orders/conflict', PROBLEM);
    expect([conflict.status, conflict.headers.get('content-type')]).toEqual([409, 'application/problem+json']);
    expect(await conflict.json()).toMatchObject({ code: 'conflict', status: 409 });
  });

  it("a status the catalog has no code of its own for keeps its status, and its body gets the catalog's default code for its class", async () => {
    const original = await ownJson(await get('/teapot', BROWSER));
    expect(original.body).toEqual({ statusCode: 418, message: 'Short and stout' });
    await expectAugmented(await get('/teapot', AGENT), 418, original, { code: 'not_allowed', retry: 'no' }, { code: 'not_allowed', message: 'Short and stout', retry: 'no' });
  });

  it('a ValidationPipe failure: its JSON kept for an agent, the first property at fault and the word added; read as missing_field or invalid_input with every property in errors', async () => {
    const original = await ownJson(await post('/orders', BROWSER, { name: 'Ada', qty: 'two' }));
    expect(original.body).toEqual({ message: ['email should not be empty', 'email must be an email', 'qty must be an integer number'], error: 'Bad Request', statusCode: 400 });
    const missing = await post('/orders', AGENT, { name: 'Ada', qty: 'two' });
    const text = await missing.clone().text();
    await expectAugmented(missing, 400, original, { retry: 'fix_input', field: 'email' }, { code: 'missing_field', field: 'email', retry: 'fix_input' });
    const fields = (fromResponse(400, { 'content-type': 'application/json' }, text).error.errors ?? []).map((e) => e.field);
    expect(new Set(fields)).toEqual(new Set(['email', 'qty']));
    const invalid = await post('/orders', PROBLEM, { email: 'not an email', name: 'Ada', qty: 2 });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({ code: 'invalid_input', param: 'email' });
    // A browser gets the ValidationPipe's own body.
    const browser = await post('/orders', BROWSER, { name: 'Ada', qty: 2 });
    expect(await browser.json()).toMatchObject({ statusCode: 400, error: 'Bad Request', message: expect.arrayContaining(['email must be an email']) });
    expect((await post('/orders', AGENT, { email: 'ada@example.com', name: 'Ada', qty: 2 })).status).toBe(201);
  });

  it("a plain Error reaches onError and no client: internal for an agent, Nest's generic 500 for a browser", async () => {
    const before = heard.length;
    await expectEnvelope(await get('/boom', AGENT), 500, { code: 'internal' });
    expect(await expectNoLeak(await get('/boom', AGENT))).not.toContain('stack');
    expect(JSON.parse(await expectNoLeak(await get('/boom', BROWSER)))).toEqual({ statusCode: 500, message: 'Internal server error' });
    expect(heard.slice(before).filter((e) => e instanceof TypeError && e.message === 'secret db password')).toHaveLength(3);
  });

  it('an HttpException is no failure: onError does not hear of it', async () => {
    const before = heard.length;
    await (await get('/orders/missing', AGENT)).arrayBuffer();
    await (await post('/orders', AGENT, {})).arrayBuffer();
    expect(heard.slice(before)).toEqual([]);
  });
});

describe('AgentFriendlyFilter', () => {
  it('refuses a retryAfter Retry-After could not carry, when it is made', () => {
    expect(() => new AgentFriendlyFilter({ retryAfter: 1.5 })).toThrow(/retryAfter must be a whole/);
    expect(() => AgentFriendlyModule.forRoot({ retryAfter: -1 })).toThrow(/retryAfter must be a whole/);
  });

  it("made without Nest's HttpAdapterHost, fails as it is made, saying how to make it, rather than on each request", () => {
    const how = "AgentFriendlyFilter: needs the app's HttpAdapterHost: new AgentFriendlyFilter(options, app.get(HttpAdapterHost)), or import AgentFriendlyModule.forRoot(options)";
    expect(() => new AgentFriendlyFilter()).toThrow(new TypeError(how));
    expect(() => new AgentFriendlyFilter({}, {} as HttpAdapterHost)).toThrow(new TypeError(how));
  });

  it('made with the host, works registered by hand with useGlobalFilters', async () => {
    class HandModule {}
    Module({ controllers: [OrdersController] })(HandModule);
    const app = await NestFactory.create(HandModule, new ExpressAdapter(), { logger: false, forceCloseConnections: true });
    app.useGlobalFilters(new AgentFriendlyFilter({}, app.get(HttpAdapterHost)));
    await app.listen(0, '127.0.0.1');
    try {
      const { port } = (app.getHttpServer() as Server).address() as AddressInfo;
      const original = await ownJson(await fetch(`http://127.0.0.1:${port}/orders/missing`, { headers: BROWSER }));
      await expectAugmented(await fetch(`http://127.0.0.1:${port}/orders/missing`, { headers: AGENT }), 404, original, { retry: 'no' }, { code: 'not_found', message: 'No such order', retry: 'no' });
    } finally {
      await app.close();
    }
  });
});
