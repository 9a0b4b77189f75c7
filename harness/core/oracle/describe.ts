/**
 * The rule catalogue in words, generated from the rule objects: the text `list --rules` prints and
 * the generated part of docs/rules.md, and the rule enum of docs/scenario.schema.json (a test checks
 * both files agree). Pure: no I/O.
 */
import { sourceLabel, type Source } from '../sources.js';
import { dutyLabel } from './rule.js';
import { RULE_IDS, RULES, type Rule } from './rules.js';

const FAMILY: Record<Rule['family'], string> = {
  negotiation: 'Negotiation (docs/duties.md §1–4): a valid card is a claim, not a contract',
  transport: 'Transport: server identity and protocol version',
  trust: 'Trust (docs/duties.md §7): a signed card is verified first, and trust is not interpretability',
  handshake: 'Handshake (docs/duties.md §8–11): discovery is not negotiation; probe before binding',
  wire: 'Cross-cutting wire checks (graded on every scenario)',
};

const section = (s: Pick<Source, 'doc' | 'section'>) => (/^\d/.test(s.section) ? `§${s.section}` : s.section);
const mdEscape = (t: string) => t.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** A Markdown table, cells as they are (the docs are not run through a formatter). */
function mdTable(header: string[], rows: string[][]): string[] {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), `|${header.map(() => '---').join('|')}|`, ...rows.map(line)];
}

/** Plain text, one rule after another: what `list --rules` prints. */
export function rulesText(rules: readonly Rule[] = RULES): string {
  const out: string[] = [];
  for (const r of rules) {
    out.push(`${r.id}  ${r.title}`);
    out.push(`  scope: ${r.scope === 'always' ? 'every scenario' : 'its own scenarios'} · up-front level: ${dutyLabel(r)} (harm is FAIL at every level)`);
    for (const s of r.sources) out.push(`  source  ${sourceLabel(s)}${s.role === 'harm' ? ' (harm)' : ''}: "${s.quote}"`);
    for (const l of r.limits ?? []) out.push(`  bound   ${l.doc} ${section(l)}: "${l.quote}"`);
    for (const g of r.grades) out.push(`  grade   ${g.when} → ${g.verdict}`);
    for (const n of r.notBinding) out.push(`  not binding: ${n}`);
    out.push('');
  }
  return out.join('\n');
}

/** The generated part of docs/rules.md. */
export function rulesMarkdown(rules: readonly Rule[] = RULES): string {
  const out: string[] = [];
  out.push(
    ...mdTable(
      ['Rule', 'Scope', 'Up-front level', 'Title'],
      rules.map((r) => [`[${r.id}](#${r.id.toLowerCase()})`, r.scope === 'always' ? 'every scenario' : 'own scenarios', dutyLabel(r), mdEscape(r.title)]),
    ),
  );
  for (const family of ['negotiation', 'transport', 'trust', 'handshake', 'wire'] as const) {
    const here = rules.filter((r) => r.family === family);
    if (here.length === 0) continue;
    out.push('', `## ${FAMILY[family]}`);
    for (const r of here) {
      out.push(
        '',
        `### ${r.id}`,
        '',
        `**${r.title}.** Scope: ${r.scope === 'always' ? 'every scenario' : 'the scenarios that name it'}. Up-front level: **${dutyLabel(r)}**${r.otherwise ? `; where it does not bind, or the client does not take its way, ${r.otherwise} grades too` : ''}.`,
      );
      out.push('', 'Sources:', '');
      for (const s of r.sources) out.push(`- ${s.doc} ${section(s)} — **${s.level}**${s.role === 'harm' ? ' (harm)' : ''}: “${s.quote}”`);
      if (r.limits?.length) {
        out.push('', 'What bounds the reading (not a source of the duty):', '');
        for (const l of r.limits) out.push(`- ${l.doc} ${section(l)}: “${l.quote}”`);
      }
      out.push(
        '',
        ...mdTable(
          ['On the wire', 'Verdict'],
          r.grades.map((g) => [mdEscape(g.when), mdEscape(g.verdict)]),
        ),
      );
      if (r.notBinding.length) {
        out.push('', 'Where it does not bind:', '');
        for (const n of r.notBinding) out.push(`- ${n}`);
      }
      if (r.motivatedBy?.length) out.push('', `Motivated by client bugs reported in public: ${r.motivatedBy.join(', ')}.`);
    }
  }
  return out.join('\n') + '\n';
}

export const RULES_DOC_START = '<!-- rules:generated:start (npm run docs; a test checks it) -->';
export const RULES_DOC_END = '<!-- rules:generated:end -->';

/** docs/rules.md with its generated part replaced by the rules as they are now. */
export function withGeneratedRules(doc: string, rules: readonly Rule[] = RULES): string {
  const a = doc.indexOf(RULES_DOC_START);
  const b = doc.indexOf(RULES_DOC_END);
  if (a < 0 || b < a) throw new Error('docs/rules.md lacks the generated-rules markers');
  return `${doc.slice(0, a + RULES_DOC_START.length)}\n${rulesMarkdown(rules)}${doc.slice(b)}`;
}

/** docs/scenario.schema.json with its scenario `rule` enum set to the registry's ids, in their order. */
export function withRuleEnum(schemaText: string, ids: readonly string[] = RULE_IDS): string {
  const schema = JSON.parse(schemaText) as { $defs?: { scenario?: { properties?: { rule?: { enum?: string[] } } } } };
  const rule = schema.$defs?.scenario?.properties?.rule;
  if (!rule?.enum) throw new Error('docs/scenario.schema.json lacks $defs.scenario.properties.rule.enum');
  rule.enum = [...ids];
  return `${JSON.stringify(schema, null, 2)}\n`;
}
