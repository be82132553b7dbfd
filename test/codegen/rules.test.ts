// The rule tables of schema/ (lint, violations, catalog diff): what codegen makes of them in
// generated/ and in docs/tooling.md, and what it refuses.
import { spawnSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CatalogError, type Catalog } from '../../codegen/catalog-model.js';
import { injectReadme, MarkerError } from '../../codegen/emit-docs.js';
import { renderExtended } from '../../codegen/extend.js';
import { loadCatalog } from '../../codegen/load-catalog.js';
import { ROOT } from '../../codegen/paths.js';
import { TOOLING_PAGE } from '../../codegen/render.js';
import { checkRules } from '../../codegen/rules.js';
import { parseViolationRules } from '../../codegen/violation-rules.js';
import { RETRY_WORDS, type RetryWordEntry } from '../../generated/catalog.js';
import { BREAKING_RULES, NON_BREAKING_RULES } from '../../generated/diff-rules.js';
import { LINT_FORMATS, LINT_RULES } from '../../generated/lint-rules.js';
import { VIOLATION_RULES } from '../../generated/violation-rules.js';

const schemaFile = <T>(name: string): T => JSON.parse(readFileSync(join(ROOT, 'schema', `${name}.json`), 'utf8')) as T;
type Rules = { rule: string; summary: string; fix: string }[];
const catalog: Catalog = await loadCatalog();

/** The problems a check names, or [] when it passes. */
async function problemsOf(check: () => Promise<unknown>): Promise<{ pointer: string; reason: string }[]> {
  try {
    await check();
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(CatalogError);
    return (error as CatalogError).problems;
  }
}

describe('the generated rule tables are the schema files', () => {
  it('LINT_RULES is schema/lint-rules.json', () => {
    expect(LINT_RULES).toEqual(schemaFile<{ rules: unknown[] }>('lint-rules').rules);
  });

  it('BREAKING_RULES and NON_BREAKING_RULES are schema/diff-rules.json', () => {
    const file = schemaFile<{ breaking: Rules; non_breaking: Rules }>('diff-rules');
    expect(BREAKING_RULES).toEqual(file.breaking);
    expect(NON_BREAKING_RULES).toEqual(file.non_breaking);
  });

  // What each {name} of a violation rule's text stands for, read here from the generated catalog.
  const words = (test: (entry: RetryWordEntry) => boolean): string[] => Object.keys(RETRY_WORDS).filter((w) => test(RETRY_WORDS[w as keyof typeof RETRY_WORDS]));
  const LISTS: Record<string, string[]> = {
    wait_words: words((e) => e.next_step === 'wait' && e.requires.includes('retry_after')),
    default_delay_words: words((e) => e.default_retry_after !== undefined),
    field_words: words((e) => e.requires.includes('field')),
    retry_words: Object.keys(RETRY_WORDS),
    next_steps: ['fix_request', 'wait', 'give_up'],
  };

  it('VIOLATION_RULES is schema/violation-rules.json with the catalog lists its text names written out', () => {
    const file = schemaFile<{ rules: Rules }>('violation-rules').rules;
    expect(VIOLATION_RULES.map((r) => r.rule)).toEqual(file.map((r) => r.rule));
    let named = 0;
    VIOLATION_RULES.forEach((rule, i) => {
      for (const member of ['summary', 'fix'] as const) {
        const template = file[i]![member];
        // The template as a pattern: its text as written, each {name} a list to capture.
        const names: string[] = [];
        const pattern = template
          .split(/\{(\w+)\}/)
          .map((part, j) => (j % 2 === 1 ? (names.push(part), '(.+?)') : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
          .join('');
        const match = new RegExp(`^${pattern}$`).exec(rule[member]);
        expect(match, `${rule.rule} ${member}`).not.toBeNull();
        names.forEach((name, k) => expect(match![k + 1]!.split(', '), `${rule.rule} ${member} {${name}}`).toEqual(LISTS[name]));
        named += names.length;
      }
    });
    expect(named).toBeGreaterThan(0);
  });
});

describe('codegen refuses a rule file it cannot use, naming each pointer', () => {
  it('accepts the rule files as committed', async () => {
    expect(await problemsOf(() => checkRules('diff-rules', 'rule', schemaFile('diff-rules')))).toEqual([]);
    expect(await problemsOf(() => parseViolationRules(schemaFile('violation-rules'), catalog))).toEqual([]);
    expect(await problemsOf(() => checkRules('lint-rules', 'id', schemaFile('lint-rules')))).toEqual([]);
  });

  it('refuses a diff rule listed as both breaking and non-breaking', async () => {
    const file = schemaFile<{ breaking: Rules; non_breaking: Rules }>('diff-rules');
    file.non_breaking.push(file.breaking[0]!);
    expect(await problemsOf(() => checkRules('diff-rules', 'rule', file))).toEqual([
      { pointer: `/non_breaking/${file.non_breaking.length - 1}/rule`, reason: `the rule id "${file.breaking[0]!.rule}" is written twice` },
    ]);
  });

  it('refuses a rule without a fix or with an id that is not kebab-case', async () => {
    const file = schemaFile<{ rules: Partial<Rules[number]>[] }>('violation-rules');
    delete file.rules[1]!.fix;
    file.rules[2]!.rule = 'Fix_Without_Param';
    const pointers = (await problemsOf(() => parseViolationRules(file, catalog))).map((p) => p.pointer);
    expect(pointers).toEqual(expect.arrayContaining(['/rules/1', '/rules/2/rule']));
  });

  it('refuses a violation rule whose text names a list the catalog does not give', async () => {
    const file = schemaFile<{ rules: Rules }>('violation-rules');
    file.rules[3]!.fix = 'Use one of {retry_word}.';
    expect(await problemsOf(() => parseViolationRules(file, catalog))).toEqual([
      { pointer: '/rules/3/fix', reason: expect.stringMatching(/^\{retry_word\} names no list of the catalog; a rule's text may name .*\{retry_words\}/) },
    ]);
  });

  it("leaves the rule tables out of a site's extended artifacts: they are the package's own", async () => {
    const files = await renderExtended(join(ROOT, 'test/fixtures/extend/site-codes.json'), 'generated');
    expect(files.has('catalog.js')).toBe(true);
    for (const path of ['lint-rules.js', 'lint-rules.ts', 'LINT.md', 'violation-rules.js', 'diff-rules.js']) expect(files.has(path), path).toBe(false);
  });
});

/** What stands between the `name` markers of a page. */
function between(page: string, name: string): string {
  const [start, end] = [page.indexOf(`<!-- ${name}:start -->`), page.indexOf(`<!-- ${name}:end -->`)];
  expect(start, name).toBeGreaterThanOrEqual(0);
  expect(end, name).toBeGreaterThan(start);
  return page.slice(start, end);
}

/** The rule ids of a table's rows, in order. */
const rows = (text: string): string[] => [...text.matchAll(/^\| `([a-z0-9-]+)` \|/gm)].map((m) => m[1]!);

/** That a page holds a row for every rule between the markers of its table, in the order of the table. */
function expectRuleTables(page: string): void {
  expect(rows(between(page, 'lint-rules'))).toEqual(LINT_RULES.map((r) => r.id));
  for (const f of LINT_FORMATS) expect(between(page, 'lint-formats')).toContain(`(\`${f.id}\`)`);
  for (const r of LINT_RULES) expect(between(page, 'lint-rule-entries')).toContain(`### \`${r.id}\`\n`);
  expect(rows(between(page, 'violation-rules'))).toEqual(VIOLATION_RULES.map((r) => r.rule));
  expect(rows(between(page, 'diff-rules'))).toEqual([...BREAKING_RULES, ...NON_BREAKING_RULES].map((r) => r.rule));
  expect(between(page, 'diff-rules')).toMatch(new RegExp(`^\\| \`${BREAKING_RULES[0].rule}\` \\| yes \\|`, 'm'));
  expect(between(page, 'diff-rules')).toMatch(new RegExp(`^\\| \`${NON_BREAKING_RULES[0].rule}\` \\| no \\|`, 'm'));
}

describe('docs/tooling.md', () => {
  it('holds a row for every rule, in the order of its table, between the markers of that table', () => {
    expectRuleTables(readFileSync(join(ROOT, TOOLING_PAGE), 'utf8'));
  });
});

describe('the pages codegen fills tables into', () => {
  it('fills the README with the code table alone, and names the README when its code markers are missing', () => {
    const readme = '# Title\n\n<!-- codes:start -->\n<!-- codes:end -->\n';
    const filled = injectReadme(readme, catalog);
    expect(filled).toMatch(/^\| `not_found` \| 404 \|/m);
    expect(filled).not.toContain('lint-rules');
    expect(() => injectReadme('# Title\n', catalog)).toThrow(MarkerError);
    expect(() => injectReadme('# Title\n', catalog)).toThrow(/^README\.md has no <!-- codes:start --> \.\.\. <!-- codes:end --> markers/);
  });

  const dirs: string[] = [];
  afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

  /** npm run codegen in a copy of the package's codegen inputs at `dir`. */
  const codegen = (dir: string, ...args: string[]) =>
    spawnSync(process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'codegen/main.ts', ...args], { cwd: dir, encoding: 'utf8' });

  it('--check names a stale table of docs/tooling.md and exits 1; codegen then fills the tables and leaves the prose, and a README without lint rules markers is fine', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-errors-codegen-'));
    dirs.push(dir);
    for (const path of ['codegen', 'schema', 'generated', 'package.json', 'README.md']) await cp(join(ROOT, path), join(dir, path), { recursive: true });
    await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    // The README as its rewrite leaves it: the code table, no lint rules table.
    const readme = (await readFile(join(ROOT, 'README.md'), 'utf8')).replace(/<!-- lint-rules:start -->[^]*<!-- lint-rules:end -->\n?/, '');
    await writeFile(join(dir, 'README.md'), readme);
    const stale = [
      '# Tooling', 'Prose before.',
      '<!-- lint-rules:start -->\n<!-- lint-rules:end -->', 'Prose between.',
      '<!-- lint-formats:start -->\n<!-- lint-formats:end -->', '<!-- lint-rule-entries:start -->\n<!-- lint-rule-entries:end -->',
      `<!-- violation-rules:start -->\n| \`${VIOLATION_RULES[0].rule}\` | edited by hand | |\n<!-- violation-rules:end -->`,
      '<!-- diff-rules:start -->\n<!-- diff-rules:end -->', 'Prose after.\n',
    ].join('\n\n');
    await mkdir(join(dir, 'docs'));
    await writeFile(join(dir, TOOLING_PAGE), stale);

    const check = codegen(dir, '--check');
    expect(check.status, check.stderr).toBe(1);
    expect(check.stderr).toContain(`${TOOLING_PAGE} has a stale generated table`);
    expect(check.stderr).not.toContain('README.md');

    const write = codegen(dir);
    expect(write.status, write.stderr).toBe(0);
    expect(write.stdout).toContain(`the tables of ${TOOLING_PAGE}`);
    const filled = await readFile(join(dir, TOOLING_PAGE), 'utf8');
    expectRuleTables(filled);
    expect(filled).not.toContain('edited by hand');
    expect(filled.replace(/<!-- ([a-z-]+):start -->[^]*?<!-- \1:end -->/g, '$1')).toBe(stale.replace(/<!-- ([a-z-]+):start -->[^]*?<!-- \1:end -->/g, '$1'));
    expect(await readFile(join(dir, 'README.md'), 'utf8')).toBe(readme);
  }, 90_000);
});
