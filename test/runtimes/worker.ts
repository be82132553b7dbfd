// The workerd entry of the smoke: a module Worker whose fetch handler runs it against the loopback
// server named in ?server= and answers with the report as JSON, after a check that the Worker has
// no Node.js compatibility to lean on (since compatibility date 2026-08-04 workerd turns it on by
// default, so the config in run.ts turns it off by flag).
import { runSmoke, type SmokeCheck } from './smoke.js';

/** The Worker's bindings, from the config run.ts writes: the version `workerd --version` printed. */
interface Env {
  readonly WORKERD_VERSION: string;
}

/** Fails when a Node.js global or a node: module is there: then the smoke would prove nothing about a Worker without them. */
async function withoutNode(): Promise<SmokeCheck> {
  const globals = globalThis as { Buffer?: unknown; process?: unknown };
  const found: string[] = [];
  if (globals.Buffer !== undefined) found.push('the Buffer global');
  if (globals.process !== undefined) found.push('the process global');
  // The specifier is built at run time so that this probe adds no node: import to the bundle's graph.
  const specifier = ['node', 'fs'].join(':');
  const loaded = await import(specifier).then(
    () => true,
    () => false,
  );
  if (loaded) found.push(specifier);
  const detail = found.length === 0 ? 'no Buffer, no process, node:fs not found' : `found ${found.join(', ')}`;
  return { name: 'Node.js compat off', ok: found.length === 0, detail };
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const server = new URL(request.url).searchParams.get('server');
    if (server === null) return new Response('?server= is required', { status: 400 });
    const off = await withoutNode();
    const report = await runSmoke({ runtime: 'workerd', version: env.WORKERD_VERSION, server });
    return Response.json({ ...report, checks: [off, ...report.checks] });
  },
};
