// The orders shop's own client tests: what its axios client relies on, run against a running
// server of the shop. The same suite runs against every server of the shop and for every Accept its
// callers send.
import { Ajv } from 'ajv';
import axios, { type AxiosInstance, type AxiosResponse } from 'axios';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOME_PAGE, SPEC } from './shop.js';

/** A server of the shop, listening. */
export interface Running {
  /** Its origin, http://127.0.0.1:port. */
  readonly url: string;
  /** How many requests it has received. */
  readonly calls: () => number;
  readonly close: () => Promise<void>;
}

/** What a browser sends when it loads a page. */
export const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** The callers the suite runs for: axios as it comes, a client asking for JSON, a browser. */
export const ACCEPTS: readonly (readonly [name: string, accept: string | undefined])[] = [
  ["axios's default Accept", undefined],
  ['Accept: application/json', 'application/json'],
  ["a browser's Accept", BROWSER_ACCEPT],
];

/** The shop's Error schema, from its OpenAPI document: every error it sends must match it. */
const validateError = new Ajv({ allErrors: true }).compile(SPEC.components.schemas.Error!);

/** The orders the suite reads, as the shop sends them. */
const ORDER_42 = { id: '42', sku: 'TEA-1', quantity: 2, status: 'open', total_cents: 1200 };
const created = (id: number) => ({ id: String(id), sku: 'TEA-1', quantity: 2, status: 'open', total_cents: 1200 });
const CANCELLED_8 = { id: '8', sku: 'MUG-2', quantity: 3, status: 'cancelled', total_cents: 4500 };

/** The response of a request axios rejected for its status (axios rejects every status outside 2xx). */
async function failed(request: Promise<AxiosResponse>): Promise<AxiosResponse> {
  let response: AxiosResponse;
  try {
    response = await request;
  } catch (error) {
    if (axios.isAxiosError(error) && error.response) return error.response;
    throw error;
  }
  throw new Error(`expected an error status, got ${response.status}`);
}

/**
 * The client tests, as a describe block named `name`: `start` starts a fresh server of the shop,
 * `accept` is the Accept the client sends (axios's own when undefined). For a browser's Accept only
 * the statuses and the success bodies are checked: what a browser sees of an error is the shop's
 * business.
 */
export function clientSuite(name: string, start: () => Promise<Running>, accept?: string): void {
  const browser = accept === BROWSER_ACCEPT;
  describe(name, () => {
    let server: Running | undefined;
    let api: AxiosInstance;
    beforeAll(async () => {
      server = await start();
      api = axios.create({ baseURL: server.url, ...(accept === undefined ? {} : { headers: { Accept: accept } }) });
    });
    afterAll(async () => {
      await server?.close();
    });

    /** Checks an error response: its status, and for a client that reads JSON, its code, message and schema. */
    function expectError(response: AxiosResponse, status: number, code: string, message?: string): Record<string, unknown> {
      expect(response.status).toBe(status);
      const body = response.data as Record<string, unknown>;
      if (browser) return body;
      expect(body.code).toBe(code);
      if (message !== undefined) expect(body.message).toBe(message);
      expect(validateError(body), JSON.stringify(validateError.errors)).toBe(true);
      return body;
    }

    /** Checks a success: its status, and its body, as parsed and as the bytes sent. */
    async function expectSuccess(response: AxiosResponse, status: number, expected: unknown, raw: () => Promise<AxiosResponse>): Promise<void> {
      expect(response.status).toBe(status);
      expect(JSON.stringify(response.data)).toBe(JSON.stringify(expected));
      // The same body, unparsed: the bytes the shop sent.
      const text = await raw();
      expect(text.status).toBe(status);
      expect(text.data).toBe(JSON.stringify(expected));
    }

    it('serves the home page', async () => {
      const response = await api.get('/');
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.data).toBe(HOME_PAGE);
    });

    it('reads an order', async () => {
      await expectSuccess(await api.get('/orders/42'), 200, ORDER_42, () => api.get('/orders/42', { responseType: 'text' }));
    });

    it('gets 404 NOT_FOUND for an order that does not exist', async () => {
      expectError(await failed(api.get('/orders/999')), 404, 'NOT_FOUND', 'No such order');
    });

    it('creates an order: 201 with the order', async () => {
      // A fresh server numbers its orders from 100; the second one is read as the bytes sent.
      const order = { sku: 'TEA-1', quantity: 2 };
      const first = await api.post('/orders', order);
      expect(first.status).toBe(201);
      expect(JSON.stringify(first.data)).toBe(JSON.stringify(created(100)));
      const second = await api.post('/orders', order, { responseType: 'text' });
      expect(second.status).toBe(201);
      expect(second.data).toBe(JSON.stringify(created(101)));
    });

    it('gets 400 MALFORMED_JSON for a body that is not JSON', async () => {
      const response = await failed(api.post('/orders', '{"sku": "TEA-1", "quantity": ', { headers: { 'Content-Type': 'application/json' }, transformRequest: [(data: unknown) => data] }));
      expectError(response, 400, 'MALFORMED_JSON', 'Malformed JSON body');
    });

    it('gets 400 INVALID_REQUEST for a body the schema refuses', async () => {
      expectError(await failed(api.post('/orders', { sku: 'TEA-1' })), 400, 'INVALID_REQUEST');
    });

    it('gets 422 BAD_SKU naming the param for a SKU the catalog does not have', async () => {
      const body = expectError(await failed(api.post('/orders', { sku: 'NOPE-9', quantity: 1 })), 422, 'BAD_SKU', 'Bad sku');
      if (!browser) expect(body.param).toBe('sku');
    });

    it('cancels an open order', async () => {
      await expectSuccess(await api.post('/orders/8/cancel'), 200, CANCELLED_8, () => api.post('/orders/8/cancel', undefined, { responseType: 'text' }));
    });

    it('gets 423 ORDER_LOCKED for an order being fulfilled', async () => {
      expectError(await failed(api.post('/orders/7/cancel')), 423, 'ORDER_LOCKED', 'Order is locked');
    });

    it('gets 429 RATE_LIMITED with retry_after_seconds', async () => {
      const body = expectError(await failed(api.get('/quota')), 429, 'RATE_LIMITED', 'Slow down');
      if (!browser) expect(body.retry_after_seconds).toBe(7);
    });

    it('gets 500 INTERNAL when the server fails', async () => {
      expectError(await failed(api.get('/boom')), 500, 'INTERNAL', 'Internal error');
    });

    it('never gets a response that breaks the OpenAPI document: 500 INTERNAL instead', async () => {
      // The legacy order has no total_cents, which the Order schema requires.
      expectError(await failed(api.get('/orders/legacy')), 500, 'INTERNAL', 'Internal error');
    });
  });
}
