// XML error bodies: S3's `<Error><Code>SlowDown</Code><Message>...</Message></Error>`
// (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html), the AWS query protocol's
// `<ErrorResponse><Error><Type>Sender</Type><Code>Throttling</Code>...</Error></ErrorResponse>`,
// EC2's `<Response><Errors><Error>` and Azure Storage's `<Error><Code>AuthenticationFailed</Code>`.
// Parsed by @rgrove/parse-xml, which never loads an external DTD nor expands an entity a DTD
// declares (so no billion laughs), from the bounded prefix fromResponse reads.
import { parseXml, XmlElement } from '@rgrove/parse-xml';
import { setMember } from './json.js';

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

// The shapes nearly every S3, Azure Storage and AWS query-protocol error has: an optional XML
// declaration, then <Error> as the root or inside an <ErrorResponse> root (with its namespace, and
// siblings such as <RequestId> after it), holding only elements of plain text. Such a document is
// read by sticky patterns; anything else (other attributes, entities, CDATA, nesting, another
// wrapper, a character XML treats specially) goes to the parser. A property test holds the two to
// the same answers on every flat document.
const FLAT_OPEN =
  /\uFEFF?(?:<\?xml version="1\.0"(?: encoding="(?:UTF|utf)-8")?\?>)?[ \t\n]*(<ErrorResponse(?: xmlns="[^"<>&\u0000-\u001f\ud800-\udfff\ufffe\uffff]{0,256}")?>[ \t\n]*)?<Error>/y;
const FLAT_CHILD = /[ \t\n]*<([A-Za-z_][A-Za-z0-9_.-]{0,63})>([^<>&\]\r\u0000-\u0008\u000b\u000c\u000e-\u001f\ud800-\udfff\ufffe\uffff]*)<\/\1>/y;
const FLAT_CLOSE = /[ \t\n]*<\/Error>[ \t\n]*$/y;
const FLAT_ERROR_END = /[ \t\n]*<\/Error>/y;
const FLAT_WRAPPER_CLOSE = /[ \t\n]*<\/ErrorResponse>[ \t\n]*$/y;

/** Where the flat children starting at `at` end. */
function afterChildren(text: string, at: number, each?: (name: string, value: string) => void): number {
  for (;;) {
    FLAT_CHILD.lastIndex = at;
    const child = FLAT_CHILD.exec(text);
    if (!child) return at;
    each?.(child[1]!, child[2]!);
    at = FLAT_CHILD.lastIndex;
  }
}

/** Whether sticky `pattern` matches `text` at `at`. */
function matchesAt(pattern: RegExp, text: string, at: number): boolean {
  pattern.lastIndex = at;
  return pattern.test(text);
}

/** The children of a flat <Error> document, as xmlError gives them; undefined when the document is not flat. */
function flatError(text: string, rootOnly: boolean): Record<string, string> | null | undefined {
  FLAT_OPEN.lastIndex = 0;
  const open = FLAT_OPEN.exec(text);
  if (!open) return undefined;
  const wrapped = open[1] !== undefined;
  const fields: Record<string, string> = {};
  let size = 0;
  const at = afterChildren(text, FLAT_OPEN.lastIndex, (name, value) => {
    if (Object.hasOwn(fields, name)) return;
    setMember(fields, name, value.trim());
    size++;
  });
  if (!wrapped) return matchesAt(FLAT_CLOSE, text, at) ? (size > 0 ? fields : null) : undefined;
  if (!matchesAt(FLAT_ERROR_END, text, at) || !matchesAt(FLAT_WRAPPER_CLOSE, text, afterChildren(text, FLAT_ERROR_END.lastIndex))) return undefined;
  return size > 0 && !rootOnly ? fields : null;
}

/**
 * The children of an XML body's <Error> element as a record of their text (`Code`, `Message`,
 * `ArgumentName`, ...), or null when the body is no XML error document or does not parse; with
 * `rootOnly`, only a document whose root is <Error> counts. Never throws.
 */
export function xmlError(text: string, rootOnly = false): Record<string, string> | null {
  if (!LOOKS_LIKE.test(text) || !HAS_ERROR.test(text.slice(0, 4096))) return null;
  const flat = flatError(text, rootOnly);
  return flat === undefined ? parsedError(text, rootOnly) : flat;
}

/** xmlError through the parser, for any document. Exported for the property that holds the flat reading to it. */
export function parsedError(text: string, rootOnly = false): Record<string, string> | null {
  try {
    const root = parseXml(text, { ignoreUndefinedEntities: true }).root;
    const error = root ? (rootOnly ? (root.name === 'Error' ? root : null) : findError(root, 0)) : null;
    if (!error) return null;
    // setMember: an element named __proto__ becomes a member, never the prototype.
    const fields: Record<string, string> = {};
    let size = 0;
    for (const child of error.children) {
      if (child instanceof XmlElement && !Object.hasOwn(fields, child.name)) {
        setMember(fields, child.name, child.text.trim());
        size++;
      }
    }
    return size > 0 ? fields : null;
  } catch {
    return null;
  }
}
