/** A Markdown summary fit for a CI job summary (GitHub's $GITHUB_STEP_SUMMARY, GitLab notes). */
import type { RunResults } from '../harness/core/results.js';
import { sourceLabel } from '../harness/core/sources.js';
import { VERDICT_KINDS } from '../harness/core/verdict.js';

/** Markdown-safe inline text: no table breaks, no markup, no HTML. */
const md = (s: string) =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\\`*_{}[\]|#!]/g, (c) => `\\${c}`)
    .replace(/[\r\n\u2028\u2029]+/g, ' ');

export function renderMarkdown(r: RunResults, reportPath?: string): string {
  const lines: string[] = [];
  const ok = r.exitCode === 0;
  lines.push(`## A2A client conformance: ${md(r.client.name)} ${md(r.client.version)} ${ok ? '✅' : '❌'}`);
  lines.push('');
  lines.push(`${r.results.length} scenario(s) run, ${r.notRun.length} not run, ${r.unexpected.length} unexpected · exit code ${r.exitCode} · a2a-conformance ${md(r.harness.version)}${r.shard ? ` · shard ${md(r.shard)}` : ''}`);
  lines.push('');
  lines.push(`| ${VERDICT_KINDS.join(' | ')} |`);
  lines.push(`|${VERDICT_KINDS.map(() => '---').join('|')}|`);
  lines.push(`| ${VERDICT_KINDS.map((k) => r.summary[k]).join(' | ')} |`);
  if (r.unexpected.length) {
    lines.push('', '### Unexpected', '', '| verdict | scenario | check | on what authority | why |', '|---|---|---|---|---|');
    for (const u of r.unexpected) {
      const c = r.results.find((x) => x.id === u.id)?.checks.find((x) => x.verdict === u.verdict);
      const rests = c && ['up-front', 'duty', 'record', 'harm'].includes(c.basis ?? '') ? c.sources?.find((x) => (c.basis === 'harm' ? x.role === 'harm' : x.role !== 'harm')) : undefined;
      const authority = c ? [c.basis, rests ? sourceLabel(rests) : c.level].filter(Boolean).join(' · ') : '';
      lines.push(`| ${md(u.verdict)} | ${md(u.id)} | ${md(c ? `${c.rule}: ${c.reason}` : '')} | ${md(authority)} | ${md(u.why)} |`);
    }
  }
  if (reportPath) lines.push('', `Full report: \`${reportPath}\``);
  return lines.join('\n') + '\n';
}
