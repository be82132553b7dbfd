// What a 402 asks to be paid, read from the two protocols that put a price on the wire:
//
// - x402 (https://github.com/coinbase/x402, specs/): version 2 sends its PaymentRequired as base64
//   JSON in the PAYMENT-REQUIRED header (transports-v2/http.md) and a settlement's result in
//   PAYMENT-RESPONSE; version 1 sent the same requirements in the JSON body (maxAmountRequired for
//   amount, network names for CAIP-2 ids) and the result in X-PAYMENT-RESPONSE.
// - Cloudflare's pay-per-crawl: `crawler-price: USD 0.01` on the 402, `crawler-error` on a failure
//   (https://developers.cloudflare.com/ai-crawl-control/features/pay-per-crawl/).
//
// Every value is decoded from a bounded header or body, checked member by member and copied into a
// fresh object: a hostile header can neither throw here nor grow what is kept.
import { READERS } from '../../generated/catalog.js';
import type { Payment, PaymentOption, PaymentResource } from '../../generated/types.js';
import type { Fields } from './headers.js';
import { isRecord, own } from './json.js';
import { refuse } from './refuse.js';

/** The longest payment header decoded: x402's requirements for a few options are a few KiB. */
const MAX_HEADER = 16 * 1024;
/** The most options kept, as the Payment schema says (maxItems). */
const MAX_OPTIONS = 16;
/** The most members of an option's extra kept (maxProperties); a string among them is at most 256 characters (extraOf). */
const MAX_EXTRA = 16;

/** The request header each x402 version pays with: what a site names when it says the payment sent was malformed. */
const PAYMENT_HEADER: Readonly<Record<number, string>> = { 1: 'x-payment', 2: 'payment-signature' };

/** Standard base64 with padding, as x402 encodes (its decoders refuse base64url too). */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** pay-per-crawl's price: a currency and a decimal amount, `USD 0.01`. */
const PRICE = /^[ \t]*([A-Z]{3})[ \t]+([0-9]{1,15}(?:\.[0-9]{1,18})?)[ \t]*$/;
const DIGITS = /^[0-9]{1,78}$/;

/** What a response says of paying, for fromResponse. */
export interface PaymentReading {
  /** The code the payment protocol's own words give (its catalog tables), or null to let the status decide. */
  readonly code: string | null;
  /** The request header a payment error names as the one to fix, or null. */
  readonly field: string | null;
  /** What the 402 asks to be paid, or null when it says nothing readable. */
  readonly payment: Payment | null;
  /** Why a payment header the site sent could not be read, for the message; null when it could. */
  readonly unreadable: string | null;
  /** For explainResponse: which header or body said so. */
  readonly why: () => string;
}

/** A string of 1 to `max` characters, or null. */
function text(value: unknown, max: number): string | null {
  return typeof value === 'string' && value.length > 0 && value.length <= max ? value : null;
}

/** The JSON object a base64 header holds, or null: not base64, too long, not UTF-8 JSON, or not an object. */
function decodeHeader(value: string | null): Record<string, unknown> | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_HEADER || trimmed.length % 4 !== 0 || !BASE64.test(trimmed)) return null;
  try {
    const binary = atob(trimmed);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    const parsed: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    return isRecord(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/** An option's extra: at most MAX_EXTRA members that are strings (at most 256 characters, as the Payment schema says), finite numbers or booleans; null when none is. */
function extraOf(value: unknown): PaymentOption['extra'] {
  if (!isRecord(value)) return null;
  const kept = new Map<string, string | number | boolean>();
  for (const key of Object.keys(value)) {
    if (kept.size >= MAX_EXTRA) break;
    if (key.length === 0 || key.length > 64) continue;
    const member = value[key];
    if ((typeof member === 'string' && member.length <= 256) || (typeof member === 'number' && Number.isFinite(member)) || typeof member === 'boolean') kept.set(key, member);
  }
  // fromEntries defines each key as an own member, __proto__ included, never the prototype.
  return kept.size > 0 ? Object.fromEntries(kept) : null;
}

/** One of x402's PaymentRequirements as the Payment schema holds it, or null when a member it needs is missing or malformed. */
function optionOf(value: unknown, version: number): PaymentOption | null {
  if (!isRecord(value)) return null;
  const raw = own(value, version === 1 ? 'maxAmountRequired' : 'amount');
  const amount = typeof raw === 'number' && Number.isSafeInteger(raw) && raw >= 0 ? String(raw) : typeof raw === 'string' && DIGITS.test(raw) ? raw : null;
  const scheme = text(own(value, 'scheme'), 64);
  const network = text(own(value, 'network'), 128);
  const asset = text(own(value, 'asset'), 256);
  const payTo = text(own(value, 'payTo'), 256);
  if (amount === null || scheme === null || network === null || asset === null || payTo === null) return null;
  const timeout = own(value, 'maxTimeoutSeconds');
  const seconds = typeof timeout === 'number' && Number.isInteger(timeout) && timeout >= 0 && timeout <= 31_536_000 ? timeout : null;
  return { scheme, network, asset, amount, pay_to: payTo, max_timeout_seconds: seconds, extra: extraOf(own(value, 'extra')) };
}

/** What is paid for: version 2's resource object, or version 1's members on its first option. */
function resourceOf(value: unknown): PaymentResource | null {
  const url = text(own(value, 'url') ?? own(value, 'resource'), 2048);
  if (url === null) return null;
  return { url, description: text(own(value, 'description'), 1024), mime_type: text(own(value, 'mimeType'), 256) };
}

/** x402's PaymentRequired (a version 2 header's, or a version 1 body) as the Payment schema holds it, or null. */
function x402Payment(required: Record<string, unknown>): Payment | null {
  const version = own(required, 'x402Version');
  const accepts = own(required, 'accepts');
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1 || version > 1000 || !Array.isArray(accepts)) return null;
  const options: PaymentOption[] = [];
  for (const item of accepts.slice(0, MAX_OPTIONS)) {
    const option = optionOf(item, version);
    if (option) options.push(option);
  }
  const resource = version === 1 ? resourceOf(accepts[0]) : resourceOf(own(required, 'resource'));
  return resource ? { protocol: 'x402', version, resource, options } : { protocol: 'x402', version, options };
}

/** A value from one of the payment tables, when it lists it. */
function listed(table: 'x402_error' | 'crawler_error', value: string | null): string | null {
  if (value === null) return null;
  const entries = READERS[table] as Readonly<Record<string, string>>;
  return Object.hasOwn(entries, value) ? entries[value]! : null;
}

/** The headers paymentFrom reads: a response with none of them says something of paying only in an x402 version 1 body. */
export const PAYMENT_HEADERS = ['payment-required', 'payment-response', 'x-payment-response', 'crawler-price', 'crawler-error'] as const;

/** Whether a body may be x402's version 1 PaymentRequired: it has an x402Version member, or a hostile getter that paymentFrom is left to catch. */
export function mayBeX402Body(json: unknown): boolean {
  try {
    return own(json, 'x402Version') !== undefined;
  } catch {
    return true;
  }
}

/**
 * What an error response says of paying, or null when it says nothing: x402's headers (or its
 * version 1 body) and pay-per-crawl's. The code comes from the protocol's failure reasons; the
 * payment from the requirements or the price. Never throws.
 */
export function paymentFrom(headers: Fields, json: unknown): PaymentReading | null {
  try {
    const required = headers.get('payment-required');
    const settled = headers.get('payment-response') ?? headers.get('x-payment-response');
    const crawlerPrice = headers.get('crawler-price');
    const crawlerError = headers.get('crawler-error')?.trim() ?? null;
    const v1 = isRecord(json) && own(json, 'x402Version') === 1 && Array.isArray(own(json, 'accepts')) ? json : null;
    if (required === null && settled === null && crawlerPrice === null && crawlerError === null && v1 === null) return null;

    // pay-per-crawl
    if (crawlerPrice !== null || crawlerError !== null) {
      const price = crawlerPrice === null ? null : PRICE.exec(crawlerPrice);
      const payment: Payment | null = price ? { protocol: 'pay-per-crawl', version: 1, options: [], price: { amount: price[2]!, currency: price[1]! } } : null;
      const code = listed('crawler_error', crawlerError);
      const headerTable = READERS.crawler_error_header as Readonly<Record<string, string>>;
      const field = crawlerError !== null && Object.hasOwn(headerTable, crawlerError) ? headerTable[crawlerError]! : null;
      const unreadable = crawlerPrice !== null && !price ? `its crawler-price header ${JSON.stringify(crawlerPrice.slice(0, 40))} is not a currency and an amount (USD 0.01)` : null;
      return {
        code,
        field,
        payment,
        unreadable,
        why: () => (code !== null ? `pay-per-crawl's crawler-error ${JSON.stringify(crawlerError!.slice(0, 40))} is ${code} (the catalog's crawler_error table)` : `pay-per-crawl's crawler-price ${JSON.stringify((crawlerPrice ?? '').slice(0, 40))} is the price to pay`),
      };
    }

    // x402
    const decoded = decodeHeader(required);
    const requirements = decoded ?? v1;
    const payment = requirements ? x402Payment(requirements) : null;
    const version = payment?.version ?? (settled !== null && headers.get('payment-response') === null ? 1 : 2);
    const result = decodeHeader(settled);
    // A settlement that failed says why in errorReason; a refused payment comes back as requirements whose error is the reason.
    const failed = result !== null && own(result, 'success') === false;
    const reason = failed ? (typeof own(result, 'errorReason') === 'string' ? (own(result, 'errorReason') as string) : null) : typeof own(requirements, 'error') === 'string' ? (own(requirements, 'error') as string) : null;
    const code = listed('x402_error', reason) ?? (failed ? READERS.x402_error.default : null);
    const field = code === READERS.x402_error.invalid_payload ? (PAYMENT_HEADER[version] ?? null) : null;
    const unreadable = required !== null && payment === null ? 'its PAYMENT-REQUIRED header is not the base64 JSON of an x402 PaymentRequired, so no way to pay it could be read' : null;
    return {
      code,
      field,
      payment,
      unreadable,
      why: () =>
        code !== null
          ? `x402's ${failed ? 'failed settlement' : 'refusal'} reason ${JSON.stringify((reason ?? 'none').slice(0, 80))} is ${code} (the catalog's x402_error table)`
          : payment !== null
            ? `x402 version ${payment.version} asks to be paid (${payment.options.length} option${payment.options.length === 1 ? '' : 's'})`
            : 'x402 payment headers that could not be read',
    };
  } catch {
    return null; // A throwing Headers implementation: no payment was read.
  }
}

/** x402's PaymentRequired, version 2, as its clients read it from the PAYMENT-REQUIRED header. */
export interface X402PaymentRequired {
  readonly x402Version: number;
  readonly error?: string;
  readonly resource: { readonly url: string; readonly description?: string; readonly mimeType?: string };
  readonly accepts: readonly {
    readonly scheme: string;
    readonly network: string;
    readonly amount: string;
    readonly asset: string;
    readonly payTo: string;
    readonly maxTimeoutSeconds: number;
    readonly extra: Record<string, unknown>;
  }[];
}

/**
 * A Payment of x402 as x402's own PaymentRequired (version 2): what a site sends base64 in
 * PAYMENT-REQUIRED, and what an x402 client signs (x402Client.createPaymentPayload). Null for a
 * payment that is not x402 version 2, or that lacks what a client needs: its resource, and each
 * option's time limit.
 * @example const payload = await client.createPaymentPayload(x402RequirementsOf(error.payment)!);
 */
export function x402RequirementsOf(payment: Payment, error?: string): X402PaymentRequired | null {
  if (!isRecord(payment)) refuse('x402RequirementsOf', 'payment', "a payment (an envelope error's payment member)", payment);
  if (payment.protocol !== 'x402' || payment.version !== 2 || payment.resource === undefined || payment.options.some((o) => o.max_timeout_seconds === null)) return null;
  const { url, description, mime_type: mimeType } = payment.resource;
  return {
    x402Version: 2,
    ...(error === undefined ? {} : { error }),
    resource: { url, ...(description === null ? {} : { description }), ...(mimeType === null ? {} : { mimeType }) },
    accepts: payment.options.map((o) => ({ scheme: o.scheme, network: o.network, amount: o.amount, asset: o.asset, payTo: o.pay_to, maxTimeoutSeconds: o.max_timeout_seconds!, extra: { ...(o.extra ?? {}) } })),
  };
}

/** Base64 of a JSON value's UTF-8, as x402 encodes its headers. */
export function base64Json(value: unknown): string {
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * The response headers that say what to pay, for a site sending a payment_required error:
 * x402's PAYMENT-REQUIRED (version 2, base64 JSON) or pay-per-crawl's crawler-price. x402 clients
 * read a version 2 price only from the header, so it goes on every answer of the 402, page included.
 */
export function paymentHeaders(payment: Payment, message: string): Record<string, string> {
  if (payment.protocol === 'pay-per-crawl') return payment.price ? { 'crawler-price': `${payment.price.currency} ${payment.price.amount}` } : {};
  const required = x402RequirementsOf(payment, message);
  return required ? { 'payment-required': base64Json(required) } : {};
}
