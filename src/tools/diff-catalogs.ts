// The catalog side of diffCatalog(): two parsed catalogs (shaped like schema/catalog.json; a site's
// extension catalog has the same `codes` and may leave out `retry_words`, which then come from this
// package's catalog), compared code by code and retry word by retry word.
//
// Each cause is reported once, where it was made: a retry word whose next_step or requires changed
// is reported at the word (listing the codes that use it), not again at every code; a code whose
// retry word changed gets `retry-changed` plus what that does to its next step and requirements.
// When only one side carries its own retry_words, words are not compared and each code's effective
// next step and requirements are compared instead. Not compared: google/stripe renderings,
// examples, status_defaults, readers, unknown_code.
import { RETRY_WORDS } from '../../generated/catalog.js';
import { asInteger, asString, entries, isRecord, own, pointer as ptr, type JsonObject } from '../core/json.js';
import { show, showList, type Collector } from './diff-changes.js';

/** A `requires` list as JSON: ["field"], or [] for none. */
const showArray = (values: Iterable<string>): string => `[${[...values].map(show).join(', ')}]`;

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

/** One side of a catalog comparison: its codes and its own retry words, as read. */
export interface CatalogSide {
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
    nextStep: asString(own(entry, 'next_step')),
    requires: Array.isArray(requires) ? new Set(requires.filter((r): r is string => typeof r === 'string')) : undefined,
    advice: asString(own(entry, 'advice')),
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
    status: asInteger(own(entry, 'status')),
    retry: asString(own(entry, 'retry')),
    title: asString(own(entry, 'title')),
    advice: asString(own(entry, 'advice')),
    family: asString(own(entry, 'family')),
    draft: !hasDraftMember || draft === false ? false : draft === true ? true : undefined,
    hasDraftMember,
  };
}

/** A catalog as the review reads it; an entry of unexpected shape is kept, unread, rather than reported on. */
export function readCatalog(document: JsonObject): CatalogSide {
  const codes = new Map<string, CodeInfo>();
  for (const [code, entry] of entries(own(document, 'codes'))) codes.set(code, readCode(entry));
  const wordsMember = own(document, 'retry_words');
  const ownWords = isRecord(wordsMember) ? readWords(wordsMember) : null;
  return { codes, ownWords, words: ownWords ?? PACKAGE_WORDS };
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

/** The changes from the catalog `before` to the catalog `after`, added to `out`. */
export function diffCatalogs(before: CatalogSide, after: CatalogSide, out: Collector): void {
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
