// diffCatalog(): the breaking-change review of an error contract, the way `buf breaking` treats
// enums (ENUM_VALUE_NO_DELETE, ENUM_VALUE_SAME_NAME) and oasdiff treats response enums
// (response-property-enum-value-removed/-added, response-non-success-status-removed).
//
// It compares two parsed catalogs (shaped like schema/catalog.json; a site's extension catalog has
// the same `codes` and may leave out `retry_words`, which then come from this package's catalog) or
// two parsed OpenAPI 3.0/3.1 documents (told apart by their `openapi` member). A catalog compared
// with an OpenAPI document is compared on what both can say: which codes exist, with which status
// and retry word.
//
// Decisions (each rule's summary in BREAKING_RULES / NON_BREAKING_RULES says the same):
// - A removed code and an added code with the same status, retry word and title are one rename
//   (`code-renamed`, breaking), not a removal and an addition. Its `code` is the old name, which
//   is what consumers lose; its pointer is the new code in the after document.
// - A code added, or a retry word added, is non-breaking: an agent gives a code it does not know
//   the catalog's unknown-code rule. It is breaking for consumers whose enum is declared closed
//   (exhaustive switches, closed enums in generated clients); `closedEnums: true` counts both as
//   breaking.
// - draft -> stable (`draft-changed`) is non-breaking: the code keeps its meaning and gains a
//   stability promise. stable -> draft (`code-now-draft`) is breaking: a draft code may change or
//   go in a minor release, so the promise consumers built on is withdrawn, and a consumer that
//   adopts only stable codes loses the code as if it had been removed.
// - Each cause is reported once, where it was made: a retry word whose next_step or requires
//   changed is reported at the word (listing the codes that use it), not again at every code; a
//   code whose retry word changed gets `retry-changed` plus what that does to its next step and
//   requirements. When only one side carries its own retry_words, words are not compared and each
//   code's effective next step and requirements are compared instead.
// - A requirement dropped (a word no longer requires field or retry_after) is non-breaking: agents
//   already meet envelopes whose field or delay is null (fromResponse gives null when a response
//   did not name them), and no site's existing responses stop validating.
// - Not compared: google/stripe renderings, examples, status_defaults, readers, unknown_code.
// - OpenAPI: a document's codes are every string of an `enum` (or `const`) under a schema property
//   named `code` in its error responses (4xx, 5xx, 4XX, 5XX, default; components.responses not
//   referenced from paths count when their description starts with an error status or says none),
//   every KnownCode-like schema (components.schemas named Code, KnownCode, ErrorCode, SiteCode,
//   ProblemCode, AgentCode), and the `code` (`error.code`) of every error response example, with
//   the response's status and the example's retry word. Only local `#/...` $refs are followed:
//   bundle a spec that references files first. A code dropped from every enum is removed even if
//   examples still show it; a code in examples only is removed when it is in neither the enums nor
//   the examples of the after document.
//
// Nothing here throws on what it is given, except the one programming error of passing a side that
// is neither a catalog (an object with `codes`) nor an OpenAPI document (an object with `openapi`).
import { RETRY_WORDS } from '../../generated/catalog.js';

/** One rule of the review, as the docs table lists it. */
export interface DiffRuleInfo {
  /** A stable kebab-case id. */
  readonly rule: string;
  /** What the rule catches, in one sentence or two. */
  readonly summary: string;
  /** What to change when it fires. */
  readonly fix: string;
}

/** Changes that break consumers or sites of the contract. */
export const BREAKING_RULES = [
  {
    rule: 'code-removed',
    summary: 'A code the before document declares is gone from the after document (buf ENUM_VALUE_NO_DELETE).',
    fix: 'Keep the code until a major version; if it must go, say so in its advice first and let it be a deprecated alias of its successor.',
  },
  {
    rule: 'code-renamed',
    summary: 'A code was removed and a code with the same status, retry word and title was added: a rename, which every consumer switching on the old name sees as a removal.',
    fix: 'Keep the old code beside the new one (same status and retry word) until a major version, or keep the old name.',
  },
  {
    rule: 'status-changed',
    summary: "A code's HTTP status changed: clients and sites that route on the status see another response for the same code.",
    fix: 'Send the code with its old status; if the new status is right, add a new code with it and keep the old one.',
  },
  {
    rule: 'retry-changed',
    summary: "A code's retry word changed: agents switch on it, so the same error now asks for another action.",
    fix: 'Keep the old retry word; if the behaviour must change, add a new code with the new retry word.',
  },
  {
    rule: 'next-step-changed',
    summary: "The next_step a code is sent with changed, because the code's retry word maps to another next step or a retry word's own next_step changed.",
    fix: 'Keep the next step; a retry word that must act differently is a new retry word, and a code that must act differently is a new code.',
  },
  {
    rule: 'family-changed',
    summary: "A code moved to another family: consumers that adopt, filter or document codes by family see it come or go.",
    fix: 'Keep the family; a code that belongs elsewhere is a new code in that family.',
  },
  {
    rule: 'field-now-required',
    summary: "A code's retry word now requires the field at fault and did not before: every existing response of that code without a field stops validating.",
    fix: 'Keep the requirement as it was, or ship it in a major version after sites name the field in every such response.',
  },
  {
    rule: 'delay-now-required',
    summary: "A code's retry word now requires retry_after and did not before: every existing response of that code without a delay stops validating.",
    fix: 'Keep the requirement as it was, or ship it in a major version after sites send a delay (and Retry-After) with every such response.',
  },
  {
    rule: 'retry-word-removed',
    summary: 'A retry word is gone: agents that switch on it, and codes that use it, lose their meaning.',
    fix: 'Keep the retry word until a major version.',
  },
  {
    rule: 'code-now-draft',
    summary: 'A stable code became a draft: it may now change or go in a minor release, and consumers that adopt only stable codes lose it as if it had been removed.',
    fix: 'Keep the code stable; a new shape under discussion is a new draft code beside it.',
  },
] as const satisfies readonly DiffRuleInfo[];

/** Changes that are reported but break nobody, unless `closedEnums` says otherwise. */
export const NON_BREAKING_RULES = [
  {
    rule: 'code-added',
    summary: "A new code: agents give a code they do not know the catalog's unknown-code rule. Breaking for consumers whose enum is declared closed (exhaustive switches, closed enums in generated clients); `closedEnums: true` counts it as breaking.",
    fix: 'Nothing to change in the contract. Consumers with a closed code enum add a case (or a default branch) before they upgrade.',
  },
  {
    rule: 'retry-word-added',
    summary: 'A new retry word. Breaking for agents whose switch on retry words is closed (exhaustive switches, closed enums in generated clients); `closedEnums: true` counts it as breaking.',
    fix: 'Nothing to change in the contract. Agents with a closed switch on retry words add a case before they upgrade.',
  },
  {
    rule: 'title-changed',
    summary: "A code's title changed: text for people, which consumers must not parse.",
    fix: 'Nothing to change; check that the new title still describes every response of the code.',
  },
  {
    rule: 'advice-changed',
    summary: "A code's or a retry word's advice changed: text for people and agents' prompts, which consumers must not parse.",
    fix: 'Nothing to change; check that the advice still says what the retry word does.',
  },
  {
    rule: 'draft-changed',
    summary: 'A draft code became stable: it keeps its meaning and gains the stability promise.',
    fix: 'Nothing to change; from now on the code changes only in a major version.',
  },
  {
    rule: 'requirement-dropped',
    summary: "A code's retry word no longer requires the field at fault or a delay: responses that still carry them stay valid, and agents already handle a null field or delay.",
    fix: 'Nothing to change; agents that read the member keep handling its absence.',
  },
] as const satisfies readonly DiffRuleInfo[];

/** Every rule id of the review. */
export type DiffRule = (typeof BREAKING_RULES)[number]['rule'] | (typeof NON_BREAKING_RULES)[number]['rule'];

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

/** What a document passed to diffCatalog() is read as. */
export type ContractKind = 'catalog' | 'openapi';

// ---------------------------------------------------------------------------------------------
// Safe reading of unknown values
// ---------------------------------------------------------------------------------------------

type Obj = Record<string, unknown>;

const isRecord = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);
const own = (object: Obj, key: string): unknown => (Object.hasOwn(object, key) ? object[key] : undefined);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const int = (value: unknown): number | undefined => (typeof value === 'number' && Number.isInteger(value) ? value : undefined);
const entries = (value: unknown): [string, unknown][] => (isRecord(value) ? Object.entries(value) : []);

const escapeToken = (token: string): string => token.replace(/~/g, '~0').replace(/\//g, '~1');
const unescapeToken = (token: string): string => token.replace(/~1/g, '/').replace(/~0/g, '~');
/** The JSON pointer `base` followed by `tokens`. */
const ptr = (base: string, ...tokens: (string | number)[]): string => base + tokens.map((t) => `/${escapeToken(String(t))}`).join('');

/** A value for a message: strings quoted, numbers as they are. */
const show = (value: string | number): string => (typeof value === 'string' ? JSON.stringify(value) : String(value));
const showList = (values: Iterable<string | number>): string => [...values].map(show).join(', ');
/** A `requires` list as JSON: ["field"], or [] for none. */
const showArray = (values: Iterable<string>): string => `[${[...values].map(show).join(', ')}]`;

/** What a document is read as, or undefined when it is neither a catalog nor an OpenAPI document. */
export function contractKind(document: unknown): ContractKind | undefined {
  if (!isRecord(document)) return undefined;
  if (Object.hasOwn(document, 'openapi')) return 'openapi';
  if (Object.hasOwn(document, 'codes')) return 'catalog';
  return undefined;
}

const describe = (value: unknown): string =>
  value === null || value === undefined
    ? String(value)
    : Array.isArray(value)
      ? 'an array'
      : typeof value === 'string'
        ? 'a string (pass the parsed JSON or YAML, not its text or its path)'
        : typeof value === 'object'
          ? 'an object with neither `codes` nor `openapi`'
          : `a ${typeof value}`;

// ---------------------------------------------------------------------------------------------
// Catalogs
// ---------------------------------------------------------------------------------------------

interface WordInfo {
  readonly nextStep?: string;
  readonly requires?: ReadonlySet<string>;
  readonly advice?: string;
}

interface CodeInfo {
  /** False when the entry is not an object: the code exists, its members are not compared. */
  readonly readable: boolean;
  readonly status?: number;
  readonly retry?: string;
  readonly title?: string;
  readonly advice?: string;
  readonly family?: string;
  /** true draft, false stable (draft false or absent), undefined unreadable. */
  readonly draft?: boolean;
  readonly hasDraftMember: boolean;
}

interface CatalogSide {
  readonly codes: Map<string, CodeInfo>;
  /** The side's own retry words, or null when it carries none. */
  readonly ownWords: Map<string, WordInfo> | null;
  /** The words its codes are read with: its own, or this package's. */
  readonly words: Map<string, WordInfo>;
}

function readWord(entry: unknown): WordInfo {
  if (!isRecord(entry)) return {};
  const requires = own(entry, 'requires');
  return {
    nextStep: str(own(entry, 'next_step')),
    requires: Array.isArray(requires) ? new Set(requires.filter((r): r is string => typeof r === 'string')) : undefined,
    advice: str(own(entry, 'advice')),
  };
}

function readWords(value: unknown): Map<string, WordInfo> {
  const words = new Map<string, WordInfo>();
  for (const [word, entry] of entries(value)) words.set(word, readWord(entry));
  return words;
}

const PACKAGE_WORDS = readWords(RETRY_WORDS);

function readCode(entry: unknown): CodeInfo {
  if (!isRecord(entry)) return { readable: false, hasDraftMember: false };
  const draft = own(entry, 'draft');
  const hasDraftMember = Object.hasOwn(entry, 'draft');
  return {
    readable: true,
    status: int(own(entry, 'status')),
    retry: str(own(entry, 'retry')),
    title: str(own(entry, 'title')),
    advice: str(own(entry, 'advice')),
    family: str(own(entry, 'family')),
    draft: !hasDraftMember || draft === false ? false : draft === true ? true : undefined,
    hasDraftMember,
  };
}

function readCatalog(document: Obj): CatalogSide {
  const codes = new Map<string, CodeInfo>();
  for (const [code, entry] of entries(own(document, 'codes'))) codes.set(code, readCode(entry));
  const wordsMember = own(document, 'retry_words');
  const ownWords = isRecord(wordsMember) ? readWords(wordsMember) : null;
  return { codes, ownWords, words: ownWords ?? PACKAGE_WORDS };
}

// ---------------------------------------------------------------------------------------------
// Collecting changes
// ---------------------------------------------------------------------------------------------

interface Found {
  readonly change: Change;
  readonly breaking: boolean;
}

const BREAKING = new Set<string>(BREAKING_RULES.map((r) => r.rule));
const FIXES = new Map<string, string>([...BREAKING_RULES, ...NON_BREAKING_RULES].map((r) => [r.rule, r.fix]));
const CLOSED_ENUM_RULES = new Set<string>(['code-added', 'retry-word-added']);

class Collector {
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

const REQUIREMENTS = [
  { member: 'field', rule: 'field-now-required', what: 'the field at fault' },
  { member: 'retry_after', rule: 'delay-now-required', what: 'a delay (retry_after)' },
] as const;

/** Requirement changes between two words' `requires`, as changes at `pointer`. */
function compareRequires(
  out: Collector,
  before: ReadonlySet<string>,
  after: ReadonlySet<string>,
  pointer: string,
  subject: string,
  about: { code?: string; word?: string },
): void {
  for (const { member, rule, what } of REQUIREMENTS) {
    if (after.has(member) && !before.has(member)) {
      out.add(rule, pointer, `${subject} now requires ${what}; before it did not (requires ${showArray(before)} -> ${showArray(after)}).`, about);
    }
  }
  const dropped = [...before].filter((r) => !after.has(r));
  if (dropped.length > 0) {
    out.add('requirement-dropped', pointer, `${subject} no longer requires ${showList(dropped)} (requires ${showArray(before)} -> ${showArray(after)}).`, about);
  }
}

const codesUsing = (side: CatalogSide, word: string): string[] => [...side.codes].filter(([, c]) => c.retry === word).map(([code]) => code);
const usedBy = (codes: string[]): string => (codes.length === 0 ? 'no code uses it' : `used by ${showList(codes)}`);

function diffCatalogs(before: CatalogSide, after: CatalogSide, out: Collector): void {
  // Retry words, when both sides carry their own.
  const compareWords = before.ownWords !== null && after.ownWords !== null;
  if (before.ownWords !== null && after.ownWords !== null) {
    for (const word of before.ownWords.keys()) {
      if (!after.ownWords.has(word)) {
        out.add('retry-word-removed', ptr('', 'retry_words', word), `The retry word ${show(word)} was removed (before ${usedBy(codesUsing(before, word))}).`, { word });
      }
    }
    for (const [word, a] of after.ownWords) {
      const b = before.ownWords.get(word);
      const at = ptr('', 'retry_words', word);
      if (b === undefined) {
        out.add('retry-word-added', at, `New retry word ${show(word)}${a.nextStep !== undefined ? ` (next_step ${show(a.nextStep)})` : ''}. Agents whose switch on retry words is closed (exhaustive switches, closed enums in generated clients) break on it.`, { word });
        continue;
      }
      if (b.nextStep !== undefined && a.nextStep !== undefined && b.nextStep !== a.nextStep) {
        out.add('next-step-changed', ptr(at, 'next_step'), `The retry word ${show(word)} now maps to next_step ${show(a.nextStep)}, not ${show(b.nextStep)} (${usedBy(codesUsing(after, word))}).`, { word });
      }
      if (b.requires !== undefined && a.requires !== undefined) {
        compareRequires(out, b.requires, a.requires, ptr(at, 'requires'), `The retry word ${show(word)} (${usedBy(codesUsing(after, word))})`, { word });
      }
      if (b.advice !== undefined && a.advice !== undefined && b.advice !== a.advice) {
        out.add('advice-changed', ptr(at, 'advice'), `The advice of the retry word ${show(word)} changed: ${show(b.advice)} -> ${show(a.advice)}.`, { word });
      }
    }
  }

  // Codes removed, renamed, and added.
  const removed = [...before.codes.keys()].filter((code) => !after.codes.has(code));
  const added = [...after.codes.keys()].filter((code) => !before.codes.has(code));
  const renamedTo = new Map<string, string>();
  const taken = new Set<string>();
  for (const old of removed) {
    const b = before.codes.get(old)!;
    if (b.status === undefined || b.retry === undefined || b.title === undefined) continue;
    const match = added.find((code) => {
      const a = after.codes.get(code)!;
      return !taken.has(code) && a.status === b.status && a.retry === b.retry && a.title === b.title;
    });
    if (match !== undefined) {
      renamedTo.set(old, match);
      taken.add(match);
    }
  }
  for (const old of removed) {
    const renamed = renamedTo.get(old);
    if (renamed !== undefined) {
      const b = before.codes.get(old)!;
      out.add(
        'code-renamed',
        ptr('', 'codes', renamed),
        `The code ${show(old)} was renamed to ${show(renamed)} (same status ${b.status}, retry word ${show(b.retry!)} and title ${show(b.title!)}); consumers switching on ${show(old)} lose it.`,
        { code: old },
        `Keep ${show(old)} beside ${show(renamed)} (status ${b.status}, retry ${show(b.retry!)}) until a major version, or keep the old name.`,
      );
    } else {
      const b = before.codes.get(old)!;
      out.add('code-removed', ptr('', 'codes', old), `The code ${show(old)}${b.status !== undefined ? ` (status ${b.status})` : ''} was removed.`, { code: old }, `Put ${show(old)} back; keep it until a major version, and if it must go, say so in its advice first.`);
    }
  }

  // Codes on both sides.
  for (const [code, a] of after.codes) {
    const b = before.codes.get(code);
    if (b === undefined || !a.readable || !b.readable) continue;
    const at = (member: string): string => ptr('', 'codes', code, member);
    const about = { code };
    if (b.status !== undefined && a.status !== undefined && b.status !== a.status) {
      out.add('status-changed', at('status'), `The code ${show(code)} is now sent with status ${a.status}, not ${b.status}.`, about, `Send ${show(code)} with status ${b.status} again; if ${a.status} is right, add a new code with status ${a.status} and keep ${show(code)}.`);
    }
    const retryChanged = b.retry !== undefined && a.retry !== undefined && b.retry !== a.retry;
    if (retryChanged) {
      out.add('retry-changed', at('retry'), `The code ${show(code)} now has retry word ${show(a.retry!)}, not ${show(b.retry!)}.`, about, `Give ${show(code)} the retry word ${show(b.retry!)} again; if agents must act differently, add a new code with ${show(a.retry!)}.`);
    }
    // What the code's retry word means: compared here when the word changed, or when the words
    // themselves were not compared above.
    if ((retryChanged || !compareWords) && b.retry !== undefined && a.retry !== undefined) {
      const bw = before.words.get(b.retry);
      const aw = after.words.get(a.retry);
      const via = b.retry === a.retry ? `its retry word ${show(a.retry)}` : `its retry word ${show(a.retry)} (was ${show(b.retry)})`;
      if (bw?.nextStep !== undefined && aw?.nextStep !== undefined && bw.nextStep !== aw.nextStep) {
        out.add('next-step-changed', at('retry'), `The code ${show(code)} now goes out with next_step ${show(aw.nextStep)}, not ${show(bw.nextStep)}, through ${via}.`, { code, word: a.retry });
      }
      if (bw?.requires !== undefined && aw?.requires !== undefined) {
        compareRequires(out, bw.requires, aw.requires, at('retry'), `The code ${show(code)}, through ${via},`, { code, word: a.retry });
      }
    }
    if (b.family !== undefined && a.family !== undefined && b.family !== a.family) {
      out.add('family-changed', at('family'), `The code ${show(code)} moved from the family ${show(b.family)} to ${show(a.family)}.`, about);
    }
    if (b.draft === false && a.draft === true) {
      out.add('code-now-draft', a.hasDraftMember ? at('draft') : ptr('', 'codes', code), `The stable code ${show(code)} became a draft.`, about);
    } else if (b.draft === true && a.draft === false) {
      out.add('draft-changed', a.hasDraftMember ? at('draft') : ptr('', 'codes', code), `The draft code ${show(code)} became stable.`, about);
    }
    if (b.title !== undefined && a.title !== undefined && b.title !== a.title) {
      out.add('title-changed', at('title'), `The title of ${show(code)} changed: ${show(b.title)} -> ${show(a.title)}.`, about);
    }
    if (b.advice !== undefined && a.advice !== undefined && b.advice !== a.advice) {
      out.add('advice-changed', at('advice'), `The advice of ${show(code)} changed: ${show(b.advice)} -> ${show(a.advice)}.`, about);
    }
  }

  for (const code of added) {
    if (taken.has(code)) continue;
    const a = after.codes.get(code)!;
    const what = [a.status !== undefined ? `status ${a.status}` : '', a.retry !== undefined ? `retry ${show(a.retry)}` : ''].filter(Boolean).join(', ');
    out.add('code-added', ptr('', 'codes', code), `New code ${show(code)}${what ? ` (${what})` : ''}. Non-breaking for agents, which give a code they do not know the catalog's unknown-code rule; breaking for consumers whose enum is declared closed (exhaustive switches, closed enums in generated clients).`, { code });
  }
}

// ---------------------------------------------------------------------------------------------
// OpenAPI documents: the codes each declares
// ---------------------------------------------------------------------------------------------

/** What one document declares about its codes; each map keeps the first pointer found. */
interface Declared {
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
    if (isRecord(node)) node = own(node, token);
    else if (Array.isArray(node) && /^(?:0|[1-9]\d*)$/.test(token)) node = node[Number(token)];
    else return undefined;
    if (node === undefined) return undefined;
  }
  return { node, pointer: ptr('', ...tokens) };
}

/** `node` with its chain of local `$ref`s followed (at most MAX_REF_HOPS). */
function follow(root: unknown, node: unknown, pointer: string): Located {
  let here: Located = { node, pointer };
  for (let hop = 0; hop < MAX_REF_HOPS && isRecord(here.node); hop++) {
    const ref = str(own(here.node, '$ref'));
    if (ref === undefined) break;
    const target = resolveRef(root, ref);
    if (target === undefined) break;
    here = target;
  }
  return here;
}

class OpenApiReader {
  readonly declared = newDeclared();
  constructor(private readonly root: Obj) {}

  /** Every code string of an enum or const at `node` (through $ref, allOf, anyOf, oneOf). */
  enumCodes(node: unknown, pointer: string, seen: Set<object>, depth: number): void {
    if (depth > MAX_DEPTH || !isRecord(node) || seen.has(node)) return;
    seen.add(node);
    const ref = str(own(node, '$ref'));
    if (ref !== undefined) {
      const target = resolveRef(this.root, ref);
      if (target !== undefined) this.enumCodes(target.node, target.pointer, seen, depth + 1);
    }
    const values = own(node, 'enum');
    if (Array.isArray(values)) {
      for (let i = 0; i < values.length; i++) {
        const code = values[i];
        if (typeof code === 'string' && code !== '') first(this.declared.enums, code, ptr(pointer, 'enum', i));
      }
    }
    const constant = own(node, 'const');
    if (typeof constant === 'string' && constant !== '') first(this.declared.enums, constant, ptr(pointer, 'const'));
    for (const key of ['allOf', 'anyOf', 'oneOf']) {
      const list = own(node, key);
      if (Array.isArray(list)) for (let i = 0; i < list.length; i++) this.enumCodes(list[i], ptr(pointer, key, i), seen, depth + 1);
    }
  }

  /** Walks an error body schema for properties named `code`. */
  schema(node: unknown, pointer: string, seen: Set<object>, depth: number): void {
    if (depth > MAX_DEPTH || !isRecord(node) || seen.has(node)) return;
    seen.add(node);
    const ref = str(own(node, '$ref'));
    if (ref !== undefined) {
      const target = resolveRef(this.root, ref);
      if (target !== undefined) this.schema(target.node, target.pointer, seen, depth + 1);
    }
    for (const [name, property] of entries(own(node, 'properties'))) {
      const at = ptr(pointer, 'properties', name);
      if (name === 'code') this.enumCodes(property, at, new Set(), 0);
      this.schema(property, at, seen, depth + 1);
    }
    for (const key of ['items', 'additionalProperties', 'then', 'else']) this.schema(own(node, key), ptr(pointer, key), seen, depth + 1);
    for (const key of ['allOf', 'anyOf', 'oneOf', 'prefixItems']) {
      const list = own(node, key);
      if (Array.isArray(list)) for (let i = 0; i < list.length; i++) this.schema(list[i], ptr(pointer, key, i), seen, depth + 1);
    }
  }

  /** The code an error example shows, with its status and retry word. */
  example(value: unknown, pointer: string, status: number | undefined, trusted: boolean): void {
    if (!isRecord(value)) return;
    const error = own(value, 'error');
    if (isRecord(error)) {
      const code = str(own(error, 'code'));
      if (code) this.shown(code, ptr(pointer, 'error', 'code'), status, str(own(error, 'retry')), ptr(pointer, 'error', 'retry'), undefined);
    }
    const code = str(own(value, 'code'));
    if (!code) return;
    const bodyStatus = int(own(value, 'status'));
    const errorStatus = bodyStatus !== undefined && bodyStatus >= 400 && bodyStatus <= 599 ? bodyStatus : undefined;
    const retry = str(own(value, 'retry'));
    // A body of unknown status counts only when it looks like an error: an error status, a next step or a retry word.
    if (!trusted && errorStatus === undefined && retry === undefined && str(own(value, 'next_step')) === undefined) return;
    this.shown(code, ptr(pointer, 'code'), status ?? errorStatus, retry, ptr(pointer, 'retry'), str(own(value, 'title')));
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
    const schemas = isRecord(components) ? own(components, 'schemas') : undefined;
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
    const responses = isRecord(components) ? own(components, 'responses') : undefined;
    for (const [name, rawResponse] of entries(responses)) {
      const response = follow(root, rawResponse, ptr('', 'components', 'responses', name));
      if (done.has(response.node) || !isRecord(response.node)) continue;
      done.add(response.node);
      const description = str(own(response.node, 'description'));
      const match = description === undefined ? null : /^\s*([1-5]\d\d)\b/.exec(description);
      const status = match ? Number(match[1]) : undefined;
      if (status !== undefined && status < 400) continue;
      this.response(response.node, response.pointer, status, status !== undefined);
    }
    return this.declared;
  }
}

/** A catalog as an OpenAPI document would declare it, for comparing one with the other. */
function catalogDeclared(side: CatalogSide): Declared {
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

function diffDeclared(before: Declared, after: Declared, out: Collector): void {
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

// ---------------------------------------------------------------------------------------------
// The review
// ---------------------------------------------------------------------------------------------

/**
 * The breaking-change review of an error contract: `before` and `after` are two parsed catalogs
 * (shaped like schema/catalog.json, or a site's extension catalog) or two parsed OpenAPI 3.0/3.1
 * documents. Breaking changes first, then the changes reported as non-breaking; see BREAKING_RULES
 * and NON_BREAKING_RULES. Never throws on what the documents contain; throws a TypeError only when
 * a side is neither a catalog (an object with `codes`) nor an OpenAPI document (one with `openapi`).
 */
export function diffCatalog(before: unknown, after: unknown, options: DiffOptions = {}): DiffResult {
  const kinds = [before, after].map((document, i) => {
    const kind = contractKind(document);
    if (kind === undefined) {
      throw new TypeError(
        `diffCatalog: the ${i === 0 ? 'before' : 'after'} document must be a parsed error catalog (an object with a \`codes\` member, like schema/catalog.json) or a parsed OpenAPI 3.0/3.1 document (an object with an \`openapi\` member); got ${describe(document)}.`,
      );
    }
    return kind;
  });
  const out = new Collector(options.closedEnums === true);
  const b = before as Obj;
  const a = after as Obj;
  if (kinds[0] === 'catalog' && kinds[1] === 'catalog') {
    diffCatalogs(readCatalog(b), readCatalog(a), out);
  } else {
    const declared = (document: Obj, kind: ContractKind | undefined): Declared =>
      kind === 'openapi' ? new OpenApiReader(document).read() : catalogDeclared(readCatalog(document));
    diffDeclared(declared(b, kinds[0]), declared(a, kinds[1]), out);
  }
  return out.result();
}

/** One line of text per change, breaking first, then a summary line (no final newline); what the CLI prints. */
export function formatDiff(result: DiffResult): string {
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
