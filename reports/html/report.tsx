/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/**
 * The HTML conformance report, rendered from results.json alone (never from live run state): one
 * self-contained file, no network. Rendering goes through preact-render-to-string, which escapes
 * every string; the only raw HTML is this module's own CSS and script constants, and the scenario
 * panels, each rendered by preact on its own (so that one that cannot be rendered costs only itself).
 */
import { createHash } from 'node:crypto';
import { render } from 'preact-render-to-string';
import type { ComponentChildren } from 'preact';
import { controlSentence, checkBehind, incompleteSentence, type RunResults, type ScenarioResult } from '../../harness/core/results.js';
import { TASK_CLASSES } from '../../harness/core/vocabulary/types.js';
import { sourceLabel } from '../../harness/core/sources.js';
import { severity, VERDICT_KINDS, type Check, type VerdictKind } from '../../harness/core/verdict.js';
import { SequenceDiagram } from './diagram.js';
import { includesMediaType, parseMediaType } from '../../harness/core/vocabulary/media-type.js';
import { outputModesFor, readCard } from '../../harness/core/vocabulary/card-view.js';
import type { HttpEvent } from '../../harness/core/transcript.js';
import { JWKS_PATH } from '../../harness/core/scenario.js';
import { REPORT_CSS, REPORT_SCRIPT } from './assets.js';

const anchor = (id: string) => `scenario-${id.replace(/[^a-zA-Z0-9_-]/g, '-')}`;
const unexpectedIds = (r: RunResults) => new Set(r.unexpected.map((u) => u.id));

function Badge({ v }: { v: VerdictKind }) {
  return <span class={`badge v-${v}`}>{v}</span>;
}

/** A value as JSON has it: keys whose value is undefined dropped, undefined in arrays null (JSON.stringify's rules). */
const asJson = (value: unknown): unknown => (value === undefined ? null : JSON.parse(JSON.stringify(value)));

/**
 * Levels of nesting a JSON view shows. A scenario's card is at most 64 levels deep (checked when it
 * is loaded); a deeper value in a results file is shown elided and said to be, never walked.
 */
export const JSON_VIEW_DEPTH = 100;
/** Highlights nested inside highlights, at most (each is an element: the page's own depth stays bounded). */
const MARKS_NESTED = 16;

/** One piece of work of the JSON view: a value to lay out, text to emit, or the end of a highlight. */
type JsonStep = { v: unknown; ptr: string; indent: string; depth: number } | { text: ComponentChildren } | { endMark: string };

/**
 * JSON, pretty-printed with two spaces, with the values at `marks` (JSON pointers) highlighted. Its
 * text is exactly `JSON.stringify(value, null, 2)`: for a card, the bytes the peer served. Laid out
 * with a loop over an explicit stack, never by recursion on the value's depth; a value nested deeper
 * than JSON_VIEW_DEPTH levels is shown as `{…}` or `[…]` and a line under the view says so.
 */
function JsonView({ value: raw, marks = [] }: { value: unknown; marks?: string[] }) {
  const value = asJson(raw);
  const marked = new Set(marks);
  const esc = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');
  // The children being built, one list per open highlight (the first: the <pre> itself).
  const open: Array<{ ptr: string; children: ComponentChildren[] }> = [{ ptr: '', children: [] }];
  const emit = (c: ComponentChildren) => open[open.length - 1]!.children.push(c);
  let elided = 0;
  const work: JsonStep[] = [{ v: value, ptr: '', indent: '', depth: 0 }];
  while (work.length) {
    const step = work.pop()!;
    if ('text' in step) {
      emit(step.text);
      continue;
    }
    if ('endMark' in step) {
      const m = open.pop()!;
      emit(<mark title={m.ptr}>{m.children}</mark>);
      continue;
    }
    const { v, ptr, indent, depth } = step;
    if (marked.has(ptr) && open.length <= MARKS_NESTED) {
      open.push({ ptr, children: [] });
      work.push({ endMark: ptr });
    }
    const array = Array.isArray(v);
    if (!(v && typeof v === 'object')) {
      emit(<span class="s">{JSON.stringify(v)}</span>);
      continue;
    }
    const entries: Array<[string, unknown]> = array ? (v as unknown[]).map((x, i) => [String(i), x]) : Object.entries(v as Record<string, unknown>);
    if (entries.length === 0) {
      emit(array ? '[]' : '{}');
      continue;
    }
    if (depth >= JSON_VIEW_DEPTH) {
      elided++;
      emit(
        <span class="elided" title={`nested deeper than ${JSON_VIEW_DEPTH} levels: not shown`}>
          {array ? '[…]' : '{…}'}
        </span>,
      );
      continue;
    }
    // Pushed in reverse: the stack gives them back in reading order.
    work.push({ text: indent + (array ? ']' : '}') });
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, x] = entries[i]!;
      work.push({ text: i < entries.length - 1 ? ',\n' : '\n' });
      work.push({ v: x, ptr: `${ptr}/${esc(k)}`, indent: indent + '  ', depth: depth + 1 });
      work.push({
        text: array ? (
          indent + '  '
        ) : (
          <>
            {indent + '  '}
            <span class="k">{JSON.stringify(k)}</span>
            {': '}
          </>
        ),
      });
    }
    work.push({ text: array ? '[\n' : '{\n' });
  }
  return (
    <>
      <pre class="json">{open[0]!.children}</pre>
      {elided ? (
        <p class="muted elided-note" data-testid="elided">
          {elided} value(s) nested deeper than {JSON_VIEW_DEPTH} levels are not shown ({'{…}'}, {'[…]'}).
        </p>
      ) : null}
    </>
  );
}

/** A duration as a reader can take it: a value JSON cannot hold (a tampered file's 1e400) is not printed as "Infinity". */
const msText = (ms: number) => (Number.isFinite(ms) ? `${ms} ms` : 'no duration');
const secsText = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : 'no duration');

function Summary({ r }: { r: RunResults }) {
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
      {r.results.some((x) => x.attempts?.length) || r.lanes?.backoffs ? (
        <p class="coverage" data-testid="reruns">
          The harness lagged during this run (a loaded machine, or its own lanes): {r.results.filter((x) => x.attempts?.length).length} scenario(s) ran again on
          a drained lane before their verdict was reported
          {r.lanes?.backoffs ? `; the lanes backed off from ${r.lanes.start} to ${r.lanes.min} (${r.lanes.backoffs} time(s))` : ''}. See each scenario's
          attempts.
        </p>
      ) : null}
      {r.incomplete ? (
        <p class="coverage incomplete" data-testid="incomplete">
          {incompleteSentence(r.incomplete)}.
        </p>
      ) : null}
      {r.control?.length ? (
        <p class="coverage" data-testid="control">
          Control exchange: {controlSentence(r.control)}.
        </p>
      ) : null}
    </section>
  );
}

/** Rules × task classes, each cell the worst verdict there. */
function Matrix({ r }: { r: RunResults }) {
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

function Filters({ r }: { r: RunResults }) {
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
function Authority({ c }: { c: Check }) {
  const duty = (c.sources ?? []).filter((x) => x.role !== 'harm');
  const harm = (c.sources ?? []).filter((x) => x.role === 'harm');
  const shown = c.basis === 'harm' ? (harm.length ? harm : duty) : duty.length ? duty : harm;
  // The sentence a graded miss rests on: for up-front, duty, record and harm verdicts (the others say why in their basis);
  // a verdict that cites sentences of its own (an over-rejection's way to proceed) shows those.
  const quoted = c.cites?.length
    ? c.cites[0]
    : c.verdict !== 'PASS' && c.verdict !== 'INFORMATIONAL' && ['up-front', 'duty', 'record', 'harm'].includes(c.basis ?? '')
      ? shown[0]
      : undefined;
  return (
    <div class="authority">
      {c.basis ? (
        <span class={`basis basis-${c.basis}`}>
          {c.basis}
          {c.level ? ` · ${c.level}` : ''}
        </span>
      ) : null}
      {shown.length ? (
        <ul class="sources">
          {shown.map((x) => (
            <li title={`“${x.quote}”`}>
              <span class={`lvl lvl-${x.level}`}>{x.level}</span> {sourceLabel(x).replace(/ · [^·]+$/, '')}
            </li>
          ))}
        </ul>
      ) : null}
      {c.cites?.length ? (
        <ul class="sources">
          {c.cites.map((x) => (
            <li title={`“${x.quote}”`}>
              cites {x.doc} {/^\d/.test(x.section) ? `§${x.section}` : x.section}
            </li>
          ))}
        </ul>
      ) : null}
      {quoted ? <q>{quoted.quote}</q> : null}
    </div>
  );
}

function ClaimsVsWire({ s }: { s: ScenarioResult }) {
  const minted = s.ledger.map((t) => `${t.id} (${t.state.replace('TASK_STATE_', '')}${t.probe ? ', probe' : ''})`);
  return (
    <table class="kv">
      <thead>
        <tr>
          <th />
          <th>the client said</th>
          <th>the wire showed</th>
        </tr>
      </thead>
      <tbody>
        <tr>
          <th>decision</th>
          <td>{s.claims ? `${s.claims.decision}${s.claims.errorClass ? ` (${s.claims.errorClass})` : ''}` : `no report (${s.outcome.kind})`}</td>
          <td>{minted.length ? `${minted.length} task(s) minted` : 'no task minted'}</td>
        </tr>
        <tr>
          <th>tasks</th>
          <td>{s.claims?.taskIds.join(', ') || '—'}</td>
          <td>{minted.join(', ') || '—'}</td>
        </tr>
        <tr>
          <th>degradations</th>
          <td>{s.claims?.degradations.join(', ') || '—'}</td>
          <td>{s.transcript.filter((e) => e.kind === 'push-register').length} push registration(s)</td>
        </tr>
        <tr>
          <th>notes</th>
          <td colSpan={2}>{s.claims?.notes ?? s.outcome.reason ?? '—'}</td>
        </tr>
      </tbody>
    </table>
  );
}

/**
 * The card's signatures: what the protected header names, what the harness found against the keys
 * the peer published, and what the wire shows the client did to check it (the JWKS it fetched, and
 * when, against its first send).
 */
function SignatureView({ s }: { s: ScenarioResult }) {
  if (!s.signatures?.length) return null;
  const http = s.transcript.filter((e): e is HttpEvent => e.kind === 'http');
  const first = http.find((e) => e.rpc?.method === 'SendMessage' || e.rpc?.method === 'SendStreamingMessage');
  const fetched = http.filter((e) => e.method === 'GET' && e.path.split('?')[0]!.endsWith(JWKS_PATH));
  const client = fetched.length
    ? fetched
        .map(
          (e) =>
            `#${e.seq} GET ${e.path} from ${e.listener === 'vendor-b' ? "another vendor's origin (vendor-b)" : `the peer's own origin (${e.listener})`} → ${e.status ?? 'no answer'}${first ? (e.seq < first.seq ? ', before the first send' : ', after the first send') : ''}`,
        )
        .join('; ')
    : 'no JWKS fetched: nothing on the wire shows the client checked the signature';
  return (
    <table class="kv signature">
      <tbody>
        {s.signatures.map((g) => (
          <>
            <tr>
              <th>header</th>
              <td>
                alg <code>{g.alg || '(none)'}</code> · kid <code>{g.kid || '(none)'}</code>
                {g.jku ? (
                  <>
                    {' '}
                    · jku <code>{g.jku}</code>
                  </>
                ) : null}
              </td>
            </tr>
            <tr>
              <th>key</th>
              <td>
                {g.publishedAt ? (
                  <>
                    published at <code>{g.publishedAt}</code>
                    {s.profile.trustedJwks.includes(g.publishedAt) ? ' (a JWKS the profile trusts)' : ' (not a JWKS the profile trusts)'}
                  </>
                ) : (
                  'in no JWKS the peer publishes'
                )}
                {g.keyWindow ? ` · certificate ${g.keyWindow}` : ''}
              </td>
            </tr>
            <tr>
              <th>harness</th>
              <td>
                {g.harness}
                {g.why ? `: ${g.why}` : ''}
              </td>
            </tr>
          </>
        ))}
        <tr>
          <th>client</th>
          <td>{client}</td>
        </tr>
      </tbody>
    </table>
  );
}

/**
 * The media-type comparison behind an output decision: each output the intent accepts against the
 * outputs the card offers for the target skill and the client's decoder registry, parameters
 * significant (a match with the parameters stripped is shown as such: it is what loose matching takes).
 */
function MediaTypeView({ s }: { s: ScenarioResult }) {
  const accepted = s.intent.acceptedOutputModes;
  if (accepted.length === 0) return null;
  const offered = outputModesFor(readCard(s.card), s.intent.skillId);
  const loose = (list: string[], m: string) => list.filter((o) => !includesMediaType([o], m) && parseMediaType(o)?.type === parseMediaType(m)?.type);
  const cell = (list: string[], m: string) => {
    const exact = list.filter((o) => includesMediaType([o], m));
    if (exact.length) return `yes (${exact.join(', ')})`;
    const near = loose(list, m);
    return near.length ? `only with parameters stripped (${near.join(', ')})` : 'no';
  };
  const rows = accepted.map((m) => ({
    m,
    card: cell(offered, m),
    registry: s.profile.consumesArtifacts ? cell(s.profile.mediaTypes, m) : 'not decoded (status-only consumer)',
  }));
  const mediaRules = ['TRUST-SIGNED-UNINTERPRETABLE', 'TRUST-NO-RETRY-ON-DECODE', 'TRUST-PARAM-MATCH'];
  if (!mediaRules.includes(s.rule) && s.claims?.errorClass !== 'media-type' && rows.every((r) => r.card.startsWith('yes') && r.registry.startsWith('yes')))
    return null;
  return (
    <table class="kv mediatypes">
      <thead>
        <tr>
          <th>accepted</th>
          <th>the card offers{s.intent.skillId ? ` (skill ${s.intent.skillId})` : ''}</th>
          <th>the client decodes</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr>
            <td>
              <code>{r.m}</code>
            </td>
            <td>{r.card}</td>
            <td>{r.registry}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function MediaTypeViewSection({ s }: { s: ScenarioResult }) {
  const table = MediaTypeView({ s });
  return table ? (
    <>
      <h4>Media types (parameters significant)</h4>
      {table}
    </>
  ) : null;
}

/**
 * What the card view is: the bytes served, with their digest, and the request that fetched them
 * (the peer records a digest of every card body it serves), so a reader can tell the card shown from
 * a reconstruction.
 */
function CardBytes({ s }: { s: ScenarioResult }) {
  const text = JSON.stringify(asJson(s.card), null, 2);
  const digest = createHash('sha256').update(text).digest('hex');
  const fetched = s.transcript.find((e): e is HttpEvent => e.kind === 'http' && e.bodyDigest === digest);
  return (
    <p class="muted card-bytes" data-sha256={digest}>
      {Buffer.byteLength(text)} bytes · sha256 <code>{digest.slice(0, 16)}…</code> ·{' '}
      {fetched ? `byte for byte what the client was served at #${fetched.seq}` : 'what the peer served (the client never fetched it)'}
    </p>
  );
}

function ScenarioPanel({ s, unexpected }: { s: ScenarioResult; unexpected: boolean }) {
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
        <LagView s={s} />
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
function panelHtml(s: ScenarioResult, unexpected: boolean): string {
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
function UnrenderedPanel({ s, unexpected, why }: { s: ScenarioResult; unexpected: boolean; why: string }) {
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

/**
 * The harness's own delay during the run, and the attempts before the reported one: a failure met
 * while the harness lagged ran again on a drained lane, and both are shown (DESIGN.md §3).
 */
function LagView({ s }: { s: ScenarioResult }) {
  const lag = (l: NonNullable<ScenarioResult['lag']>) =>
    `event loop up to ${l.loopDelayMaxMs} ms late${l.runQueueWaitMs !== undefined ? `, ${l.runQueueWaitMs} ms waiting for a core` : ''} over ${l.wallMs} ms`;
  if (!s.attempts?.length && !s.lag?.lagged) return null;
  return (
    <div class="lag" data-testid="lag">
      {s.attempts?.length ? (
        <>
          <p>
            <strong>Ran again on a drained lane.</strong> The harness itself lagged while this scenario ran, so its failure was confirmed before it was
            reported: a failure that does not come back while the harness is quiet is not the client's; one that does is, whatever the load.
          </p>
          <ol class="attempts">
            {s.attempts.map((a) => (
              <li data-verdict={a.verdict}>
                <Badge v={a.verdict} /> while the harness lagged: {a.lag.why ?? lag(a.lag)} — {a.reason}
              </li>
            ))}
            <li data-verdict={s.verdict}>
              <Badge v={s.verdict} /> reported
              {s.lag
                ? s.lag.lagged
                  ? `, after the attempts ran out, lagged again: ${s.lag.why ?? lag(s.lag)}`
                  : `: the harness was under its thresholds (${lag(s.lag)})`
                : ''}
            </li>
          </ol>
        </>
      ) : (
        <p class="muted">
          The harness lagged during this run ({s.lag!.why}; {lag(s.lag!)}); its verdict did not rest on it (only a TIMEOUT or FAIL is run again).
        </p>
      )}
    </div>
  );
}

/**
 * A property run's families: counts per verdict, story and rule, and a link to the counterexample. The
 * cases themselves stay in results.json (a compact row each): the page stays small at any run count.
 */
function Properties({ r }: { r: RunResults }) {
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
        path, story, rule, verdict); replay one with <code>a2a-conformance replay --family &lt;id&gt; --seed {r.seed} --path &lt;path&gt;</code>.
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
        <footer class="muted">
          How to read this: each scenario is graded on its own rule and the cross-cutting checks; its verdict is the worst of them. Beside each check: why it
          got its verdict (harm, up-front, over-rejection…), the level that decided it (MUST and security fail; SHOULD, seed and convention are NON_STRICT; harm
          fails at every level) and the sentences it rests on, so "seed 000 inference" and "A2A §3.6.1 MUST" read differently at a glance. Evidence cites
          transcript sequence numbers (#n) and says where it comes from: the wire, the task ledger, or the client's claims, which never decide a FAIL alone.
        </footer>
        <script dangerouslySetInnerHTML={{ __html: REPORT_SCRIPT }} />
      </body>
    </html>
  );
}

/** Renders the whole report document. */
export function renderHtmlReport(results: RunResults): string {
  return `<!doctype html>\n${render(<Page r={results} />)}\n`;
}
