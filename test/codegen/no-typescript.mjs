// Loaded with --import into a child process: `typescript` cannot be imported there, as in a project
// that has not installed it (or has installed TypeScript 7, whose package offers no compiler API).
import { register } from 'node:module';

const hook = `
export async function resolve(specifier, context, next) {
  if (specifier === 'typescript' || specifier.startsWith('typescript/')) {
    throw Object.assign(new Error("Cannot find package 'typescript' (hidden by test/codegen/no-typescript.mjs)"), { code: 'ERR_MODULE_NOT_FOUND' });
  }
  return next(specifier, context);
}
`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);
