// @agent-index/errors/lint: checks a team runs in CI over error bodies and specs.
export { validateEnvelope, validateProblem } from '../core/validate.js';
export type { ValidationIssue, ValidationResult } from '../core/validate.js';
export { VIOLATION_RULES, violations, type CatalogBodies, type CatalogBody, type Violation, type ViolationRule, type ViolationRuleInfo, type ViolationsOptions } from './violations.js';
export { formatFindings, lintOpenApi, LintInputError, type FormatFindingsOptions, type LintFinding, type LintOpenApiOptions } from './lint-openapi.js';
export { LINT_RULES, type LintRuleId } from '../../generated/lint-rules.js';
export { ERROR_FORMATS, type ErrorFormatId } from '../../generated/error-formats.js';
export { checkLintConfig, readLintConfig, SPEC_CONFIG_MEMBER, type LintConfig, type RuleSetting, type Severity } from './lint-config.js';
export type { ErrorFormat } from './lint-format.js';
export { baselineOf, checkBaseline, compareWithBaseline, toGithubAnnotations, toJunit, type BaselineEntry, type LintBaseline, type ReportOptions } from './lint-report.js';
export { SARIF_SCHEMA_URI, toSarif, type SarifLog, type ToSarifOptions } from './sarif.js';
export { BREAKING_RULES, diffCatalog, formatDiff, NON_BREAKING_RULES } from './diff.js';
export type { Change, DiffOptions, DiffResult, DiffRule, DiffRuleInfo } from './diff.js';
