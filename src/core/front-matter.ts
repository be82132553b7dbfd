// The YAML front matter of a Markdown error body, as agents now get them: Cloudflare answers
// `Accept: text/markdown` with its error fields between `---` lines, then prose
// (https://developers.cloudflare.com/fundamentals/reference/error-responses/, Markdown-specific
// structure). Only the flat `key: scalar` lines such front matter holds are read; a nested or
// listed value is passed over. A YAML library would read more and weigh more than the rest of an
// agent's hot path: what an error's front matter carries is this much.

/** The most of a body looked at for front matter: an error's fields are a few hundred bytes, its list of fields at fault (at most 100) a few KiB more. */
const MAX_FRONT_MATTER = 64 * 1024;
const KEY_VALUE = /^([A-Za-z_][\w-]{0,63}):[ \t]*(.*?)[ \t]*$/;
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

/**
 * The fields of a Markdown body's front matter, with `title` from its first `# ` heading when the
 * front matter names none; null when the body does not open with front matter holding a field.
 */
export function frontMatter(text: string): Record<string, unknown> | null {
  const head = text.slice(0, MAX_FRONT_MATTER).replace(/^\uFEFF/, '');
  if (!/^---[ \t]*\r?\n/.test(head)) return null;
  // Split at LF by string, and each line's CR cut off: a split by /\r?\n/ took most of the time.
  const lines = head.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  // A plain object filled by assignment, not a null-prototype one copied at the end: bodies of one
  // shape share one fast layout. A __proto__ line, which no reader reads and an assignment would
  // take for the prototype, is passed over.
  const fields: Record<string, unknown> = {};
  let size = 0;
  let end = -1;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^(?:---|\.\.\.)[ \t]*$/.test(line)) {
      end = i;
      break;
    }
    const pair = KEY_VALUE.exec(line);
    // An indented, listed or commented line belongs to a value this reader does not take.
    if (pair && pair[1] !== '__proto__' && !Object.hasOwn(fields, pair[1]!)) {
      fields[pair[1]!] = scalar(pair[2]!);
      size++;
    }
  }
  if (end < 0 || size === 0) return null;
  if (!Object.hasOwn(fields, 'title')) {
    const heading = lines.slice(end + 1).find((line) => /^#[ \t]+\S/.test(line));
    if (heading) fields.title = heading.replace(/^#[ \t]+/, '').trim();
  }
  return fields;
}
