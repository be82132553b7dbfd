// The lint's findings for CI: GitHub Actions annotations, JUnit XML, and a baseline that lets a team
// with a legacy spec adopt the lint today and fail only on what it adds.
import { own } from '../core/json.js';
import { checkRules, refuse, type Checks } from '../core/refuse.js';
import { LintInputError, show } from './lint-documents.js';
import { checkFindings, findingKey, operationList, type LintFinding } from './lint-openapi.js';
import { locator } from './sarif.js';

/** Options of the CI formats: the spec as the report names it, and its text for line numbers. */
export interface ReportOptions {
  /** The linted spec, as a path relative to the repository root (what GitHub matches to the diff). */
  readonly file: string;
  /** The spec's text (YAML or JSON): each annotation then gets the line of its member. */
  readonly source?: string;
}

/** What each option of the CI formats takes. */
const REPORT_CHECKS: Checks<ReportOptions> = {
  file: [(value) => typeof value === 'string', "the linted spec's path"],
  source: [(value) => typeof value === 'string', "the spec's text"],
};

/** Refuses the findings and options of a CI format `who` with a TypeError naming it; `file` is required. */
function checkReport(who: string, findings: unknown, options: unknown): asserts options is ReportOptions {
  checkFindings(who, findings);
  if (options === undefined) refuse(who, 'options', "an object with the spec's path as file", options);
  checkRules(who, options, REPORT_CHECKS);
  if ((options as ReportOptions).file === undefined) refuse(who, 'file', "the linted spec's path", undefined);
}

/** A workflow command's message: %, CR and LF escaped as GitHub's runner reads them back. */
const escapeData = (text: string): string => text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
/** A workflow command's property: also : and , escaped. */
const escapeProperty = (text: string): string => escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');

/**
 * The findings as GitHub Actions workflow commands, one line each (`::error file=...,line=...::`
 * or `::warning ...`), which the runner shows as annotations on the pull request's diff.
 * @example process.stdout.write(toGithubAnnotations(findings, { file: 'openapi.yaml', source }))
 */
export function toGithubAnnotations(findings: readonly LintFinding[], options: ReportOptions): string {
  checkReport('toGithubAnnotations', findings, options);
  const locate = locator(options.source);
  return findings
    .map((f) => {
      const at = locate(f.pointer);
      const properties = [`file=${escapeProperty(options.file)}`, ...(at ? [`line=${at.startLine}`, `col=${at.startColumn}`] : []), `title=${escapeProperty(`${f.rule} at ${f.pointer || '/'}`)}`];
      const used = f.operations.length === 0 ? '' : ` (used by ${operationList(f.operations)})`;
      return `::${f.severity} ${properties.join(',')}::${escapeData(`${f.message}${used}. Fix: ${f.fix}`)}\n`;
    })
    .join('');
}

/** Text as XML character data or an attribute value: markup escaped, characters XML 1.0 cannot carry dropped. */
const xml = (text: string): string =>
  text
    .replace(/[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

/**
 * The findings as JUnit XML, the report CI systems (GitLab, Jenkins, Azure Pipelines) show as tests:
 * one test case per finding, failed for an error and passed with the warning as its output for a
 * warning; a spec with no findings is one passing test case.
 */
export function toJunit(findings: readonly LintFinding[], options: ReportOptions): string {
  checkReport('toJunit', findings, options);
  const failures = findings.filter((f) => f.severity === 'error').length;
  const cases = findings.map((f) => {
    const name = xml(`${f.rule} ${f.pointer || '/'}`);
    const detail = xml([f.message, ...(f.operations.length ? [`Used by ${operationList(f.operations, 20)}.`] : []), `Fix: ${f.fix}`].join('\n'));
    return f.severity === 'error'
      ? `    <testcase classname="${xml(options.file)}" name="${name}">\n      <failure type="${f.rule}" message="${xml(f.message)}">${detail}</failure>\n    </testcase>`
      : `    <testcase classname="${xml(options.file)}" name="${name}">\n      <system-out>warning: ${detail}</system-out>\n    </testcase>`;
  });
  if (cases.length === 0) cases.push(`    <testcase classname="${xml(options.file)}" name="agent-errors lint"/>`);
  const tests = Math.max(findings.length, 1);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="agent-errors lint" tests="${tests}" failures="${failures}">`,
    `  <testsuite name="${xml(options.file)}" tests="${tests}" failures="${failures}" errors="0">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/** One finding as a baseline records it: what identifies it, not the operations that use its place. */
export interface BaselineEntry {
  readonly rule: string;
  readonly pointer: string;
  readonly message: string;
}

/** The findings a team has accepted for now (`agent-errors lint --baseline`). */
export interface LintBaseline {
  readonly tool: 'agent-errors lint';
  readonly version: 1;
  readonly findings: readonly BaselineEntry[];
}

/** A baseline of `findings`: each one's rule, pointer and message, sorted as the lint sorts them. */
export function baselineOf(findings: readonly LintFinding[]): LintBaseline {
  checkFindings('baselineOf', findings);
  return { tool: 'agent-errors lint', version: 1, findings: findings.map((f) => ({ rule: f.rule, pointer: f.pointer, message: f.message })) };
}

/** Why `value` is not a baseline, or null when it is one. */
function notABaseline(value: unknown): string | null {
  const entries = own(value, 'findings');
  if (own(value, 'version') !== 1 || !Array.isArray(entries)) return 'it needs version 1 and a findings list (agent-errors lint --baseline writes one)';
  // By index, not forEach: a hole in a sparse array is no entry either.
  for (let i = 0; i < entries.length; i += 1) {
    const e: unknown = entries[i];
    if (typeof own(e, 'rule') !== 'string' || typeof own(e, 'pointer') !== 'string' || typeof own(e, 'message') !== 'string') return `/findings/${i} is ${show(e)}, not {rule, pointer, message}`;
  }
  return null;
}

/** `value` as a baseline, or a LintInputError saying what is wrong with it. */
export function checkBaseline(value: unknown, label: string): LintBaseline {
  if (typeof label !== 'string') refuse('checkBaseline', 'label', 'a string naming where the baseline came from', label);
  const why = notABaseline(value);
  if (why !== null) throw new LintInputError(`${label} is not a lint baseline: ${why}`);
  return value as LintBaseline;
}

/**
 * The findings split by a baseline: `fresh` are not in it (they fail), `known` are (each baseline
 * entry excuses one finding with the same rule, pointer and message), and `fixed` counts the
 * baseline entries no finding matches any more.
 */
export function compareWithBaseline(findings: readonly LintFinding[], baseline: LintBaseline): { fresh: LintFinding[]; known: LintFinding[]; fixed: number } {
  checkFindings('compareWithBaseline', findings);
  const why = notABaseline(baseline);
  if (why !== null) refuse('compareWithBaseline', 'baseline', `a lint baseline, as baselineOf makes (${why})`, baseline);
  const key = findingKey;
  const left = new Map<string, number>();
  for (const entry of baseline.findings) left.set(key(entry), (left.get(key(entry)) ?? 0) + 1);
  const fresh: LintFinding[] = [];
  const known: LintFinding[] = [];
  for (const f of findings) {
    const n = left.get(key(f)) ?? 0;
    if (n > 0) {
      left.set(key(f), n - 1);
      known.push(f);
    } else fresh.push(f);
  }
  let fixed = 0;
  for (const n of left.values()) fixed += n;
  return { fresh, known, fixed };
}
