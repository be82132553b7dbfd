// Where an error body keeps what an agent acts on: its code, what to do next, its message, its delay
// and the field at fault. The lint reads it from the body's schema: by the format a team names in its
// config, or else by the first of the formats it recognises by itself (ERROR_FORMATS, generated from
// schema/formats.json) whose members the schema has. Nothing here names a member of any format.
import { ERROR_FORMATS } from '../../generated/error-formats.js';
import { isKnownCode } from '../core/catalog.js';
import { isRecord, own, unescapeToken } from '../core/json.js';
import { PARTS, valueAt, type ErrorFormat, type Part } from '../core/format.js';

export { valueAt, type ErrorFormat, type Part };
import { Documents, unlessRefused, type Node } from './lint-documents.js';

/** One format: where it keeps each part (the first place the schema has is used). */
export interface FormatPlaces {
  readonly id: string;
  readonly name: string;
  readonly places: Readonly<Record<Part, readonly string[]>>;
  /** The catalog reader tables that map its codes to catalog codes (google.rpc.Status, Stripe): its codes say what to do next. */
  readonly retryFrom: readonly string[];
  /** True for a format the team named in its config. */
  readonly named: boolean;
}

/** What a body schema keeps, in its format. */
export interface BodyReading {
  readonly format: FormatPlaces;
  /** The place of each part the schema has, or null. */
  readonly found: Readonly<Record<Part, string | null>>;
  /** The values the code's schema allows (its enum), or null when it names none. */
  readonly codes: readonly string[] | null;
}

/** Parts that hold one value: a schema for them that is an object or an array is not the part. */
const SCALAR: ReadonlySet<Part> = new Set<Part>(['code', 'retry', 'message']);
const MAX_DEPTH = 8;

/** The formats the lint recognises, in the order it tries them. */
export const KNOWN_FORMATS: readonly (FormatPlaces & { readonly match: readonly string[] })[] = ERROR_FORMATS.map((f) => ({
  id: f.id,
  name: f.name,
  match: f.match,
  places: { code: f.code, retry: 'retry' in f ? f.retry : [], message: f.message, delay: f.delay, field: f.field },
  retryFrom: 'retry_from' in f ? f.retry_from : [],
  named: false,
}));

/** A team's format as the lint reads it. */
export function namedFormat(format: ErrorFormat): FormatPlaces {
  const places = Object.fromEntries(PARTS.map((part) => [part, format[part] === undefined ? [] : [format[part]]])) as unknown as Record<Part, string[]>;
  return { id: 'config', name: "the lint config's format", places, retryFrom: [], named: true };
}

/** Reads body schemas, each once: the lint meets the same schema under hundreds of operations. */
export class SchemaReader {
  private readonly readings = new WeakMap<object, Map<string, BodyReading>>();

  constructor(
    private readonly docs: Documents,
    private readonly format: FormatPlaces | null,
  ) {}

  /** What the schema at `node` keeps; through $refs, allOf, anyOf and oneOf (a member any branch has counts). */
  read(node: Node): BodyReading {
    const schema = unlessRefused(() => this.docs.deref(node), null);
    const key = schema !== null && typeof schema.value === 'object' && schema.value !== null ? schema.value : null;
    const cached = key === null ? undefined : this.readings.get(key)?.get(schema!.file);
    if (cached !== undefined) return cached;
    const reading = schema === null ? this.empty() : this.readSchema(schema);
    if (key !== null) {
      let byFile = this.readings.get(key);
      if (byFile === undefined) this.readings.set(key, (byFile = new Map()));
      byFile.set(schema!.file, reading);
    }
    return reading;
  }

  private empty(): BodyReading {
    const format = this.format ?? KNOWN_FORMATS[KNOWN_FORMATS.length - 1]!;
    return { format, found: { code: null, retry: null, message: null, delay: null, field: null }, codes: null };
  }

  private readSchema(schema: Node): BodyReading {
    const recognised = (): BodyReading => this.readAs(schema, KNOWN_FORMATS.find((f) => f.match.every((place) => this.at(schema, place) !== null)) ?? KNOWN_FORMATS[KNOWN_FORMATS.length - 1]!);
    if (this.format === null) return recognised();
    // A team that names its format may still answer with this package's envelope or problem (its
    // generated components, or a copy): such a body is read as what it is, and always passes. The
    // generated components are never read by the team's format; a team's own schema is, unless the
    // team's format finds no code in it.
    const generated = this.docs.isGenerated(schema.file);
    const named = generated ? null : this.readAs(schema, this.format);
    if (named !== null && named.found.code !== null) return named;
    const own = recognised();
    return isOwnFormat(own) || named === null ? own : named;
  }

  private readAs(schema: Node, format: FormatPlaces): BodyReading {
    const found = {} as Record<Part, string | null>;
    let codes: string[] | null = null;
    for (const part of PARTS) {
      found[part] = null;
      for (const place of format.places[part]) {
        const target = this.at(schema, place);
        if (target === null || (SCALAR.has(part) && isContainer(target.value))) continue;
        found[part] = place;
        if (part === 'code') codes = enumOf(target.value);
        break;
      }
    }
    return { format, found, codes };
  }

  /**
   * Where a finding about a body schema belongs. A schema written inline under each operation as
   * nothing but an allOf, anyOf or oneOf of $refs (`allOf: [{$ref: Collection}, {$ref: Failure}]`)
   * is the same fault in every operation: it belongs to the component that holds the body's code
   * (or, with no code anywhere, to the last component, where such wrappers put the failure), so it
   * is one finding listing the operations.
   */
  placeOf(schema: Node): Node {
    if (!isRecord(schema.value) || Object.hasOwn(schema.value, 'properties') || Object.hasOwn(schema.value, 'items')) return schema;
    const refs: Node[] = [];
    for (const combinator of ['allOf', 'anyOf', 'oneOf']) {
      const list = this.docs.child(schema, combinator);
      if (!Array.isArray(list.value)) continue;
      for (let i = 0; i < list.value.length; i += 1) {
        const branch = this.docs.child(list, String(i));
        if (Documents.refOf(branch.value) === null) return schema;
        const target = unlessRefused(() => this.docs.deref(branch), null);
        if (target === null) return schema;
        refs.push(target);
      }
    }
    if (refs.length === 0) return schema;
    return refs.find((node) => this.read(node).found.code !== null) ?? refs[refs.length - 1]!;
  }

  /** The schema of the member at `place` (a JSON pointer, `*` for array items) inside `schema`, or null. */
  at(schema: Node, place: string): Node | null {
    let current: Node[] = [schema];
    for (const token of place.slice(1).split('/')) {
      const next: Node[] = [];
      for (const node of current) for (const branch of this.branches(node, 0)) {
        const key = unescapeToken(token);
        const child = token === '*' ? this.docs.child(branch, 'items') : this.docs.child(this.docs.child(branch, 'properties'), key);
        if (child.value !== undefined) next.push(child);
        // A member the schema requires without describing it is there all the same (its schema is `true`).
        else if (token !== '*' && requires(branch.value, key)) next.push({ ...this.docs.child(branch, 'required'), value: true });
      }
      if (next.length === 0) return null;
      current = next;
    }
    return unlessRefused(() => this.docs.deref(current[0]!), null);
  }

  /** A schema and the schemas of its allOf, anyOf and oneOf, through $refs. */
  private branches(node: Node, depth: number): Node[] {
    const schema = unlessRefused(() => this.docs.deref(node), null);
    if (schema === null || !isRecord(schema.value)) return [];
    const out = [schema];
    if (depth >= MAX_DEPTH) return out;
    for (const combinator of ['allOf', 'anyOf', 'oneOf']) {
      const list = this.docs.child(schema, combinator);
      if (!Array.isArray(list.value)) continue;
      for (let i = 0; i < list.value.length; i += 1) out.push(...this.branches(this.docs.child(list, String(i)), depth + 1));
    }
    return out;
  }
}

/**
 * True for a body read as this package's own envelope, or as a problem that keeps the catalog's code
 * and retry word: this package's validators check its examples, and its codes are the catalog's.
 */
export function isOwnFormat(reading: BodyReading): boolean {
  const { format, found } = reading;
  return !format.named && (format.id === 'envelope' || (format.id === 'problem' && found.code === '/code' && found.retry !== null));
}

/** True when a schema lists `key` in its required members. */
function requires(schema: unknown, key: string): boolean {
  const list = own(schema, 'required');
  return Array.isArray(list) && list.includes(key);
}

/** True for a schema of an object or an array (by its type, or by its properties or items). */
function isContainer(schema: unknown): boolean {
  const type = own(schema, 'type');
  const types = Array.isArray(type) ? type : [type];
  if (types.includes('string') || types.includes('integer') || types.includes('number')) return false;
  return types.includes('object') || types.includes('array') || own(schema, 'properties') !== undefined || own(schema, 'items') !== undefined;
}

/** A schema's enum of strings (or its const), or null. */
function enumOf(schema: unknown): string[] | null {
  const list = own(schema, 'enum');
  if (Array.isArray(list) && list.length > 0 && list.every((v) => typeof v === 'string')) return list as string[];
  const single = own(schema, 'const');
  return typeof single === 'string' ? [single] : null;
}

/** True when every code the body allows is a catalog code or one of the site's: each has its retry word. */
export function catalogCodes(codes: readonly string[] | null, siteCodes: ReadonlySet<string>): boolean {
  return codes !== null && codes.every((code) => isKnownCode(code) || siteCodes.has(code));
}

/** Every value an example has at a place: `*` takes each item of a list, so a list of errors gives one value per error. */
export function valuesAt(body: unknown, place: string): unknown[] {
  let current: unknown[] = [body];
  for (const token of place.slice(1).split('/')) {
    const next: unknown[] = [];
    for (const value of current) {
      if (token === '*') {
        if (Array.isArray(value)) next.push(...value);
      } else {
        const child = own(value, unescapeToken(token));
        if (child !== undefined) next.push(child);
      }
    }
    current = next;
  }
  return current;
}

/** True when a place goes through a list (`*`) that the example leaves out or leaves empty: there is nothing there to check. */
export function throughEmptyList(body: unknown, place: string): boolean {
  const star = place.indexOf('/*');
  if (star < 0) return false;
  const list = valueAt(body, place.slice(0, star) || '/');
  return !Array.isArray(list) || list.length === 0;
}
