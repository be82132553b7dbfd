// Every option is checked by name (issue 35, item 3). TypeScript tells a typed caller of a misspelt
// option; a JavaScript caller is told by a TypeError at set-up, from the one helper of
// src/core/refuse.ts. This file walks every function the package exports, finds each parameter
// that is an options object (by its type, with TypeScript's own checker over the entry points of
// package.json), and calls the function with an option it does not know, with a near miss of each
// option it documents, and with every documented option at once, so that a new function or a new
// option the check does not know fails here. CALLS says how each function is called; a function
// this walk finds that CALLS does not name fails the first test.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import axios from 'axios';
import Fastify from 'fastify';
import fc from 'fast-check';
import { createClient } from 'redis';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkRules, closest, type Check } from '../src/core/refuse.js';
import { problemFrom, validateEnvelope, validateProblem } from '../src/index.js';
import { agentFetch, createAgentClient, createMemoryStore, explainResponse, fromResponse } from '../src/agent/index.js';
import { agentAxios } from '../src/agent/axios.js';
import { createDiskStore } from '../src/agent/disk-store.js';
import { fetchPage } from '../src/agent/entries/fetcher.js';
import { agentGot } from '../src/agent/got.js';
import { POLICIES, renderDialect, runLoop } from '../src/agent/loop.js';
import { createRedisStore } from '../src/agent/entries/redis.js';
import { agentUndici } from '../src/agent/undici.js';
import { diffCatalog, formatFindings, lintOpenApi, toGithubAnnotations, toJunit, toSarif, violations } from '../src/tools/lint.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { agentToolErrors } from '../src/agent/mcp.js';
import { AgentError, agentError, convertAppError, defineSiteCodes, isAgentRequest, renderProblemPage, siteError, translateUpstream } from '../src/site/index.js';
import { agentFriendlyExpress, agentFriendlyExpressErrorHandler } from '../src/site/express.js';
import { agentFriendlyFastify } from '../src/site/fastify.js';
import { agentFriendlyFetch } from '../src/site/entries/fetch.js';
import { agentFriendlyHono, agentFriendlyHonoErrorHandler } from '../src/site/hono.js';
import { agentFriendlyKoa } from '../src/site/koa.js';
import { AgentFriendlyFilter, AgentFriendlyModule, agentFriendlyNest } from '../src/site/nest.js';
import { agentFriendlyNext, agentFriendlyNextDocs } from '../src/site/entries/next.js';
import { agentFriendlyNode } from '../src/site/entries/node.js';

const ROOT = join(import.meta.dirname, '..');
type Options = Record<string, unknown>;
type Call = (options: Options) => unknown;

/** One options parameter of an exported function, as the walk finds it. */
interface Found {
  readonly subpath: string;
  readonly name: string;
  /** The options its type documents. */
  readonly options: readonly string[];
}

/**
 * Every exported function (or class) of every entry point whose parameter is an options object: one
 * whose type is an object with properties, none of them required, or a parameter named options. An
 * Error class's ErrorOptions ({ cause } alone) are Error's, and left out.
 */
function walk(): Found[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
  const entries = Object.entries(pkg.exports).flatMap(([subpath, target]) =>
    typeof target === 'object' && target !== null ? [[subpath, join(ROOT, (target as { types: string }).types.replace('./dist/', '').replace(/\.d\.ts$/, '.ts'))] as const] : [],
  );
  const program = ts.createProgram(entries.map(([, file]) => file), { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, strict: true, skipLibCheck: true, noEmit: true });
  const checker = program.getTypeChecker();
  const found = new Map<string, Found>();
  for (const [subpath, file] of entries) {
    const module = checker.getSymbolAtLocation(program.getSourceFile(file)!)!;
    for (const exported of checker.getExportsOfModule(module)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const declaration = symbol.valueDeclaration;
      if (!declaration) continue;
      const type = checker.getTypeOfSymbolAtLocation(symbol, declaration);
      const signatures = [...type.getCallSignatures(), ...type.getConstructSignatures()];
      for (const signature of signatures) {
        for (const parameter of signature.parameters) {
          const t = checker.getNonNullableType(checker.getTypeOfSymbolAtLocation(parameter, declaration));
          const properties = t.getProperties();
          // An Error's own ErrorOptions ({ cause }) are Error's to check.
          if (properties.length === 0 || t.getCallSignatures().length > 0 || (properties.length === 1 && properties[0]!.name === 'cause')) continue;
          const allOptional = properties.every((p) => (p.flags & ts.SymbolFlags.Optional) !== 0);
          if (!allOptional && !/^opt(ion)?s$/.test(parameter.name)) continue;
          const name = exported.name;
          if (!found.has(name)) found.set(name, { subpath, name, options: properties.map((p) => p.name) });
        }
      }
    }
  }
  return [...found.values()];
}

let server: Server;
let url: string;
let tmp: string;
const redis = createClient({ url: 'redis://127.0.0.1:1' });
const anError = { code: 'internal', message: 'Something failed', field: null, retry: 'once', retry_after: null } as const;
const minimalSpec = { openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {} };
const { agentError: siteAgentError } = defineSiteCodes({ options_test_code: { status: 409, retry: 'refetch', title: 'Options test' } });

/** An option left undefined takes the default of `defaults` instead, so that a call can run whatever the walk passes. */
const over = (defaults: Options, options: Options): Options => {
  const merged = { ...options };
  for (const [k, v] of Object.entries(defaults)) if (merged[k] === undefined) merged[k] = v;
  return merged;
};

/** How each function the walk finds is called with `options`, and the name its errors go by when it is not the function's own. */
const CALLS: Readonly<Record<string, Call>> = {
  problemFrom: (o) => problemFrom(anError, 500, o),
  validateEnvelope: (o) => validateEnvelope({}, o),
  validateProblem: (o) => validateProblem({}, o),
  agentFetch: (o) => agentFetch(o),
  createAgentClient: (o) => createAgentClient(o),
  createMemoryStore: (o) => createMemoryStore(o),
  explainResponse: (o) => explainResponse(500, {}, null, o),
  fromResponse: (o) => fromResponse(500, {}, null, o),
  agentAxios: (o) => agentAxios(axios.create(), o),
  createDiskStore: async (o) => (await createDiskStore(join(tmp, 'store.db'), o)).close(),
  fetchPage: (o) => fetchPage(url, o),
  agentGot: (o) => agentGot(o),
  renderDialect: (o) => renderDialect('envelope', { code: 'internal', status: 500, retry: 'once', field: null, retryAfter: null, message: 'm', detail: 'd', title: 't' }, o),
  runLoop: (o) => runLoop(() => ({ status: 200, headers: {}, body: '' }), POLICIES.contract, over({ now: () => 0, sleep: () => {} }, o) as never),
  createRedisStore: (o) => createRedisStore(redis as never, o),
  agentUndici: (o) => agentUndici(o),
  diffCatalog: (o) => diffCatalog({ codes: {} }, { codes: {} }, o),
  formatFindings: (o) => formatFindings([], o),
  lintOpenApi: (o) => lintOpenApi(minimalSpec, o),
  toGithubAnnotations: (o) => toGithubAnnotations([], over({ file: 'spec.yaml' }, o) as never),
  toJunit: (o) => toJunit([], over({ file: 'spec.yaml' }, o) as never),
  toSarif: (o) => toSarif([], over({ uri: 'spec.yaml' }, o) as never),
  violations: (o) => violations([], o),
  // The class takes every option of either builder; with a code of the call's own, all of them apply (siteError's).
  AgentError: (o) => new AgentError('options_test_class', over({ status: 409, retry: 'refetch' }, o) as never),
  siteError: (o) => siteError('options_test_other', over({ status: 409, retry: 'refetch' }, o) as never),
  renderProblemPage: (o) => renderProblemPage('GET', '/problems/internal', {}, o),
  agentToolErrors: (o) => agentToolErrors(new McpServer({ name: 'options', version: '1.0.0' }), o),
  convertAppError: (o) => convertAppError({ status: 404, headers: {}, body: null }, 'application/json', 'https://shop.example', o),
  isAgentRequest: (o) => isAgentRequest({ headers: {} }, o),
  translateUpstream: (o) => translateUpstream(anError, o),
  agentFriendlyExpress: (o) => agentFriendlyExpress(o),
  agentFriendlyExpressErrorHandler: (o) => agentFriendlyExpressErrorHandler(o),
  agentFriendlyFastify: async (o) => {
    const app = Fastify();
    try {
      await app.register(agentFriendlyFastify, o);
      await app.ready();
    } finally {
      await app.close();
    }
  },
  agentFriendlyFetch: (o) => agentFriendlyFetch(() => new Response('ok'), o),
  agentFriendlyHono: (o) => agentFriendlyHono(o),
  agentFriendlyHonoErrorHandler: (o) => agentFriendlyHonoErrorHandler(o),
  agentFriendlyKoa: (o) => agentFriendlyKoa(o),
  AgentFriendlyFilter: (o) => new AgentFriendlyFilter(o),
  AgentFriendlyModule: (o) => AgentFriendlyModule.forRoot(o),
  agentFriendlyNest: (o) => agentFriendlyNest(o),
  agentFriendlyNext: (o) => agentFriendlyNext(() => new Response('ok'), o),
  agentFriendlyNextDocs: (o) => agentFriendlyNextDocs(o),
  agentFriendlyNode: (o) => agentFriendlyNode((_req, res) => res.end(), o),
};

/** Functions whose options the walk cannot see (a rest parameter, a returned builder), with their documented options. */
const UNSEEN: Readonly<Record<string, { readonly options: readonly string[]; readonly call: Call }>> = {
  'agentError (a catalog code, options as its rest parameter)': { options: ['message', 'field', 'retryAfter', 'errors', 'detail', 'instance', 'cause', 'payment', 'violatedPolicies'], call: (o) => agentError('internal', o) },
  "defineSiteCodes(...).agentError (a site's own code)": { options: ['message', 'field', 'errors', 'detail', 'instance', 'cause', 'violatedPolicies'], call: (o) => siteAgentError('options_test_code', o) },
};

/** The function an error names, where it is not the one the test calls it by. */
const WHO: Readonly<Record<string, string>> = {
  AgentError: 'siteError',
  AgentFriendlyModule: 'AgentFriendlyModule.forRoot',
  "defineSiteCodes(...).agentError (a site's own code)": 'agentError',
};

/** The outcome of a call: the error it threw or rejected with, else undefined. */
async function outcome(call: () => unknown): Promise<unknown> {
  try {
    await call();
    return undefined;
  } catch (error) {
    return error;
  }
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

const FOUND = walk();
const ALL: readonly (readonly [string, readonly string[], Call])[] = [
  ...FOUND.flatMap((f) => (CALLS[f.name] ? [[f.name, f.options, CALLS[f.name]!] as const] : [])),
  ...Object.entries(UNSEEN).map(([name, u]) => [name, u.options, u.call] as const),
];

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'agent-errors-options-'));
  server = createServer((_req, res) => res.end('ok')).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(tmp, { recursive: true, force: true });
});

describe('every exported function checks its options by name', () => {
  it('has a call in this file for every function with an options object, and the walk finds the ones it should', () => {
    const missing = FOUND.filter((f) => !CALLS[f.name]).map((f) => `${f.subpath} ${f.name}(${f.options.join(', ')})`);
    expect(missing, 'functions with options that CALLS does not call: add each').toEqual([]);
    const stale = Object.keys(CALLS).filter((name) => !FOUND.some((f) => f.name === name));
    expect(stale, 'CALLS names functions the walk no longer finds').toEqual([]);
    expect(FOUND.length).toBeGreaterThanOrEqual(40);
  }, 60_000);

  it.each(ALL.map(([name, , call]) => [name, call] as const))('%s: an option it does not know is a TypeError naming the function and the option', async (name, call) => {
    const error = await outcome(() => call({ zzNotAnOption: 1 }));
    expect(error, `${name} accepted an option it does not know`).toBeInstanceOf(TypeError);
    expect(messageOf(error)).toMatch(/^\S+(?:\(.*?\))?: unknown option "zzNotAnOption"; it takes "/);
    const who = WHO[name] ?? name.split(/[ (.]/, 1)[0]!;
    expect(messageOf(error).startsWith(`${who}:`) || messageOf(error).startsWith(`${who}(`), `${name}: ${messageOf(error)}`).toBe(true);
  });

  it.each(ALL.map(([name, options, call]) => [name, options, call] as const))('%s: each documented option is known, and a near miss names it', async (name, options, call) => {
    const all = await outcome(() => call(Object.fromEntries(options.map((o) => [o, undefined]))));
    expect(messageOf(all ?? ''), `${name}: a documented option is unknown to its check`).not.toMatch(/unknown option/);
    for (const option of options) {
      const error = await outcome(() => call({ [`${option}X`]: 1 }));
      expect(messageOf(error), `${name}: ${option}X`).toContain(`unknown option "${option}X" (did you mean "${option}"?)`);
    }
  }, 30_000);
});

describe('the builders', () => {
  it("refuse a title for a code whose catalog titles it, which they used to drop without a word, and take one for a site's own code", () => {
    expect(() => agentError('internal', { title: 'Oops' } as never)).toThrow('agentError("internal"): unknown option "title"; it takes "field", "message", "detail"');
    expect(() => siteAgentError('options_test_code', { title: 'Oops' } as never)).toThrow('agentError("options_test_code"): unknown option "title"');
    expect(siteError('options_test_titled', { status: 409, retry: 'refetch', title: 'Titled' }).title).toBe('Titled');
    expect(() => agentError('rate_limited', { retry_after: 5 } as never)).toThrow('agentError("rate_limited"): unknown option "retry_after" (did you mean "retryAfter"?)');
  });
});

describe('the one check, checkRules', () => {
  const checks: Readonly<Record<string, Check>> = { maxWaitSeconds: [(v) => typeof v === 'number', 'a number'], maxCalls: [(v) => typeof v === 'number', 'a number'], onError: [(v) => typeof v === 'function', 'a function'] };

  it('names the closest option for a prefix, a case slip or a typo, the new name of a renamed one, and every option when nothing is near', () => {
    expect(() => checkRules('createAgentClient', { maxWait: 30 }, checks)).toThrow('createAgentClient: unknown option "maxWait" (did you mean "maxWaitSeconds"?)');
    expect(() => checkRules('agentFriendlyExpress', { onerror: () => {} }, checks)).toThrow('agentFriendlyExpress: unknown option "onerror" (did you mean "onError"?)');
    expect(() => checkRules('x', { maxCals: 2 }, checks)).toThrow('x: unknown option "maxCals" (did you mean "maxCalls"?)');
    expect(() => checkRules('x', { maxClals: 2 }, checks)).toThrow('x: unknown option "maxClals" (did you mean "maxCalls"?)');
    expect(() => checkRules('x', { cdoe: 1 }, { code: checks.maxCalls!, kind: checks.maxCalls! })).toThrow('x: unknown option "cdoe" (did you mean "code"?)');
    expect(() => checkRules('createAgentClient', { budget: 3 }, checks, { budget: 'maxCalls' })).toThrow('createAgentClient: the option "budget" is called "maxCalls" now');
    expect(() => checkRules('x', { retries: 3 }, checks)).toThrow('x: unknown option "retries"; it takes "maxWaitSeconds", "maxCalls", "onError"');
    expect(() => checkRules('x', { a: 1 }, {})).toThrow('x: unknown option "a"; it takes none');
  });

  it('refuses options that are no object, and a known option with a value it does not take, quoting the value', () => {
    expect(() => checkRules('x', 'fast', checks)).toThrow('x: options must be an object (got "fast")');
    expect(() => checkRules('x', null, checks)).toThrow('x: options must be an object (got null)');
    expect(() => checkRules('x', [1], checks)).toThrow('x: options must be an object (got [1])');
    expect(() => checkRules('x', { maxCalls: '2' }, checks)).toThrow('x: maxCalls must be a number (got "2")');
    expect(() => checkRules('x', undefined, checks)).not.toThrow();
    expect(() => checkRules('x', { maxCalls: undefined }, checks)).not.toThrow();
  });

  it('does not take an inherited name (toString, constructor, __proto__) for an option', () => {
    expect(() => checkRules('x', JSON.parse('{"__proto__": 1}'), checks)).toThrow('x: unknown option "__proto__"');
    expect(() => checkRules('x', { constructor: 1 }, checks)).toThrow('x: unknown option "constructor"');
    expect(() => checkRules('x', { toString: 1 }, checks)).toThrow('x: unknown option "toString"');
  });

  it('throws only a TypeError starting with the function, whatever it is given', () => {
    fc.assert(
      fc.property(fc.anything({ withObjectString: true, withNullPrototype: true, withBigInt: true }), (value) => {
        try {
          checkRules('someFunction', value, checks);
        } catch (error) {
          expect(error).toBeInstanceOf(TypeError);
          expect((error as Error).message.startsWith('someFunction: ')).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('suggests only a name it knows, and the exact name of a key that differs only in case', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), (name) => {
        const near = closest(name, Object.keys(checks));
        expect(near === undefined || Object.hasOwn(checks, near)).toBe(true);
        const upper = closest(name.toUpperCase(), ['maxCalls']);
        if (name.toLowerCase() === 'maxcalls') expect(upper).toBe('maxCalls');
      }),
    );
  });
});
