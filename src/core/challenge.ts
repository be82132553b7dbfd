// The Bearer challenge of a WWW-Authenticate field (RFC 9110 section 11.6.1; RFC 6750 section 3):
// `Bearer realm="api", error="insufficient_scope", scope="orders:write"`. MCP servers send it
// (the MCP authorization spec's scope challenge), as do OAuth 2.0 resource servers.

// auth-param = token BWS "=" BWS ( token / quoted-string ), after an optional list comma. Sticky,
// so each match starts where the last ended and the scan is one pass.
const PARAM = /[ \t]*,?[ \t]*([!#$%&'*+.^_`|~0-9A-Za-z-]+)[ \t]*=[ \t]*("(?:[^"\\]|\\.){0,1024}"|[!#$%&'*+.^_`|~0-9A-Za-z-]+)/y;
const BEARER = /(?:^|,)[ \t]*Bearer(?=[ \t]|,|$)/i;

/**
 * The auth-params of the Bearer challenge in a WWW-Authenticate value (names lower-cased, quoted
 * strings unquoted), or null when it has none. Parameters end where the next challenge starts.
 */
export function bearerChallenge(value: string | null | undefined): ReadonlyMap<string, string> | null {
  if (typeof value !== 'string' || value.length > 8192) return null;
  const found = BEARER.exec(value);
  if (!found) return null;
  const params = new Map<string, string>();
  PARAM.lastIndex = found.index + found[0].length;
  for (let match = PARAM.exec(value); match; match = PARAM.exec(value)) {
    const raw = match[2]!;
    const name = match[1]!.toLowerCase();
    if (!params.has(name)) params.set(name, raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw);
  }
  return params;
}
