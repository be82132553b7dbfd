// The HTML a browser is shown, in a module loaded only when a page is sent, and importing nothing a
// site's entry loads anyway: the page of a thrown AgentError, and the documentation page of a code.
import type { CODES, RETRY_WORDS } from '../../generated/catalog.js';
import { PROBLEM_PAGES } from '../../generated/problem-pages.js';
import type { AgentError } from './agent-error.js';

/** Text as HTML: every character that could open markup or close an attribute, as a character reference. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The page of a thrown AgentError: its title, its message, the advice of its code (of its retry word
 * for a site's own code, unless `site` gives its own), the field to fix and the seconds to wait when
 * it names them, and a link to the code's documentation page under `docs`, a path prefix (null for
 * none; a site's own code has one when `site` gives its page); every value escaped, and never a stack trace. `codes` and `words` are the catalog's, given
 * rather than imported, so that this module's chunk holds nothing a site's entry loads already.
 */
export function errorPage(error: AgentError, docs: string | null, codes: typeof CODES, words: typeof RETRY_WORDS, site?: { readonly advice?: string; readonly page?: string }): string {
  // A site's own code registered with its page (defineSiteCodes) links to it as a catalog code does.
  const known = Object.hasOwn(codes, error.code) || site?.page !== undefined;
  const [title, message, advice] = [error.title, error.message, (codes[error.code as keyof typeof codes] ?? site ?? words[error.retry]).advice ?? words[error.retry].advice].map(escapeHtml);
  return (
    `<!doctype html><html lang="en"><meta charset="utf-8"><title>${title}</title><h1>${title}</h1>` +
    (message === title ? '' : `<p>${message}</p>`) +
    `<p>${advice}</p>` +
    (error.field === null ? '' : `<p>Field: <code>${escapeHtml(error.field)}</code></p>`) +
    (error.retryAfter === null ? '' : `<p>Retry after: ${error.retryAfter} s</p>`) +
    (known && docs !== null ? `<p><a href="${escapeHtml(docs)}/problems/${error.code}">${error.code}</a></p>` : '') +
    '</html>\n'
  );
}

/**
 * The documentation page of a catalog code: its catalog `entry` as JSON for an agent, else (`entry`
 * null) its HTML page, the example type URI on `base`, the site's own, rather than on `example`, the
 * catalog's example origin. A site's own code gives its `page`.
 */
export function docsPage(code: string, entry: object | null, example: string, base: string, page = PROBLEM_PAGES[code]!): { status: number; headers: Record<string, string>; body: string } {
  const [type, body] = entry
    ? ['application/json', JSON.stringify({ code, ...entry })]
    : ['text/html', page.replaceAll(example, escapeHtml(base.replace(/\/+$/, '')))];
  return { status: 200, headers: { 'content-type': `${type}; charset=utf-8`, vary: 'Accept' }, body };
}
