// lintOpenApi(): the CI check that an OpenAPI document declares errors an agent can act on, in the
// format the team already has (seed 002: "add the four fields to the format you have"). The rules,
// their severities and fixes, and the formats recognised by themselves are schema data
// (schema/lint-rules.json, generated/lint-rules.ts); this module only finds where each one fails.
//
// How it reads a document: the user's file is parsed as it is (YAML or JSON; Swagger 2.0 is read as
// the OpenAPI 3.0 document swagger2openapi makes of it, and every finding points back into the 2.0
// document), ref-parser's resolve() loads the files its $refs name (ref-policy.ts judges each before
// it is read; a refused one is a ref-not-allowed finding, one that cannot be read or points to
// nothing a ref-unresolved finding), and the walk below follows $refs itself, one hop at a time, so
// that every finding's JSON pointer names a place in the user's own document: the node itself when
// it is in that document, or the $ref that leaves the document when the node is in another file.
//
// A finding is about a place: a body schema used by four hundred operations is one finding that
// lists them, not four hundred.
import { readFile } from 'node:fs/promises';
import { extname, resolve as resolvePath } from 'node:path';
import { $RefParser } from '@apidevtools/json-schema-ref-parser';
import { parse as parseYaml } from 'yaml';
import { CODES, RETRY_WORDS } from '../../generated/catalog.js';
import type { RetryWord } from '../../generated/types.js';
import { LINT_RULES, type LintRuleId } from '../../generated/lint-rules.js';
import { codeForStatus, isKnownCode, isRetryWord } from '../core/catalog.js';
import { delayFrom } from '../core/delay.js';
import { escapeToken, isRecord, member, own } from '../core/json.js';
import { checkRules, isWhole, refuse, type Checks } from '../core/refuse.js';
import { NOT_A_MEMBER, validateEnvelope, validateProblem, type ValidationIssue } from '../core/validate.js';
import { checkLintConfig, configOption, mergeConfigs, settingOf, SPEC_CONFIG_MEMBER, type LintConfig, type Severity } from './lint-config.js';
import { Documents, LintInputError, resolveRef, show, unlessRefused, type Node } from './lint-documents.js';
import { catalogCodes, isOwnFormat, namedFormat, SchemaReader, throughEmptyList, valueAt, valuesAt, type BodyReading } from './lint-format.js';
import { guardedResolvers, RefAllowanceError, refPolicy } from './ref-policy.js';
import { fromSwagger2, swaggerPointer } from './swagger.js';
import { violations, type ViolationRule } from './violations.js';

export { LintInputError } from './lint-documents.js';

/** One place where a document breaks a lint rule. */
export interface LintFinding {
  /** The rule broken, one of LINT_RULES. */
  readonly rule: LintRuleId;
  /** Whether it fails the lint (error) or is printed and passes (warning): the rule's, or the config's. */
  readonly severity: Severity;
  /**
   * A JSON pointer (RFC 6901) into the user's document as written, before any $ref is followed,
   * e.g. `/components/schemas/Error`. A fault inside another file the document $refs is reported at
   * that $ref.
   */
  readonly pointer: string;
  /** What is wrong there, naming the member and its value. The same for a place however many operations use it. */
  readonly message: string;
  /** What to change: the rule's fix from LINT_RULES. */
  readonly fix: string;
  /** The operations that reach this place, as `GET /orders`, sorted; empty for a finding about the document itself. */
  readonly operations: readonly string[];
}

const SEVERITIES: readonly unknown[] = ['error', 'warning'];

/** True for a finding as lintOpenApi makes it: a rule of LINT_RULES, a severity, a pointer, a message, a fix and the operations, all of their types. */
export function isLintFinding(value: unknown): value is LintFinding {
  const operations = own(value, 'operations');
  return (
    typeof own(value, 'rule') === 'string' &&
    RULES.has(own(value, 'rule') as string) &&
    SEVERITIES.includes(own(value, 'severity')) &&
    typeof own(value, 'pointer') === 'string' &&
    typeof own(value, 'message') === 'string' &&
    typeof own(value, 'fix') === 'string' &&
    Array.isArray(operations) &&
    operations.every((o) => typeof o === 'string')
  );
}

/** Refuses, with a TypeError naming the function `who`, findings that are not a list of lint findings (the one at fault named by its index). */
export function checkFindings(who: string, findings: unknown): asserts findings is readonly LintFinding[] {
  if (!Array.isArray(findings)) refuse(who, 'findings', 'an array of lint findings', findings);
  // By index, not forEach: a hole in a sparse array is no finding either.
  for (let i = 0; i < findings.length; i += 1) {
    if (!isLintFinding(findings[i])) refuse(who, `findings[${i}]`, 'a lint finding ({rule, severity, pointer, message, fix, operations})', findings[i]);
  }
}

/** Options of lintOpenApi(). */
export interface LintOpenApiOptions {
  /** The site's own codes (an extension catalog's), accepted in examples beside the catalog's. */
  readonly siteCodes?: readonly string[];
  /**
   * The site's own codes with their status and retry word (an extension catalog's, as `lint --extend`
   * reads it): accepted in examples, and held to their status and word as the catalog's codes are.
   */
  readonly siteCatalog?: Readonly<Record<string, { readonly status: number; readonly retry: RetryWord }>>;
  /**
   * Where the team's error body keeps its parts, its codes' retry words, and each rule's severity.
   * Its members win over those of the spec's own `x-agent-errors` member.
   */
  readonly config?: LintConfig;
  /**
   * Where the $refs of a document given as an object resolve from, and the folder tree they may
   * read from; where a relative file path and the folders of allowRefsOutside resolve from.
   * @default process.cwd()
   */
  readonly cwd?: string;
  /**
   * Which http: and https: $refs may be fetched. `false`: none; each is a ref-not-allowed finding and
   * nothing is requested. `true`: any URL on a public host (loopback, private and internal hosts and
   * ports stay refused, also when a name resolves or a redirect leads to one). A list of URL
   * prefixes such as `['https://schemas.example.com/api/']`: only the URLs under them (same origin,
   * path under the prefix's path), whatever the host, with no redirect followed.
   * @default false
   */
  readonly allowRemoteRefs?: boolean | readonly string[];
  /**
   * Which local files outside the spec's own folder tree may be read. Always allowed: the folder of
   * the file given (for an object, the `cwd` folder) and everything below it, and this package's own
   * generated/ folder (the components a spec $refs through node_modules). A file is inside a folder
   * when both its path and its real path (symbolic links followed) are. `false`: nothing else; each
   * $ref to another file is a ref-not-allowed finding and the file is not read. A list of folders
   * (relative to `cwd`): those trees too. `true`: any local file.
   * @default false
   */
  readonly allowRefsOutside?: boolean | readonly string[];
}

/** A list of strings, each passing `ok`. */
const listOf =
  (ok: (item: string) => boolean) =>
  (value: unknown): boolean =>
    Array.isArray(value) && value.every((item) => typeof item === 'string' && ok(item));
/** A path Node can open: a string, not empty, without the NUL byte fs refuses with an internal error. */
const isPath = (value: unknown): boolean => typeof value === 'string' && value !== '' && !value.includes('\0');
/** An http or https URL, as allowRemoteRefs lists its prefixes. */
const isRemotePrefix = (value: string): boolean => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);
/** One code of siteCatalog: the example checks compare its status and retry word, so both must be real ones. */
const isSiteEntry = (value: unknown): boolean => {
  const status = own(value, 'status');
  return Number.isInteger(status) && (status as number) >= 100 && (status as number) <= 599 && isRetryWord(own(value, 'retry'));
};

/** What each option of lintOpenApi() takes; the config's own members are checked by checkLintConfig, which names each one at fault. */
const LINT_OPENAPI_CHECKS: Checks<LintOpenApiOptions> = {
  siteCodes: [listOf(() => true), 'a list of code strings'],
  siteCatalog: [(value) => isRecord(value) && Object.values(value).every(isSiteEntry), 'a record of the site\'s codes, each {status: a whole number from 100 to 599, retry: a retry word}'],
  config: [isRecord, 'a lint config object ({format, retryByCode, rules})'],
  cwd: [isPath, 'a folder path'],
  allowRemoteRefs: [(value) => typeof value === 'boolean' || listOf(isRemotePrefix)(value), 'true, false or a list of http or https URL prefixes'],
  allowRefsOutside: [(value) => typeof value === 'boolean' || listOf(isPath)(value), 'true, false or a list of folder paths'],
};

// ---------------------------------------------------------------------------------------------
// Rules, from the generated table
// ---------------------------------------------------------------------------------------------

const RULES = new Map(LINT_RULES.map((r, i) => [r.id as string, { ...r, order: i }]));

/** The rules of violations() that the validators cannot see: prose and headers. */
const REVIEW_ONLY: ReadonlySet<ViolationRule> = new Set<ViolationRule>(['promise-without-delay', 'retry-after-disagrees', 'retry-after-missing']);
/**
 * The rules of violations() an example in any other format is held to, once read as the envelope:
 * prose, Retry-After, and a retry word of its own that waits with no delay anywhere in the body. The
 * rest speak of the envelope's own members (field, the contract), which a team's format need not have.
 */
const TEAM_REVIEW: ReadonlySet<ViolationRule> = new Set<ViolationRule>([...REVIEW_ONLY, 'wait-without-delay']);

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
/** A JSON media type: application/json, application/problem+json, any other +json. */
const JSON_MEDIA = /^[a-z]+\/(?:[\w.!#$&^-]+\+)?json$/;

// ---------------------------------------------------------------------------------------------
// Loading
// ---------------------------------------------------------------------------------------------

async function parseFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new LintInputError(`cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  const json = extname(path).toLowerCase() === '.json';
  try {
    // merge: the `<<: *anchor` keys many YAML specs use (a YAML 1.1 feature the 1.2 default lacks).
    return json ? (JSON.parse(text) as unknown) : (parseYaml(text, { merge: true }) as unknown);
  } catch (error) {
    throw new LintInputError(`${path} is not valid ${json ? 'JSON' : 'YAML'}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * The ref-not-allowed and ref-unresolved findings of the files: one at each $ref (in the user's
 * document, or in a file it loads) that names a refused file, or a file that could not be read or
 * parsed, wherever that $ref is (an x-topics Markdown page as much as a response). A $ref in another file is reported at the site in the user's document
 * through which that file was first reached. A refused file that no $ref found here names (one a
 * `$id` moved elsewhere) is still reported, at the document's root.
 */
function refusals(docs: Documents, files: ReadonlyMap<string, unknown>, refused: ReadonlyMap<string, string>, unreadable: ReadonlyMap<string, string>): DocumentFinding[] {
  const findings: DocumentFinding[] = [];
  if (refused.size === 0 && unreadable.size === 0) return findings;
  // A string no URL can be made of names nothing ref-parser loaded.
  const target = (from: string, to: string): string | null => {
    try {
      return resolveRef(from, to).file;
    } catch {
      return null;
    }
  };
  const named = new Set<string>();
  const site = new Map<string, string>([[docs.root, '']]);
  const queue = [docs.root];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const file = next;
    // An explicit stack: a deep or self-referencing YAML document must not overflow the call stack.
    const stack: { value: unknown; at: string; base: string }[] = [{ value: files.get(file), at: '', base: file }];
    const seen = new Set<object>();
    for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
      const { value, at } = item;
      if (typeof value !== 'object' || value === null || seen.has(value)) continue;
      seen.add(value);
      let base = item.base;
      const id = own(value, '$id');
      if (typeof id === 'string' && id !== '') base = target(base, id) ?? base;
      const ref = Documents.refOf(value);
      if (ref !== null && ref !== '' && !ref.startsWith('#')) {
        const pointer = file === docs.root ? at : site.get(file)!;
        const direct = target(file, ref);
        // ref-parser resolves against a schema's $id in a 3.1 document: either target is the one it loaded.
        for (const to of new Set([direct, target(base, ref)])) {
          if (to === null) continue;
          const unread = unreadable.get(to);
          if (unread !== undefined) findings.push({ rule: 'ref-unresolved', pointer, message: `the $ref ${show(ref)}${file === docs.root ? '' : ` (in ${docs.display(file)}#${at})`} names ${docs.display(to)}, which ${unread}` });
          const why = refused.get(to);
          if (why !== undefined) {
            named.add(to);
            const where = file === docs.root ? '' : ` (in ${docs.display(file)}#${at})`;
            const resolved = to === direct ? '' : ` (resolved against $id to ${to})`;
            findings.push({ rule: 'ref-not-allowed', pointer, message: `the $ref ${show(ref)}${where}${resolved} ${why}` });
          } else if (files.has(to) && !site.has(to)) {
            site.set(to, pointer);
            queue.push(to);
          }
        }
      }
      const keys = Array.isArray(value) ? value.map((_, i) => String(i)) : Object.keys(value);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        stack.push({ value: member(value, key), at: `${at}/${escapeToken(key)}`, base });
      }
    }
  }
  for (const [file, why] of refused) {
    if (!named.has(file)) findings.push({ rule: 'ref-not-allowed', pointer: '', message: `a $ref that resolves to ${docs.display(file)} ${why}` });
  }
  return findings;
}

/** A place in the document for a finding about the document itself. */
interface DocumentFinding {
  readonly rule: LintRuleId;
  readonly pointer: string;
  readonly message: string;
}

/** Which OpenAPI this is: 3.0 or 3.1 as written, 2.0 to convert; anything else cannot be linted. */
function versionOf(document: unknown, label: string): '3.0' | '3.1' | '2.0' {
  if (!isRecord(document)) throw new LintInputError(`${label} is not an OpenAPI document: it is ${Array.isArray(document) ? 'an array' : show(document)}, not an object`);
  const version = own(document, 'openapi');
  if (version === undefined) {
    const swagger = own(document, 'swagger');
    if (swagger === '2.0') return '2.0';
    throw new LintInputError(
      swagger !== undefined
        ? `${label} declares swagger ${show(swagger)}; only Swagger 2.0 and OpenAPI 3.0 and 3.1 are read`
        : `${label} is not an OpenAPI document: it has neither an openapi nor a swagger member`,
    );
  }
  if (typeof version !== 'string' || !/^3\.[01]\.\d+(?:[-+].*)?$/.test(version)) {
    throw new LintInputError(`${label} declares openapi ${show(version)}; only OpenAPI 3.0.x and 3.1.x (and Swagger 2.0) are read`);
  }
  return version.startsWith('3.0') ? '3.0' : '3.1';
}

/** What the lint needs of the document's own structure: info with a title and a version, and paths. */
function structure(document: Record<string, unknown>, version: '3.0' | '3.1' | '2.0'): DocumentFinding[] {
  const out: DocumentFinding[] = [];
  const add = (pointer: string, message: string): void => void out.push({ rule: 'openapi-document', pointer, message });
  const info = own(document, 'info');
  if (info === undefined) add('', 'the document has no info member: OpenAPI requires info, with a title and a version');
  else if (!isRecord(info)) add('/info', `info is ${show(info)}, not an object with a title and a version`);
  else {
    if (typeof own(info, 'title') !== 'string') add('/info', `info has ${own(info, 'title') === undefined ? 'no title' : `the title ${show(own(info, 'title'))}, not a string`}`);
    if (typeof own(info, 'version') !== 'string') add('/info', `info has ${own(info, 'version') === undefined ? 'no version' : `the version ${show(own(info, 'version'))}, not a string`}`);
  }
  const paths = own(document, 'paths');
  if (paths === undefined) {
    const other = version === '3.1' && (own(document, 'components') !== undefined || own(document, 'webhooks') !== undefined);
    if (!other) add('', version === '3.1' ? 'the document has none of paths, components and webhooks' : 'the document has no paths member');
  } else if (!isRecord(paths)) add('/paths', `paths is ${show(paths)}, not an object`);
  return out;
}

/** Why ref-parser could not load a file, as a finding says it: the error without the absolute path it repeats. */
function loadError(error: Error): string {
  const text = error.message.replace(/^Error (?:opening|parsing) (?:file )?[^:]*: ?/, '').split('\n')[0]!.trim();
  if (error.name === 'ParserError') return `is not valid JSON or YAML${text ? `: ${text}` : ''}`;
  const code = /\b(E[A-Z]+)\b/.exec(text)?.[1];
  return code === 'ENOENT' ? 'does not exist' : `cannot be read${code ? ` (${code})` : ''}`;
}

interface Loaded {
  readonly docs: Documents;
  readonly findings: DocumentFinding[];
  readonly config: LintConfig;
  /** For a Swagger 2.0 document: maps a pointer in the converted document back to the 2.0 one. */
  readonly pointerOf: (pointer: string) => string;
}

async function load(input: string | object, options: LintOpenApiOptions): Promise<Loaded> {
  const cwd = resolvePath(options.cwd ?? process.cwd());
  let base: string;
  let home: string;
  let document: unknown;
  let label: string;
  if (typeof input === 'string') {
    base = resolvePath(cwd, input);
    home = resolvePath(base, '..');
    document = await parseFile(base);
    label = input;
  } else if (typeof input === 'object' && input !== null) {
    home = cwd;
    base = cwd.endsWith('/') || cwd.endsWith('\\') ? cwd : `${cwd}/`;
    document = input;
    label = 'lintOpenApi: input';
  } else {
    // lintOpenApi() refuses any other input before it gets here.
    throw new TypeError(`lintOpenApi: input must be a file path or a parsed OpenAPI document object (got ${show(input)})`);
  }
  let version: '3.0' | '3.1' | '2.0';
  try {
    version = versionOf(document, label);
  } catch (error) {
    // A file that is no OpenAPI is a usage error of the CLI; an object that is none, an argument of the wrong type.
    if (typeof input !== 'string' && error instanceof LintInputError) throw new TypeError(error.message, { cause: error });
    throw error;
  }
  const record = document as Record<string, unknown>;
  const findings = structure(record, version);
  const own_ = own(record, SPEC_CONFIG_MEMBER);
  const config = mergeConfigs(own_ === undefined ? undefined : checkLintConfig(own_, `the spec's ${SPEC_CONFIG_MEMBER}`), configOption('lintOpenApi', options.config));
  let pointerOf = (pointer: string): string => pointer;
  if (version === '2.0') {
    document = await fromSwagger2(record, label);
    pointerOf = swaggerPointer;
  }
  let policy;
  try {
    policy = await refPolicy(home, cwd, options);
  } catch (error) {
    if (error instanceof RefAllowanceError) throw new LintInputError(error.message, { cause: error });
    throw error;
  }
  const refused = new Map<string, string>();
  const unreadable = new Map<string, string>();
  const parser = new $RefParser();
  try {
    // resolve() only loads the files the $refs name; it changes nothing in the document. Every file
    // goes through the guarded resolver, which reads only what the policy allows; a file that cannot
    // be read or parsed is kept as its error (continueOnError), and each $ref to it is a finding.
    await parser.resolve(base, document as object, { mutateInputSchema: true, continueOnError: true, resolve: guardedResolvers(policy, refused, unreadable) });
  } catch (error) {
    throw new LintInputError(`cannot resolve the $refs of ${label}: ${(error as Error).message}`, { cause: error });
  }
  const files = new Map<string, unknown>();
  const failed: [string, Error][] = [];
  for (const [key, ref] of Object.entries(parser.$refs._$refs)) {
    if (ref.value instanceof Error) failed.push([key, ref.value]);
    else files.set(key, ref.value);
  }
  const root = parser.$refs._root$Ref.path;
  if (root === undefined || !files.has(root)) throw new LintInputError(`cannot resolve the $refs of ${label}: ref-parser kept no root document`);
  const docs = new Documents(files, root, new Set(refused.keys()), unreadable);
  for (const [key, error] of failed) if (!unreadable.has(key)) unreadable.set(key, loadError(error));
  findings.push(...refusals(docs, files, refused, unreadable));
  return { docs, findings, config, pointerOf };
}

// ---------------------------------------------------------------------------------------------
// The walk
// ---------------------------------------------------------------------------------------------

const isClientKey = (key: string): boolean => /^4(?:\d\d|XX)$/i.test(key);
const isServerKey = (key: string): boolean => /^5(?:\d\d|XX)$/i.test(key);
const isErrorKey = (key: string): boolean => isClientKey(key) || isServerKey(key) || key === 'default';

/** True when a catalog status sits under a response key: the same status, or its class (4XX). */
function statusFits(status: number, key: string): boolean {
  return /^\d{3}$/.test(key) ? Number(key) === status : key.toUpperCase() === `${String(status)[0]}XX`;
}

/** True when the catalog's word for a status asks the agent to fix a named field (400, 422). */
function asksForField(status: string): boolean {
  if (!/^\d{3}$/.test(status)) return false;
  const requires: readonly string[] = RETRY_WORDS[CODES[codeForStatus(Number(status))].retry].requires;
  return requires.includes('field');
}

/** One finding as the walk records it, with the operations that reached it. */
interface Found {
  readonly rule: LintRuleId;
  readonly pointer: string;
  readonly message: string;
  readonly operations: Set<string>;
}

/** A finding a response produced, to repeat for the next operation that reaches it (pointer null: the response's own site). */
interface Produced {
  readonly rule: LintRuleId;
  readonly pointer: string | null;
  readonly message: string;
}

class Linter {
  readonly found = new Map<string, Found>();
  private readonly siteCodes: ReadonlySet<string>;
  private readonly reader: SchemaReader;
  /** The operation being walked, as `GET /orders`. */
  private operationName = '';
  /** Per response and status, the findings it produced, repeated for each operation that reaches it. */
  private readonly checked = new Map<string, Produced[]>();
  private producing: Produced[] | null = null;
  private producingSite = '';

  constructor(
    private readonly docs: Documents,
    siteCodes: unknown,
    private readonly config: LintConfig,
    private readonly siteCatalog: NonNullable<LintOpenApiOptions['siteCatalog']> = {},
  ) {
    this.siteCodes = new Set([...(Array.isArray(siteCodes) ? siteCodes.filter((c): c is string => typeof c === 'string') : []), ...Object.keys(siteCatalog)]);
    this.reader = new SchemaReader(docs, config.format ? namedFormat(config.format) : null);
  }

  private record(rule: LintRuleId, pointer: string, message: string): void {
    const key = findingKey({ rule, pointer, message });
    let found = this.found.get(key);
    if (found === undefined) this.found.set(key, (found = { rule, pointer, message, operations: new Set() }));
    if (this.operationName !== '') found.operations.add(this.operationName);
  }

  private add(rule: LintRuleId, node: Node, message: string): void {
    const text = `${message}${this.docs.where(node)}`;
    this.producing?.push({ rule, pointer: node.site === this.producingSite ? null : node.site, message: text });
    this.record(rule, node.site, text);
  }

  run(): void {
    const docs = this.docs;
    const paths = docs.child(docs.rootNode(), 'paths');
    if (!isRecord(paths.value)) return;
    for (const path of Object.keys(paths.value)) {
      if (path.startsWith('x-')) continue;
      const item = unlessRefused(() => docs.deref(docs.child(paths, path)), null);
      if (item === null || !isRecord(item.value)) continue;
      for (const method of METHODS) {
        const operation = docs.child(item, method);
        if (!isRecord(operation.value)) continue;
        this.operationName = `${method.toUpperCase()} ${path}`;
        this.operation(operation, method);
      }
    }
    this.operationName = '';
  }

  private operation(operation: Node, method: (typeof METHODS)[number]): void {
    const docs = this.docs;
    const responses = unlessRefused(() => docs.deref(docs.child(operation, 'responses')), null);
    if (responses === null) return;
    if (!isRecord(responses.value)) {
      this.add('error-responses-declared', operation, 'the operation declares no responses');
      return;
    }
    const keys = Object.keys(responses.value);
    const missing: string[] = [];
    if (!keys.some(isClientKey)) missing.push('no 4xx response');
    if (!keys.some((k) => isServerKey(k) || k === 'default')) missing.push('no 5xx response and no default');
    if (missing.length > 0) this.add('error-responses-declared', responses, `the operation declares ${missing.join(', and ')}`);
    for (const key of keys) {
      // A response behind a refused or broken $ref is not checked; one whose parts are is checked up to them.
      if (isErrorKey(key)) unlessRefused(() => this.response(docs.deref(docs.child(responses, key)), key, method === 'head'), undefined);
    }
  }

  /**
   * Checks each response once per status, so the lint stays linear however often a response is
   * used; the next operation that reaches it adds itself to the findings it produced (at the $ref
   * site that reaches it, for a response in another file).
   */
  private response(response: Node, status: string, head: boolean): void {
    const key = `${response.file}#${response.at}|${status}${head ? '|head' : ''}`;
    const cached = this.checked.get(key);
    if (cached !== undefined) {
      for (const c of cached) this.record(c.rule, c.pointer ?? response.site, c.message);
      return;
    }
    const produced: Produced[] = [];
    const [outer, outerSite] = [this.producing, this.producingSite];
    [this.producing, this.producingSite] = [produced, response.site];
    try {
      this.checkResponse(response, status, head);
    } finally {
      [this.producing, this.producingSite] = [outer, outerSite];
    }
    outer?.push(...produced);
    this.checked.set(key, produced);
  }

  private checkResponse(response: Node, status: string, head: boolean): void {
    const docs = this.docs;
    const label = status === 'default' ? 'the default response' : `the ${status} response`;
    if (!isRecord(response.value)) {
      this.add('error-body-readable', response, `${label} is ${show(response.value)}, not a Response Object`);
      return;
    }

    // Retry-After: declared on every 429 and 503; its example, when given, is what the examples' delay must agree with.
    const headers = docs.child(response, 'headers');
    const headerKey = isRecord(headers.value) ? Object.keys(headers.value).find((k) => k.toLowerCase() === 'retry-after') : undefined;
    if ((status === '429' || status === '503') && headerKey === undefined) {
      this.add('retry-after-declared', response, `${label} declares no Retry-After header`);
    }
    const retryAfter = headerKey === undefined ? undefined : unlessRefused(() => headerExample(docs, docs.deref(docs.child(headers, headerKey))), undefined);

    const content = docs.child(response, 'content');
    const media = isRecord(content.value) ? Object.keys(content.value) : [];
    const json = media.filter((m) => JSON_MEDIA.test(baseMedia(m)));
    if (json.length === 0) {
      if (!(head && media.length === 0)) {
        const has = media.length === 0 ? 'declares no body' : `declares only ${media.join(', ')}`;
        this.add('error-body-readable', media.length === 0 ? response : content, `${label} ${has}: an agent reads no code from it`);
      }
      return;
    }
    for (const type of json) {
      const mediaType = unlessRefused(() => docs.deref(docs.child(content, type)), null);
      if (mediaType === null || !isRecord(mediaType.value)) continue;
      const schemaNode = docs.child(mediaType, 'schema');
      if (schemaNode.value === undefined) {
        this.add('error-body-readable', mediaType, `the ${type} body of ${label} has no schema`);
        continue;
      }
      const schema = unlessRefused(() => docs.deref(schemaNode), null);
      if (schema === null) continue;
      const reading = this.reader.read(schema);
      this.body(this.reader.placeOf(schema), reading, status);
      const examples: Node[] = [];
      if (Object.hasOwn(mediaType.value, 'example')) examples.push(docs.child(mediaType, 'example'));
      const named = docs.child(mediaType, 'examples');
      if (isRecord(named.value)) {
        for (const name of Object.keys(named.value)) {
          const example = unlessRefused(() => docs.deref(docs.child(named, name)), null);
          if (example !== null && isRecord(example.value) && Object.hasOwn(example.value, 'value')) examples.push(docs.child(example, 'value'));
        }
      }
      // The generated components admit only their own members; a team's own schema may add more.
      const strict = docs.isGenerated(schema.file);
      for (const example of examples) this.example(example, reading, baseMedia(type), status, retryAfter, strict);
    }
  }

  /** What an agent needs of a body schema: a code, what to do next, a message, and for a fix, the field. */
  private body(schema: Node, reading: BodyReading, status: string): void {
    const { format, found, codes } = reading;
    const where = (part: 'code' | 'retry' | 'message' | 'field'): string =>
      format.named ? `no ${format.places[part][0] ?? part} (where the lint config's format keeps the ${part === 'retry' ? 'retry word' : part})` : `no ${part} member (${format.places[part].join(', ') || 'none in this format'})`;
    const name = format.named ? 'the error body' : `the error body (${format.id} format)`;
    if (found.code === null) this.add('error-code', schema, `${name} has ${where('code')}: an agent cannot tell one error from another`);
    const retryByCode = this.config.retryByCode;
    if (found.retry === null && format.retryFrom.length === 0 && !catalogCodes(codes, this.siteCodes)) {
      if (retryByCode === undefined) {
        this.add('error-retry', schema, `${name} does not say what to do next: it has ${where('retry')}, and its codes are not the catalog's`);
      } else if (codes !== null) {
        const unmapped = codes.filter((c) => !Object.hasOwn(retryByCode, c) && !isKnownCode(c) && !this.siteCodes.has(c));
        if (unmapped.length > 0) this.add('error-retry', schema, `${name} allows codes with no retry word in the config's retryByCode: ${unmapped.slice(0, 10).map((c) => show(c)).join(', ')}${unmapped.length > 10 ? ` and ${unmapped.length - 10} more` : ''}`);
      }
    }
    if (found.message === null) this.add('error-message', schema, `${name} has ${where('message')}`);
    if (found.field === null && asksForField(status)) this.add('fix-input-field', schema, `${name} is sent where the agent must fix its input, but has ${where('field')} to say which`);
  }

  private example(example: Node, reading: BodyReading, media: string, status: string, retryAfter: string | undefined, strict: boolean): void {
    const { format, found } = reading;
    // The envelope and a problem with the catalog's members are checked by this package's validators.
    if (isOwnFormat(reading)) return this.ourExample(example, format.id === 'envelope' ? 'envelope' : 'problem', status, retryAfter, strict);
    const body = example.value;
    const faults: string[] = [];
    // A place through a list the example leaves empty (no errors at all) has nothing to check, and
    // any place of the format that holds the part will do (GitHub's message beside its errors list).
    const checks = (place: string | null): place is string => place !== null && !throughEmptyList(body, place);
    const holds = (part: 'code' | 'message', ok: (value: unknown) => boolean): boolean => format.places[part].some((place) => ok(valueAt(body, place)));
    const code = found.code === null ? undefined : valueAt(body, found.code);
    if (checks(found.code) && !holds('code', (v) => typeof v === 'number' || (typeof v === 'string' && v !== ''))) faults.push(`it has no code at ${found.code}`);
    if (checks(found.message) && !holds('message', (v) => typeof v === 'string')) {
      const given = valueAt(body, found.message);
      faults.push(given === undefined ? `it has no message at ${found.message}` : `its message at ${found.message} is ${show(given)}, not a string`);
    }
    const retry = found.retry === null ? undefined : valueAt(body, found.retry);
    if (retry !== undefined && !isRetryWord(retry) && found.retry !== null && !found.retry.endsWith('/next_step')) faults.push(`its retry word at ${found.retry} is ${show(retry)}, not one of ${Object.keys(RETRY_WORDS).join(', ')}`);
    const delay = found.delay === null ? undefined : valueAt(body, found.delay);
    if (delay !== undefined && delay !== null && !isRecord(delay) && !Array.isArray(delay) && !(typeof delay === 'number' && delay >= 0)) faults.push(`its delay at ${found.delay} is ${show(delay)}, not a number of seconds`);
    const retryByCode = this.config.retryByCode;
    if (retryByCode !== undefined && typeof code === 'string' && !isRetryWord(retry) && !Object.hasOwn(retryByCode, code) && !isKnownCode(code) && !this.siteCodes.has(code)) {
      faults.push(`its code ${show(code)} has no retry word in the config's retryByCode`);
    }
    if (faults.length > 0) this.add('error-example-valid', example, `the ${media} example${format.named ? '' : ` (${format.id} format)`}: ${faults.join('; ')}`);
    this.teamReview(example, reading, media, status, retryAfter);
  }

  /**
   * The violations review of an example in a format other than this package's: the parts it needs
   * (the message, the retry word, the delay), read where the format keeps them, are put where the
   * envelope keeps them, which is what violations() reads, and the TEAM_REVIEW rules are reported.
   */
  private teamReview(example: Node, reading: BodyReading, media: string, status: string, retryAfter: string | undefined): void {
    const { format, found } = reading;
    const body = example.value;
    const code = found.code === null ? undefined : valueAt(body, found.code);
    const retry = found.retry === null ? undefined : valueAt(body, found.retry);
    const word = isRetryWord(retry) ? retry : undefined;
    const given = found.delay === null ? undefined : valueAt(body, found.delay);
    // The delay where the format keeps it, else wherever fromResponse would find one (google's RetryInfo, a top-level retry_after).
    const seconds = typeof given === 'number' && given >= 0 && Number.isFinite(given) ? given : delayFrom(undefined, body);
    const delay = seconds === null ? null : Math.ceil(seconds);
    // Every message the format keeps (each item of a list of errors), each reviewed as the envelope's message.
    const messages: [place: string, text: string][] = [];
    for (const place of format.places.message) for (const text of valuesAt(body, place)) if (typeof text === 'string') messages.push([place, text]);
    const numeric = /^\d{3}$/.test(status) ? Number(status) : undefined;
    // A Retry-After beside a body that says nothing of waiting has nothing to disagree with: the format keeps the delay in the header alone.
    const headers = retryAfter !== undefined && (delay !== null || word !== undefined) ? { 'retry-after': retryAfter } : undefined;
    const read = [
      ...(word === undefined ? [] : [`error.retry from ${found.retry}`]),
      ...(delay === null ? [] : [`error.retry_after from ${found.delay !== null && given === seconds ? found.delay : "the body's delay"}`]),
    ];
    const seen = new Set<string>();
    for (const [place, text] of messages.length > 0 ? messages : [[null, undefined] as const]) {
      const error = { code: typeof code === 'string' ? code : String(code ?? ''), message: text, field: null, ...(word === undefined ? {} : { retry: word }), retry_after: delay };
      for (const v of violations([{ name: 'example', status: numeric, headers, body: { error } }])) {
        if (!TEAM_REVIEW.has(v.rule)) continue;
        const how = [...(place === null ? [] : [`error.message from ${place}`]), ...read];
        const message = `the ${media} example${format.named ? '' : ` (${format.id} format)`}, read as the envelope${how.length > 0 ? ` (${how.join(', ')})` : ''}: ${v.message} (${v.rule})`;
        if (seen.has(message)) continue;
        seen.add(message);
        this.add('error-example-review', example, message);
      }
    }
  }

  private ourExample(example: Node, kind: 'envelope' | 'problem', status: string, retryAfter: string | undefined, strict: boolean): void {
    const body = example.value;
    const numeric = /^\d{3}$/.test(status) ? Number(status) : undefined;
    const code = isRecord(own(body, 'error')) ? own(own(body, 'error'), 'code') : own(body, 'code');
    const known = isKnownCode(code);
    const result = kind === 'envelope' ? validateEnvelope(body) : validateProblem(body);
    // Seed 002: a team adds the fields to the format it has, and keeps its own members beside them.
    const errors = strict || result.valid ? result.errors : result.errors.filter((i) => !i.message.endsWith(NOT_A_MEMBER));
    if (errors.length > 0) {
      const issues = errors.slice(0, 3).map((i: ValidationIssue) => `${i.pointer || '(the body)'} ${i.message}`);
      const more = errors.length > 3 ? `; and ${errors.length - 3} more` : '';
      this.add('error-example-valid', example, `the example is not a valid ${kind}: ${issues.join('; ')}${more}`);
    } else if (kind === 'problem' && !known && numeric !== undefined && own(body, 'status') !== numeric) {
      this.add('error-example-valid', example, `the problem's status member is ${show(own(body, 'status'))}, but the example sits under ${status}`);
    }
    if (typeof code === 'string' && !known && !this.siteCodes.has(code)) {
      this.add('example-code-known', example, `code ${show(code)} is neither a catalog code nor one of the site's codes`);
    }
    if (known && status !== 'default' && !statusFits(CODES[code].status, status)) {
      this.add('example-status-matches', example, `code ${show(code)} has status ${CODES[code].status} in the catalog, but the example sits under ${status}`);
    }
    // A site's own code from its extension catalog: held to its status and word as a catalog code is.
    const site = typeof code === 'string' && !known && Object.hasOwn(this.siteCatalog, code) ? this.siteCatalog[code]! : undefined;
    if (site && status !== 'default' && !statusFits(site.status, status)) {
      this.add('example-status-matches', example, `code ${show(code)} has status ${site.status} in the site's catalog, but the example sits under ${status}`);
    }
    const word = kind === 'envelope' ? own(own(body, 'error'), 'retry') : own(body, 'retry');
    if (site && word !== undefined && word !== site.retry) {
      this.add('error-example-valid', example, `code ${show(code)} has the retry word ${show(site.retry)} in the site's catalog, but the example says ${show(word)}`);
    }
    // The review: what the validators cannot see (prose, headers), and, for a valid body, what they do not check.
    for (const v of violations([{ name: 'example', status: numeric, headers: retryAfter === undefined ? undefined : { 'retry-after': retryAfter }, body }])) {
      if (v.rule === 'status-disagrees') continue; // said by example-status-matches or error-example-valid
      if (v.rule === 'not-the-contract' && !strict) continue; // a team's own members beside the contract's, as above
      if (REVIEW_ONLY.has(v.rule) || errors.length === 0) this.add('error-example-review', example, `${v.message} (${v.rule})`);
    }
  }
}

/** A media type's essence: lowercase, without parameters. */
function baseMedia(type: string): string {
  return type.split(';')[0]!.trim().toLowerCase();
}

/** A header's example value as sent: its example, its first examples[].value, or its schema's example. */
function headerExample(docs: Documents, header: Node): string | undefined {
  const candidates: unknown[] = [own(header.value, 'example')];
  const examples = own(header.value, 'examples');
  if (isRecord(examples)) {
    const first = Object.keys(examples)[0];
    if (first !== undefined) candidates.push(own(docs.deref(docs.child(docs.child(header, 'examples'), first)).value, 'value'));
  }
  const schema = own(header.value, 'schema');
  if (isRecord(schema) && Documents.refOf(schema) === null) {
    candidates.push(own(schema, 'example'));
    const list = own(schema, 'examples');
    if (Array.isArray(list)) candidates.push(list[0]);
  }
  const found = candidates.find((c) => typeof c === 'string' || typeof c === 'number');
  return found === undefined ? undefined : String(found);
}

/** What makes two findings the same one: rule, place and message (not the operations that reach the place). */
export const findingKey = (f: { readonly rule: string; readonly pointer: string; readonly message: string }): string => `${f.rule}\n${f.pointer}\n${f.message}`;

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Findings sorted by pointer, then by the rule's place in LINT_RULES, then by message. */
function sortFindings(findings: LintFinding[]): LintFinding[] {
  return findings.sort((a, b) => compare(a.pointer, b.pointer) || RULES.get(a.rule)!.order - RULES.get(b.rule)!.order || compare(a.message, b.message));
}

/**
 * Lints an OpenAPI 3.0 or 3.1 document (or a Swagger 2.0 one, read as the 3.0 document it converts
 * to) for errors an agent can act on, in the error format the team already has: every error
 * response has a JSON body whose schema keeps a code, says what to do next, and keeps a message (and
 * for a fix, the field); every 429 and 503 declares Retry-After; every example is a valid body of
 * its format. The format is the one the config (or the spec's `x-agent-errors`) names, or else the
 * first of ERROR_FORMATS whose members the schema has: this package's envelope, problem details,
 * google.rpc.Status, Stripe's error, JSON:API, an `error` member, members at the top.
 *
 * `input` is a file path (YAML, or JSON when it ends in .json; a relative path is read from
 * `options.cwd`, default the current directory; its $refs resolve relative to the file) or an
 * already-parsed document object, which is not changed (its $refs resolve relative to `options.cwd`).
 * The input may be untrusted: its $refs load only files in its own folder tree and this package's
 * generated/ folder, unless `allowRefsOutside` or `allowRemoteRefs` allow more; every other $ref is a
 * ref-not-allowed finding, and what it names is neither read nor fetched. A $ref that cannot be
 * read or points to nothing is a ref-unresolved finding; the rest is linted either way.
 *
 * Resolves to the findings sorted by pointer, then in LINT_RULES order, each with the severity the
 * config gives its rule (a rule set to `off` reports nothing). A finding is about one place: a body
 * schema or response used by many operations is one finding listing them.
 *
 * @throws LintInputError (a usage error, never a finding) when the file cannot be read or parsed,
 *   it is neither OpenAPI 3.0.x or 3.1.x nor Swagger 2.0, or the spec's own x-agent-errors config
 *   is not valid.
 * @throws TypeError naming lintOpenApi and the argument or option at fault when `input` is neither
 *   a file path nor an object, a document object is neither OpenAPI 3.0.x or 3.1.x nor Swagger 2.0,
 *   an option is unknown or of the wrong type (an allowRemoteRefs prefix no http or https URL), or
 *   the config option is not a valid lint config.
 * @example (await lintOpenApi('openapi.yaml')).map((f) => `${f.severity} ${f.pointer} ${f.rule}`)
 */
export async function lintOpenApi(input: string | object, options: LintOpenApiOptions = {}): Promise<LintFinding[]> {
  if (!(isPath(input) || (typeof input === 'object' && input !== null))) refuse('lintOpenApi', 'input', 'a file path or a parsed OpenAPI document object', input);
  checkRules('lintOpenApi', options, LINT_OPENAPI_CHECKS);
  const { docs, findings, config, pointerOf } = await load(input, options);
  const linter = new Linter(docs, options.siteCodes, config, options.siteCatalog);
  linter.run();
  const all: { rule: LintRuleId; pointer: string; message: string; operations: Iterable<string> }[] = [
    ...findings.map((f) => ({ ...f, operations: [] })),
    ...linter.found.values(),
    ...[...docs.broken.values()].map((b) => ({ rule: 'ref-unresolved' as const, pointer: b.pointer, message: b.message, operations: [] })),
  ];
  const out: LintFinding[] = [];
  const seen = new Set<string>();
  for (const f of all) {
    const setting = settingOf(f.rule, config);
    if (setting === 'off') continue;
    const pointer = pointerOf(f.pointer);
    const key = findingKey({ rule: f.rule, pointer, message: f.message });
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ rule: f.rule, severity: setting, pointer, message: f.message, fix: RULES.get(f.rule)!.fix, operations: [...f.operations].sort(compare) });
  }
  return sortFindings(out);
}

/** Options of formatFindings(). */
export interface FormatFindingsOptions {
  /** Wrap the rule ids and the summary in ANSI colour (the CLI passes true on a TTY only). */
  readonly color?: boolean;
  /** How many of a finding's operations to name before "and N more". @default 3 */
  readonly operations?: number;
}

/** What each option of formatFindings() takes. */
const FORMAT_FINDINGS_CHECKS: Checks<FormatFindingsOptions> = {
  color: [(value) => typeof value === 'boolean', 'true or false'],
  operations: [isWhole, 'a whole, non-negative number of operations to name'],
};

/** "GET /a, POST /b and 3 more" */
export function operationList(operations: readonly string[], shown = 3): string {
  const head = operations.slice(0, shown).join(', ');
  return operations.length > shown ? `${head} and ${operations.length - shown} more` : head;
}

/**
 * The findings as text for people: one line per finding (pointer, severity, rule, message), the
 * operations that use the place and the fix indented below, and a summary line.
 * @example console.log(formatFindings(await lintOpenApi('openapi.yaml')))
 */
export function formatFindings(findings: readonly LintFinding[], options: FormatFindingsOptions = {}): string {
  checkFindings('formatFindings', findings);
  checkRules('formatFindings', options, FORMAT_FINDINGS_CHECKS);
  const paint = (code: string, text: string): string => (options.color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const lines: string[] = [];
  const counts = new Map<string, number>();
  for (const f of findings) {
    lines.push(`${f.pointer || '/'}  ${paint(f.severity === 'error' ? '31' : '33', `${f.severity} ${f.rule}`)}  ${f.message}`);
    if (f.operations.length > 0) lines.push(`    used by ${f.operations.length === 1 ? '' : `${f.operations.length} operations: `}${operationList(f.operations, options.operations ?? 3)}`);
    lines.push(`    fix: ${f.fix}`);
    counts.set(f.rule, (counts.get(f.rule) ?? 0) + 1);
  }
  if (findings.length === 0) {
    lines.push(paint('32', `No findings: the document passes all ${LINT_RULES.length} rules.`));
  } else {
    const errors = findings.filter((f) => f.severity === 'error').length;
    const per = LINT_RULES.filter((r) => counts.has(r.id)).map((r) => `${counts.get(r.id)} ${r.id}`);
    lines.push('', paint('1', `${errors} error${errors === 1 ? '' : 's'}, ${findings.length - errors} warning${findings.length - errors === 1 ? '' : 's'}: ${per.join(', ')}`));
  }
  return lines.join('\n');
}
