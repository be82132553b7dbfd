// lintOpenApi(): the CI check of a user's OpenAPI 3.0 or 3.1 document against this package's error
// contract (issue 6, item 1). The rules, their ids, summaries and fixes are schema data
// (schema/lint-rules.json, generated/lint-rules.ts); this module only finds where each one fails.
//
// How it reads a document: the user's file is parsed as it is (YAML or JSON), ref-parser's
// resolve() loads the files its $refs name (relative paths, ./node_modules/..., and http URLs or
// files elsewhere only when the options allow them: ref-policy.ts judges each before it is read, and
// each refused one is a ref-not-allowed finding), and the walk below follows $refs itself, one hop at a time, so that every finding's JSON pointer names a
// place in the user's own document: the node itself when it is in that document (a $ref inside the
// document is followed to its target), or the $ref that leaves the document when the node is in
// another file (the message then says where, in that file, the fault is).
import { readFile } from 'node:fs/promises';
import { dirname, extname, relative, resolve as resolvePath } from 'node:path';
import { $RefParser } from '@apidevtools/json-schema-ref-parser';
import { parse as parseYaml } from 'yaml';
import { CODES } from '../../generated/catalog.js';
import { LINT_RULES, type LintRuleId } from '../../generated/lint-rules.js';
import { isKnownCode } from '../core/catalog.js';
import { escapeToken, isRecord, member, own, unescapeToken } from '../core/json.js';
import { validateEnvelope, validateProblem, type ValidationIssue } from '../core/validate.js';
import { guardedResolvers, RefAllowanceError, refPolicy } from './ref-policy.js';
import { violations, type ViolationRule } from './violations.js';

/** One place where a document breaks a lint rule. */
export interface LintFinding {
  /** The rule broken, one of LINT_RULES. */
  readonly rule: LintRuleId;
  /**
   * A JSON pointer (RFC 6901) into the user's document as written, before any $ref is followed,
   * e.g. `/paths/~1orders~1{id}/get/responses/429`. A fault inside another file the document
   * $refs is reported at that $ref.
   */
  readonly pointer: string;
  /** What is wrong there, naming the member and its value. */
  readonly message: string;
  /** What to change: the rule's fix from LINT_RULES. */
  readonly fix: string;
}

/** Options of lintOpenApi(). */
export interface LintOpenApiOptions {
  /** The site's own codes (an extension catalog's), accepted in examples beside the catalog's. */
  readonly siteCodes?: readonly string[];
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

/**
 * Thrown by lintOpenApi() when it cannot lint the input at all: the file cannot be read or parsed,
 * the document is not OpenAPI 3.0 or 3.1, a $ref the lint follows cannot be resolved, or an
 * allowRemoteRefs prefix is no http or https URL. A usage error (the CLI's exit code 2), never a
 * finding. A $ref the options do not allow is no such error: it is a ref-not-allowed finding.
 */
export class LintInputError extends Error {
  override readonly name = 'LintInputError';
}

/**
 * Thrown inside the walk when the value it needs lies behind a $ref that was refused (and reported as
 * ref-not-allowed): the check that needed it is skipped, and the rest of the document is linted.
 */
class RefusedRef extends Error {
  override readonly name = 'RefusedRef';
}

/** `read()`, or `fallback` when what it reads lies behind a refused $ref. */
function unlessRefused<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof RefusedRef) return fallback;
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// Rules, from the generated table
// ---------------------------------------------------------------------------------------------

const RULE_ORDER = new Map<string, number>(LINT_RULES.map((r, i) => [r.id, i]));
const FIXES = new Map<string, string>(LINT_RULES.map((r) => [r.id, r.fix]));

/** The rules of violations() that the validators cannot see: prose and headers. */
const REVIEW_ONLY: ReadonlySet<ViolationRule> = new Set<ViolationRule>(['promise-without-delay', 'retry-after-disagrees', 'retry-after-missing']);

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const ENVELOPE_MEMBERS = ['code', 'message', 'retry'];
const PROBLEM_MEMBERS = ['type', 'title', 'status', 'code', 'next_step'];
const MEDIA: ReadonlyMap<string, Kind> = new Map<string, Kind>([
  ['application/json', 'envelope'],
  ['application/problem+json', 'problem'],
]);
const KIND_MEDIA: Readonly<Record<Kind, string>> = { envelope: 'application/json', problem: 'application/problem+json' };
const KIND_NAME: Readonly<Record<Kind, string>> = { envelope: 'Envelope', problem: 'Problem' };
/** The generated schemas' pointers; a $ref to them in a generated document is the contract. */
const GENERATED_SCHEMAS: ReadonlyMap<string, Kind> = new Map<string, Kind>([
  ['/components/schemas/Envelope', 'envelope'],
  ['/components/schemas/Problem', 'problem'],
]);
const MAX_HOPS = 64;

type Kind = 'envelope' | 'problem';

function show(value: unknown): string {
  if (value === undefined) return 'missing';
  try {
    const text = JSON.stringify(value) ?? String(value);
    return text.length > 80 ? `${text.slice(0, 79)}…` : text;
  } catch {
    return typeof value;
  }
}

// ---------------------------------------------------------------------------------------------
// Documents and $refs
// ---------------------------------------------------------------------------------------------

/** A value in one of the loaded files, and where it is reported in the user's document. */
interface Node {
  readonly value: unknown;
  /** The file it is in, as ref-parser keys it. */
  readonly file: string;
  /** Its JSON pointer in that file. */
  readonly at: string;
  /** Its JSON pointer in the user's document: `at` when in the user's file, else the $ref site. */
  readonly site: string;
}

const BASE = 'https://base.invalid';

/** A path as ref-parser's url.resolve writes it: backslashes as slashes, except in a Windows extended-length path. */
const posix = (path: string): string => (path.startsWith('\\\\?\\') ? path : path.split('\\').join('/'));

/**
 * Resolves `to` against `from` the way ref-parser's own url.resolve does (it is not exported), so
 * the result is the key ref-parser stored that file under: the whole $ref is resolved, hash and
 * trailing white space included (ref-parser keeps the white space, and a space before the hash is
 * part of the path), then cut at the hash. Returns the file and the decoded hash.
 */
function resolveRef(from: string, to: string): { file: string; hash: string } {
  const hashAt = to.indexOf('#');
  let hash = hashAt < 0 ? '' : to.slice(hashAt + 1);
  try {
    hash = decodeURIComponent(hash);
  } catch {
    // A malformed escape: keep the hash as written.
  }
  if (to === '' || hashAt === 0) return { file: from, hash };
  const url = new URL(posix(to), new URL(posix(from), BASE));
  const endSpaces = /\s*$/.exec(to)![0];
  const resolved = (url.origin === BASE ? url.pathname + url.search + url.hash : url.toString()) + endSpaces;
  const cut = resolved.indexOf('#');
  return { file: cut < 0 ? resolved : resolved.slice(0, cut), hash };
}

class Documents {
  /** How deep follow() is nested: a $ref met on the way to another $ref's target nests it. */
  private depth = 0;

  constructor(
    private readonly files: ReadonlyMap<string, unknown>,
    readonly root: string,
    /** The files the policy refused, which hold only a placeholder. */
    private readonly refused: ReadonlySet<string> = new Set(),
  ) {}

  rootNode(): Node {
    return { value: this.files.get(this.root), file: this.root, at: '', site: '' };
  }

  child(node: Node, key: string): Node {
    const at = `${node.at}/${escapeToken(key)}`;
    return { value: member(node.value, key), file: node.file, at, site: node.file === this.root ? at : node.site };
  }

  /** The $ref string of a Reference Object, else null. */
  static refOf(value: unknown): string | null {
    const ref = own(value, '$ref');
    return typeof ref === 'string' ? ref : null;
  }

  /** One hop: the node a Reference Object points to. Throws LintInputError when it leads nowhere. */
  follow(node: Node, ref: string): Node {
    if (this.depth >= MAX_HOPS) throw new LintInputError(`the $ref ${show(ref)} at ${node.site || '/'} is circular`);
    this.depth += 1;
    try {
      return this.hop(node, ref);
    } finally {
      this.depth -= 1;
    }
  }

  private hop(node: Node, ref: string): Node {
    const { file, hash } = resolveRef(node.file, ref);
    if (this.refused.has(file)) throw new RefusedRef(`the $ref ${show(ref)} at ${node.site || '/'} was refused`);
    if (!this.files.has(file)) throw new LintInputError(`the $ref ${show(ref)} at ${node.site || '/'} names ${this.display(file)}, which was not loaded`);
    if (hash !== '' && !hash.startsWith('/')) {
      throw new LintInputError(`the $ref ${show(ref)} at ${node.site || '/'} uses an anchor (#${hash}); only JSON pointers are supported`);
    }
    let current: Node = { value: this.files.get(file), file, at: '', site: file === this.root ? '' : node.site };
    for (const token of hash === '' ? [] : hash.slice(1).split('/')) {
      const key = unescapeToken(token);
      // ref-parser follows a $ref met on the way to the target; so does this, when the key is not there.
      if (member(current.value, key) === undefined) current = this.deref(current);
      const value = member(current.value, key);
      if (value === undefined) throw new LintInputError(`the $ref ${show(ref)} at ${node.site || '/'} points to nothing: ${this.display(file)}#${hash} does not exist`);
      const at = `${current.at}/${escapeToken(key)}`;
      current = { value, file, at, site: file === this.root ? at : current.site };
    }
    return current;
  }

  /** Follows Reference Objects until a value that is none. Throws LintInputError on a loop or a dead end. */
  deref(node: Node): Node {
    let current = node;
    let ref = Documents.refOf(current.value);
    if (ref === null) return node;
    const seen = new Set<string>();
    while (ref !== null) {
      const key = `${current.file}#${current.at}`;
      if (seen.has(key) || seen.size >= MAX_HOPS) throw new LintInputError(`the $ref ${show(ref)} at ${node.site || '/'} is circular`);
      seen.add(key);
      current = this.follow(current, ref);
      ref = Documents.refOf(current.value);
    }
    return current;
  }

  /** A file as a message names it: relative to the user's document when both are local. */
  display(file: string): string {
    if (/^[a-z][a-z\d+.-]+:/i.test(file)) return file;
    let path = file;
    try {
      path = decodeURI(file);
    } catch {
      // keep it encoded
    }
    const base = this.root.endsWith('/') ? this.root : dirname(this.root);
    try {
      const rel = relative(decodeURI(base), path);
      return rel === '' ? path : rel;
    } catch {
      return path;
    }
  }

  /** " (in file#pointer)" for a node outside the user's document, else "". */
  where(node: Node): string {
    return node.file === this.root ? '' : ` (in ${this.display(node.file)}#${node.at})`;
  }

  isGenerated(file: string): boolean {
    const marker = own(this.files.get(file), 'x-generated');
    return typeof marker === 'string' && marker.includes('@agent-index/errors');
  }
}

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

function checkVersion(document: unknown, label: string): void {
  if (!isRecord(document)) throw new LintInputError(`${label} is not an OpenAPI document: it is ${Array.isArray(document) ? 'an array' : show(document)}, not an object`);
  const version = own(document, 'openapi');
  if (version === undefined) {
    const swagger = own(document, 'swagger');
    throw new LintInputError(
      swagger !== undefined
        ? `${label} is Swagger ${show(swagger)}; only OpenAPI 3.0 and 3.1 are supported (convert it first)`
        : `${label} is not an OpenAPI document: it has no openapi member`,
    );
  }
  if (typeof version !== 'string' || !/^3\.[01]\.\d+(?:[-+].*)?$/.test(version)) {
    throw new LintInputError(`${label} declares openapi ${show(version)}; only OpenAPI 3.0.x and 3.1.x are supported`);
  }
}

/**
 * The ref-not-allowed findings: one at each $ref (in the user's document, or in a file it loads) that
 * names a refused file. A $ref in another file is reported at the site in the user's document
 * through which that file was first reached. A refused file that no $ref found here names (one a
 * `$id` moved elsewhere) is still reported, at the document's root.
 */
function refusals(docs: Documents, files: ReadonlyMap<string, unknown>, refused: ReadonlyMap<string, string>): LintFinding[] {
  const findings: LintFinding[] = [];
  if (refused.size === 0) return findings;
  const fix = FIXES.get('ref-not-allowed')!;
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
          const why = refused.get(to);
          if (why !== undefined) {
            named.add(to);
            const where = file === docs.root ? '' : ` (in ${docs.display(file)}#${at})`;
            const resolved = to === direct ? '' : ` (resolved against $id to ${to})`;
            findings.push({ rule: 'ref-not-allowed', pointer, message: `the $ref ${show(ref)}${where}${resolved} ${why}`, fix });
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
    if (!named.has(file)) findings.push({ rule: 'ref-not-allowed', pointer: '', message: `a $ref that resolves to ${docs.display(file)} ${why}`, fix });
  }
  return findings;
}

async function load(input: string | object, options: LintOpenApiOptions): Promise<{ docs: Documents; refused: LintFinding[] }> {
  const cwd = resolvePath(options.cwd ?? process.cwd());
  let base: string;
  let home: string;
  let document: unknown;
  let label: string;
  if (typeof input === 'string') {
    base = resolvePath(cwd, input);
    home = dirname(base);
    document = await parseFile(base);
    label = input;
  } else if (typeof input === 'object' && input !== null) {
    home = cwd;
    base = cwd.endsWith('/') || cwd.endsWith('\\') ? cwd : `${cwd}/`;
    document = input;
    label = 'the document';
  } else {
    throw new LintInputError(`lintOpenApi takes a file path or a parsed document object, not ${show(input)}`);
  }
  checkVersion(document, label);
  let policy;
  try {
    policy = await refPolicy(home, cwd, options);
  } catch (error) {
    if (error instanceof RefAllowanceError) throw new LintInputError(error.message, { cause: error });
    throw error;
  }
  const refused = new Map<string, string>();
  const parser = new $RefParser();
  try {
    // resolve() only loads the files the $refs name; it changes nothing in the document. Every file
    // goes through the guarded resolver, which reads only what the policy allows.
    await parser.resolve(base, document as object, { mutateInputSchema: true, resolve: guardedResolvers(policy, refused) });
  } catch (error) {
    throw new LintInputError(`cannot resolve the $refs of ${label}: ${(error as Error).message}`, { cause: error });
  }
  const files = new Map<string, unknown>();
  for (const [key, ref] of Object.entries(parser.$refs._$refs)) files.set(key, ref.value);
  const root = parser.$refs._root$Ref.path;
  if (root === undefined || !files.has(root)) throw new LintInputError(`cannot resolve the $refs of ${label}: ref-parser kept no root document`);
  const docs = new Documents(files, root, new Set(refused.keys()));
  return { docs, refused: refusals(docs, files, refused) };
}

// ---------------------------------------------------------------------------------------------
// The body contract
// ---------------------------------------------------------------------------------------------

/** The required members and the properties a schema states, through $refs and allOf. */
function schemaParts(docs: Documents, node: Node, depth = 0): { required: Set<string>; properties: Map<string, Node> } {
  const required = new Set<string>();
  const properties = new Map<string, Node>();
  if (depth > 8) return { required, properties };
  const schema = docs.deref(node);
  if (!isRecord(schema.value)) return { required, properties };
  const req = own(schema.value, 'required');
  if (Array.isArray(req)) for (const name of req) if (typeof name === 'string') required.add(name);
  const props = docs.child(schema, 'properties');
  if (isRecord(props.value)) for (const name of Object.keys(props.value)) properties.set(name, docs.child(props, name));
  const allOf = docs.child(schema, 'allOf');
  if (Array.isArray(allOf.value)) {
    for (let i = 0; i < allOf.value.length; i += 1) {
      const part = schemaParts(docs, docs.child(allOf, String(i)), depth + 1);
      for (const name of part.required) required.add(name);
      for (const [name, prop] of part.properties) if (!properties.has(name)) properties.set(name, prop);
    }
  }
  return { required, properties };
}

/** Which contract a schema is: by $ref to a generated component, else by the members it requires. */
function contractOf(docs: Documents, node: Node, shapes: WeakMap<object, Kind | null>): Kind | null {
  let current = node;
  for (let hops = 0; hops <= MAX_HOPS; hops += 1) {
    const ref = Documents.refOf(current.value);
    if (ref === null) break;
    current = docs.follow(current, ref);
    const generated = GENERATED_SCHEMAS.get(current.at);
    if (generated !== undefined && docs.isGenerated(current.file)) return generated;
  }
  // A schema's shape depends on the schema alone: each one is read once, however many bodies use it.
  const value = current.value;
  if (typeof value === 'object' && value !== null && shapes.has(value)) return shapes.get(value)!;
  const { required, properties } = schemaParts(docs, current);
  let kind: Kind | null = null;
  if (PROBLEM_MEMBERS.every((m) => required.has(m))) kind = 'problem';
  const error = properties.get('error');
  if (kind === null && required.has('error') && error !== undefined) {
    const inner = schemaParts(docs, error).required;
    if (ENVELOPE_MEMBERS.every((m) => inner.has(m))) kind = 'envelope';
  }
  if (typeof value === 'object' && value !== null) shapes.set(value, kind);
  return kind;
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

class Linter {
  readonly findings: LintFinding[] = [];
  private readonly siteCodes: ReadonlySet<string>;
  private readonly shapes = new WeakMap<object, Kind | null>();
  /** Per response and status, the findings to repeat at another $ref site (pointer null: that site). */
  private readonly checked = new Map<string, { rule: LintRuleId; pointer: string | null; message: string }[]>();

  constructor(
    private readonly docs: Documents,
    siteCodes: unknown,
  ) {
    this.siteCodes = new Set(Array.isArray(siteCodes) ? siteCodes.filter((c): c is string => typeof c === 'string') : []);
  }

  private add(rule: LintRuleId, node: Node, message: string): void {
    this.findings.push({ rule, pointer: node.site, message: `${message}${this.docs.where(node)}`, fix: FIXES.get(rule)! });
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
        if (isRecord(operation.value)) this.operation(operation, method, path);
      }
    }
  }

  private operation(operation: Node, method: (typeof METHODS)[number], path: string): void {
    const docs = this.docs;
    const name = `${method.toUpperCase()} ${path}`;
    const responses = docs.child(operation, 'responses');
    if (!isRecord(responses.value)) {
      this.add('error-responses-declared', operation, `${name} declares no responses`);
      return;
    }
    const keys = Object.keys(responses.value);
    const missing: string[] = [];
    if (!keys.some(isClientKey)) missing.push('no 4xx response');
    if (!keys.some((k) => isServerKey(k) || k === 'default')) missing.push('no 5xx response and no default');
    if (missing.length > 0) this.add('error-responses-declared', responses, `${name} declares ${missing.join(', and ')}`);
    for (const key of keys) {
      // A response behind a refused $ref is not checked; one whose parts are is checked up to them.
      if (isErrorKey(key)) unlessRefused(() => this.response(docs.deref(docs.child(responses, key)), key, method === 'head'), undefined);
    }
  }

  /**
   * Checks each response once per status, so the lint stays linear however often a response is
   * used: one in the user's document is reported once, at its own pointer; one in another file is
   * checked once and its findings are repeated at each $ref site that reaches it.
   */
  private response(response: Node, status: string, head: boolean): void {
    const key = `${response.file}#${response.at}|${status}${head ? '|head' : ''}`;
    const inRoot = response.file === this.docs.root;
    const cached = this.checked.get(key);
    if (cached !== undefined) {
      for (const c of cached) this.findings.push({ rule: c.rule, pointer: c.pointer ?? response.site, message: c.message, fix: FIXES.get(c.rule)! });
      return;
    }
    const start = this.findings.length;
    this.checkResponse(response, status, head);
    const found = inRoot ? [] : this.findings.slice(start);
    this.checked.set(
      key,
      found.map((f) => ({ rule: f.rule, pointer: f.pointer === response.site ? null : f.pointer, message: f.message })),
    );
  }

  private checkResponse(response: Node, status: string, head: boolean): void {
    const docs = this.docs;
    const label = status === 'default' ? 'the default response' : `the ${status} response`;
    if (!isRecord(response.value)) {
      this.add('error-body-contract', response, `${label} is ${show(response.value)}, not a Response Object`);
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
    const contract = media.filter((m) => MEDIA.has(baseMedia(m)));
    if (contract.length === 0) {
      if (!(head && media.length === 0)) {
        const has = media.length === 0 ? 'declares no body' : `declares only ${media.join(', ')}`;
        this.add('error-body-contract', media.length === 0 ? response : content, `${label} ${has}; its body is neither application/json nor application/problem+json`);
      }
      return;
    }
    for (const type of contract) {
      const kind = MEDIA.get(baseMedia(type))!;
      const mediaType = docs.child(content, type);
      if (!isRecord(mediaType.value)) continue;
      const schema = docs.child(mediaType, 'schema');
      if (schema.value === undefined) {
        this.add('error-body-contract', mediaType, `the ${type} body of ${label} has no schema; it should be the ${KIND_NAME[kind]}`);
      } else {
        const is = unlessRefused<Kind | null | undefined>(() => contractOf(docs, schema, this.shapes), undefined);
        if (is !== undefined && is !== kind) {
          const why =
            is === null
              ? kind === 'envelope'
                ? 'it does not require an error object with code, message and retry'
                : `it does not require ${PROBLEM_MEMBERS.join(', ')}`
              : `it is the ${KIND_NAME[is]}, which goes as ${KIND_MEDIA[is]}`;
          this.add('error-body-contract', schema, `the ${type} body of ${label} is not the ${KIND_NAME[kind]}: ${why}`);
        }
      }
      if (Object.hasOwn(mediaType.value, 'example')) {
        this.example(docs.child(mediaType, 'example'), kind, type, status, retryAfter);
      }
      const examples = docs.child(mediaType, 'examples');
      if (isRecord(examples.value)) {
        for (const name of Object.keys(examples.value)) {
          const example = unlessRefused(() => docs.deref(docs.child(examples, name)), null);
          if (example !== null && isRecord(example.value) && Object.hasOwn(example.value, 'value')) {
            this.example(docs.child(example, 'value'), kind, type, status, retryAfter);
          }
        }
      }
    }
  }

  private example(example: Node, kind: Kind, type: string, status: string, retryAfter: string | undefined): void {
    const body = example.value;
    const numeric = /^\d{3}$/.test(status) ? Number(status) : undefined;
    const code = isRecord(own(body, 'error')) ? own(own(body, 'error'), 'code') : own(body, 'code');
    const known = isKnownCode(code);
    const result = kind === 'envelope' ? validateEnvelope(body) : validateProblem(body);

    if (!result.valid) {
      const issues = result.errors.slice(0, 3).map((i: ValidationIssue) => `${i.pointer || '(the body)'} ${i.message}`);
      const more = result.errors.length > 3 ? `; and ${result.errors.length - 3} more` : '';
      this.add('error-example-valid', example, `the ${type} example is not a valid ${kind}: ${issues.join('; ')}${more}`);
    } else if (kind === 'problem' && !known && numeric !== undefined && own(body, 'status') !== numeric) {
      this.add('error-example-valid', example, `the problem's status member is ${show(own(body, 'status'))}, but the example sits under ${status}`);
    }

    if (typeof code === 'string' && !known && !this.siteCodes.has(code)) {
      this.add('example-code-known', example, `code ${show(code)} is neither a catalog code nor one of the site's codes`);
    }
    if (known && status !== 'default' && !statusFits(CODES[code].status, status)) {
      this.add('example-status-matches', example, `code ${show(code)} has status ${CODES[code].status} in the catalog, but the example sits under ${status}`);
    }

    // The review: what the validators cannot see (prose, headers), and, for a valid body, what they do not check.
    for (const v of violations([{ name: 'example', status: numeric, headers: retryAfter === undefined ? undefined : { 'retry-after': retryAfter }, body }])) {
      if (v.rule === 'status-disagrees') continue; // said by example-status-matches or error-example-valid
      if (REVIEW_ONLY.has(v.rule) || result.valid) this.add('error-example-review', example, `${v.message} (${v.rule})`);
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

/** Findings sorted by pointer, then by the rule's place in LINT_RULES, then by message; duplicates dropped. */
function sortFindings(findings: readonly LintFinding[]): LintFinding[] {
  const seen = new Set<string>();
  const out: LintFinding[] = [];
  for (const f of findings) {
    const key = `${f.rule}\n${f.pointer}\n${f.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(f);
    }
  }
  const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return out.sort((a, b) => cmp(a.pointer, b.pointer) || RULE_ORDER.get(a.rule)! - RULE_ORDER.get(b.rule)! || cmp(a.message, b.message));
}

/**
 * Lints an OpenAPI 3.0 or 3.1 document against this package's error contract (the rules of
 * LINT_RULES): every operation declares its error responses, every 429 and 503 declares
 * Retry-After, every error body is the Envelope (application/json) or the Problem
 * (application/problem+json), and every example of an error body is valid, passes violations(),
 * names a known code and sits under that code's status.
 *
 * `input` is a file path (YAML, or JSON when it ends in .json; a relative path is read from
 * `options.cwd`, default the current directory; its $refs resolve relative to the file, so
 * `./node_modules/@agent-index/errors/generated/openapi.json#/...` works) or an already-parsed
 * document object, which is not changed (its $refs resolve relative to `options.cwd`). The input
 * may be untrusted: its $refs load only files in its own folder tree and this package's generated/
 * folder, unless `allowRefsOutside` or `allowRemoteRefs` allow more; every other $ref is a
 * ref-not-allowed finding, and what it names is neither read nor fetched. Only the
 * operations under `paths` are checked, and only what they reach; webhooks and callbacks are not.
 * Responses are error responses when their key is 4xx, 5xx, 4XX, 5XX or default; a HEAD
 * operation's error responses may have no body.
 *
 * Resolves to the findings sorted by pointer, then in LINT_RULES order; an empty list means the
 * document passes. Each pointer names a place in the document as written (see LintFinding).
 *
 * @throws LintInputError (a usage error, never a finding) when the file cannot be read or parsed,
 *   the document is not OpenAPI 3.0.x or 3.1.x, a $ref the lint may follow cannot be resolved
 *   (a missing file, a pointer to nothing, a loop), or an allowRemoteRefs prefix is no URL.
 * @example (await lintOpenApi('openapi.yaml')).map((f) => `${f.pointer} ${f.rule}`)
 */
export async function lintOpenApi(input: string | object, options: LintOpenApiOptions = {}): Promise<LintFinding[]> {
  const { docs, refused } = await load(input, options);
  const linter = new Linter(docs, options.siteCodes);
  linter.run();
  return sortFindings([...refused, ...linter.findings]);
}

/** Options of formatFindings(). */
export interface FormatFindingsOptions {
  /** Wrap the rule ids and the summary in ANSI colour (the CLI passes true on a TTY only). */
  readonly color?: boolean;
}

/**
 * The findings as text for people: one line per finding (pointer, rule, message), its fix indented
 * on the next line, and a summary line counting the findings per rule.
 * @example console.log(formatFindings(await lintOpenApi('openapi.yaml')))
 */
export function formatFindings(findings: readonly LintFinding[], options: FormatFindingsOptions = {}): string {
  const paint = (code: string, text: string): string => (options.color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const lines: string[] = [];
  const counts = new Map<string, number>();
  for (const f of findings) {
    lines.push(`${f.pointer || '/'}  ${paint('31', f.rule)}  ${f.message}`, `    fix: ${f.fix}`);
    counts.set(f.rule, (counts.get(f.rule) ?? 0) + 1);
  }
  if (findings.length === 0) {
    lines.push(paint('32', `No findings: the document passes all ${LINT_RULES.length} rules.`));
  } else {
    const per = LINT_RULES.filter((r) => counts.has(r.id)).map((r) => `${counts.get(r.id)} ${r.id}`);
    if (lines.length > 0) lines.push('');
    lines.push(paint('1', `${findings.length} finding${findings.length === 1 ? '' : 's'}: ${per.join(', ')}`));
  }
  return lines.join('\n');
}
