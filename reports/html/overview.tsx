import { absentReasonPrefix } from '../../harness/core/protocol/capabilities.js';
import { faultText } from '../../harness/core/scenario/nemesis.js';
import { controlSentence, incompleteSentence, type RunResults } from '../../harness/core/results.js';
import { TASK_CLASSES } from '../../harness/core/protocol/types.js';
import { severity, VERDICT_KINDS } from '../../harness/core/verdict.js';
import { anchor, secsText } from './parts.js';

export function Summary({ r }: { r: RunResults }) {
  const unsupported = r.summary.UNSUPPORTED;
  const graded = r.results.length - unsupported;
  return (
    <section class="summary" aria-label="summary">
      <div class="counts">
        {VERDICT_KINDS.map((k) => (
          <div class={`count v-${k}`} data-verdict={k}>
            <span class="n" data-count-verdict={k}>
              {r.summary[k]}
            </span>
            <span class="k">{k}</span>
          </div>
        ))}
      </div>
      <p class="coverage">
        <strong data-testid="graded">{graded}</strong> graded · <strong>{unsupported}</strong> unsupported ·{' '}
        <strong data-testid="not-run">{r.notRun.length}</strong> not run · <strong data-testid="unexpected">{r.unexpected.length}</strong> unexpected · exit
        code <strong data-testid="exit-code">{r.exitCode}</strong>
      </p>
      {r.incomplete ? (
        <p class="coverage incomplete" data-testid="incomplete">
          {incompleteSentence(r.incomplete)}.
        </p>
      ) : null}
      {r.client.notImplemented?.length ? (
        <p class="coverage" data-testid="declared">
          The client declares it does not implement{' '}
          {r.client.notImplemented.map((d, i) => (
            <>
              {i ? '; ' : ''}
              <code>{d.capability}</code> ({d.reason})
            </>
          ))}
          : the {r.notRun.filter((n) => r.client.notImplemented!.some((d) => n.reason.startsWith(absentReasonPrefix(d.capability)))).length} scenario(s) that
          need it are listed as not run, never credited, and the verdicts here are for the declared capabilities.
        </p>
      ) : null}
      {r.live ? (
        <p class="coverage" data-testid="live">
          <strong>A live agent, not scripted:</strong> {r.live.name}, its card read from <code>{r.live.cardUrl}</code> at {r.live.readAt}, the client driven
          through the harness's recording proxy ({r.live.cuts.length ? r.live.cuts.join('; ') : 'nothing cut'}). Graded: what its wire shows (
          {r.live.measured.join(', ')}); any other rule is reported as not measured (docs/live.md).
        </p>
      ) : null}
      {r.nemesis ? (
        <p class="coverage" data-testid="nemesis">
          Under a nemesis (<code>--nemesis</code>, docs/nemesis.md): {r.nemesis.faults.map(faultText).join('; ')}. Laid on{' '}
          {r.results.filter((x) => x.nemesis?.laid.length).length} of {r.results.length} scenario(s) where the story leaves room for them; each scenario's
          deadline grew by what its faults can cost, and each says what was laid and left.
        </p>
      ) : null}
      {r.control?.length ? (
        <p class="coverage" data-testid="control">
          Control exchange: {controlSentence(r.control)}.
        </p>
      ) : null}
      {r.results.some((x) => x.attempts?.length) || r.lanes?.backoffs ? (
        <p class="coverage" data-testid="reruns">
          The harness lagged during this run (a loaded machine, or its own lanes): {r.results.filter((x) => x.attempts?.length).length} scenario(s) ran again on
          a drained lane before their verdict was reported
          {r.lanes?.backoffs ? `; the lanes backed off from ${r.lanes.start} to ${r.lanes.min} (${r.lanes.backoffs} time(s))` : ''}. See each scenario's
          attempts.
        </p>
      ) : null}
    </section>
  );
}

/** Rules × task classes, each cell the worst verdict there. */
export function Matrix({ r }: { r: RunResults }) {
  const rules = [...new Set(r.results.map((x) => x.rule))].sort();
  const classes = TASK_CLASSES.filter((c) => r.results.some((x) => x.intent.taskClass === c));
  return (
    <table class="matrix" aria-label="rules by task class">
      <thead>
        <tr>
          <th>rule</th>
          {classes.map((c) => (
            <th>{c}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rules.map((rule) => (
          <tr>
            <th class="rule-name">{rule}</th>
            {classes.map((c) => {
              const here = r.results.filter((x) => x.rule === rule && x.intent.taskClass === c);
              if (here.length === 0)
                return (
                  <td class="empty" data-class={c}>
                    ·
                  </td>
                );
              const worst = here.reduce((a, b) => (severity(b.verdict) > severity(a.verdict) ? b : a)).verdict;
              // Counts per verdict, the worst first: "1 FAIL · 2 PASS".
              const counts = VERDICT_KINDS.map((k) => [k, here.filter((x) => x.verdict === k).length] as const)
                .filter(([, n]) => n > 0)
                .sort((a, b) => severity(b[0]) - severity(a[0]));
              return (
                <td class={`cell v-${worst}`} data-class={c}>
                  <button
                    type="button"
                    class="cell-btn"
                    data-rule={rule}
                    data-counts={counts.map(([k, n]) => `${k}=${n}`).join(',')}
                    title={here.map((x) => `${x.id}: ${x.verdict}`).join('\n')}
                  >
                    {counts.map(([k, n], i) => (
                      <span class="cc">
                        {i > 0 ? ' · ' : ''}
                        <span class="cn">{n}</span> {k}
                      </span>
                    ))}
                  </button>
                </td>
              );
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function Filters({ r }: { r: RunResults }) {
  const rules = [...new Set(r.results.map((x) => x.rule))].sort();
  return (
    <section class="filters" aria-label="filters">
      {/* biome-ignore lint/a11y/useSemanticElements: a row of toggle buttons, not a form's fieldset */}
      <div class="verdict-filters" role="group" aria-label="verdicts">
        {/* Chips select, as Playwright's report does: none pressed shows every verdict; a click shows only that verdict, Ctrl/Cmd/Shift-click adds one. */}
        <button type="button" class="vf vf-all" data-filter-verdict="" aria-pressed="true">
          all ({r.results.length})
        </button>
        {VERDICT_KINDS.filter((k) => r.summary[k] > 0).map((k) => (
          <button type="button" class={`vf v-${k}`} data-filter-verdict={k} aria-pressed="false">
            {k} ({r.summary[k]})
          </button>
        ))}
        <label class="only-unexpected">
          <input type="checkbox" id="only-unexpected" /> only unexpected
        </label>
      </div>
      <select id="rule-filter" aria-label="rule">
        <option value="">all rules</option>
        {rules.map((x) => (
          <option value={x}>{x}</option>
        ))}
      </select>
      <select id="dialect-filter" aria-label="dialect">
        <option value="">both dialects</option>
        <option value="a2a-v1">A2A v1.0 peers</option>
        <option value="a2a-v0.3">A2A v0.3 peers</option>
      </select>
      <input id="text-filter" type="search" placeholder="filter by text (id, title, reason)" aria-label="text filter" />
      <span id="shown" class="muted" />
    </section>
  );
}

/**
 * Where a check's authority comes from: why it got its verdict, at which level, and the sentences it
 * rests on (as chips; the quote in full where the check is not a pass, and on hover everywhere).
 */
export function Properties({ r }: { r: RunResults }) {
  const fams = r.properties ?? [];
  const list = (m: Record<string, number>) =>
    Object.entries(m)
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k} ${n}`)
      .join(' · ');
  return (
    <section class="properties">
      <h2>Property families</h2>
      <p class="muted">
        Seed <code>{r.seed}</code> · {fams.reduce((n, f) => n + f.ran, 0)} generated case(s). Each case is in results.json (<code>properties[].cases</code>:
        path, story, rule, verdict); replay one with{' '}
        <code>
          a2a-conformance replay --family &lt;id&gt; --seed {r.seed} --path &lt;path&gt;{fams[0]?.bindings ? ` --binding ${fams[0].bindings.join(',')}` : ''}
        </code>
        .
      </p>
      <div class="matrix-wrap">
        <table class="families">
          <thead>
            <tr>
              <th>family</th>
              <th>result</th>
              <th>cases</th>
              <th>verdicts</th>
              <th>stories</th>
              <th>graded by</th>
              <th>time</th>
            </tr>
          </thead>
          <tbody>
            {fams.map((f) => (
              <tr data-family={f.family} data-failed={f.failed ? 'true' : 'false'}>
                <td>
                  <code>{f.family}</code>
                  <br />
                  <span class="muted">{f.title}</span>
                </td>
                <td>{f.failed ? f.counterexample ? <a href={`#${anchor(f.counterexample)}`}>✗ failed: counterexample</a> : '✗ failed' : '✓ passed'}</td>
                <td>
                  {f.ran} of {f.runs}
                  {f.bindings ? (
                    <>
                      <br />
                      <span class="muted">
                        over {f.bindings.map((b) => `${b} ${f.cases.filter((c) => (c.binding ?? 'JSONRPC') === b).length}`).join(' · ')}
                      </span>
                    </>
                  ) : null}
                </td>
                <td>
                  {VERDICT_KINDS.filter((k) => f.verdicts[k]).map((k) => (
                    <span class={`v-${k}`}>
                      {k} {f.verdicts[k]}{' '}
                    </span>
                  ))}
                </td>
                <td>{list(f.stories)}</td>
                <td>{list(f.labels)}</td>
                <td>
                  {secsText(f.durationMs)}
                  {f.shrinkMs !== undefined ? ` (shrinking ${(f.shrinkMs / 1000).toFixed(1)} s)` : ''}
                  {f.cases.some((c) => c.attempts?.length) ? (
                    <>
                      <br />
                      <span class="muted">{f.cases.filter((c) => c.attempts?.length).length} case(s) ran again after the harness lagged</span>
                    </>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
