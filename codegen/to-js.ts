// The TypeScript modules codegen writes, as JavaScript and declarations: what `codegen --extend`
// hands a site, whose code may be JavaScript and whose TypeScript imports the .js (issue 28 item 5).
// Compiled together by TypeScript's own compiler (a peer of the CLI's codegen), in memory: nothing
// is read but the modules given and TypeScript's own lib files.
import type * as TypeScript from 'typescript';

/**
 * Each `name.ts` of `files` (not `.d.ts`) as `name.js` and `name.d.ts`; every other file as it is.
 * Throws an Error naming the first diagnostic if the modules do not compile.
 */
export async function toJavaScript(files: ReadonlyMap<string, string>): Promise<Map<string, string>> {
  const ts = ((await import('typescript')) as unknown as { default: typeof TypeScript }).default;
  const root = '/codegen-out/';
  const sources = [...files.keys()].filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'));
  const options: TypeScript.CompilerOptions = {
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    target: ts.ScriptTarget.ES2022,
    declaration: true,
    strict: true,
    skipLibCheck: true,
    types: [],
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
  };
  const host = ts.createCompilerHost(options);
  const virtual = (path: string): string | undefined => (path.startsWith(root) ? files.get(path.slice(root.length)) : undefined);
  const out = new Map<string, string>();
  host.fileExists = (path) => virtual(path) !== undefined || (!path.startsWith(root) && ts.sys.fileExists(path));
  host.directoryExists = (path) => path === root.slice(0, -1) || path.startsWith(root) || ts.sys.directoryExists(path);
  host.realpath = (path) => path;
  host.readFile = (path) => virtual(path) ?? (path.startsWith(root) ? undefined : ts.sys.readFile(path));
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (path, language, onError) => {
    const text = virtual(path);
    return text === undefined ? getSourceFile(path, language, onError) : ts.createSourceFile(path, text, language, true);
  };
  host.writeFile = (path, text) => void out.set(path.slice(root.length), text);
  host.getCurrentDirectory = () => root;
  const program = ts.createProgram(sources.map((name) => root + name), { ...options, outDir: root, rootDir: root }, host);
  const emitted = program.emit();
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics].filter((d) => d.category === ts.DiagnosticCategory.Error);
  if (diagnostics.length > 0) throw new Error(`the generated modules do not compile: ${ts.flattenDiagnosticMessageText(diagnostics[0]!.messageText, ' ')}`);
  const result = new Map<string, string>();
  for (const [name, text] of files) if (!sources.includes(name)) result.set(name, text);
  for (const name of sources) {
    const base = name.slice(0, -'.ts'.length);
    // The source's header line (what wrote it, and how to write it again) heads both outputs.
    const header = /^\/\/ .*\n/.exec(files.get(name)!)?.[0] ?? '';
    for (const ext of ['.js', '.d.ts']) {
      const text = out.get(base + ext);
      if (text === undefined) throw new Error(`TypeScript wrote no ${base}${ext}`);
      result.set(base + ext, text.startsWith(header) ? text : header + text);
    }
  }
  return result;
}
