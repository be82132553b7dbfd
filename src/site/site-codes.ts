// A site's own codes (seed 000: "Sites may add their own codes"), as `codegen --extend` writes them:
// the generated errors.js registers them once, on import, and from then on they are built, titled
// and documented like the catalog's own: the builder takes the code alone, and every adapter serves
// its /problems/<code> page.
import type { RetryWord } from '../../generated/types.js';

/** A site's own code as its extension catalog gives it. */
export interface SiteCodeEntry {
  readonly status: number;
  readonly retry: RetryWord;
  readonly title: string;
  readonly advice?: string;
}

/** The site's own codes registered so far, each with the HTML of its documentation page when it has one. */
export const SITE_CODES = new Map<string, SiteCodeEntry & { readonly page?: string }>();
