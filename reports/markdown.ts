/** A Markdown summary fit for a CI job summary (GitHub's $GITHUB_STEP_SUMMARY, GitLab notes). */
import { checkBehind, controlSentence, incompleteSentence, type RunResults } from '../harness/core/results.js';
import { sourceLabel } from '../harness/core/sources.js';
import { VERDICT_KINDS } from '../harness/core/verdict.js';
import { markdownCode } from '../harness/core/text.js';

/**
 * Untrusted text (a client's name, a scenario id, a reason that quotes the wire) as an inline code
 * span: no markup, no HTML, no autolink and no @mention survive in one; controls are shown escaped,
 * and a table's pipe is escaped (GFM splits cells before it reads code spans).
 */
const md = markdownCode;

export function renderMarkdown(r: RunResults, reportPath?: string): string {
  const lines: string[] = [];
  const ok = r.exitCode === 0;
  lines.push(`## A2A client conformance: ${md(r.client.name, false)} ${md(r.client.version, false)} ${ok ? '✅' : '❌'}`);
  lines.push('');
  lines.push(
    `${r.results.length} scenario(s) run, ${r.notRun.length} not run, ${r.unexpected.length} unexpected · exit code ${r.exitCode} · a2a-conformance ${r.harness.version.replace(/[^\w.+-]/g, '?')}${r.shard ? ` · shard ${md(r.shard, false)}` : ''}`,
  );
  lines.push('');
  lines.push(`| ${VERDICT_KINDS.join(' | ')} |`);
  lines.push(`|${VERDICT_KINDS.map(() => '---').join('|')}|`);
  lines.push(`| ${VERDICT_KINDS.map((k) => r.summary[k]).join(' | ')} |`);
  if (r.incomplete) lines.push('', `❌ ${md(incompleteSentence(r.incomplete), false)}`);
  if (r.client.notImplemented?.length)
    lines.push(
      '',
      `Declared not implemented (for the declared capabilities; their scenarios are not run): ${r.client.notImplemented.map((d) => `${d.capability} (${md(d.reason, false)})`).join(' · ')}`,
    );
  if (r.control?.length) lines.push('', `Control exchange: ${md(controlSentence(r.control), false)}`);
  const rerun = r.results.filter((x) => x.attempts?.length);
  if (rerun.length)
    lines.push(
      '',
      `Ran again on a drained lane after the harness lagged: ${rerun
        .slice(0, 10)
        .map((x) => `${md(x.id, false)} ${x.attempts!.map((a) => a.verdict).join(' → ')} → ${x.verdict}`)
        .join(' · ')}${rerun.length > 10 ? ' · …' : ''}`,
    );
  if (r.unexpected.length) {
    lines.push('', '### Unexpected', '', '| verdict | scenario | check | on what authority | why |', '|---|---|---|---|---|');
    for (const u of r.unexpected) {
      try {
        const c = checkBehind(
          r.results.find((x) => x.id === u.id),
          u.verdict,
        );
        const rests =
          c && ['up-front', 'duty', 'record', 'harm'].includes(c.basis ?? '')
            ? c.sources?.find((x) => (c.basis === 'harm' ? x.role === 'harm' : x.role !== 'harm'))
            : undefined;
        const cited = c?.cites?.[0];
        const authority = c
          ? [c.basis, cited ? `${cited.doc} ${/^\d/.test(cited.section) ? `§${cited.section}` : cited.section}` : rests ? sourceLabel(rests) : c.level]
              .filter(Boolean)
              .join(' · ')
          : '';
        // A verdict the client's hello ties to a choice of its glue says so: the row then blames the shim, not the library.
        const glue = r.results.find((x) => x.id === u.id)?.glue;
        lines.push(
          `| ${u.verdict} | ${md(u.id)} | ${md(c ? `${c.rule}: ${c.reason}` : '')}${glue?.length ? ` ${md(`the client's glue: ${glue.join('; ')}`)}` : ''} | ${md(authority)} | ${md(u.why)} |`,
        );
      } catch (err) {
        // A row whose data cannot be laid out says so; the summary stays whole.
        lines.push(
          `| ${typeof u.verdict === 'string' ? md(u.verdict) : ''} | ${typeof u.id === 'string' ? md(u.id) : ''} | ${md(`this scenario's data could not be rendered (${err instanceof Error ? err.message : 'unknown error'})`)} | | |`,
        );
      }
    }
  }
  if (r.properties?.length) {
    lines.push('', `### Property families (seed ${md(r.seed, false)})`, '', '| family | result | cases | verdicts | replay |', '|---|---|---|---|---|');
    for (const f of r.properties) {
      const ce = r.results.find((x) => x.id === f.counterexample);
      const counts = VERDICT_KINDS.filter((k) => f.verdicts[k])
        .map((k) => `${k} ${f.verdicts[k]}`)
        .join(' · ');
      lines.push(
        `| ${md(f.family)} | ${f.failed ? `❌ ${ce ? md(`${ce.verdict} on ${ce.property?.story ?? ''}, ${ce.rule}`) : ''}` : '✅'} | ${f.ran}${f.bindings ? ` (over ${f.bindings.map((b) => `${b} ${f.cases.filter((c) => (c.binding ?? 'JSONRPC') === b).length}`).join(', ')})` : ''} | ${counts} | ${ce?.property && f.failed ? md(ce.property.replay) : ''} |`,
      );
    }
  }
  // Relative, never the machine's own path: summary.md travels (a job summary, an artifact) and is read elsewhere.
  if (reportPath) lines.push('', `Full report: ${md(reportPath, false)}, beside this summary in the report folder (in CI: the report artifact)`);
  return lines.join('\n') + '\n';
}
