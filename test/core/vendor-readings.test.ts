// The vendor readings beside the corpus (test/fixtures/responses/) that only a pair of responses
// shows: what a rule reads and what it leaves alone. Slack's error strings by their shape, a
// GraphQL mutation's userErrors, Twilio's quoted parameter, Gemini's failed precondition, Zendesk's
// details map and Cloudflare's owner_action_required. The rules are the catalog's tables.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { READERS } from '../../generated/catalog.js';
import { explainResponse, fromResponse, isErrorBody } from '../../src/core/from-response.js';
import { validateEnvelope } from '../../src/index.js';

const J = { 'content-type': 'application/json' };
const read = (status: number, body: unknown) => fromResponse(status, J, body).error;

describe("Slack's error strings", () => {
  it('a listed string wins over its shape; an unlisted one is read by its start or end; one of no known shape keeps the fallback', () => {
    // missing_scope starts with missing_, which the part table reads as invalid_input: the listed row decides.
    expect(read(200, { ok: false, error: 'missing_scope', needed: 'chat:write' })).toMatchObject({ code: 'scope_missing', field: 'chat:write' });
    expect(read(200, { ok: false, error: 'file_not_found' }).code).toBe('not_found');
    expect(read(200, { ok: false, error: 'invalid_cursor' }).code).toBe('invalid_input');
    expect(read(200, { ok: false, error: 'restricted_action_read_only_channel' }).code).toBe('not_allowed');
    expect(read(200, { ok: false, error: 'name_taken' }).code).toBe('conflict');
    const plain = read(200, { ok: false, error: 'cant_update_message' });
    expect(plain.code).toBe(fromResponse(200, J, { ok: false, error: 'no_such_shape_at_all' }).error.code);
    expect(explainResponse(200, J, { ok: false, error: 'invalid_cursor' }).because.join(' ')).toContain('slack_error_part');
  });

  it('every key of the part table fits a string only at its end (_x) or its start (x_)', () => {
    for (const part of Object.keys(READERS.slack_error_part)) expect(part.startsWith('_') !== part.endsWith('_')).toBe(true);
  });
});

describe("a GraphQL mutation's userErrors", () => {
  it('reads the code a typed item gives, else its sentence; a path as the dotted field', () => {
    expect(read(200, { data: { m: { userErrors: [{ field: ['input', 'items', '0', 'sku'], message: 'Sku is invalid', code: 'INVALID' }] } } })).toMatchObject({ code: 'invalid_input', field: 'input.items.0.sku' });
    expect(read(200, { data: { m: { userErrors: [{ field: null, message: "Title can't be blank" }] } } })).toMatchObject({ code: 'missing_field', field: null });
    expect(read(200, { data: { m: { userErrors: [{ field: ['handle'], message: 'Handle is in use', code: 'TAKEN' }] } } })).toMatchObject({ code: 'conflict', retry: 'refetch' });
  });

  it('never throws and always gives a valid envelope, whatever the payloads hold (fast-check)', () => {
    const item = fc.record({ field: fc.oneof(fc.constant(null), fc.string(), fc.array(fc.oneof(fc.string(), fc.integer()))), message: fc.oneof(fc.string(), fc.integer()), code: fc.option(fc.string()) }, { requiredKeys: [] });
    const payload = fc.oneof(fc.constant(null), fc.record({ userErrors: fc.array(fc.oneof(item, fc.anything())) }, { requiredKeys: [] }), fc.anything());
    fc.assert(
      fc.property(fc.dictionary(fc.string(), payload), (data) => {
        const body = { data };
        const { error } = fromResponse(200, J, body);
        expect(validateEnvelope({ error }, { received: true }).errors).toEqual([]);
        // An error is found only where every payload failed or is null, and at least one failed.
        const payloads = Object.values(data);
        const failed = (p: unknown) => typeof p === 'object' && p !== null && Array.isArray((p as { userErrors?: unknown }).userErrors) && ((p as { userErrors: unknown[] }).userErrors).some((i) => typeof i === 'object' && i !== null && !Array.isArray(i));
        expect(isErrorBody(body)).toBe(payloads.some(failed) && payloads.every((p) => p === null || failed(p)));
      }),
      { numRuns: 500 },
    );
  });
});

describe("Twilio's parameter named in quotes", () => {
  it('takes a capitalised parameter in quotes before number, phone number or parameter, and nothing else in quotes', () => {
    expect(read(400, { code: 21606, message: "The 'From' phone number provided is not a valid message-capable Twilio phone number for this destination.", status: 400 }).field).toBe('From');
    expect(read(400, { code: 1, message: "The 'quick' number is wrong", status: 400 }).field).toBeNull();
    expect(read(400, { code: 1, message: "We could not send 'Hello' to you", status: 400 }).field).toBeNull();
    // A 404 names no field to fix, whatever its sentence quotes.
    expect(read(404, { code: 20404, message: "The 'To' number was not found", status: 404 }).field).toBeNull();
  });
});

describe("Gemini's failed precondition", () => {
  const status = (s: string, message: string) => ({ error: { code: 400, message, status: s } });
  it('reads a billing or location sentence only under FAILED_PRECONDITION; any other precondition stays invalid_input', () => {
    expect(read(400, status('FAILED_PRECONDITION', 'Please enable billing on your project.')).code).toBe('needs_human');
    expect(read(400, status('INVALID_ARGUMENT', 'Please enable billing on your project.')).code).toBe('invalid_input');
    expect(read(400, status('FAILED_PRECONDITION', 'The file is still being processed.')).code).toBe('invalid_input');
  });
});

describe("Zendesk's details map", () => {
  it('reads base as the whole record; a details member of any other shape is not a map of fields', () => {
    const both = read(422, { error: 'RecordInvalid', description: 'Record validation errors', details: { base: [{ description: 'Ticket is closed', error: 'InvalidValue' }], subject: [{ description: 'Subject: cannot be blank', error: 'BlankValue' }] } });
    expect(both).toMatchObject({ code: 'missing_field', field: 'subject' });
    const other = read(400, { error: 'dnc_blocked', message: 'Destination is on the DNC list.', details: { suppression_source: 'global' } });
    expect(other).toMatchObject({ field: null, message: 'Destination is on the DNC list.' });
  });
});

describe("Cloudflare's owner_action_required", () => {
  const cf = (retryable: boolean, category: string, owner: boolean) => ({ cloudflare_error: true, error_code: 1999, error_category: category, retryable, owner_action_required: owner, title: 'Error 1999' });
  it('needs a person only when the error may not be retried; a retryable one stays a wait', () => {
    expect(read(530, cf(false, 'something_new', true)).code).toBe('needs_human');
    expect(read(530, cf(false, 'something_new', false)).code).toBe('not_allowed');
    expect(read(522, cf(true, 'origin', true)).code).toBe('temporarily_unavailable');
    // A listed category keeps its row, whatever owner_action_required says.
    expect(read(403, cf(false, 'access_denied', true)).code).toBe('not_allowed');
    expect(explainResponse(530, J, cf(false, 'something_new', true)).because.join(' ')).toContain('owner_action_required true');
  });
});
