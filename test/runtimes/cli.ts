// The command-line entry of the smoke for Deno, Bun and Node: `<runtime> bundle.js <server url>`
// prints the report as one line of JSON. Only the runtime's name, version and arguments are read
// from its own globals; everything the checks use is the web platform.
import { runSmoke } from './smoke.js';

interface Globals {
  readonly Deno?: { readonly args: string[]; readonly version: { readonly deno: string } };
  readonly Bun?: { readonly version: string; readonly argv: string[] };
  readonly process?: { readonly version: string; readonly argv: string[] };
}

const globals = globalThis as Globals;
// Deno and Bun both define `process` for Node compatibility, so they are asked first.
const [runtime, version, args] = globals.Deno
  ? ['deno', globals.Deno.version.deno, globals.Deno.args]
  : globals.Bun
    ? ['bun', globals.Bun.version, globals.Bun.argv.slice(2)]
    : ['node', globals.process?.version.replace(/^v/, '') ?? 'unknown', globals.process?.argv.slice(2) ?? []];

const server = args[0];
if (server === undefined) throw new Error('usage: <runtime> bundle.js <server url>');
console.log(JSON.stringify(await runSmoke({ runtime, version, server })));
