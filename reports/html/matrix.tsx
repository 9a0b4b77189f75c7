/**
 * The conformance matrix as one self-contained page: every client with its tier, the checks that keep
 * it from the next, its badge; clients × levels; clients × rules (worst first); clients × scenarios
 * where they differ. Rendered from the matrix alone (harness/runner/judge/matrix.ts).
 */
import { render } from 'preact-render-to-string';
import { printableHtml } from '../../harness/core/text.js';
import { tierWords, type Matrix, type MatrixClient } from '../../harness/core/matrix.js';
import { LEVELS } from '../../harness/core/sources.js';
import { VERDICT_KINDS, type VerdictKind } from '../../harness/core/verdict.js';
import { REPORT_CSS } from './assets.js';
import { Badge } from './parts.js';

const MATRIX_CSS = `
.tiers { display: grid; grid-template-columns: repeat(auto-fill, minmax(300px, 1fr)); gap: 12px; margin: 12px 0; }
.client { border: 1px solid #ddd; border-left: 6px solid #9e9e9e; border-radius: 6px; padding: 8px 12px; min-width: 0; overflow-wrap: anywhere; }
.client.t1 { border-left-color: var(--pass); } .client.t2 { border-left-color: var(--nonstrict); }
.client h3 { margin: 0 0 4px; font-size: 15px; } .tier { font-weight: 700; }
.client img { max-width: 100%; height: auto; display: block; margin: 6px 0; }
.blockers { margin: 6px 0 0; padding-left: 18px; font-size: 12px; } .blockers li { margin: 3px 0; }
.grid td, .grid th { border: 1px solid #e3e3e3; font-size: 12px; } .grid th { position: sticky; top: 0; background: #fff; }
.grid td.c { white-space: nowrap; } .mini { display: inline-block; border-radius: 3px; color: #fff; padding: 0 4px; margin: 1px; font-weight: 600; font-size: 11px; }
.mini.v-PASS { background: var(--pass); } .mini.v-NON_STRICT { background: var(--nonstrict); } .mini.v-FAIL { background: var(--fail); } .mini.v-TIMEOUT { background: var(--timeout); }
.mini.v-INFORMATIONAL { background: var(--info); } .mini.v-UNSUPPORTED { background: var(--unsup); } .mini.v-ERROR { background: var(--error); }
@media (max-width: 600px) { body { padding: 10px 10px 32px; } .tiers { grid-template-columns: minmax(0, 1fr); } }
`;

const short: Record<VerdictKind, string> = { PASS: 'P', NON_STRICT: 'NS', FAIL: 'F', INFORMATIONAL: 'I', UNSUPPORTED: 'U', TIMEOUT: 'T', ERROR: 'E' };

function Counts({ c }: { c: Partial<Record<VerdictKind, number>> | undefined }) {
  if (!c) return <span class="muted">—</span>;
  return (
    <>
      {VERDICT_KINDS.filter((k) => c[k]).map((k) => (
        <span class={`mini v-${k}`} title={`${k} ${c[k]}`}>
          {short[k]} {c[k]}
        </span>
      ))}
    </>
  );
}

function ClientCard({ c, badge }: { c: MatrixClient; badge: string }) {
  const t = c.tier;
  return (
    <section class={`client ${t.tier === 1 ? 't1' : t.tier === 2 ? 't2' : 'tu'}`} data-client={c.id} data-tier={t.label}>
      <h3>
        {c.name} <span class="muted">{c.version}</span>
      </h3>
      <div>
        <span class="tier">{t.label}</span>
        {t.selection ? <span class="muted"> (a selection: {t.selection})</span> : null}
        {t.withheld ? <span class="muted"> — {t.withheld}</span> : null}
      </div>
      {t.declared?.length ? (
        <div class="muted" data-declared={t.declared.map((d) => d.capability).join(' ')}>
          for the declared capabilities; not implemented:{' '}
          {t.declared.map((d, i) => (
            <>
              {i ? '; ' : ''}
              <code>{d.capability}</code> ({d.reason}; {d.notRun} scenario(s) not run)
            </>
          ))}
        </div>
      ) : null}
      {t.requirements ? (
        <div class="muted" data-requirements={t.requirements}>
          scored against the requirement set {t.requirements}
          {t.notScored && (t.notScored.scenarios || t.notScored.checks)
            ? `; not scored (added after it): ${t.notScored.scenarios} scenario(s), ${t.notScored.checks} check(s)`
            : ''}
        </div>
      ) : null}
      <img src={`data:image/svg+xml;base64,${Buffer.from(badge).toString('base64')}`} alt={`badge: ${tierWords(t)}`} data-badge={c.badge.svg} />
      <div class="muted">
        MUST and security rules: {t.mustRules.passed} of {t.mustRules.graded} graded pass ({t.mustRules.exercised} exercised) · harm {t.harm} · property
        families {t.properties.given ? `${t.properties.passed} of ${t.properties.families} passed` : 'not run'}
      </div>
      <div class="muted">
        <a href={c.report}>scenario report</a>
        {c.propertiesReport ? (
          <>
            {' · '}
            <a href={c.propertiesReport}>property report</a>
          </>
        ) : null}
        {' · '}
        <a href={c.badge.endpoint}>badge endpoint</a>
      </div>
      {t.blockers.length ? (
        <>
          <h4>What keeps it from {t.tier === 2 ? 'tier 1' : 'tier 2'}</h4>
          <ul class="blockers">
            {t.blockers.map((b) => (
              <li>
                <strong>{b.condition}</strong>
                <ul>
                  {b.items.map((i) => (
                    <li>
                      {i.scenario ? <code>{i.scenario}</code> : null}
                      {i.family ? <code>family {i.family}</code> : null} {i.rule ? <code>{i.rule}</code> : null} {i.verdict ? `${i.verdict}` : ''}
                      {i.level ? ` (${i.level})` : ''}
                      {i.why ? `${i.scenario || i.family || i.rule ? ': ' : ''}${i.why}` : ''}
                      {i.glue?.length ? (
                        <span class="glue" data-testid="blocker-glue">
                          {' '}
                          (the client's glue: {i.glue.join('; ')})
                        </span>
                      ) : null}
                    </li>
                  ))}
                  {b.more ? <li class="muted">and {b.more} more</li> : null}
                </ul>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}

/** The page; `badges`, each client's badge SVG by id, shown inline (the page needs no other file). */
export function MatrixPage({ m, badges }: { m: Matrix; badges: Record<string, string> }) {
  const title = `A2A client conformance matrix — ${m.clients.length} client(s)`;
  const differing = m.scenarios.filter((s) => new Set(m.clients.map((c) => s.verdicts[c.id] ?? 'not run')).size > 1);
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:" />
        <title>{title}</title>
        <style dangerouslySetInnerHTML={{ __html: REPORT_CSS + MATRIX_CSS }} />
      </head>
      <body>
        <header>
          <h1>{title}</h1>
          <p class="muted">
            a2a-conformance {m.harness.version} · ruleset {m.ruleset} · {m.generatedAt} · tiers as docs/tiers.md defines them, computed from the verdicts only
          </p>
        </header>
        <section>
          <h2>Tiers</h2>
          <div class="tiers">
            {m.clients.map((c) => (
              <ClientCard c={c} badge={badges[c.id] ?? ''} />
            ))}
          </div>
        </section>
        <section>
          <h2>Clients × levels (checks: graded · passed · NON_STRICT · failed)</h2>
          <div class="matrix-wrap">
            <table class="grid levels">
              <thead>
                <tr>
                  <th>client</th>
                  {LEVELS.map((l) => (
                    <th>
                      <span class={`lvl lvl-${l}`}>{l}</span>
                    </th>
                  ))}
                  <th>harm</th>
                  <th>scenarios</th>
                </tr>
              </thead>
              <tbody>
                {m.clients.map((c) => (
                  <tr data-client={c.id}>
                    <td>
                      {c.name} <span class="muted">{c.version}</span>
                    </td>
                    {LEVELS.map((l) => {
                      const n = c.levels[l];
                      return (
                        <td class="c" title={`${l}: ${n.graded} graded, ${n.passed} passed, ${n.missed} NON_STRICT, ${n.failed} FAIL or TIMEOUT`}>
                          {n.graded ? `${n.graded} · ${n.passed} · ${n.missed} · ${n.failed}` : '—'}
                        </td>
                      );
                    })}
                    <td class="c">{c.harm}</td>
                    <td class="c">
                      <Counts c={c.scenarios.summary} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
        <section>
          <h2>Clients × rules (scenarios per verdict, worst first)</h2>
          <div class="matrix-wrap">
            <table class="grid rules">
              <thead>
                <tr>
                  <th>rule</th>
                  {m.clients.map((c) => (
                    <th>{c.name}</th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {m.rules.map((r) => (
                  <tr data-rule={r.rule}>
                    <td>
                      <code>{r.rule}</code>
                    </td>
                    {m.clients.map((c) => (
                      <td class="c">
                        <Counts c={r.cells[c.id]} />
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
        <section>
          <h2>Scenarios where the clients differ ({differing.length})</h2>
          <div class="matrix-wrap">
            <table class="grid scenarios">
              <thead>
                <tr>
                  <th>scenario</th>
                  <th>rule</th>
                  {m.clients.map((c) => (
                    <th>{c.name}</th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {differing.map((s) => (
                  <tr>
                    <td>
                      <code>{s.id}</code>
                    </td>
                    <td>
                      <code>{s.rule}</code>
                    </td>
                    {m.clients.map((c) => (
                      <td class="c">{s.verdicts[c.id] ? <Badge v={s.verdicts[c.id]!} /> : <span class="muted">not run</span>}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
        <footer class="muted">matrix.json holds this page's data (docs/matrix.schema.json); each client's own report is linked from its card.</footer>
      </body>
    </html>
  );
}

export function renderMatrixHtml(m: Matrix, badges: Record<string, string>): string {
  return `<!doctype html>\n${printableHtml(render(<MatrixPage m={m} badges={badges} />))}\n`;
}
