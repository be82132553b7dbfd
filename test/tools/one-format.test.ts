// One description of a team's error format, read everywhere: readLintConfig gives it from the
// team's config file or from its OpenAPI document's x-agent-errors, and the lint, AgentFriendly and
// fromResponse agree on it: a body the lint passes with the config is augmented by an adapter with
// the same config into a body fromResponse reads without any config.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { fromResponse } from '../../src/agent/index.js';
import { convertAppError } from '../../src/site/index.js';
import { lintOpenApi, LintInputError, readLintConfig, type LintConfig } from '../../src/tools/lint.js';

const FORMAT = { code: '/code', message: '/message', field: '/param', retry: '/next_step', delay: '/retry_after_seconds' };
const RETRY_BY_CODE = { ORDER_LOCKED: 'refetch', BAD_SKU: 'fix_input', SLOW_DOWN: 'after_delay' } as const;
const CONFIG: LintConfig = { format: FORMAT, retryByCode: RETRY_BY_CODE };

/** The team's error schema and one response per example, each with its status. */
const EXAMPLES = [
  { status: 423, body: { message: 'Order is locked', code: 'ORDER_LOCKED' }, expected: { code: 'order_locked', retry: 'refetch', field: null } },
  { status: 422, body: { message: 'Bad sku', code: 'BAD_SKU', param: 'sku' }, expected: { code: 'bad_sku', retry: 'fix_input', field: 'sku' } },
  { status: 429, body: { message: 'Slow down', code: 'SLOW_DOWN', retry_after_seconds: 7 }, expected: { code: 'slow_down', retry: 'after_delay', retry_after: 7 } },
] as const;

function spec(withConfig: boolean): Record<string, unknown> {
  const error = { type: 'object', required: ['message', 'code'], properties: { message: { type: 'string' }, code: { type: 'string', enum: Object.keys(RETRY_BY_CODE) }, param: { type: 'string' }, retry_after_seconds: { type: 'integer' } } };
  const responses = Object.fromEntries(
    EXAMPLES.map(({ status, body }) => [
      String(status),
      {
        description: body.message,
        ...(status === 429 ? { headers: { 'Retry-After': { schema: { type: 'integer' }, example: 7 } } } : {}),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, example: body } },
      },
    ]),
  );
  return {
    openapi: '3.1.0',
    info: { title: 'Orders', version: '1' },
    ...(withConfig ? { 'x-agent-errors': CONFIG } : {}),
    paths: { '/orders/{id}': { post: { operationId: 'cancelOrder', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: { '200': { description: 'ok' }, ...responses } } } },
    components: { schemas: { Error: error } },
  };
}

describe('readLintConfig', () => {
  const dir = mkdtempSync(join(tmpdir(), 'one-format-'));

  it("gives the team's format from its config file, and from its OpenAPI document's x-agent-errors", async () => {
    writeFileSync(join(dir, 'agent-errors.json'), JSON.stringify(CONFIG));
    writeFileSync(join(dir, 'openapi.yaml'), stringify(spec(true)));
    expect(await readLintConfig(join(dir, 'agent-errors.json'))).toEqual(CONFIG);
    expect(await readLintConfig(join(dir, 'openapi.yaml'))).toEqual(CONFIG);
  });

  it('says so when an OpenAPI document has no config, and names a wrong member of the one it has', async () => {
    writeFileSync(join(dir, 'bare.yaml'), stringify(spec(false)));
    await expect(readLintConfig(join(dir, 'bare.yaml'))).rejects.toThrow(new LintInputError(`${join(dir, 'bare.yaml')} is an OpenAPI document with no x-agent-errors member: put the lint config there ({format, retryByCode, rules}), or give the config file itself`));
    writeFileSync(join(dir, 'wrong.yaml'), stringify({ ...spec(false), 'x-agent-errors': { format: { code: 'code' } } }));
    await expect(readLintConfig(join(dir, 'wrong.yaml'))).rejects.toThrow(/the x-agent-errors of .*wrong\.yaml is not a valid lint config: \/format\/code must be a JSON pointer/);
  });
});

describe('the lint, AgentFriendly and fromResponse read one format alike', () => {
  it("a body the lint passes with the config is augmented with the same config into a body fromResponse reads without it", async () => {
    const findings = await lintOpenApi(spec(true));
    expect(findings.filter((f) => f.severity === 'error')).toEqual([]);
    for (const { status, body, expected } of EXAMPLES) {
      const headers = { 'content-type': 'application/json' };
      const converted = convertAppError({ status, headers, body: JSON.stringify(body) }, 'application/json', 'https://shop.example', CONFIG);
      expect(converted, `${status}`).not.toBeNull();
      expect(converted!.status).toBe(status);
      const sent = JSON.parse(converted!.body);
      expect(sent).toMatchObject(body);
      const read = fromResponse(status, { ...headers, ...converted!.set }, converted!.body).error;
      expect(read, `${status} ${converted!.body}`).toMatchObject(expected);
      // And with the config, the agent reads the same.
      expect(fromResponse(status, { ...headers, ...converted!.set }, converted!.body, CONFIG).error).toMatchObject(expected);
    }
  });

  it('without the config, the lint asks for a retry word the body does not have', async () => {
    const findings = await lintOpenApi(spec(false));
    expect(findings.map((f) => f.rule)).toContain('error-retry');
  });
});
