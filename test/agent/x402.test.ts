// Paying a 402, against the real x402 packages on loopback (no chain: signing EIP-3009 is offline
// typed-data signing, and a small facilitator here answers @x402/express's /supported, /verify
// and /settle as x402's facilitator API describes them, specs/x402-specification-v2.md section 7):
//
// - @x402/express's own 402 reads through fromResponse as its payment options;
// - our agentError('payment_required', { payment }) sends the same options, in the PAYMENT-REQUIRED
//   header @x402/fetch reads, and that real client signs a PAYMENT-SIGNATURE for it;
// - createAgentClient pays through onPaymentRequired, wired to the real x402 client with a spend
//   cap: paid at most once, only for the price it was shown, and a refused payment is handed back.
// Pay-per-crawl's part is a loopback site that answers as Cloudflare's docs describe it.
import { HTTPFacilitatorClient } from '@x402/core/server';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { paymentMiddleware, x402ResourceServer } from '@x402/express';
import { wrapFetchWithPayment, x402Client, x402HTTPClient } from '@x402/fetch';
import express from 'express';
import type { AddressInfo } from 'node:net';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Payment } from '../../src/index.js';
import { createAgentClient, createMemoryStore, fromResponse, x402RequirementsOf } from '../../src/agent/index.js';
import { agentError } from '../../src/site/agent-error.js';
import { serve, type TestServer } from '../helpers/server.js';

const NETWORK = 'eip155:84532'; // Base Sepolia
const USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e'; // @x402/evm's default asset on Base Sepolia
const PAY_TO = '0x209693Bc6afc0C5328bA36FaF03C514EF312287C';
/** A local test key: it holds nothing on any chain. */
const account = privateKeyToAccount(`0x${'11'.repeat(32)}`);

/** What the facilitator saw, and how it answers /settle. */
const facilitator = { verified: 0, settled: 0, settle: 'success' as 'success' | 'insufficient_funds' };
const closers: (() => Promise<void>)[] = [];
let shop: string;

async function listen(app: express.Express): Promise<string> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  const fac = express();
  fac.use(express.json());
  fac.get('/supported', (_req, res) => void res.json({ kinds: [{ x402Version: 2, scheme: 'exact', network: NETWORK }], extensions: [], signers: {} }));
  fac.post('/verify', (req, res) => {
    facilitator.verified += 1;
    res.json({ isValid: true, payer: req.body.paymentPayload.payload.authorization.from });
  });
  fac.post('/settle', (req, res) => {
    facilitator.settled += 1;
    const payer = req.body.paymentPayload.payload.authorization.from;
    if (facilitator.settle === 'success') res.json({ success: true, transaction: `0x${'ab'.repeat(32)}`, network: NETWORK, payer });
    else res.json({ success: false, errorReason: facilitator.settle, transaction: '', network: NETWORK, payer });
  });
  const facilitatorUrl = await listen(fac);

  const app = express();
  const server = new x402ResourceServer(new HTTPFacilitatorClient({ url: facilitatorUrl })).register(NETWORK, new ExactEvmScheme());
  app.use(paymentMiddleware({ 'GET /report': { accepts: { scheme: 'exact', price: '$0.01', network: NETWORK, payTo: PAY_TO }, description: 'The sales report', mimeType: 'application/json' } }, server));
  app.get('/report', (_req, res) => void res.json({ sales: 42 }));
  shop = await listen(app);
});
afterAll(async () => {
  for (const close of closers.splice(0)) await close();
});

/** The x402 client an agent wires to the hook: its own key, a spend cap of 5 cents, and only USDC on Base Sepolia. */
function payer(cap = '$0.05') {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: account, networks: [NETWORK] });
  client.setSpendControls({ maxAmountPerPayment: cap });
  const http = new x402HTTPClient(client);
  const shown: Payment[] = [];
  const hook = async (payment: Payment) => {
    shown.push(payment);
    const required = x402RequirementsOf(payment);
    if (!required) return undefined;
    return http.encodePaymentSignatureHeader(await http.createPaymentPayload(required as Parameters<typeof http.createPaymentPayload>[0]));
  };
  return { hook, shown };
}

/** The headers of a Response as a record. */
const record = (response: Response): Record<string, string> => Object.fromEntries(response.headers);

describe("@x402/express's 402", () => {
  it('reads as payment_required with its options: the amount in atomic units, the asset, the payee, the time limit and the EIP-712 extra', async () => {
    const response = await fetch(`${shop}/report`);
    expect(response.status).toBe(402);
    const { error } = fromResponse(response.status, record(response), await response.text());
    expect(error).toMatchObject({ code: 'payment_required', retry: 'pay' });
    expect(error.payment).toEqual({
      protocol: 'x402',
      version: 2,
      resource: { url: `${shop}/report`, description: 'The sales report', mime_type: 'application/json' },
      options: [{ scheme: 'exact', network: NETWORK, asset: USDC, amount: '10000', pay_to: PAY_TO, max_timeout_seconds: 300, extra: { name: 'USDC', version: '2' } }],
    });
  });

  it('and our own agentError with the same payment read as the same options', async () => {
    const theirs = fromResponse(402, record(await fetch(`${shop}/report`)), '{}').error.payment!;
    const ours = agentError('payment_required', { payment: theirs });
    for (const accept of ['*/*', 'application/json', 'application/problem+json', 'text/markdown', 'text/html']) {
      const { status, headers, body } = ours.render(accept);
      expect(fromResponse(status, headers, body).error.payment, accept).toEqual(theirs);
      // The header alone, as @x402/fetch reads it, says the same.
      expect(fromResponse(status, { 'payment-required': headers['payment-required']! }, '').error.payment, accept).toEqual(theirs);
    }
    // The page a browser (or an x402 client sending Accept: */*) gets carries the header too.
    expect(ours.toPage().headers['payment-required']).toBe(ours.headers()['payment-required']);
  });
});

describe("our 402, paid by the real x402 client", () => {
  let site: TestServer;
  const signatures: string[] = [];
  const payment: Payment = {
    protocol: 'x402',
    version: 2,
    resource: { url: 'http://127.0.0.1/report', description: 'The sales report', mime_type: 'application/json' },
    options: [{ scheme: 'exact', network: NETWORK, asset: USDC, amount: '10000', pay_to: PAY_TO, max_timeout_seconds: 300, extra: { name: 'USDC', version: '2' } }],
  };
  beforeAll(async () => {
    site = await serve((req, res) => {
      const signature = req.headers['payment-signature'];
      if (typeof signature === 'string') {
        signatures.push(signature);
        return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"sales":42}');
      }
      const { status, headers, body } = agentError('payment_required', { payment }).render(req.headers.accept);
      res.writeHead(status, headers).end(body);
    });
  });
  afterAll(() => site.close());

  it('@x402/fetch accepts it and sends a PAYMENT-SIGNATURE for exactly the option it was shown', async () => {
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: account, networks: [NETWORK] });
    const response = await wrapFetchWithPayment(fetch, client)(`${site.url}/report`);
    expect(response.status).toBe(200);
    expect(signatures).toHaveLength(1);
    const signed = JSON.parse(Buffer.from(signatures[0]!, 'base64').toString('utf8'));
    expect(signed.accepted).toEqual(x402RequirementsOf(payment)!.accepts[0]);
    expect(signed.payload.authorization).toMatchObject({ from: account.address, to: PAY_TO, value: '10000' });
  });

  it("createAgentClient pays it once through onPaymentRequired, and hands a price above the agent's cap back", async () => {
    signatures.length = 0;
    const { hook, shown } = payer();
    const result = await createAgentClient({ store: createMemoryStore(), onPaymentRequired: hook }).fetch(`${site.url}/report`);
    expect(result.ok).toBe(true);
    expect([shown, signatures.length]).toEqual([[payment], 1]);

    // A cap below the price: the x402 client refuses to sign, the hook throws, and the request rejects with it.
    const capped = payer('$0.005');
    await expect(createAgentClient({ store: createMemoryStore(), onPaymentRequired: capped.hook }).fetch(`${site.url}/report`)).rejects.toThrow(/0\.005|exceed|limit|spend/i);
  });
});

describe('createAgentClient and the real @x402/express', () => {
  it('pays the 402 once and gets the report; the facilitator verified and settled one payment', async () => {
    facilitator.verified = facilitator.settled = 0;
    facilitator.settle = 'success';
    const { hook, shown } = payer();
    const result = await createAgentClient({ store: createMemoryStore(), onPaymentRequired: hook }).fetch(`${shop}/report`);
    expect(result.ok).toBe(true);
    expect(await result.response!.json()).toEqual({ sales: 42 });
    expect([shown.length, facilitator.verified, facilitator.settled]).toEqual([1, 1, 1]);
  });

  it('a settlement refused for insufficient funds is payment_declined, and is never paid again', async () => {
    facilitator.verified = facilitator.settled = 0;
    facilitator.settle = 'insufficient_funds';
    const { hook, shown } = payer();
    const result = await createAgentClient({ store: createMemoryStore(), onPaymentRequired: hook, maxCalls: 5 }).fetch(`${shop}/report`);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toMatchObject({ code: 'payment_declined', retry: 'ask_human' });
    expect([shown.length, facilitator.settled]).toEqual([1, 1]);
  });

  it('without a hook, the 402 is handed back with what it asks, in one call', async () => {
    const result = await createAgentClient({ store: createMemoryStore() }).fetch(`${shop}/report`);
    expect(!result.ok && result.error.code).toBe('payment_required');
    expect(!result.ok && result.error.payment?.options[0]?.amount).toBe('10000');
  });
});

describe("pay-per-crawl (a loopback site answering as Cloudflare's docs describe)", () => {
  let site: TestServer;
  beforeAll(async () => {
    // https://developers.cloudflare.com/ai-crawl-control/features/pay-per-crawl/use-pay-per-crawl-as-ai-owner/crawl-pages/
    site = await serve((req, res) => {
      const exact = req.headers['crawler-exact-price'];
      if (exact === undefined) return void res.writeHead(402, { 'crawler-price': 'USD 0.01', 'content-type': 'text/plain; charset=utf-8' }).end('Payment Required');
      if (exact !== 'USD 0.01') return void res.writeHead(402, { 'crawler-error': 'InvalidCrawlerExactPrice', 'crawler-price': 'USD 0.01' }).end();
      res.writeHead(200, { 'crawler-charged': 'USD 0.01', 'content-type': 'text/html' }).end('<h1>The article</h1>');
    });
  });
  afterAll(() => site.close());

  it('reads the price, pays it through the hook with crawler-exact-price, once', async () => {
    const shown: Payment[] = [];
    const result = await createAgentClient({
      store: createMemoryStore(),
      onPaymentRequired: (payment) => {
        shown.push(payment);
        return payment.price && Number(payment.price.amount) <= 0.05 ? { 'crawler-exact-price': `${payment.price.currency} ${payment.price.amount}` } : undefined;
      },
    }).fetch(`${site.url}/article`);
    expect(result.ok && result.response.headers.get('crawler-charged')).toBe('USD 0.01');
    expect(shown).toEqual([{ protocol: 'pay-per-crawl', version: 1, options: [], price: { amount: '0.01', currency: 'USD' } }]);
  });

  it('a wrong exact price is fix_input naming crawler-exact-price, and is not paid twice', async () => {
    let calls = 0;
    const result = await createAgentClient({
      store: createMemoryStore(),
      maxCalls: 5,
      onPaymentRequired: () => {
        calls += 1;
        return { 'crawler-exact-price': 'USD 0.001' };
      },
    }).fetch(`${site.url}/article`);
    expect(!result.ok && result.error).toMatchObject({ code: 'invalid_input', retry: 'fix_input', field: 'crawler-exact-price' });
    expect(calls).toBe(1);
  });
});
