// The lint config: where a team's error body keeps its parts, the retry word of each of its own
// codes, and each rule's severity. From a file (`agent-errors lint --config`, lintOpenApi's `config`)
// or from the spec's own `x-agent-errors` member; the file's keys win over the spec's.
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { RETRY_WORDS } from '../../generated/catalog.js';
import type { RetryWord } from '../../generated/types.js';
import { LINT_RULES, type LintRuleId } from '../../generated/lint-rules.js';
import { refuse } from '../core/refuse.js';
import { isRetryWord } from '../core/catalog.js';
import { escapeToken, isRecord } from '../core/json.js';
import { LintInputError, show } from './lint-documents.js';
import { isPlace, PARTS, type ErrorFormat } from '../core/format.js';

/** How a finding counts: an error fails the lint, a warning is printed and passes. */
export type Severity = 'error' | 'warning';

/** A rule's setting in the config: its severity, or off. */
export type RuleSetting = Severity | 'off';

/** What a team tells the lint about its API. */
export interface LintConfig {
  /** Where the team's error body keeps each part; the lint then recognises no other format. */
  readonly format?: ErrorFormat;
  /** The retry word of each of the team's own codes, for a body that has no retry member. */
  readonly retryByCode?: Readonly<Record<string, RetryWord>>;
  /** A severity for a rule, or `off`; the rules not named keep their own (LINT_RULES). */
  readonly rules?: Readonly<Partial<Record<LintRuleId, RuleSetting>>>;
}

/** The member of an OpenAPI document's root that may hold the lint config. */
export const SPEC_CONFIG_MEMBER = 'x-agent-errors';

const RULE_IDS: ReadonlySet<string> = new Set(LINT_RULES.map((r) => r.id));
const SETTINGS: readonly RuleSetting[] = ['error', 'warning', 'off'];
const MAX_CODES = 10_000;

/**
 * `value` as a lint config, or a LintInputError naming, by JSON pointer, every member that is wrong.
 * `label` names where it came from (a file, or the spec's x-agent-errors).
 */
export function checkLintConfig(value: unknown, label: string): LintConfig {
  if (typeof label !== 'string') refuse('checkLintConfig', 'label', 'a string naming where the config came from', label);
  const problems: string[] = [];
  const fail = (pointer: string, what: string): void => void problems.push(`${pointer || '(the config)'} ${what}`);
  if (!isRecord(value)) throw new LintInputError(`${label} is not a lint config: it is ${show(value)}, not an object`);
  for (const key of Object.keys(value)) {
    if (key !== 'format' && key !== 'retryByCode' && key !== 'rules' && key !== '$schema') fail(`/${escapeToken(key)}`, 'is not a config member (format, retryByCode, rules)');
  }
  const { format, retryByCode, rules } = value as Record<string, unknown>;
  if (format !== undefined) {
    if (!isRecord(format)) fail('/format', `must be an object of JSON pointers (${PARTS.join(', ')}), not ${show(format)}`);
    else
      for (const [part, place] of Object.entries(format)) {
        if (!(PARTS as readonly string[]).includes(part)) fail(`/format/${escapeToken(part)}`, `is not a part of an error body (${PARTS.join(', ')})`);
        else if (!isPlace(place)) fail(`/format/${part}`, `must be a JSON pointer into the body such as "/error/${part}" (* for any array item), not ${show(place)}`);
      }
  }
  if (retryByCode !== undefined) {
    if (!isRecord(retryByCode)) fail('/retryByCode', `must map each code to a retry word, not ${show(retryByCode)}`);
    else {
      const codes = Object.keys(retryByCode);
      if (codes.length > MAX_CODES) fail('/retryByCode', `maps ${codes.length} codes; at most ${MAX_CODES}`);
      for (const code of codes.slice(0, MAX_CODES)) {
        const word = retryByCode[code];
        if (!isRetryWord(word)) fail(`/retryByCode/${escapeToken(code)}`, `must be a retry word (${Object.keys(RETRY_WORDS).join(', ')}), not ${show(word)}`);
      }
    }
  }
  if (rules !== undefined) {
    if (!isRecord(rules)) fail('/rules', `must map rule ids to ${SETTINGS.join(', ')}, not ${show(rules)}`);
    else
      for (const [rule, setting] of Object.entries(rules)) {
        if (!RULE_IDS.has(rule)) fail(`/rules/${escapeToken(rule)}`, `is not a lint rule (${[...RULE_IDS].join(', ')})`);
        else if (!(SETTINGS as readonly unknown[]).includes(setting)) fail(`/rules/${escapeToken(rule)}`, `must be ${SETTINGS.join(', ')}, not ${show(setting)}`);
      }
  }
  if (problems.length > 0) throw new LintInputError(`${label} is not a valid lint config: ${problems.join('; ')}`);
  return value as LintConfig;
}

/**
 * A config given as an option of the function `who` (lintOpenApi, toSarif), checked: undefined
 * stays undefined, and a config that is wrong is a TypeError naming `who` and each member at fault.
 */
export function configOption(who: string, value: unknown): LintConfig | undefined {
  if (value === undefined) return undefined;
  try {
    return checkLintConfig(value, `${who}: config`);
  } catch (error) {
    throw new TypeError((error as Error).message, { cause: error });
  }
}

/**
 * Reads a lint config file (JSON, or YAML unless it ends in .json) and checks it; or, given the
 * team's OpenAPI document, the config in its `x-agent-errors` member. Its `format` and `retryByCode`
 * are the options of the same names of fromResponse, the AgentFriendly adapters, the builders and
 * the matchers: one description of the team's format, read everywhere.
 * @example const { format, retryByCode } = await readLintConfig('openapi.yaml'); app.use(agentFriendlyExpress({ format, retryByCode }));
 */
export async function readLintConfig(path: string): Promise<LintConfig> {
  // A number would be read as a file descriptor, and a NUL byte is refused by fs with an internal error.
  if (typeof path !== 'string' || path === '' || path.includes('\0')) refuse('readLintConfig', 'path', 'the path of a lint config file (JSON or YAML)', path);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new LintInputError(`cannot read the lint config ${path}: ${(error as Error).message}`, { cause: error });
  }
  let value: unknown;
  try {
    value = extname(path).toLowerCase() === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new LintInputError(`the lint config ${path} is not valid ${extname(path).toLowerCase() === '.json' ? 'JSON' : 'YAML'}: ${(error as Error).message}`, { cause: error });
  }
  // An OpenAPI document (or Swagger 2.0) keeps its config in x-agent-errors.
  if (isRecord(value) && (typeof value.openapi === 'string' || typeof value.swagger === 'string')) {
    if (!Object.hasOwn(value, SPEC_CONFIG_MEMBER)) throw new LintInputError(`${path} is an OpenAPI document with no ${SPEC_CONFIG_MEMBER} member: put the lint config there ({format, retryByCode, rules}), or give the config file itself`);
    return checkLintConfig(value[SPEC_CONFIG_MEMBER], `the ${SPEC_CONFIG_MEMBER} of ${path}`);
  }
  return checkLintConfig(value, `the lint config ${path}`);
}

/** The spec's own config and the given one, member by member: the given one's members win. */
export function mergeConfigs(spec: LintConfig | undefined, given: LintConfig | undefined): LintConfig {
  if (spec === undefined) return given ?? {};
  if (given === undefined) return spec;
  return {
    ...((given.format ?? spec.format) ? { format: given.format ?? spec.format } : {}),
    ...((given.retryByCode ?? spec.retryByCode) ? { retryByCode: given.retryByCode ?? spec.retryByCode } : {}),
    rules: { ...spec.rules, ...given.rules },
  };
}

/** A rule's setting under `config`: its severity there, else the rule's own (LINT_RULES); `off` when the config turns it off. */
export function settingOf(rule: LintRuleId, config: LintConfig | undefined): RuleSetting {
  return config?.rules?.[rule] ?? LINT_RULES.find((r) => r.id === rule)!.severity;
}
