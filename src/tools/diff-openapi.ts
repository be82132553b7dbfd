// The OpenAPI side of diffCatalog(): the codes a parsed OpenAPI 3.0/3.1 document declares, with
// their statuses and retry words, compared with another document's or with a catalog's (on what both
// can say: which codes exist, with which status and retry word).
//
// A document's codes are every string of an `enum` (or `const`) under a schema property named
// `code` in its error responses (4xx, 5xx, 4XX, 5XX, default; components.responses not referenced
// from paths count when their description starts with an error status or says none), every
// KnownCode-like schema (components.schemas named Code, KnownCode, ErrorCode, SiteCode, ProblemCode,
// AgentCode), and the `code` (`error.code`) of every error response example, with the response's
// status and the example's retry word. Only local `#/...` $refs are followed: bundle a spec that
// references files first. A code dropped from every enum is removed even if examples still show it;
// a code in examples only is removed when it is in neither the enums nor the examples of the after
// document.
import { asInteger, asString, entries, isRecord, member, own, pointer as ptr, unescapeToken, type JsonObject } from '../core/json.js';
import type { CatalogSide } from './diff-catalogs.js';
import { show, showList, type Collector } from './diff-changes.js';

/** What one document declares about its codes; each map keeps the first pointer found. */
export interface Declared {
  /** Codes of enums (KnownCode-like schemas, `code` properties of error schemas). */
  readonly enums: Map<string, string>;
  /** Codes of error response examples. */
  readonly examples: Map<string, string>;
  /** The statuses each code is shown with. */
  readonly statuses: Map<string, Map<number, string>>;
  /** The retry words each code is shown with. */
  readonly retries: Map<string, Map<string, string>>;
  /** The first title each code is shown with. */
  readonly titles: Map<string, string>;
}

const newDeclared = (): Declared => ({ enums: new Map(), examples: new Map(), statuses: new Map(), retries: new Map(), titles: new Map() });

function note<K>(map: Map<string, Map<K, string>>, code: string, key: K, pointer: string): void {
  let inner = map.get(code);
  if (inner === undefined) map.set(code, (inner = new Map()));
  if (!inner.has(key)) inner.set(key, pointer);
}
const first = (map: Map<string, string>, key: string, pointer: string): void => void (map.has(key) ? undefined : map.set(key, pointer));

const MAX_DEPTH = 64;
const MAX_REF_HOPS = 32;
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
/** components.schemas names read as a list of codes. */
const CODE_SCHEMA_NAME = /^(?:known|error|site|problem|agent)?[_-]?codes?$/i;
const ERROR_RESPONSE_KEY = /^(?:[45](?:\d\d|XX)|default)$/i;

interface Located {
  readonly node: unknown;
  readonly pointer: string;
}

/** The target of a local `$ref` ("#/components/..."), or undefined. */
function resolveRef(root: unknown, ref: string): Located | undefined {
  if (!ref.startsWith('#')) return undefined;
  let fragment: string;
  try {
    fragment = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  if (fragment === '') return { node: root, pointer: '' };
  if (!fragment.startsWith('/')) return undefined;
  const tokens = fragment.slice(1).split('/').map(unescapeToken);
  let node: unknown = root;
  for (const token of tokens) {
    node = member(node, token);
    if (node === undefined) return undefined;
  }
  return { node, pointer: ptr('', ...tokens) };
}

/** `node` with its chain of local `$ref`s followed (at most MAX_REF_HOPS). */
function follow(root: unknown, node: unknown, pointer: string): Located {
  let here: Located = { node, pointer };
  for (let hop = 0; hop < MAX_REF_HOPS && isRecord(here.node); hop++) {
    const ref = asString(own(here.node, '$ref'));
    if (ref === undefined) break;
    const target = resolveRef(root, ref);
    if (target === undefined) break;
    here = target;
  }
  return here;
}

/** How the reader walks one schema node: its pointer, the nodes already seen, and how deep it is. */
type Walk = (node: unknown, pointer: string, seen: Set<object>, depth: number) => void;

class OpenApiReader {
  readonly declared = newDeclared();
  constructor(private readonly root: JsonObject) {}

  /** Whether `node` is a schema to read: an object not seen before, not too deep. A local $ref in it is read first, with `read`. */
  private enter(node: unknown, seen: Set<object>, depth: number, read: Walk): node is JsonObject {
    if (depth > MAX_DEPTH || !isRecord(node) || seen.has(node)) return false;
    seen.add(node);
    const ref = asString(own(node, '$ref'));
    const target = ref === undefined ? undefined : resolveRef(this.root, ref);
    if (target !== undefined) read(target.node, target.pointer, seen, depth + 1);
    return true;
  }

  /** Reads every subschema of the lists under `keys` of `node` with `read`. */
  private eachOf(node: JsonObject, pointer: string, keys: readonly string[], seen: Set<object>, depth: number, read: Walk): void {
    for (const key of keys) {
      const list = own(node, key);
      if (Array.isArray(list)) list.forEach((item: unknown, i) => read(item, ptr(pointer, key, i), seen, depth + 1));
    }
  }

  /** Every code string of an enum or const at `node` (through $ref, allOf, anyOf, oneOf). */
  enumCodes(node: unknown, pointer: string, seen: Set<object>, depth: number): void {
    const read: Walk = (...args) => this.enumCodes(...args);
    if (!this.enter(node, seen, depth, read)) return;
    const values = own(node, 'enum');
    if (Array.isArray(values)) {
      for (let i = 0; i < values.length; i++) {
        const code = values[i];
        if (typeof code === 'string' && code !== '') first(this.declared.enums, code, ptr(pointer, 'enum', i));
      }
    }
    const constant = own(node, 'const');
    if (typeof constant === 'string' && constant !== '') first(this.declared.enums, constant, ptr(pointer, 'const'));
    this.eachOf(node, pointer, ['allOf', 'anyOf', 'oneOf'], seen, depth, read);
  }

  /** Walks an error body schema for properties named `code`. */
  schema(node: unknown, pointer: string, seen: Set<object>, depth: number): void {
    const read: Walk = (...args) => this.schema(...args);
    if (!this.enter(node, seen, depth, read)) return;
    for (const [name, property] of entries(own(node, 'properties'))) {
      const at = ptr(pointer, 'properties', name);
      if (name === 'code') this.enumCodes(property, at, new Set(), 0);
      this.schema(property, at, seen, depth + 1);
    }
    for (const key of ['items', 'additionalProperties', 'then', 'else']) this.schema(own(node, key), ptr(pointer, key), seen, depth + 1);
    this.eachOf(node, pointer, ['allOf', 'anyOf', 'oneOf', 'prefixItems'], seen, depth, read);
  }

  /** The code an error example shows, with its status and retry word. */
  example(value: unknown, pointer: string, status: number | undefined, trusted: boolean): void {
    if (!isRecord(value)) return;
    const error = own(value, 'error');
    if (isRecord(error)) {
      const code = asString(own(error, 'code'));
      if (code) this.shown(code, ptr(pointer, 'error', 'code'), status, asString(own(error, 'retry')), ptr(pointer, 'error', 'retry'), undefined);
    }
    const code = asString(own(value, 'code'));
    if (!code) return;
    const bodyStatus = asInteger(own(value, 'status'));
    const errorStatus = bodyStatus !== undefined && bodyStatus >= 400 && bodyStatus <= 599 ? bodyStatus : undefined;
    const retry = asString(own(value, 'retry'));
    // A body of unknown status counts only when it looks like an error: an error status, a next step or a retry word.
    if (!trusted && errorStatus === undefined && retry === undefined && asString(own(value, 'next_step')) === undefined) return;
    this.shown(code, ptr(pointer, 'code'), status ?? errorStatus, retry, ptr(pointer, 'retry'), asString(own(value, 'title')));
  }

  shown(code: string, pointer: string, status: number | undefined, retry: string | undefined, retryPointer: string, title: string | undefined): void {
    first(this.declared.examples, code, pointer);
    if (status !== undefined) note(this.declared.statuses, code, status, pointer);
    if (retry !== undefined) note(this.declared.retries, code, retry, retryPointer);
    if (title !== undefined) first(this.declared.titles, code, title);
  }

  /** One error response: its body schemas and its examples. */
  response(node: unknown, pointer: string, status: number | undefined, trusted: boolean): void {
    if (!isRecord(node)) return;
    for (const [mediaType, media] of entries(own(node, 'content'))) {
      if (!isRecord(media)) continue;
      const at = ptr(pointer, 'content', mediaType);
      this.schema(own(media, 'schema'), ptr(at, 'schema'), new Set(), 0);
      if (Object.hasOwn(media, 'example')) this.example(own(media, 'example'), ptr(at, 'example'), status, trusted);
      for (const [name, example] of entries(own(media, 'examples'))) {
        const target = follow(this.root, example, ptr(at, 'examples', name));
        if (isRecord(target.node) && Object.hasOwn(target.node, 'value')) {
          this.example(own(target.node, 'value'), ptr(target.pointer, 'value'), status, trusted);
        }
      }
    }
  }

  read(): Declared {
    const root = this.root;
    const components = own(root, 'components');
    const schemas = own(components, 'schemas');
    for (const [name, schema] of entries(schemas)) {
      if (CODE_SCHEMA_NAME.test(name)) this.enumCodes(schema, ptr('', 'components', 'schemas', name), new Set(), 0);
    }
    // Responses of operations, with the status they are declared under.
    const done = new Set<unknown>();
    for (const section of ['paths', 'webhooks']) {
      for (const [path, rawItem] of entries(own(root, section))) {
        const item = follow(root, rawItem, ptr('', section, path));
        if (!isRecord(item.node)) continue;
        for (const method of METHODS) {
          const operation = own(item.node, method);
          if (!isRecord(operation)) continue;
          for (const [key, rawResponse] of entries(own(operation, 'responses'))) {
            const response = follow(root, rawResponse, ptr(item.pointer, method, 'responses', key));
            done.add(response.node);
            if (!ERROR_RESPONSE_KEY.test(key)) continue;
            this.response(response.node, response.pointer, /^\d{3}$/.test(key) ? Number(key) : undefined, true);
          }
        }
      }
    }
    // Reusable responses no operation reached: their status from their description when it gives one.
    const responses = own(components, 'responses');
    for (const [name, rawResponse] of entries(responses)) {
      const response = follow(root, rawResponse, ptr('', 'components', 'responses', name));
      if (done.has(response.node) || !isRecord(response.node)) continue;
      done.add(response.node);
      const description = asString(own(response.node, 'description'));
      const match = description === undefined ? null : /^\s*([1-5]\d\d)\b/.exec(description);
      const status = match ? Number(match[1]) : undefined;
      if (status !== undefined && status < 400) continue;
      this.response(response.node, response.pointer, status, status !== undefined);
    }
    return this.declared;
  }
}

/** What an OpenAPI document declares about its codes. */
export const openApiDeclared = (document: JsonObject): Declared => new OpenApiReader(document).read();

/** A catalog as an OpenAPI document would declare it, for comparing one with the other. */
export function catalogDeclared(side: CatalogSide): Declared {
  const declared = newDeclared();
  for (const [code, entry] of side.codes) {
    const at = ptr('', 'codes', code);
    first(declared.enums, code, at);
    if (entry.status !== undefined) note(declared.statuses, code, entry.status, ptr(at, 'status'));
    if (entry.retry !== undefined) note(declared.retries, code, entry.retry, ptr(at, 'retry'));
    if (entry.title !== undefined) first(declared.titles, code, entry.title);
  }
  return declared;
}

const only = <K>(map: Map<K, string> | undefined): K | undefined => (map !== undefined && map.size === 1 ? map.keys().next().value : undefined);
const sameKeys = <K>(a: Map<K, string>, b: Map<K, string>): boolean => a.size === b.size && [...a.keys()].every((k) => b.has(k));

/** The changes from what `before` declares to what `after` declares, added to `out`. */
export function diffDeclared(before: Declared, after: Declared, out: Collector): void {
  const inAfter = (code: string): boolean => after.enums.has(code) || after.examples.has(code);
  const inBefore = (code: string): boolean => before.enums.has(code) || before.examples.has(code);
  const removed = [...new Set([...before.enums.keys(), ...before.examples.keys()])].filter(
    (code) => (before.enums.has(code) && !after.enums.has(code)) || !inAfter(code),
  );
  const added = [...new Set([...after.enums.keys(), ...after.examples.keys()])].filter(
    (code) => (after.enums.has(code) && !before.enums.has(code)) || !inBefore(code),
  );
  const pointerIn = (d: Declared, code: string): string => d.enums.get(code) ?? d.examples.get(code) ?? '';
  const identity = (d: Declared, code: string) => ({ status: only(d.statuses.get(code)), retry: only(d.retries.get(code)), title: d.titles.get(code) });

  const taken = new Set<string>();
  for (const old of removed) {
    const b = identity(before, old);
    const renamed =
      b.status === undefined || b.retry === undefined || b.title === undefined || inAfter(old)
        ? undefined
        : added.find((code) => {
            if (taken.has(code) || inBefore(code)) return false;
            const a = identity(after, code);
            return a.status === b.status && a.retry === b.retry && a.title === b.title;
          });
    if (renamed !== undefined) {
      taken.add(renamed);
      out.add(
        'code-renamed',
        pointerIn(after, renamed),
        `The code ${show(old)} was renamed to ${show(renamed)} (same status ${b.status}, retry word ${show(b.retry!)} and title ${show(b.title!)}); consumers switching on ${show(old)} lose it.`,
        { code: old },
        `Keep ${show(old)} declared beside ${show(renamed)} until a major version, or keep the old name.`,
      );
      continue;
    }
    const where = before.enums.has(old) && inAfter(old) ? ` It is no longer in any enum (${pointerIn(before, old)}), though examples still show it.` : '';
    out.add('code-removed', pointerIn(before, old), `The code ${show(old)} was removed.${where}`, { code: old }, `Declare ${show(old)} again (in the enum and its examples) until a major version.`);
  }

  for (const code of new Set([...after.enums.keys(), ...after.examples.keys()])) {
    if (!inBefore(code) || removed.includes(code)) continue;
    const bs = before.statuses.get(code);
    const as = after.statuses.get(code);
    if (bs !== undefined && as !== undefined && !sameKeys(bs, as)) {
      const fresh = [...as].find(([s]) => !bs.has(s)) ?? [...as][0]!;
      out.add('status-changed', fresh[1], `The code ${show(code)} is now shown with status ${showList(as.keys())}, not ${showList(bs.keys())}.`, { code }, `Show ${show(code)} under status ${showList(bs.keys())} again; if the new status is right, add a new code for it.`);
    }
    const br = before.retries.get(code);
    const ar = after.retries.get(code);
    if (br !== undefined && ar !== undefined && !sameKeys(br, ar)) {
      const fresh = [...ar].find(([r]) => !br.has(r)) ?? [...ar][0]!;
      out.add('retry-changed', fresh[1], `The code ${show(code)} is now shown with retry word ${showList(ar.keys())}, not ${showList(br.keys())}.`, { code }, `Give ${show(code)} the retry word ${showList(br.keys())} again; if agents must act differently, add a new code.`);
    }
  }

  for (const code of added) {
    if (taken.has(code)) continue;
    const statuses = after.statuses.get(code);
    const what = statuses !== undefined ? ` (status ${showList(statuses.keys())})` : '';
    const was = inBefore(code) ? ' Before, only examples showed it; now an enum declares it.' : '';
    out.add('code-added', pointerIn(after, code), `New code ${show(code)}${what}.${was} Non-breaking for agents, which give a code they do not know the catalog's unknown-code rule; breaking for consumers whose enum is declared closed (exhaustive switches, closed enums in generated clients).`, { code });
  }
}
