// The documents a lint reads: the user's spec and the files its $refs load, and how a place in
// them is reported as a place in the user's own document (lintOpenApi's findings point there).
import { dirname, relative } from 'node:path';
import { escapeToken, member, own, unescapeToken } from '../core/json.js';

/**
 * Thrown by lintOpenApi() when it cannot lint the input at all: the file given cannot be read or
 * parsed, it is neither OpenAPI 3.0 or 3.1 nor Swagger 2.0, or the spec's own lint config is wrong
 * (and by readLintConfig, checkLintConfig and checkBaseline for a file or value that is wrong). A
 * usage error (the CLI's exit code 2), never a finding; an argument or option of the wrong type is
 * a TypeError instead. A $ref the options do not allow, or one that leads nowhere, is no such error: it is a
 * ref-not-allowed or ref-unresolved finding, and the rest of the document is linted.
 */
export class LintInputError extends Error {
  override readonly name = 'LintInputError';
}

/**
 * Thrown inside the walk when the value it needs lies behind a $ref that was refused (reported as
 * ref-not-allowed) or that leads nowhere (reported as ref-unresolved): the check that needed it is
 * skipped, and the rest of the document is linted.
 */
class SkippedRef extends Error {
  override readonly name = 'SkippedRef';
}

/** `read()`, or `fallback` when what it reads lies behind a refused or broken $ref. */
export function unlessRefused<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof SkippedRef) return fallback;
    throw error;
  }
}

/** A $ref that leads nowhere, at its place in the user's document. */
export interface BrokenRef {
  readonly pointer: string;
  readonly message: string;
}

const MAX_HOPS = 64;


/** A value as a message shows it: JSON cut to 80 characters, `missing` for undefined, never throwing. */
export function show(value: unknown): string {
  if (value === undefined) return 'missing';
  try {
    const text = JSON.stringify(value) ?? String(value);
    return text.length > 80 ? `${text.slice(0, 79)}…` : text;
  } catch {
    return typeof value;
  }
}

// ---------------------------------------------------------------------------------------------
// Documents and $refs
// ---------------------------------------------------------------------------------------------

/** A value in one of the loaded files, and where it is reported in the user's document. */
export interface Node {
  readonly value: unknown;
  /** The file it is in, as ref-parser keys it. */
  readonly file: string;
  /** Its JSON pointer in that file. */
  readonly at: string;
  /** Its JSON pointer in the user's document: `at` when in the user's file, else the $ref site. */
  readonly site: string;
}

const BASE = 'https://base.invalid';

/** A path as ref-parser's url.resolve writes it: backslashes as slashes, except in a Windows extended-length path. */
const posix = (path: string): string => (path.startsWith('\\\\?\\') ? path : path.split('\\').join('/'));

/**
 * Resolves `to` against `from` the way ref-parser's own url.resolve does (it is not exported), so
 * the result is the key ref-parser stored that file under: the whole $ref is resolved, hash and
 * trailing white space included (ref-parser keeps the white space, and a space before the hash is
 * part of the path), then cut at the hash. Returns the file and the decoded hash.
 */
export function resolveRef(from: string, to: string): { file: string; hash: string } {
  const hashAt = to.indexOf('#');
  let hash = hashAt < 0 ? '' : to.slice(hashAt + 1);
  try {
    hash = decodeURIComponent(hash);
  } catch {
    // A malformed escape: keep the hash as written.
  }
  if (to === '' || hashAt === 0) return { file: from, hash };
  const url = new URL(posix(to), new URL(posix(from), BASE));
  const endSpaces = /\s*$/.exec(to)![0];
  const resolved = (url.origin === BASE ? url.pathname + url.search + url.hash : url.toString()) + endSpaces;
  const cut = resolved.indexOf('#');
  return { file: cut < 0 ? resolved : resolved.slice(0, cut), hash };
}

/** The user's document and the files its $refs load, with the $ref following that reports every place in the user's document. */
export class Documents {
  /** The $refs that lead nowhere, keyed by place and $ref: each is one ref-unresolved finding. */
  readonly broken = new Map<string, BrokenRef>();

  /** Where each $ref of each file leads (its site is the asker's when it leads out of the user's document). */
  private readonly targets = new Map<string, Node>();

  /** How deep follow() is nested: a $ref met on the way to another $ref's target nests it. */
  private depth = 0;

  constructor(
    private readonly files: ReadonlyMap<string, unknown>,
    readonly root: string,
    /** The files the policy refused, which hold only a placeholder. */
    private readonly refused: ReadonlySet<string> = new Set(),
    /** The files a $ref names that could not be read or parsed, and why. */
    private readonly unreadable: ReadonlyMap<string, string> = new Map(),
  ) {}

  /** Records a $ref that leads nowhere as one ref-unresolved finding at its place, and skips what needed it. */
  private brokenRef(node: Node, ref: string, why: string): never {
    const pointer = node.site;
    const message = `the $ref ${show(ref)}${node.file === this.root ? '' : ` (in ${this.display(node.file)}#${node.at})`} ${why}`;
    this.broken.set(`${pointer}\n${message}`, { pointer, message });
    throw new SkippedRef(message);
  }

  rootNode(): Node {
    return { value: this.files.get(this.root), file: this.root, at: '', site: '' };
  }

  child(node: Node, key: string): Node {
    const at = `${node.at}/${key.includes('/') || key.includes('~') ? escapeToken(key) : key}`;
    return { value: member(node.value, key), file: node.file, at, site: node.file === this.root ? at : node.site };
  }

  /** The $ref string of a Reference Object, else null. */
  static refOf(value: unknown): string | null {
    const ref = own(value, '$ref');
    return typeof ref === 'string' ? ref : null;
  }

  /** One hop: the node a Reference Object points to. Throws SkippedRef, and records why, when it leads nowhere. */
  follow(node: Node, ref: string): Node {
    if (this.depth >= MAX_HOPS) this.brokenRef(node, ref, 'is circular');
    this.depth += 1;
    try {
      return this.hop(node, ref);
    } finally {
      this.depth -= 1;
    }
  }

  private hop(node: Node, ref: string): Node {
    // The same $ref in the same file leads to the same place: found once (a spec repeats a few
    // hundred $refs thousands of times); only where it is reported depends on who asks.
    const key = `${node.file}\n${ref}`;
    const known = this.targets.get(key);
    if (known !== undefined) return { ...known, site: known.file === this.root ? known.at : node.site };
    const target = this.walk(node, ref);
    this.targets.set(key, target);
    return target;
  }

  private walk(node: Node, ref: string): Node {
    const { file, hash } = resolveRef(node.file, ref);
    if (this.refused.has(file)) throw new SkippedRef(`the $ref ${show(ref)} at ${node.site || '/'} was refused`);
    const unreadable = this.unreadable.get(file);
    if (unreadable !== undefined) this.brokenRef(node, ref, `names ${this.display(file)}, which ${unreadable}`);
    if (!this.files.has(file)) this.brokenRef(node, ref, `names ${this.display(file)}, which could not be loaded`);
    if (hash !== '' && !hash.startsWith('/')) this.brokenRef(node, ref, `uses an anchor (#${hash}); only JSON pointers are supported`);
    let current: Node = { value: this.files.get(file), file, at: '', site: file === this.root ? '' : node.site };
    for (const token of hash === '' ? [] : hash.slice(1).split('/')) {
      const key = unescapeToken(token);
      // ref-parser follows a $ref met on the way to the target; so does this, when the key is not there.
      if (member(current.value, key) === undefined) current = this.deref(current);
      const value = member(current.value, key);
      if (value === undefined) this.brokenRef(node, ref, `points to nothing: ${file === this.root ? '' : this.display(file)}#${hash} does not exist`);
      const at = `${current.at}/${escapeToken(key)}`;
      current = { value, file, at, site: file === this.root ? at : current.site };
    }
    return current;
  }

  /** Follows Reference Objects until a value that is none. Throws SkippedRef, and records why, on a loop or a dead end. */
  deref(node: Node): Node {
    let current = node;
    let ref = Documents.refOf(current.value);
    if (ref === null) return node;
    const seen = new Set<string>();
    while (ref !== null) {
      const key = `${current.file}#${current.at}`;
      if (seen.has(key) || seen.size >= MAX_HOPS) this.brokenRef(node, ref, 'is circular');
      seen.add(key);
      current = this.follow(current, ref);
      ref = Documents.refOf(current.value);
    }
    return current;
  }

  /** A file as a message names it: relative to the user's document when both are local. */
  display(file: string): string {
    if (/^[a-z][a-z\d+.-]+:/i.test(file)) return file;
    let path = file;
    try {
      path = decodeURI(file);
    } catch {
      // keep it encoded
    }
    const base = this.root.endsWith('/') ? this.root : dirname(this.root);
    try {
      const rel = relative(decodeURI(base), path);
      return rel === '' ? path : rel;
    } catch {
      return path;
    }
  }

  /** " (in file#pointer)" for a node outside the user's document, else "". */
  where(node: Node): string {
    return node.file === this.root ? '' : ` (in ${this.display(node.file)}#${node.at})`;
  }

  isGenerated(file: string): boolean {
    const marker = own(this.files.get(file), 'x-generated');
    return typeof marker === 'string' && marker.includes('@agent-index/errors');
  }
}

