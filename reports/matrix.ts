/**
 * The matrix's files: index.html (the page), matrix.json (its data, docs/matrix.schema.json),
 * summary.md (the grid for a job summary or a README), a badge per client (badges/<id>.svg, and
 * badges/<id>.json in the endpoint format of shields-style services), and each client's own reports
 * (clients/<id>/, its property run in clients/<id>/properties/).
 */
import { makeBadge } from 'badge-maker';
import { tierWords, type Matrix, type MatrixClient, type MatrixEntry } from '../harness/core/matrix.js';
import { LEVELS } from '../harness/core/sources.js';
import { markdownCode, printableInline } from '../harness/core/text.js';
import { h } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { VERDICT_KINDS } from '../harness/core/verdict.js';
import { renderMatrixHtml } from './html/matrix.js';
import { renderReports, type RenderedReport } from './index.js';

const COLOURS = { 1: 'brightgreen', 2: 'yellow', none: 'lightgrey' } as const;

/** The badge's left side: what it is about, short enough for a README (about 150 px with the tier). */
export const BADGE_LABEL = 'A2A client';

/**
 * The badge's words: the tier alone (`tier 1`, `unranked`), `(selection)` for a run of some of the
 * scenarios, `(scoped)` for a client that declares capabilities it does not implement, `(subset)` for
 * both (its title says which): at most 200 px wide whatever the tier.
 */
export function badgeMessage(c: Pick<MatrixClient, 'tier'>): string {
  return tierWords(c.tier);
}

/** A tier's scope in words: `for the declared capabilities (not implemented: a, b)`, or '' for none declared. */
export function declaredScope(t: Pick<MatrixClient['tier'], 'declared'>): string {
  return t.declared?.length ? `for the declared capabilities (not implemented: ${t.declared.map((d) => d.capability).join(', ')})` : '';
}

/**
 * What the badge stands for, in full: its `<title>` (a hover text, and what a screen reader gives):
 * the client and version, the tier, any selection and declared scope, the harness's version and the ruleset. The
 * client's name and version are its own text, kept printable.
 */
export function badgeTitle(m: Pick<Matrix, 'harness' | 'ruleset'>, c: Pick<MatrixClient, 'tier' | 'name' | 'version'>): string {
  const selection = `${c.tier.selection ? ` (a selection: ${printableInline(c.tier.selection)})` : ''}${c.tier.declared?.length ? ` ${declaredScope(c.tier)}` : ''}`;
  const set = c.tier.requirements && c.tier.requirements !== m.ruleset ? ` · requirement set ${c.tier.requirements}` : '';
  return `A2A client conformance of ${printableInline(c.name)} ${printableInline(c.version)}: ${c.tier.label}${selection} · a2a-conformance ${printableInline(m.harness.version)} · ruleset ${printableInline(m.ruleset)}${set}`;
}

/**
 * The endpoint JSON of shields-style services (https://shields.io/badges/endpoint-badge): only the
 * keys that format has, since shields answers "invalid response data" to any other; the details are
 * the SVG's title and matrix.json's.
 */
export function badgeEndpoint(c: Pick<MatrixClient, 'tier'>) {
  return { schemaVersion: 1, label: BADGE_LABEL, message: badgeMessage(c), color: COLOURS[c.tier.tier ?? 'none'] };
}

export function badgeSvg(m: Pick<Matrix, 'harness' | 'ruleset'>, c: Pick<MatrixClient, 'tier' | 'name' | 'version'>): string {
  const e = badgeEndpoint(c);
  // badge-maker titles it "label: message"; the title is the whole claim instead, escaped as text.
  const svg = makeBadge({ label: e.label, message: e.message, color: e.color });
  // A function replacer: `$&` or `$'` in a client's name is text, not a replacement pattern.
  const title = renderToString(h('title', null, badgeTitle(m, c)));
  return `${svg.replace(/<title>[^<]*<\/title>/, () => title)}\n`;
}

/** The matrix as Markdown: tiers, then clients × levels. */
/** A client as summary.md names it: its hello's name and version are the client's own text, shown as code. */
const who = (c: MatrixClient, cell = true) => `${markdownCode(c.name, cell)} ${markdownCode(c.version, cell)}`;

export function renderMatrixMarkdown(m: Matrix): string {
  const lines = [
    `# A2A client conformance matrix`,
    '',
    `a2a-conformance ${m.harness.version} · ruleset ${m.ruleset} · tiers as docs/tiers.md defines them`,
    '',
    '| client | tier | MUST/security rules passed | harm | property families | scenarios |',
    '|---|---|---|---|---|---|',
    ...m.clients.map((c) => `| ${who(c)} | ${badgeMessage(c)} | ${mustCell(c)} | ${c.harm} | ${familiesCell(c)} | ${scenarioCell(c)} |`),
    '',
    `| client | ${LEVELS.join(' | ')} |`,
    `|---|${LEVELS.map(() => '---').join('|')}|`,
    ...m.clients.map((c) => `| ${who(c)} | ${LEVELS.map((l) => (c.levels[l].graded ? `${c.levels[l].passed}/${c.levels[l].graded}` : '—')).join(' | ')} |`),
    '',
    'Levels: checks passed of checks graded (PASS of PASS, NON_STRICT, FAIL, TIMEOUT).',
    '',
  ];
  for (const c of m.clients.filter((x) => x.tier.blockers.length)) {
    lines.push(`What keeps ${who(c, false)} (${badgeMessage(c)}) from ${c.tier.tier === 2 ? 'tier 1' : 'tier 2'}:`, '');
    for (const b of c.tier.blockers) {
      const items = b.items
        .map((i) =>
          [
            i.scenario && markdownCode(i.scenario, false),
            i.family && `family ${i.family}`,
            i.rule,
            i.verdict,
            i.level && `(${i.level})`,
            i.glue?.length && `[the client's glue: ${markdownCode(i.glue.join('; '), false)}]`,
          ]
            .filter(Boolean)
            .join(' '),
        )
        .filter(Boolean);
      lines.push(`- ${b.condition}${items.length ? `: ${items.join('; ')}` : ''}${b.more ? ` and ${b.more} more` : ''}`);
    }
    lines.push('');
  }
  return lines.join('\n');
}

/** Every file of the matrix report, rendered (nothing written). */
export function renderMatrixReports(m: Matrix, entries: MatrixEntry[]): RenderedReport {
  const files: RenderedReport['files'] = [];
  const notes: string[] = [];
  for (const e of entries) {
    const own = renderReports(e.run);
    files.push(...own.files.map((f) => ({ ...f, name: `clients/${e.client.id}/${f.name}` })));
    notes.push(...own.notes.map((n) => `${e.client.name}: ${n}`));
    if (e.properties) {
      const p = renderReports(e.properties);
      files.push(...p.files.map((f) => ({ ...f, name: `clients/${e.client.id}/properties/${f.name}` })));
      notes.push(...p.notes.map((n) => `${e.client.name} (properties): ${n}`));
    }
    files.push({ name: `badges/${e.client.id}.svg`, text: badgeSvg(m, e.client) });
    files.push({ name: `badges/${e.client.id}.json`, text: JSON.stringify(badgeEndpoint(e.client), null, 2) + '\n' });
  }
  files.push({ name: 'summary.md', text: renderMatrixMarkdown(m) });
  files.push({ name: 'matrix.json', text: JSON.stringify(m, null, 2) + '\n' });
  files.push({ name: 'index.html', text: renderMatrixHtml(m, Object.fromEntries(entries.map((e) => [e.client.id, badgeSvg(m, e.client)]))) });
  return { files, notes };
}

/** The README's matrix of the built-in clients: one row per client (scripts/readme-matrix.ts writes it; the client tests check the scenario columns). */
export function readmeMatrixRow(c: MatrixClient): string {
  const kept = c.tier.blockers
    .map((b) => {
      const rules = [...new Set(b.items.flatMap((i) => (i.rule ? [`${i.rule}${i.glue?.length ? ' (glue)' : ''}`] : i.family ? [`family ${i.family}`] : [])))];
      return `${b.condition}${rules.length ? ` (${rules.slice(0, 4).join(', ')}${rules.length > 4 ? ', …' : ''})` : ''}`;
    })
    .join('; ');
  // The built-in clients' names, ours: plain text in the README.
  return `| ${c.name} ${c.version} | **${c.tier.label}**${c.tier.declared?.length ? ' (scoped)' : ''} | ${mustCell(c)} | ${c.harm} | ${familiesCell(c)} | ${scenarioCell(c)} | ${kept || '—'} |`;
}

const familiesCell = (c: MatrixClient) => (c.tier.properties.given ? `${c.tier.properties.passed} of ${c.tier.properties.families} passed` : 'not run');
export const mustCell = (c: MatrixClient) => `${c.tier.mustRules.passed} of ${c.tier.mustRules.graded}`;
export const scenarioCell = (c: MatrixClient) =>
  VERDICT_KINDS.filter((k) => c.scenarios.summary[k])
    .map((k) => `${k} ${c.scenarios.summary[k]}`)
    .join(' · ');

export const README_MATRIX_HEAD = [
  '| client | tier | MUST and security rules passing | harm | property families passing (seed 1) | scenarios | kept from the next tier by |',
  '|---|---|---|---|---|---|---|',
];
