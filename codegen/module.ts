// A generated module described once and written in two forms: TypeScript for the package's own
// generated/, and JavaScript with its declarations for the folder `codegen --extend` writes in a
// site's project. The declarations are written here, not by a compiler: a generated module holds
// only type declarations and constants of JSON data (or a RegExp), whose types can be stated
// exactly, so codegen needs no TypeScript, whose compiler API the native TypeScript 7 does not offer.

/** Type-only text of a module (imports of types, interfaces, type aliases): in the .ts and the .d.ts, not the .js. */
export interface TypePart {
  readonly kind: 'types';
  readonly text: string;
}

/** An exported constant of JSON data or a RegExp, with the JSDoc that heads it. */
export interface ConstPart {
  readonly kind: 'const';
  readonly doc: string;
  readonly name: string;
  readonly value: unknown;
  /** The annotation, `export const NAME: type = ...`; the declaration then says the same. */
  readonly type?: string;
  /** `as const`: the declaration gives the value's literal type, readonly throughout. */
  readonly asConst?: boolean;
  /** A `satisfies` check the TypeScript form makes; it changes no type, so the declaration leaves it out. */
  readonly satisfies?: string;
}

/** A generated module: its header comment line and its parts, in order. */
export interface GeneratedModule {
  readonly header: string;
  readonly parts: readonly (TypePart | ConstPart)[];
}

/** The module's type-only text as a part. */
export const types = (text: string): TypePart => ({ kind: 'types', text });

/** An exported constant as a part. */
export const constant = (part: Omit<ConstPart, 'kind'>): ConstPart => ({ kind: 'const', ...part });

/** A value as JavaScript source: a RegExp as its literal, anything else as indented JSON. */
function valueText(value: unknown): string {
  return value instanceof RegExp ? value.toString() : JSON.stringify(value, null, 2);
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/**
 * The type TypeScript gives `value` under `as const` (or a primitive const without it): each string,
 * number and boolean its literal, arrays readonly tuples, object members readonly. The value is JSON
 * data; anything else is a fault of the emitter that made it, so it throws.
 */
export function literalType(value: unknown, indent = ''): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'number' || typeof value === 'string') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError(`literalType: a number must be finite (got ${value})`);
    return JSON.stringify(value);
  }
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return 'readonly []';
    return `readonly [\n${value.map((item) => `${inner}${literalType(item, inner)}`).join(',\n')}\n${indent}]`;
  }
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return '{}';
    const key = (name: string): string => (IDENTIFIER.test(name) ? name : JSON.stringify(name));
    return `{\n${entries.map(([name, item]) => `${inner}readonly ${key(name)}: ${literalType(item, inner)};`).join('\n')}\n${indent}}`;
  }
  throw new TypeError(`literalType: a value is JSON data: null, a boolean, a number, a string, an array or a plain object (got ${typeof value === 'object' ? Object.prototype.toString.call(value) : typeof value})`);
}

/** The type a constant's declaration gives it. */
function declaredType(part: ConstPart): string {
  if (part.type !== undefined) return part.type;
  if (part.value instanceof RegExp) return 'RegExp';
  const primitive = part.value === null || typeof part.value !== 'object';
  if (part.asConst || primitive) return literalType(part.value);
  // Without `as const` or an annotation an object's type is widened; no generated module needs that, so it is not modelled.
  throw new TypeError(`declaredType: the constant ${part.name} holds an object, so it needs asConst or a type`);
}

/** Joins a module's header and its rendered parts, a blank line between each. */
function assemble(header: string, parts: string[]): string {
  return `${header}\n${parts.join('\n\n')}\n`;
}

/** The module as TypeScript, as the package's generated/ holds it. */
export function moduleTs(module: GeneratedModule): string {
  return assemble(
    module.header,
    module.parts.map((part) => {
      if (part.kind === 'types') return part.text;
      const annotation = part.type === undefined ? '' : `: ${part.type}`;
      // TypeScript refuses `null as const`; a const null is of type null already.
      const checks = `${part.asConst && part.value !== null ? ' as const' : ''}${part.satisfies === undefined ? '' : ` satisfies ${part.satisfies}`}`;
      return `${part.doc}\nexport const ${part.name}${annotation} = ${valueText(part.value)}${checks};`;
    }),
  );
}

/** The module as JavaScript: its constants, each with its JSDoc; `export {}` when it has none, so it is still a module. */
export function moduleJs(module: GeneratedModule): string {
  const constants = module.parts.filter((part): part is ConstPart => part.kind === 'const');
  if (constants.length === 0) return assemble(module.header, ['export {};']);
  return assemble(module.header, constants.map((part) => `${part.doc}\nexport const ${part.name} = ${valueText(part.value)};`));
}

/** The module's declarations (.d.ts): its type-only text as written, and each constant declared with its type. */
export function moduleDts(module: GeneratedModule): string {
  return assemble(
    module.header,
    module.parts.map((part) => (part.kind === 'types' ? part.text : `${part.doc}\nexport declare const ${part.name}: ${declaredType(part)};`)),
  );
}
