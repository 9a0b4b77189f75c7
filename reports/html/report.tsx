import { render } from 'preact-render-to-string';
import { checkBehind, type RunResults } from '../../harness/core/results.js';
import { LEVEL_MEANING, LEVELS, upFrontMissFails } from '../../harness/core/sources.js';
import { printableHtml } from '../../harness/core/text.js';
import { REPORT_CSS, REPORT_SCRIPT } from './assets.js';
import { anchor, unexpectedIds, Badge, secsText } from './parts.js';
import { Summary, Matrix, Filters, Properties } from './overview.js';
import { panelHtml } from './scenario.js';
import { DutiesCited } from './authorities.js';

function Page({ r }: { r: RunResults }) {
  const unexpected = unexpectedIds(r);
  const title = `A2A client conformance — ${r.client.name} ${r.client.version}`;
  const whyCount = new Map<string, number>();
  for (const u of r.unexpected) whyCount.set(u.why, (whyCount.get(u.why) ?? 0) + 1);
  const shared = [...whyCount].filter(([, n]) => n > 1);
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:" />
        <title>{title}</title>
        <style dangerouslySetInnerHTML={{ __html: REPORT_CSS }} />
      </head>
      <body>
        <header>
          <h1>{title}</h1>
          <p class="muted">
            a2a-conformance {r.harness.version} · ruleset {r.ruleset} · started {r.startedAt} · {secsText(r.durationMs)} · id salt <code>{r.seed}</code>
            {r.shard ? ` · shard ${r.shard}` : ''}
            {r.strict ? ' · --strict' : ''}
          </p>
          <p class="muted">
            Profile: {r.client.profile ? <code>{JSON.stringify(r.client.profile)}</code> : 'per run (each scenario hands the client its profile)'} · task
            classes: {r.client.taskClasses.join(', ')}
          </p>
        </header>
        <Summary r={r} />
        <section>
          <h2>Rules × task classes</h2>
          <div class="matrix-wrap">
            <Matrix r={r} />
          </div>
        </section>
        {r.unexpected.length ? (
          <section class="unexpected-list">
            <h2>Unexpected ({r.unexpected.length})</h2>
            {/* A reason many entries share ("FAIL is never expected without an expectations file") is said once, here, not on every line. */}
            {shared.length ? (
              <p class="muted why-shared" data-testid="why-shared">
                {shared.map(([why, n], i) => (
                  <>
                    {i ? ' · ' : ''}
                    {n} × {why}
                  </>
                ))}
              </p>
            ) : null}
            <ul>
              {r.unexpected.map((u) => {
                const result = r.results.find((x) => x.id === u.id);
                const worst = checkBehind(result, u.verdict);
                return (
                  <li>
                    {/* A link only to a scenario in this report: a missing shard's, or an expectation's glob, has no panel. */}
                    <Badge v={u.verdict} />{' '}
                    {result ? (
                      <a href={`#${anchor(u.id)}`}>
                        <code>{u.id}</code>
                      </a>
                    ) : (
                      <code>{u.id}</code>
                    )}
                    {worst ? (
                      <>
                        {' '}
                        — <code>{worst.rule}</code>: {worst.reason}
                      </>
                    ) : null}
                    {whyCount.get(u.why)! > 1 ? null : (
                      <>
                        {' '}
                        <span class="muted">({u.why})</span>
                      </>
                    )}
                  </li>
                );
              })}
            </ul>
          </section>
        ) : null}
        {r.properties ? <Properties r={r} /> : null}
        <section>
          <h2>{r.properties ? 'Counterexamples' : 'Scenarios'}</h2>
          <Filters r={r} />
          <div id="scenarios" dangerouslySetInnerHTML={{ __html: r.results.map((s) => panelHtml(s, unexpected.has(s.id))).join('') }} />
        </section>
        {r.notRun.length ? (
          <section>
            <h2>Not run ({r.notRun.length})</h2>
            <ul class="not-run">
              {r.notRun.map((n) => (
                <li>
                  <code>{n.id}</code> — {n.reason}
                </li>
              ))}
            </ul>
          </section>
        ) : null}
        <DutiesCited r={r} />
        <footer class="muted">
          <p>
            How to read this: each scenario is graded on its own rule and the cross-cutting checks; its verdict is the worst of them. Beside each check: why it
            got its verdict (harm, up-front, over-rejection…), the level that decided it, and the sentences it rests on, so a duty from the field and "A2A
            §3.6.1 MUST" read differently at a glance. Evidence cites transcript sequence numbers (#n) and says where it comes from: the wire, the task ledger,
            or the client's claims, which never decide a FAIL alone. The documents named (docs/…) ship in the a2a-conformance package.
          </p>
          <LevelLegend />
        </footer>
        <script dangerouslySetInnerHTML={{ __html: REPORT_SCRIPT }} />
      </body>
    </html>
  );
}

/** Every level a check can cite: what it is, what a miss up front gets, and that harm fails at each. */
function LevelLegend() {
  return (
    <table class="levels">
      <thead>
        <tr>
          <th>level</th>
          <th>what it is</th>
          <th>a miss up front</th>
          <th>harm on the wire</th>
        </tr>
      </thead>
      <tbody>
        {LEVELS.map((l) => (
          <tr>
            <td>
              <span class={`lvl lvl-${l}`}>{l}</span>
            </td>
            <td>{LEVEL_MEANING[l]}</td>
            <td>{l === 'vendor' ? 'FAIL or NON_STRICT, as the assertion says' : upFrontMissFails(l) ? 'FAIL' : 'NON_STRICT'}</td>
            <td>FAIL</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Renders the whole report document. */
export function renderHtmlReport(results: RunResults): string {
  return `<!doctype html>\n${printableHtml(render(<Page r={results} />))}\n`;
}
