// XML error bodies: S3's `<Error><Code>SlowDown</Code><Message>...</Message></Error>`
// (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html), the AWS query protocol's
// `<ErrorResponse><Error><Type>Sender</Type><Code>Throttling</Code>...</Error></ErrorResponse>`,
// EC2's `<Response><Errors><Error>` and Azure Storage's `<Error><Code>AuthenticationFailed</Code>`.
// Parsed by @rgrove/parse-xml, which never loads an external DTD nor expands an entity a DTD
// declares (so no billion laughs), from the bounded prefix fromResponse reads.
import { parseXml, XmlElement } from '@rgrove/parse-xml';

/** A body worth parsing: an XML declaration or a root element that holds an error, near its start. */
const LOOKS_LIKE = /^(?:\uFEFF)?\s*<(?:\?xml\b|Error\b|ErrorResponse\b|Response\b)/;
const HAS_ERROR = /<Error[\s>]/;
/** How deep an <Error> element is looked for: ErrorResponse > Error, Response > Errors > Error. */
const MAX_DEPTH = 3;

/** The first <Error> element at most MAX_DEPTH levels down. */
function findError(element: XmlElement, depth: number): XmlElement | null {
  if (element.name === 'Error') return element;
  if (depth >= MAX_DEPTH) return null;
  for (const child of element.children) {
    if (!(child instanceof XmlElement)) continue;
    const found = findError(child, depth + 1);
    if (found) return found;
  }
  return null;
}

// The shape nearly every S3 and Azure Storage error has: an optional XML declaration (UTF-8 or utf-8), then <Error>
// as the root, holding only elements of plain text. Such a document is read by two sticky patterns;
// anything else (attributes, entities, CDATA, nesting, a wrapper, a character XML treats specially)
// goes to the parser. A property test holds the two to the same answers on every flat document.
const FLAT_OPEN = /\uFEFF?(?:<\?xml version="1\.0"(?: encoding="(?:UTF|utf)-8")?\?>)?[ \t\n]*<Error>/y;
const FLAT_CHILD = /[ \t\n]*<([A-Za-z_][A-Za-z0-9_.-]{0,63})>([^<>&\]\r\u0000-\u0008\u000b\u000c\u000e-\u001f\ud800-\udfff\ufffe\uffff]*)<\/\1>/y;
const FLAT_CLOSE = /[ \t\n]*<\/Error>[ \t\n]*$/y;

/** The children of a flat <Error> document, as xmlError gives them; undefined when the document is not flat. */
function flatError(text: string): Record<string, string> | null | undefined {
  FLAT_OPEN.lastIndex = 0;
  if (!FLAT_OPEN.test(text)) return undefined;
  const fields = new Map<string, string>();
  let at = FLAT_OPEN.lastIndex;
  for (;;) {
    FLAT_CHILD.lastIndex = at;
    const child = FLAT_CHILD.exec(text);
    if (!child) break;
    if (!fields.has(child[1]!)) fields.set(child[1]!, child[2]!.trim());
    at = FLAT_CHILD.lastIndex;
  }
  FLAT_CLOSE.lastIndex = at;
  if (!FLAT_CLOSE.test(text)) return undefined;
  return fields.size > 0 ? Object.fromEntries(fields) : null;
}

/**
 * The children of an XML body's <Error> element as a record of their text (`Code`, `Message`,
 * `ArgumentName`, ...), or null when the body is no XML error document or does not parse; with
 * `rootOnly`, only a document whose root is <Error> counts. Never throws.
 */
export function xmlError(text: string, rootOnly = false): Record<string, string> | null {
  if (!LOOKS_LIKE.test(text) || !HAS_ERROR.test(text.slice(0, 4096))) return null;
  const flat = flatError(text);
  return flat === undefined ? parsedError(text, rootOnly) : flat;
}

/** xmlError through the parser, for any document. Exported for the property that holds the flat reading to it. */
export function parsedError(text: string, rootOnly = false): Record<string, string> | null {
  try {
    const root = parseXml(text, { ignoreUndefinedEntities: true }).root;
    const error = root ? (rootOnly ? (root.name === 'Error' ? root : null) : findError(root, 0)) : null;
    if (!error) return null;
    // A Map, then fromEntries: an element named __proto__ becomes a member, never the prototype.
    const fields = new Map<string, string>();
    for (const child of error.children) {
      if (child instanceof XmlElement && !fields.has(child.name)) fields.set(child.name, child.text.trim());
    }
    return fields.size > 0 ? Object.fromEntries(fields) : null;
  } catch {
    return null;
  }
}
