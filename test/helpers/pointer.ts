// The value a JSON pointer (RFC 6901) names in a parsed document, for tests that check a finding's pointer leads somewhere.

/** The value `pointer` names in `document`, or undefined when it leads nowhere. */
export function at(document: unknown, pointer: string): unknown {
  let node = document;
  for (const token of pointer.split('/').slice(1)) {
    const key = token.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
