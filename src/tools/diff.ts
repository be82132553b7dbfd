// diffCatalog(): the breaking-change review of an error contract, the way `buf breaking` treats
// enums (ENUM_VALUE_NO_DELETE, ENUM_VALUE_SAME_NAME) and oasdiff treats response enums
// (response-property-enum-value-removed/-added, response-non-success-status-removed).
//
// It compares two parsed catalogs (diff-catalogs.ts) or two parsed OpenAPI 3.0/3.1 documents (told
// apart by their `openapi` member; diff-openapi.ts). A catalog compared with an OpenAPI document is
// compared on what both can say: which codes exist, with which status and retry word. The rules, and
// which of them break consumers, are schema data (schema/diff-rules.json, generated/diff-rules.ts).
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
// - A requirement dropped (a word no longer requires field or retry_after) is non-breaking: agents
//   already meet envelopes whose field or delay is null (fromResponse gives null when a response
//   did not name them), and no site's existing responses stop validating.
//
// Nothing here throws on what the documents contain; a side that is neither a catalog (an object
// with `codes`) nor an OpenAPI document (an object with `openapi`), or an option of the wrong type,
// is a TypeError naming diffCatalog.
import { isRecord, type JsonObject } from '../core/json.js';
import { checkRules, refuse, type Checks } from '../core/refuse.js';
import { diffCatalogs, readCatalog } from './diff-catalogs.js';
import { Collector, type DiffOptions, type DiffResult } from './diff-changes.js';
import { catalogDeclared, diffDeclared, openApiDeclared, type Declared } from './diff-openapi.js';

export { BREAKING_RULES, NON_BREAKING_RULES, type DiffRule } from '../../generated/diff-rules.js';
export { formatDiff, type Change, type DiffOptions, type DiffResult, type DiffRuleInfo } from './diff-changes.js';

/** What a document passed to diffCatalog() is read as. */
export type ContractKind = 'catalog' | 'openapi';

/** What a document is read as, or undefined when it is neither a catalog nor an OpenAPI document. */
export function contractKind(document: unknown): ContractKind | undefined {
  if (!isRecord(document)) return undefined;
  if (Object.hasOwn(document, 'openapi')) return 'openapi';
  if (Object.hasOwn(document, 'codes')) return 'catalog';
  return undefined;
}

/** What each option of diffCatalog() takes. */
const DIFF_CHECKS: Checks<DiffOptions> = {
  closedEnums: [(value) => typeof value === 'boolean', 'true or false'],
};

/**
 * The breaking-change review of an error contract: `before` and `after` are two parsed catalogs
 * (shaped like schema/catalog.json, or a site's extension catalog) or two parsed OpenAPI 3.0/3.1
 * documents. Breaking changes first, then the changes reported as non-breaking; see BREAKING_RULES
 * and NON_BREAKING_RULES. Never throws on what the documents contain; throws a TypeError naming
 * diffCatalog when a side is neither a catalog (an object with `codes`) nor an OpenAPI document (one
 * with `openapi`), or an option is unknown or of the wrong type.
 */
export function diffCatalog(before: unknown, after: unknown, options: DiffOptions = {}): DiffResult {
  const kinds = [before, after].map((document, i) => {
    const kind = contractKind(document);
    if (kind === undefined) {
      // Text read from a file is the commonest mistake: say what to pass instead.
      const hint = typeof document === 'string' ? ', parsed from its JSON or YAML (not its text or its path)' : '';
      refuse('diffCatalog', i === 0 ? 'before' : 'after', `a parsed error catalog (an object with a \`codes\` member, like schema/catalog.json) or a parsed OpenAPI 3.0/3.1 document (an object with an \`openapi\` member)${hint}`, document);
    }
    return kind;
  });
  checkRules('diffCatalog', options, DIFF_CHECKS);
  const out = new Collector(options.closedEnums === true);
  const b = before as JsonObject;
  const a = after as JsonObject;
  if (kinds[0] === 'catalog' && kinds[1] === 'catalog') {
    diffCatalogs(readCatalog(b), readCatalog(a), out);
  } else {
    const declared = (document: JsonObject, kind: ContractKind | undefined): Declared =>
      kind === 'openapi' ? openApiDeclared(document) : catalogDeclared(readCatalog(document));
    diffDeclared(declared(b, kinds[0]), declared(a, kinds[1]), out);
  }
  return out.result();
}
