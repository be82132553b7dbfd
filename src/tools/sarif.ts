// toSarif(): lintOpenApi's findings as a SARIF 2.1.0 log, the format code-scanning UIs read
// (issue 6, item 5). The rules come from the generated LINT_RULES, never restated here.
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node as YamlNode } from 'yaml';
import { LINT_RULES, type LintRuleId } from '../../generated/lint-rules.js';
import { isRecord } from '../core/json.js';
import { checkRules, refuse, type Checks } from '../core/refuse.js';
import { configOption, settingOf, type LintConfig, type Severity } from './lint-config.js';
import { checkFindings, operationList, type LintFinding } from './lint-openapi.js';

/** The `$schema` a SARIF 2.1.0 log names (SchemaStore's copy of the OASIS schema, as CodeQL writes it). */
export const SARIF_SCHEMA_URI = 'https://json.schemastore.org/sarif-2.1.0.json';
/** Where the tool is documented, for `tool.driver.informationUri`. */
export const TOOL_INFORMATION_URI = 'https://www.npmjs.com/package/@agent-index/errors';

/** A SARIF message: plain text. */
export interface SarifMessage {
  readonly text: string;
}

/** One rule of the run's tool (a SARIF reportingDescriptor). */
export interface SarifRule {
  readonly id: string;
  readonly shortDescription: SarifMessage;
  readonly help: SarifMessage;
  readonly defaultConfiguration: { readonly level: Severity };
}

/** One location of a result: the spec file, a line when the source was given, and the JSON pointer. */
export interface SarifLocation {
  readonly physicalLocation: {
    readonly artifactLocation: { readonly uri: string; readonly index: 0 };
    readonly region?: { readonly startLine: number; readonly startColumn: number };
  };
  readonly logicalLocations: readonly [{ readonly fullyQualifiedName: string }];
}

/** One result: a finding. */
export interface SarifResult {
  readonly ruleId: string;
  readonly ruleIndex: number;
  readonly level: Severity;
  readonly message: SarifMessage;
  readonly locations: readonly [SarifLocation];
}

/** A SARIF 2.1.0 log with one run. */
export interface SarifLog {
  readonly $schema: string;
  readonly version: '2.1.0';
  readonly runs: readonly [
    {
      readonly tool: { readonly driver: { readonly name: 'agent-errors'; readonly informationUri: string; readonly rules: readonly SarifRule[] } };
      readonly artifacts: readonly [{ readonly location: { readonly uri: string } }];
      readonly results: readonly SarifResult[];
    },
  ];
}

/** Options of toSarif(). */
export interface ToSarifOptions {
  /** The linted spec as the results name it: a path relative to the repository root, for code scanning. */
  readonly uri: string;
  /**
   * The spec's text (YAML or JSON). When given, each result also gets the line and column of the
   * member its pointer names; without it, results name the file and the pointer only.
   */
  readonly source?: string;
  /** The lint config the findings were made with: each rule's level is its severity there. */
  readonly config?: LintConfig;
}

/** What each option of toSarif() takes; the config's own members are checked as lintOpenApi checks them. */
const TO_SARIF_CHECKS: Checks<ToSarifOptions> = {
  uri: [(value) => typeof value === 'string', "the linted spec's path or URI"],
  source: [(value) => typeof value === 'string', "the spec's text"],
  config: [isRecord, 'a lint config object ({format, retryByCode, rules})'],
};

/** A file path as a SARIF uri-reference: forward slashes, and the characters a URI cannot carry escaped. */
function toUriReference(path: string): string {
  if (/^[a-z][a-z\d+.-]+:/i.test(path)) return path; // already a URI (file:, https:); one letter is a Windows drive
  const posix = path.split('\\').join('/');
  const absoluteWindows = /^[a-z]:\//i.test(posix);
  const encoded = encodeURI(posix).replace(/[?#]/g, (c) => encodeURIComponent(c));
  return absoluteWindows ? `file:///${encoded}` : encoded;
}

/**
 * A function giving the 1-based line and column of the member a JSON pointer names in `source`
 * (YAML or JSON text), or null where the text does not parse or has no such member.
 */
export function locator(source: string | undefined): (pointer: string) => { startLine: number; startColumn: number } | null {
  if (typeof source !== 'string') return () => null;
  const lines = new LineCounter();
  let parsed: { doc: ReturnType<typeof parseDocument>; lines: LineCounter };
  try {
    parsed = { doc: parseDocument(source, { lineCounter: lines, uniqueKeys: false }), lines };
  } catch {
    return () => null;
  }
  return (pointer) => lineOf(parsed, pointer);
}

/** The 1-based line and column of the member a JSON pointer names in YAML or JSON text, or null. */
function lineOf(source: { doc: ReturnType<typeof parseDocument>; lines: LineCounter }, pointer: string): { startLine: number; startColumn: number } | null {
  let node: unknown = source.doc.contents;
  let offset: number | undefined = (node as YamlNode | null)?.range?.[0];
  for (const raw of pointer === '' ? [] : pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (isMap(node)) {
      const pair = node.items.find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === key);
      if (pair === undefined) break;
      offset = (isScalar(pair.key) ? pair.key.range?.[0] : undefined) ?? offset;
      node = pair.value;
    } else if (isSeq(node) && /^\d+$/.test(key)) {
      const item = node.items[Number(key)] as YamlNode | undefined;
      if (item === undefined) break;
      offset = item.range?.[0] ?? offset;
      node = item;
    } else break;
  }
  if (offset === undefined) return null;
  const { line, col } = source.lines.linePos(offset);
  return { startLine: line, startColumn: col };
}

/** A rule's level in the run: its severity in the config, else its own (a rule turned off keeps its own). */
function levelOf(rule: LintRuleId, severity: Severity, config: LintConfig | undefined): Severity {
  const setting = settingOf(rule, config);
  return setting === 'off' ? severity : setting;
}

/**
 * lintOpenApi's findings as a SARIF 2.1.0 log: one run of the tool `agent-errors` whose rules are
 * LINT_RULES (id, summary as shortDescription, fix as help, severity as default level), and one
 * result per finding at its severity. Each result's location names the spec (`uri`) and, as
 * `logicalLocations[0].fullyQualifiedName`, the finding's JSON pointer: SARIF has no region type
 * for a JSON pointer, so the pointer goes where SARIF puts a logical name. Given the spec's text
 * (`source`), each result also gets the line and column of that member as its region, which
 * code-scanning UIs show.
 * @example JSON.stringify(toSarif(await lintOpenApi('openapi.yaml'), { uri: 'openapi.yaml' }))
 */
export function toSarif(findings: readonly LintFinding[], options: ToSarifOptions): SarifLog {
  checkFindings('toSarif', findings);
  if (options === undefined) refuse('toSarif', 'options', "an object with the spec's path as uri", options);
  checkRules('toSarif', options, TO_SARIF_CHECKS);
  if (options.uri === undefined) refuse('toSarif', 'uri', "the linted spec's path or URI", undefined);
  const config = configOption('toSarif', options.config);
  const uri = toUriReference(options.uri);
  const index = new Map<string, number>(LINT_RULES.map((r, i) => [r.id, i]));
  const locate = locator(options.source);
  const results = findings.map((f): SarifResult => {
    const region = locate(f.pointer);
    return {
      ruleId: f.rule,
      ruleIndex: index.get(f.rule)!,
      level: f.severity,
      message: { text: f.operations.length === 0 ? f.message : `${f.message} (used by ${operationList(f.operations)})` },
      locations: [
        {
          physicalLocation: { artifactLocation: { uri, index: 0 }, ...(region === null ? {} : { region }) },
          logicalLocations: [{ fullyQualifiedName: f.pointer }],
        },
      ],
    };
  });
  return {
    $schema: SARIF_SCHEMA_URI,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'agent-errors',
            informationUri: TOOL_INFORMATION_URI,
            rules: LINT_RULES.map((r) => ({
              id: r.id,
              shortDescription: { text: r.summary },
              help: { text: r.fix },
              defaultConfiguration: { level: levelOf(r.id, r.severity, config) },
            })),
          },
        },
        artifacts: [{ location: { uri } }],
        results,
      },
    ],
  };
}
