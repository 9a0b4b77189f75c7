import { render } from 'preact-render-to-string';
import type { ScenarioResult } from '../../harness/core/results.js';
import { VERDICT_KINDS, type VerdictKind } from '../../harness/core/verdict.js';
import { SequenceDiagram } from './diagram.js';
import { faultText } from '../../harness/core/scenario/nemesis.js';
import { anchor, Badge, JsonView, msText } from './parts.js';
import { Authority, ClaimsVsWire, SignatureView, MediaTypeViewSection, CardBytes, LagView } from './evidence.js';

export function ScenarioPanel({ s, unexpected }: { s: ScenarioResult; unexpected: boolean }) {
  const text = [s.id, s.title, s.rule, ...s.checks.map((c) => c.reason)].join(' ').toLowerCase();
  return (
    <details
      class={`scenario v-${s.verdict}${unexpected ? ' unexpected' : ''}`}
      id={anchor(s.id)}
      data-verdict={s.verdict}
      data-rule={s.rule}
      data-dialect={s.peer.dialect ?? 'a2a-v1'}
      data-unexpected={unexpected ? 'true' : 'false'}
      data-text={text}
    >
      <summary>
        <Badge v={s.verdict} />
        {unexpected ? <span class="flag">unexpected</span> : null}
        <code class="sid">{s.id}</code>
        <span class="title">{s.title}</span>
        <span class="muted right">
          {s.rule} · expect {s.expect} · {msText(s.durationMs)}
          {s.attempts?.length ? ` · re-run: ${s.attempts.map((a) => a.verdict).join(' → ')} → ${s.verdict}` : ''}
        </span>
      </summary>
      <div class="body">
        {s.unrendered ? (
          <p class="unrendered" data-testid="unrendered">
            <strong>Not all of this scenario could be written:</strong> {s.unrendered}. Its verdict stands as graded.
          </p>
        ) : null}
        {s.glue?.length ? (
          <p class="glue" data-testid="glue">
            <strong>The client's glue:</strong> {s.glue.join('; ')} (the client's own account of the shim around the library it wraps; the verdict is graded
            from the wire as any other).
          </p>
        ) : null}
        <div class="grid2">
          <div>
            <h4>What happens</h4>
            <p>{s.description}</p>
            <h4>What a correct client does</h4>
            <p>{s.expectation}</p>
            <p class="muted">
              Source: {s.spec} · peer <code>{s.peer.factory}</code> speaking <code>{s.peer.dialect ?? 'a2a-v1'}</code> · opaque id <code>{s.opaqueId}</code> ·
              deadline {s.deadlineMs} ms
            </p>
          </div>
          <div>
            <h4>Checks</h4>
            <table class="checks">
              <tbody>
                {s.checks.map((c) => (
                  <tr class={`v-${c.verdict}`}>
                    <td>
                      <Badge v={c.verdict} />
                    </td>
                    <td>
                      <code>{c.rule}</code>
                      <Authority c={c} />
                    </td>
                    <td>
                      {c.reason}
                      {c.evidence.length ? (
                        <ul class="evidence">
                          {c.evidence.map((e) => (
                            <li>
                              {e.source ? <span class={`src src-${e.source}`}>{e.source}</span> : null} {e.seq !== undefined ? <code>#{e.seq}</code> : null}{' '}
                              {e.fact}
                            </li>
                          ))}
                        </ul>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </div>
        <NemesisView s={s} />
        <LagView s={s} />
        <h4>Wire: sequence diagram</h4>
        <SequenceDiagram events={s.transcript} id={`${anchor(s.id)}-seq`} />
        <h4>Claims beside the wire</h4>
        <ClaimsVsWire s={s} />
        {s.signatures?.length ? (
          <>
            <h4>Card signature</h4>
            <SignatureView s={s} />
          </>
        ) : null}
        <MediaTypeViewSection s={s} />
        <div class="grid2">
          <div>
            <h4>Card served (highlighted: the fields that matter)</h4>
            <CardBytes s={s} />
            <JsonView value={s.card} marks={s.cardPointers} />
          </div>
          <div>
            <h4>Profile</h4>
            <JsonView value={s.profile} />
            <h4>Intent</h4>
            <JsonView value={s.intent} />
          </div>
        </div>
        {s.stderr ? (
          <>
            <h4>Client stderr</h4>
            <pre class="stderr">{s.stderr}</pre>
          </>
        ) : null}
        {s.property ? (
          <>
            <h4>Counterexample of the {s.property.family} family</h4>
            <p>
              Story <code>{s.property.story}</code>
              {s.property.drifts.length ? (
                <>
                  {' '}
                  · the runtime drifts from its card:{' '}
                  {s.property.drifts.map((d) => (
                    <code>{d}</code>
                  ))}
                </>
              ) : (
                ' · the runtime honours its card'
              )}{' '}
              · seed <code>{s.property.seed}</code> ·{' '}
              {s.property.notReproduced ? (
                <>
                  path <code>{s.property.path}</code>, which did not fail again when replayed (flaky here)
                </>
              ) : s.property.path === s.property.firstFailure && s.property.shrinks === 0 ? (
                <>
                  path <code>{s.property.path}</code>
                </>
              ) : (
                <>
                  first failure at path <code>{s.property.firstFailure}</code>, shrunk {s.property.shrinks} time(s) to path <code>{s.property.path}</code>
                  {s.property.shrinkInterrupted ? ' (shrinking stopped at its time budget)' : ''}
                </>
              )}
              . The card, profile, intent and runtime above are the shrunk case's; <code>--export</code> writes it as a scenario file.
            </p>
            <pre class="replay">{s.property.replay}</pre>
          </>
        ) : null}
      </div>
    </details>
  );
}

/**
 * One scenario's panel, rendered on its own: data that breaks the renderer (a value it cannot lay
 * out, a getter that throws) costs that panel, which then says why, never the report. The markup is
 * preact's, escaped as everywhere else.
 */
export function panelHtml(s: ScenarioResult, unexpected: boolean): string {
  try {
    return render(<ScenarioPanel s={s} unexpected={unexpected} />);
  } catch (err) {
    let why = 'an error that cannot be shown';
    try {
      why = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    } catch {
      // keep the plain words
    }
    return render(<UnrenderedPanel s={s} unexpected={unexpected} why={why.slice(0, 300)} />);
  }
}

/** The panel of a scenario whose data could not be rendered: what can still be read of it, and why the rest is missing. */
export function UnrenderedPanel({ s, unexpected, why }: { s: ScenarioResult; unexpected: boolean; why: string }) {
  const field = (k: keyof ScenarioResult) => {
    try {
      const v = s[k];
      return typeof v === 'string' ? v : '';
    } catch {
      return '';
    }
  };
  const verdict = (VERDICT_KINDS as readonly string[]).includes(field('verdict')) ? (field('verdict') as VerdictKind) : 'ERROR';
  const id = field('id');
  return (
    <details
      class={`scenario v-${verdict}${unexpected ? ' unexpected' : ''}`}
      id={anchor(id)}
      data-verdict={verdict}
      data-rule={field('rule')}
      data-dialect="a2a-v1"
      data-unexpected={unexpected ? 'true' : 'false'}
      data-text={`${id} ${field('title')}`.toLowerCase()}
    >
      <summary>
        <Badge v={verdict} />
        {unexpected ? <span class="flag">unexpected</span> : null}
        <code class="sid">{id}</code>
        <span class="title">{field('title')}</span>
        <span class="muted right">{field('rule')}</span>
      </summary>
      <div class="body">
        <p class="unrendered" data-testid="unrendered">
          <strong>This scenario's data could not be rendered</strong> ({why}). Its verdict stands as graded; results.json holds what could be written of it.
        </p>
      </div>
    </details>
  );
}

/** The faults a nemesis laid on this scenario's peer (a `--nemesis` run, or a nemesis family's case), and those it left, with why. */
function NemesisView({ s }: { s: ScenarioResult }) {
  const n = s.nemesis;
  if (!n) return null;
  return (
    <div class="nemesis" data-testid="nemesis-faults">
      <h4>Faults laid on the peer (docs/nemesis.md)</h4>
      {n.laid.length ? (
        <ul>
          {n.laid.map((f) => (
            <li>{faultText(f)}</li>
          ))}
        </ul>
      ) : (
        <p>None: the story left no room for any fault of the schedule (each one's reason below).</p>
      )}
      {n.left.length ? <p class="muted">Left: {n.left.map((l) => `${faultText(l.fault)} (${l.why})`).join('; ')}.</p> : null}
      <p class="muted">The deadline grew by {n.deadlineAddedMs} ms for them: the most they can cost a client that handles them well.</p>
    </div>
  );
}
