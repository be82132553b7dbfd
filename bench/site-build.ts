// The servers of bench/site.ts run compiled JavaScript, as the package ships it (tsc's emit of
// src/ and generated/, what dist/ holds), not under the tsx loader: tsx minifies every module onto
// one line and wraps each function it creates in esbuild's __name(), which a request pays for at
// every closure an adapter makes, and which no site running the published package pays.
//
// buildServers() emits src/, generated/ and bench/site-{apps,server}.ts into a temporary directory
// with TypeScript's own emitter (ts.transpileModule with this repository's compiler options: the
// same output as tsc, one file at a time, without type checking, which `npm run typecheck` does),
// copies the JavaScript and JSON files beside them, and links node_modules, so that
// `node <dir>/bench/site-server.js` resolves the frameworks from this repository.

import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function* files(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else yield path;
  }
}

export interface Built {
  /** The compiled server entry: `node <entry> <adapter> <bare|wrapped>`. */
  readonly entry: string;
  readonly dir: string;
  readonly cleanup: () => void;
}

export function buildServers(): Built {
  const dir = mkdtempSync(join(tmpdir(), 'site-bench-'));
  const compilerOptions: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext, // what NodeNext emits for a .ts file of a "type": "module" package
    esModuleInterop: true,
    sourceMap: true, // for bench/explore/site-profile.ts, which maps profile positions back to the .ts lines
  };
  const sources = [
    ...files(join(ROOT, 'src')),
    ...files(join(ROOT, 'generated')),
    // The servers' own modules (the rest of bench/site-*.ts run here, under tsx).
    ...['site-apps.ts', 'site-server.ts'].map((name) => join(ROOT, 'bench', name)).filter((path) => existsSync(path)),
  ];
  for (const source of sources) {
    const rel = relative(ROOT, source);
    const out = join(dir, rel);
    mkdirSync(dirname(out), { recursive: true });
    if (source.endsWith('.d.ts')) continue;
    if (source.endsWith('.ts')) {
      const { outputText, sourceMapText, diagnostics } = ts.transpileModule(readFileSync(source, 'utf8'), { compilerOptions, fileName: source, reportDiagnostics: true });
      if (diagnostics?.length) throw new Error(`cannot compile ${rel}: ${ts.flattenDiagnosticMessageText(diagnostics[0]!.messageText, '\n')}`);
      writeFileSync(out.replace(/\.ts$/, '.js'), outputText);
      if (sourceMapText) writeFileSync(out.replace(/\.ts$/, '.js.map'), sourceMapText);
    } else if (source.endsWith('.js') || source.endsWith('.json')) {
      cpSync(source, out);
    }
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return { entry: join(dir, 'bench', 'site-server.js'), dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
