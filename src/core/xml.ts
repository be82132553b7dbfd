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

/**
 * The children of an XML body's <Error> element as a record of their text (`Code`, `Message`,
 * `ArgumentName`, ...), or null when the body is no XML error document or does not parse; with
 * `rootOnly`, only a document whose root is <Error> counts. Never throws.
 */
export function xmlError(text: string, rootOnly = false): Record<string, string> | null {
  if (!LOOKS_LIKE.test(text) || !HAS_ERROR.test(text.slice(0, 4096))) return null;
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
