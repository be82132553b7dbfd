// Reads the little an error page says about itself, its <title> and first <h1>, in linear time:
// index scans and fixed tag patterns over a bounded prefix, none that can backtrack.

/** The longest message this package derives from a page. */
export const MAX_MESSAGE_LENGTH = 200;

const NAMED: Readonly<Record<string, string>> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', ndash: '–', mdash: '—', hellip: '…',
  lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”', copy: '©', reg: '®', middot: '·', bull: '•',
};

/** Decodes the HTML character references that page titles use: named ones above, decimal and hex. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z]{2,8});/g, (whole, ref: string) => {
    if (ref[0] !== '#') return Object.hasOwn(NAMED, ref) ? NAMED[ref]! : whole;
    const point = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    // Surrogates, NUL and values past Unicode's end are not characters.
    return point > 0 && point <= 0x10ffff && (point < 0xd800 || point > 0xdfff) ? String.fromCodePoint(point) : '\uFFFD';
  });
}

/** Removes tags from a fragment, keeping their text, by one left-to-right scan. */
function stripTags(fragment: string): string {
  let out = '';
  let i = 0;
  while (i < fragment.length) {
    const open = fragment.indexOf('<', i);
    if (open < 0) {
      out += fragment.slice(i);
      break;
    }
    out += fragment.slice(i, open);
    const close = fragment.indexOf('>', open + 1);
    if (close < 0) break; // an unterminated tag: nothing after it is text
    out += ' ';
    i = close + 1;
  }
  return out;
}

/** Anything flatten would change: a reference, white space other than one inner space, a control character. */
const NOT_FLAT = /&|[^\S ]|[\u0000-\u001f\u007f]| {2}|^ | $/;

/** Decodes references and collapses white space and control characters to single spaces. */
function flatten(text: string): string {
  // Most messages are already flat: one test instead of two replacements and a trim.
  if (!NOT_FLAT.test(text)) return text;
  return decodeEntities(text).replace(/[\s\u0000-\u001f\u007f]+/g, ' ').trim();
}

/** A pattern that matches any of `literals`, as written: one pass over a text, however many there are. */
export const anyOfPattern = (literals: readonly string[], flags = ''): RegExp => new RegExp(literals.map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), flags);

/** The first line of `text` (up to a CR LF or LF), by index: what split(/\r?\n/, 1)[0] gives, without a regular expression. */
export function firstLine(text: string): string {
  const end = text.indexOf('\n');
  if (end < 0) return text;
  return text.slice(0, end > 0 && text.charCodeAt(end - 1) === 13 ? end - 1 : end);
}

/** Collapses white space, decodes references, and cuts to MAX_MESSAGE_LENGTH at a word if it can. */
export function cleanText(text: string): string {
  const flat = flatten(text);
  if (flat.length <= MAX_MESSAGE_LENGTH) return flat;
  const cut = flat.slice(0, MAX_MESSAGE_LENGTH - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > MAX_MESSAGE_LENGTH / 2 ? cut.slice(0, space) : cut}…`;
}

// The opening tags of the two elements a page is read for (<title> or <title ...>, not <titles>
// or <h1x>) and their closing tags, in any case: the page is searched as it is, never lowercased.
const OPENING = { title: /<title[> \t\n\r/]/gi, h1: /<h1[> \t\n\r/]/gi } as const;
const CLOSING = { title: /<\/title/gi, h1: /<\/h1/gi } as const;

/**
 * The text inside the first `<tag ...>...</tag>` of a page, or null. An unclosed element runs to
 * the end of the page, as a browser reads an unclosed title. The text is not cut: whoever shows
 * it cuts it, after looking at all of it (a stack trace can follow a long line).
 */
function element(page: string, tag: keyof typeof OPENING): string | null {
  const opening = OPENING[tag];
  opening.lastIndex = 0;
  if (!opening.test(page)) return null;
  const open = page.indexOf('>', opening.lastIndex - 1);
  if (open < 0) return null;
  const closing = CLOSING[tag];
  closing.lastIndex = open + 1;
  const end = closing.test(page) ? closing.lastIndex - (tag.length + 2) : page.length; // at the closing tag's "</"
  const text = flatten(stripTags(page.slice(open + 1, end)));
  return text === '' ? null : text;
}

/** What a page says about itself. */
export interface PageSummary {
  /** The page as given. */
  readonly text: string;
  readonly title: string | null;
  readonly heading: string | null;
}

/** Reads an HTML (or any text) page's title and main heading. */
export function readPage(page: string): PageSummary {
  return { text: page, title: element(page, 'title'), heading: element(page, 'h1') };
}
