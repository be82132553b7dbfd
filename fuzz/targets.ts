// The fuzz targets, shared by `npm run fuzz` (fuzz/main.ts) and the test suite (test/fuzz.test.ts).
import { acceptTarget, isAgentRequestTarget } from './accept-targets.js';
import { agentErrorTarget, siteErrorTarget } from './builder-targets.js';
import type { Target } from './check.js';
import { decodeTarget, fromResponseTarget } from './response-targets.js';

export type { Target } from './check.js';

/** Every target, in the order they run. */
export const TARGETS: readonly Target[] = [fromResponseTarget, decodeTarget, agentErrorTarget, siteErrorTarget, isAgentRequestTarget, acceptTarget];
