// Which $refs lintOpenApi may load (issue 16, part 3): a spec from an untrusted pull request must not
// turn the lint against the CI host that runs it, by naming the host's own files (`../../.ssh/id_rsa`,
// `/etc/passwd`, `file:///proc/self/environ`, a symbolic link committed into the repository) or its
// network (`http://169.254.169.254/...`, a service on loopback).
//
// ref-parser's own file and http resolvers are switched off, and one resolver of ours takes every
// file ref-parser would load: it judges the URL first and reads only what it allows, so nothing is
// fetched and no file is opened before the check. A refused file is recorded and stands in as a
// placeholder; lintOpenApi reports each $ref that names one as a ref-not-allowed finding and lints
// the rest of the document.
//
// The judgement:
// - http: and https: only when allowRemoteRefs allows them. `true` allows any URL on a public host
//   (ref-parser's safe-URL check still refuses loopback, private and link-local addresses, also after
//   a DNS lookup or a redirect); a list allows the URLs under its prefixes, whatever the host, and
//   follows no redirect, which could leave them.
// - Any other scheme (ftp:, data:, javascript:, a `C:` on POSIX) never: ref-parser would take one
//   without `//` for a path relative to the working directory.
// - A file (a path, or a file: URL without a host) when its path, decoded and normalised (so
//   `..%2F` and `%2e%2e/` count as the `../` they spell), lies in an allowed folder tree, and so does
//   its real path (every symbolic link followed). The allowed trees are the spec's own folder (the
//   folder of the file given, or the cwd option for an object), this package's own generated/ folder
//   (the components a spec $refs, often through ./node_modules/@agent-index/errors/generated/), and
//   the folders allowRefsOutside lists; `allowRefsOutside: true` allows any local file. A path
//   outside every tree is refused without touching the file system; the file read is the real path
//   that was checked.
import { lstat, readFile, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve as resolvePath, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HTTPResolver, isUnsafeUrl, type FileInfo, type ParserOptions } from '@apidevtools/json-schema-ref-parser';

/** Options of lintOpenApi() that say which $refs it may load; see LintOpenApiOptions. */
export interface RefAllowance {
  readonly allowRemoteRefs?: boolean | readonly string[];
  readonly allowRefsOutside?: boolean | readonly string[];
}

/** Thrown when an allowance itself is unusable (a prefix that is no http or https URL): a usage error. */
export class RefAllowanceError extends Error {
  override readonly name = 'RefAllowanceError';
}

/** A folder tree files may be read from: its path as written and its real path. */
interface Tree {
  readonly path: string;
  readonly real: string;
}

/** The judged policy. */
interface Policy {
  /** true: any public URL; a list: the URL prefixes allowed; false: none. */
  readonly remote: boolean | readonly URL[];
  /** null: any local file. */
  readonly trees: readonly Tree[] | null;
  /** The spec's own folder, for messages. */
  readonly home: string;
}

/** Allowed: a local file to read, or a URL to download (listed: under a prefix the caller named). Refused: why. */
type Verdict =
  | { readonly ok: true; readonly file: string }
  | { readonly ok: true; readonly listed: boolean; readonly file?: undefined }
  | { readonly ok: false; readonly why: string };

const PACKAGE_NAME = '@agent-index/errors';
/** The path segments under which a project finds this package's generated components. */
const INSTALLED = ['node_modules', ...PACKAGE_NAME.split('/'), 'generated'];
/** What a refused file is loaded as: any parser reads it, and nothing in it is a $ref. */
const REFUSED_PLACEHOLDER = '{"x-agent-errors-ref-refused": true}';

const isInside = (tree: string, path: string): boolean => {
  const rel = relative(tree, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
};

let packageTree: Promise<Tree | null> | undefined;

/**
 * This package's generated/ folder, found from this module upwards (src/tools in the repository,
 * dist/src/tools when installed): the nearest package.json must be this package's.
 */
function ownGenerated(): Promise<Tree | null> {
  packageTree ??= (async () => {
    let dir = dirname(fileURLToPath(import.meta.url));
    for (;;) {
      let manifest: unknown;
      try {
        manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
      } catch {
        manifest = undefined;
      }
      if (manifest !== undefined) {
        if ((manifest as { name?: unknown } | null)?.name !== PACKAGE_NAME) return null;
        return tree(join(dir, 'generated'));
      }
      const parent = dirname(dir);
      if (parent === dir) return null;
      dir = parent;
    }
  })();
  return packageTree;
}

/** A folder as a tree: its real path when it exists, else the path itself (which nothing real is inside then). */
async function tree(path: string): Promise<Tree> {
  const absolute = resolvePath(path);
  try {
    return { path: absolute, real: await realpath(absolute) };
  } catch {
    return { path: absolute, real: absolute };
  }
}

/** Parses the prefixes of allowRemoteRefs; a prefix without a trailing slash covers itself and what is under it. */
function remotePrefixes(list: readonly string[]): URL[] {
  return list.map((prefix) => {
    let url: URL;
    try {
      url = new URL(prefix);
    } catch {
      throw new RefAllowanceError(
        `allowRemoteRefs lists ${JSON.stringify(prefix)}, which is not a URL; list http or https URL prefixes such as "https://schemas.example.com/api/"`,
      );
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new RefAllowanceError(`allowRemoteRefs lists ${JSON.stringify(prefix)}, which is not an http or https URL`);
    }
    url.hash = '';
    url.search = '';
    return url;
  });
}

/** The policy for a spec whose own folder is `home`; folders allowRefsOutside lists resolve from `cwd`. */
export async function refPolicy(home: string, cwd: string, allowance: RefAllowance): Promise<Policy> {
  // An empty list allows nothing, as false does (and says so the same way).
  const list = Array.isArray(allowance.allowRemoteRefs) ? remotePrefixes(allowance.allowRemoteRefs) : [];
  const remote = list.length > 0 ? list : allowance.allowRemoteRefs === true;
  if (allowance.allowRefsOutside === true) return { remote, trees: null, home };
  const extra = Array.isArray(allowance.allowRefsOutside) ? (allowance.allowRefsOutside as readonly string[]) : [];
  for (const folder of extra) {
    if (typeof folder !== 'string' || folder === '') throw new RefAllowanceError(`allowRefsOutside lists ${JSON.stringify(folder)}; list folder paths`);
  }
  const own = await ownGenerated();
  const trees = await Promise.all([home, ...extra.map((f) => resolvePath(cwd, f))].map(tree));
  return { remote, trees: own === null ? trees : [...trees, own], home };
}

/** Whether `url` is under one of the allowed prefixes: same origin, and a path under the prefix's on a segment boundary. */
function listed(url: URL, prefixes: readonly URL[]): boolean {
  // An encoded slash or backslash could be decoded by the server into a segment the prefix does not cover.
  if (/%(?:2f|5c)/i.test(url.pathname)) return false;
  return prefixes.some((prefix) => {
    if (url.origin !== prefix.origin) return false;
    const base = prefix.pathname;
    return url.pathname === base || url.pathname.startsWith(base.endsWith('/') ? base : `${base}/`);
  });
}

function judgeRemote(address: string, policy: Policy): Verdict {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return { ok: false, why: 'is not a URL that can be parsed' };
  }
  if (policy.remote === false) return { ok: false, why: 'is a remote URL, and remote $refs are not allowed: nothing was fetched' };
  if (policy.remote === true) {
    if (isUnsafeUrl(url.href)) {
      const why = 'is a URL on a loopback, private or internal host or port, which allowRemoteRefs: true does not reach: nothing was fetched (list its prefix to allow it)';
      return { ok: false, why };
    }
    return { ok: true, listed: false };
  }
  if (!listed(url, policy.remote)) return { ok: false, why: 'is a remote URL under none of the allowed prefixes: nothing was fetched' };
  return { ok: true, listed: true };
}

/**
 * The real path of `path`, or of its deepest existing folder with the rest appended when it does not
 * exist. null when that cannot be known: a symbolic link on the way that leads nowhere (telling
 * "missing" from "outside" would say what exists outside), a loop of links, a folder that cannot be
 * searched.
 */
async function realOrAncestor(path: string): Promise<string | null> {
  let here = path;
  for (;;) {
    try {
      const real = await realpath(here);
      return here === path ? real : join(real, relative(here, path));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return null;
    }
    let there = true;
    try {
      await lstat(here);
    } catch {
      there = false;
    }
    // There, yet without a real path: a link that leads nowhere. Not there at all: look at its folder.
    if (there) return null;
    const parent = dirname(here);
    if (parent === here) return null;
    here = parent;
  }
}

/** Whether a path lies under node_modules/@agent-index/errors/generated/, where a project finds the components. */
function underInstalled(path: string): boolean {
  const parts = path.split(sep);
  for (let i = 0; i + INSTALLED.length <= parts.length; i++) {
    if (INSTALLED.every((p, j) => parts[i + j] === p)) return true;
  }
  return false;
}

async function judgeFile(address: string, policy: Policy): Promise<Verdict> {
  let path: string;
  try {
    // A file: URL the way Node reads one (a host, or an encoded slash, is refused); any other path
    // decoded whole, so that an encoded `..%2F` is a `../` here and is normalised away before the check.
    path = /^file:/i.test(address) ? fileURLToPath(address) : decodeURIComponent(address.replace(/%(?![\da-f]{2})/gi, '%25'));
  } catch {
    return { ok: false, why: 'is not a local path or file: URL that can be decoded' };
  }
  if (path.includes('\0')) return { ok: false, why: 'has a NUL character in its path' };
  const absolute = resolvePath(policy.home, path);
  if (policy.trees === null) return { ok: true, file: absolute };
  const outside = `is outside the spec's folder (${policy.home}) and every folder allowed: it was not read`;
  // Lexically first, so a path outside every tree is refused without a look at the file system.
  if (!policy.trees.some((t) => isInside(t.path, absolute)) && !underInstalled(absolute)) return { ok: false, why: outside };
  const real = await realOrAncestor(absolute);
  if (real === null) {
    const why = 'goes through a symbolic link that leads nowhere, or a folder that cannot be searched, so where it leads cannot be checked: it was not read';
    return { ok: false, why };
  }
  if (!policy.trees.some((t) => isInside(t.real, real))) {
    const linked = "leads, through a symbolic link, outside the spec's folder and every folder allowed: it was not read";
    return { ok: false, why: absolute === real ? outside : linked };
  }
  // A missing file inside the tree is the spec's own fault: reading it (its real path as checked) says so.
  return { ok: true, file: real };
}

/** The verdict on one file ref-parser would load, keyed as ref-parser keys it. */
async function judge(address: string, policy: Policy): Promise<Verdict> {
  if (/^https?:/i.test(address)) return judgeRemote(address, policy);
  // Any other scheme but file:, except a Windows drive letter on Windows.
  const scheme = /^([a-z][a-z\d+.-]*):/i.exec(address);
  if (scheme !== null && scheme[1]!.toLowerCase() !== 'file' && !(process.platform === 'win32' && /^[a-z]:[\\/]/i.test(address))) {
    return { ok: false, why: `uses the scheme ${scheme[1]!.toLowerCase()}:, which the lint never loads (only files, and http or https when allowed)` };
  }
  return judgeFile(address, policy);
}

/**
 * The ref-parser resolve options that load only what `policy` allows: every file goes to one
 * resolver, which reads an allowed file itself, hands an allowed URL to ref-parser's own http
 * resolver, and records a refused one in `refused` (its key, and why) and loads the placeholder.
 */
export function guardedResolvers(policy: Policy, refused: Map<string, string>, unreadable?: Map<string, string>): NonNullable<ParserOptions['resolve']> {
  return {
    external: true,
    file: false,
    http: false,
    guarded: {
      order: 1,
      canRead: true,
      async read(file: FileInfo): Promise<string | Buffer> {
        const verdict = await judge(file.url, policy);
        if (!verdict.ok) {
          refused.set(file.url, verdict.why);
          return REFUSED_PLACEHOLDER;
        }
        if (verdict.file !== undefined) {
          try {
            return await readFile(verdict.file);
          } catch (error) {
            // Why, in a word a finding can say: the file is missing, a folder, or not readable.
            const code = (error as NodeJS.ErrnoException).code;
            unreadable?.set(file.url, code === 'ENOENT' ? 'does not exist' : code === 'EISDIR' ? 'is a folder' : `cannot be read${code ? ` (${code})` : ''}`);
            throw error;
          }
        }
        // ref-parser's own download: its safe-URL check (DNS and redirects included) for `true`; none,
        // and no redirect, for a prefix the caller listed.
        const http = verdict.listed ? { ...HTTPResolver, safeUrlResolver: false, redirects: 0 } : { ...HTTPResolver, safeUrlResolver: true };
        return (http.read as (this: typeof http, file: FileInfo) => Promise<Buffer>).call(http, file);
      },
    },
  };
}
