// Bearer challenges (RFC 6750 section 3), from a real MCP server: the MCP TypeScript SDK's
// requireBearerAuth middleware on Express, over loopback, answers a token without the scope with a
// 403 and `WWW-Authenticate: Bearer error="insufficient_scope", ..., scope="..."`, and an expired or
// missing token with a 401 and error="invalid_token". fromResponse must tell the two apart: a grant
// with the named scope, or a new grant.
import express from 'express';
import fc from 'fast-check';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerChallenge } from '../../src/core/challenge.js';
import { explainResponse, fromResponse } from '../../src/core/from-response.js';
import { serve, type TestServer } from '../helpers/server.js';

const SCOPE = 'files:write';
let server: TestServer;

beforeAll(async () => {
  const app = express();
  // The verifier of a server that issued three tokens: one with the scope, one without, one expired.
  const verifier = {
    async verifyAccessToken(token: string) {
      const now = Math.floor(Date.now() / 1000);
      const scopes = token === 'reader' ? ['files:read'] : [SCOPE];
      return { token, clientId: 'agent', scopes, expiresAt: token === 'expired' ? now - 60 : now + 3600 };
    },
  };
  app.use('/mcp', requireBearerAuth({ verifier, requiredScopes: [SCOPE] }), (_req, res) => {
    res.json({ ok: true });
  });
  server = await serve(app);
});

afterAll(() => server.close());

/** The MCP server's answer to a token, as fromResponse reads it. */
async function read(token: string | null) {
  const response = await fetch(`${server.url}/mcp`, token === null ? {} : { headers: { authorization: `Bearer ${token}` } });
  const body = await response.text();
  return { status: response.status, challenge: response.headers.get('www-authenticate'), ...fromResponse(response.status, response.headers, body).error };
}

describe("a real MCP server's Bearer challenges (@modelcontextprotocol/sdk requireBearerAuth)", () => {
  it('reads a token without the scope as scope_missing, naming the scope the challenge asks for', async () => {
    const answer = await read('reader');
    expect(answer.challenge).toMatch(/^Bearer error="insufficient_scope"/);
    expect(answer).toMatchObject({ status: 403, code: 'scope_missing', retry: 'get_grant', field: SCOPE });
  });

  it('reads an expired token, and none at all, as auth_required: a new grant, not a refusal', async () => {
    for (const token of ['expired', null]) {
      const answer = await read(token);
      expect(answer.challenge).toMatch(/^Bearer error="invalid_token"/);
      expect(answer).toMatchObject({ status: 401, code: 'auth_required', retry: 'get_grant', field: null });
    }
  });

  it('lets a token with the scope through', async () => {
    expect((await read('writer')).status).toBe(200);
  });
});

describe('bearerChallenge', () => {
  it.each<[string, Record<string, string> | null]>([
    ['Bearer realm="example", error="invalid_token", error_description="The access token expired"', { realm: 'example', error: 'invalid_token', error_description: 'The access token expired' }],
    ['Bearer error=insufficient_scope, scope="a b"', { error: 'insufficient_scope', scope: 'a b' }],
    ['Basic realm="x", Bearer ERROR="invalid_token"', { error: 'invalid_token' }],
    ['Bearer realm="a\\"b", error="invalid_token", Basic realm="z"', { realm: 'a"b', error: 'invalid_token' }],
    ['bearer', {}],
    ['Basic realm="x"', null],
    ['NotBearer error="invalid_token"', null],
  ])('reads %j', (value, expected) => {
    const params = bearerChallenge(value);
    expect(params === null ? null : Object.fromEntries(params)).toEqual(expected);
  });

  it('never throws, and a status decides when the challenge names no known error', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (value) => {
        bearerChallenge(value);
        bearerChallenge(`Bearer ${value}`);
        const { because } = explainResponse(403, { 'www-authenticate': `Bearer ${value.replace(/[\r\n\0]/g, '')}` }, '');
        expect(because.length).toBeGreaterThan(0);
      }),
      { numRuns: 2000 },
    );
  });
});
