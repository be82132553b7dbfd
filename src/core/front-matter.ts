// The YAML front matter of a Markdown error body, as agents now get them: Cloudflare answers
// `Accept: text/markdown` with its error fields between `---` lines, then prose
// (https://developers.cloudflare.com/fundamentals/reference/error-responses/, Markdown-specific
// structure). Only the flat `key: scalar` lines such front matter holds are read; a nested or
// listed value is passed over. A YAML library would read more and weigh more than the rest of an
// agent's hot path: what an error's front matter carries is this much.

import { setMember } from './json.js';

/** The most of a body looked at for front matter: an error's fields are a few hundred bytes, its list of fields at fault (at most 100) a few KiB more. */
const MAX_FRONT_MATTER = 64 * 1024;
const KEY = /^[A-Za-z_][\w-]{0,63}$/;
/** What ends a line for a regular expression's `.`: a value holding one is no scalar on this line. */
const LINE_BREAK = /[\r\u2028\u2029]/;
const INTEGER = /^-?\d{1,15}$/;
const DECIMAL = /^-?\d{1,15}\.\d{1,15}$/;

/** One YAML plain or quoted scalar: a boolean, null, a number, or a string. */
function scalar(raw: string): unknown {
  if (raw === 'true' || raw === 'false') return raw === 'true';
  if (raw === '' || raw === '~' || raw === 'null') return null;
  if (INTEGER.test(raw) || DECIMAL.test(raw)) return Number(raw);
  if (raw.length >= 2 && raw[0] === "'" && raw.endsWith("'")) return raw.slice(1, -1).replaceAll("''", "'");
  // A flow sequence or mapping written as JSON, which YAML reads as the same list or map (an error's list of fields).
  if ((raw[0] === '[' && raw.endsWith(']')) || (raw[0] === '{' && raw.endsWith('}'))) {
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      return raw;
    }
  }
  if (raw.length >= 2 && raw[0] === '"' && raw.endsWith('"')) {
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      return raw.slice(1, -1);
    }
  }
  return raw;
}

const isBlank = (code: number): boolean => code === 32 || code === 9;

/** A `key: value` line as its key and raw value (spaces and tabs around it left out), or null: by index, as a pattern with a lazy value backtracks at every character. */
function keyValue(line: string): [key: string, raw: string] | null {
  const colon = line.indexOf(':');
  if (colon < 1 || colon > 64 || !KEY.test(line.slice(0, colon)) || LINE_BREAK.test(line)) return null;
  let start = colon + 1;
  let end = line.length;
  while (start < end && isBlank(line.charCodeAt(start))) start++;
  while (end > start && isBlank(line.charCodeAt(end - 1))) end--;
  return [line.slice(0, colon), line.slice(start, end)];
}

/** The line of `text` from `at` to the next LF (or `end`), without its CR. */
function lineAt(text: string, at: number, end: number): string {
  let stop = text.indexOf('\n', at);
  if (stop < 0 || stop > end) stop = end;
  return text.slice(at, stop > at && text.charCodeAt(stop - 1) === 13 ? stop - 1 : stop);
}

/**
 * The fields of a Markdown body's front matter, with `title` from its first `# ` heading when the
 * front matter names none; null when the body does not open with front matter holding a field.
 * Lines are read one at a time by index, and none past the closing `---` unless a title is wanted.
 */
export function frontMatter(text: string): Record<string, unknown> | null {
  const start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const end = Math.min(text.length, MAX_FRONT_MATTER);
  if (!/^---[ \t]*\r?\n/.test(start === 0 ? text : text.slice(start))) return null;
  // A plain object, filled in the order of the lines: bodies of one shape share one layout.
  const fields: Record<string, unknown> = {};
  let size = 0;
  let at = text.indexOf('\n', start) + 1;
  let closed = false;
  while (at > 0 && at <= end) {
    const line = lineAt(text, at, end);
    at = at + line.length + 1;
    if (text.charCodeAt(at - 1) === 13) at++; // the CR of a CR LF
    if (/^(?:---|\.\.\.)[ \t]*$/.test(line)) {
      closed = true;
      break;
    }
    const pair = keyValue(line);
    // An indented, listed or commented line belongs to a value this reader does not take.
    if (pair && !Object.hasOwn(fields, pair[0])) {
      size++;
      setMember(fields, pair[0], scalar(pair[1]));
    }
  }
  if (!closed || size === 0) return null;
  while (!Object.hasOwn(fields, 'title') && at <= end) {
    const line = lineAt(text, at, end);
    at = at + line.length + 1;
    if (text.charCodeAt(at - 1) === 13) at++;
    if (/^#[ \t]+\S/.test(line)) fields.title = line.replace(/^#[ \t]+/, '').trim();
  }
  return fields;
}
