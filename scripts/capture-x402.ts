// Captures x402 payment answers from the real @x402/express middleware into the response corpus
// (test/fixtures/responses/x402-*.json): its 402 asking to be paid, the 402 of a payment whose
// settlement failed, and the 402 of a payment its facilitator found invalid. A facilitator on
// loopback answers /supported, /verify and /settle as x402's facilitator API describes them
// (specs/x402-specification-v2.md section 7); the payments are signed by the real @x402/fetch
// client with a local test key (offline: no chain is reached).
//
//   npx tsx scripts/capture-x402.ts
import { HTTPFacilitatorClient } from '@x402/core/server';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { paymentMiddleware, x402ResourceServer } from '@x402/express';
import { x402Client, x402HTTPClient } from '@x402/fetch';
import express from 'express';
import { readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { ROOT } from '../codegen/paths.js';

const NETWORK = 'eip155:84532';
const PAY_TO = '0x209693Bc6afc0C5328bA36FaF03C514EF312287C';
const version = (name: string): string => (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
const today = new Date().toISOString().slice(0, 10);
const PRODUCED = `Captured from @x402/express ${version('@x402/express')} (@x402/core ${version('@x402/core')}, @x402/evm ${version('@x402/evm')}, express ${version('express')}; Node ${process.version}) by scripts/capture-x402.ts on ${today}`;

let verdict: { verify: { isValid: boolean; invalidReason?: string }; settle: { success: boolean; errorReason?: string } } = { verify: { isValid: true }, settle: { success: true } };

async function listen(app: express.Express): Promise<{ url: string; close: () => void }> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

const fac = express();
fac.use(express.json());
fac.get('/supported', (_req, res) => void res.json({ kinds: [{ x402Version: 2, scheme: 'exact', network: NETWORK }], extensions: [], signers: {} }));
fac.post('/verify', (req, res) => void res.json({ ...verdict.verify, payer: req.body.paymentPayload.payload.authorization.from }));
fac.post('/settle', (req, res) => void res.json({ ...verdict.settle, transaction: verdict.settle.success ? `0x${'ab'.repeat(32)}` : '', network: NETWORK, payer: req.body.paymentPayload.payload.authorization.from }));
const facilitator = await listen(fac);

const app = express();
const server = new x402ResourceServer(new HTTPFacilitatorClient({ url: facilitator.url })).register(NETWORK, new ExactEvmScheme());
app.use(paymentMiddleware({ 'GET /report': { accepts: { scheme: 'exact', price: '$0.01', network: NETWORK, payTo: PAY_TO }, description: 'The sales report', mimeType: 'application/json' } }, server));
app.get('/report', (_req, res) => void res.json({ sales: 42 }));
const shop = await listen(app);

const client = new x402Client();
registerExactEvmScheme(client, { signer: privateKeyToAccount(`0x${'11'.repeat(32)}`), networks: [NETWORK] });
const http = new x402HTTPClient(client);

/** The headers worth keeping: what describes the body and the payment. */
const KEEP = ['date', 'content-type', 'cache-control', 'payment-required', 'payment-response'];

async function capture(file: string, name: string, headers: Record<string, string>, expect: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${shop.url}/report`, { headers });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // a page stays text
  }
  const kept = Object.fromEntries([...response.headers].filter(([key]) => KEEP.includes(key)));
  const fixture = { name, source: `${PRODUCED}: GET /report (price $0.01 on ${NETWORK}) ${headers['payment-signature'] ? 'with a signed PAYMENT-SIGNATURE' : 'without a payment'}.`, status: response.status, headers: kept, body, expect };
  writeFileSync(join(ROOT, 'test/fixtures/responses', file), `${JSON.stringify(fixture, null, 2)}\n`);
  console.log(`${file}: ${response.status}`);
}

const unpaid = await fetch(`${shop.url}/report`);
const required = http.getPaymentRequiredResponse((name) => unpaid.headers.get(name));
const signed = async (): Promise<Record<string, string>> => http.encodePaymentSignatureHeader(await http.createPaymentPayload(required));
const decoded = JSON.parse(Buffer.from(unpaid.headers.get('payment-required')!, 'base64').toString('utf8')) as { resource: { url: string }; accepts: { amount: string; asset: string; payTo: string; maxTimeoutSeconds: number; extra: Record<string, unknown> }[] };
const option = decoded.accepts[0]!;
const payment = {
  protocol: 'x402',
  version: 2,
  resource: { url: decoded.resource.url, description: 'The sales report', mime_type: 'application/json' },
  options: [{ scheme: 'exact', network: NETWORK, asset: option.asset, amount: option.amount, pay_to: option.payTo, max_timeout_seconds: option.maxTimeoutSeconds, extra: option.extra }],
};

await capture('x402-express-402-payment-required.json', "x402 version 2's 402 from @x402/express: payment_required with its option (0.01 USDC on Base Sepolia as 10000 atomic units) from the PAYMENT-REQUIRED header", {}, {
  code: 'payment_required', retry: 'pay', field: null, retry_after: null, payment,
});
verdict = { verify: { isValid: true }, settle: { success: false, errorReason: 'insufficient_funds' } };
await capture('x402-express-402-settle-insufficient-funds.json', "x402's 402 for a payment whose settlement failed (PAYMENT-RESPONSE success: false, insufficient_funds): payment_declined, not a price to pay again", await signed(), {
  code: 'payment_declined', retry: 'ask_human', field: null, retry_after: null,
});
verdict = { verify: { isValid: false, invalidReason: 'invalid_exact_evm_payload_signature' }, settle: { success: true } };
await capture('x402-express-402-invalid-signature.json', "x402's 402 for a payment its facilitator found invalid (invalid_exact_evm_payload_signature): fix_input naming payment-signature, the header to build anew", await signed(), {
  code: 'invalid_input', retry: 'fix_input', field: 'payment-signature', retry_after: null,
});
shop.close();
facilitator.close();
