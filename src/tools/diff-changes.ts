// What diffCatalog() reports and how: a change, the result that sorts changes into breaking and
// non-breaking by the rule tables (schema/diff-rules.json, generated/diff-rules.ts), the collector
// both the catalog and the OpenAPI comparison add their changes to, and the text the CLI prints.
import { BREAKING_RULES, NON_BREAKING_RULES, type DiffRule } from '../../generated/diff-rules.js';
import { own } from '../core/json.js';
import { refuse } from '../core/refuse.js';

/** One rule of the review, as the docs table lists it. */
export interface DiffRuleInfo {
  /** A stable kebab-case id. */
  readonly rule: string;
  /** What the rule catches, in one sentence or two. */
  readonly summary: string;
  /** What to change when it fires. */
  readonly fix: string;
}

/** One difference between the two documents. */
export interface Change {
  readonly rule: DiffRule;
  /** The code it is about (for a rename, the old name). */
  readonly code?: string;
  /** The retry word it is about. */
  readonly word?: string;
  /** A JSON pointer into the after document, or into the before document for a removal. */
  readonly pointer: string;
  /** What changed, naming the values before and after. */
  readonly message: string;
  /** What to change, or what consumers do about it. */
  readonly fix: string;
}

/** What diffCatalog() found: breaking changes and the changes reported as non-breaking. */
export interface DiffResult {
  readonly breaking: Change[];
  readonly nonBreaking: Change[];
}

/** Options of diffCatalog(). */
export interface DiffOptions {
  /**
   * Count an added code or retry word as breaking, for consumers whose enums are closed
   * (exhaustive switches, closed enums in generated clients).
   * @default false
   */
  readonly closedEnums?: boolean;
}

/** A value for a message: strings quoted, numbers as they are. */
export const show = (value: string | number): string => (typeof value === 'string' ? JSON.stringify(value) : String(value));
/** Values for a message, each as show() gives it, joined by commas. */
export const showList = (values: Iterable<string | number>): string => [...values].map(show).join(', ');

interface Found {
  readonly change: Change;
  readonly breaking: boolean;
}

const BREAKING = new Set<string>(BREAKING_RULES.map((r) => r.rule));
const FIXES = new Map<string, string>([...BREAKING_RULES, ...NON_BREAKING_RULES].map((r) => [r.rule, r.fix]));
const CLOSED_ENUM_RULES = new Set<DiffRule>(['code-added', 'retry-word-added']);

/** The changes found so far, each with its rule's fix unless it brings its own. */
export class Collector {
  readonly found: Found[] = [];
  constructor(private readonly closedEnums: boolean) {}

  add(rule: DiffRule, pointer: string, message: string, about: { code?: string; word?: string } = {}, fix?: string): void {
    const closed = this.closedEnums && CLOSED_ENUM_RULES.has(rule);
    const text = closed ? `${message} Counted as breaking: closedEnums is set.` : message;
    const change: Change = {
      rule,
      ...(about.code !== undefined ? { code: about.code } : {}),
      ...(about.word !== undefined ? { word: about.word } : {}),
      pointer,
      message: text,
      fix: fix ?? FIXES.get(rule) ?? '',
    };
    this.found.push({ change, breaking: BREAKING.has(rule) || closed });
  }

  result(): DiffResult {
    return {
      breaking: this.found.filter((f) => f.breaking).map((f) => f.change),
      nonBreaking: this.found.filter((f) => !f.breaking).map((f) => f.change),
    };
  }
}

/** True for a change as diffCatalog makes it: a rule of the tables, a pointer, a message, a fix, and a code or word when it names one. */
function isChange(value: unknown): boolean {
  const optional = (key: string): boolean => own(value, key) === undefined || typeof own(value, key) === 'string';
  return (
    typeof own(value, 'rule') === 'string' &&
    FIXES.has(own(value, 'rule') as string) &&
    ['pointer', 'message', 'fix'].every((key) => typeof own(value, key) === 'string') &&
    optional('code') &&
    optional('word')
  );
}

/** One line of text per change, breaking first, then a summary line (no final newline); what the CLI prints. */
export function formatDiff(result: DiffResult): string {
  for (const side of ['breaking', 'nonBreaking'] as const) {
    const changes = own(result, side);
    if (!Array.isArray(changes)) refuse('formatDiff', 'result', 'what diffCatalog returns ({breaking, nonBreaking}, two lists of changes)', result);
    for (let i = 0; i < changes.length; i += 1) {
      if (!isChange(changes[i])) refuse('formatDiff', `result.${side}[${i}]`, 'a change ({rule, pointer, message, fix}), as diffCatalog makes it', changes[i]);
    }
  }
  const line = (label: string, change: Change): string => {
    const subject = change.code ?? change.word;
    return `${label} ${change.rule}${subject !== undefined ? ` ${subject}` : ''} at ${change.pointer === '' ? '(document root)' : change.pointer}: ${change.message} Fix: ${change.fix}`;
  };
  const lines = [...result.breaking.map((c) => line('breaking', c)), ...result.nonBreaking.map((c) => line('non-breaking', c))];
  const count = (n: number, what: string): string => `${n} ${what} change${n === 1 ? '' : 's'}`;
  const summary =
    result.breaking.length + result.nonBreaking.length === 0
      ? 'No changes to the error contract.'
      : `${count(result.breaking.length, 'breaking')}, ${count(result.nonBreaking.length, 'non-breaking')}.`;
  return [...lines, summary].join('\n');
}
