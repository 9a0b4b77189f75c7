/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/** What a scenario panel shows besides its checks: the authority of a check, claims against the wire, signatures, media types, the card's bytes, lag. */
import { createHash } from 'node:crypto';
import type { ScenarioResult } from '../../harness/core/results.js';
import { sourceLabel, type Source } from '../../harness/core/sources.js';
import { sourceHref } from './authorities.js';
import type { Check } from '../../harness/core/verdict.js';
import { includesMediaType, parseMediaType } from '../../harness/core/protocol/media-type.js';
import { outputModesFor, readCard } from '../../harness/core/protocol/card-view.js';
import type { HttpEvent } from '../../harness/core/transcript.js';
import { JWKS_PATH } from '../../harness/core/scenario/card.js';
import { Badge, asJson } from './parts.js';

/** A source's label, linked where it can be read: the public page, or the duty's text further down the report. */
function Cited({ s, text }: { s: Pick<Source, 'doc' | 'section'>; text: string }) {
  const href = sourceHref(s);
  if (!href) return text;
  return (
    <a href={href} rel="noreferrer">
      {text}
    </a>
  );
}

export function Authority({ c }: { c: Check }) {
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
              <span class={`lvl lvl-${x.level}`}>{x.level}</span> <Cited s={x} text={sourceLabel(x).replace(/ · [^·]+$/, '')} />
            </li>
          ))}
        </ul>
      ) : null}
      {c.cites?.length ? (
        <ul class="sources">
          {c.cites.map((x) => (
            <li title={`“${x.quote}”`}>
              cites <Cited s={x} text={`${x.doc} ${/^\d/.test(x.section) ? `§${x.section}` : x.section}`} />
            </li>
          ))}
        </ul>
      ) : null}
      {quoted ? <q>{quoted.quote}</q> : null}
    </div>
  );
}

/**
 * The push deliveries, each with what the receiver answered: the genuine ones counted, a duplicate and
 * a forged one (issue 27's forger) each named, with its sequence number.
 */
function pushDeliveries(s: ScenarioResult): string[] {
  const attempts = s.transcript.filter((e) => e.kind === 'push-attempt');
  const answer = (e: (typeof attempts)[number]) => (e.status !== undefined ? String(e.status) : e.outcome);
  const genuine = attempts.filter((e) => e.genuine !== false && e.forgery !== 'duplicate');
  const acked = genuine.filter((e) => e.status !== undefined && e.status >= 200 && e.status < 300).length;
  const out = genuine.length ? [`${genuine.length} genuine, ${acked} answered 2xx`] : [];
  for (const e of attempts) {
    if (e.genuine === false) out.push(`forged (${e.forgery ?? '?'}) ${e.state.replace('TASK_STATE_', '')} for ${e.taskId} → ${answer(e)} #${e.seq}`);
    else if (e.forgery === 'duplicate') out.push(`duplicate ${e.state.replace('TASK_STATE_', '')} → ${answer(e)} #${e.seq}`);
  }
  return out;
}

export function ClaimsVsWire({ s }: { s: ScenarioResult }) {
  const minted = s.ledger.map((t) => `${t.id} (${t.state.replace('TASK_STATE_', '')}${t.probe ? ', probe' : ''})`);
  const pushes = pushDeliveries(s);
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
        {pushes.length ? (
          <tr>
            <th>push deliveries</th>
            <td>—</td>
            <td>{pushes.join(' · ')}</td>
          </tr>
        ) : null}
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
export function SignatureView({ s }: { s: ScenarioResult }) {
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
export function MediaTypeView({ s }: { s: ScenarioResult }) {
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

export function MediaTypeViewSection({ s }: { s: ScenarioResult }) {
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
export function CardBytes({ s }: { s: ScenarioResult }) {
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

export function LagView({ s }: { s: ScenarioResult }) {
  const lag = (l: NonNullable<ScenarioResult['lag']>) =>
    `event loop up to ${l.loopDelayMaxMs} ms late${l.runQueueWaitMs !== undefined ? `, ${l.runQueueWaitMs} ms waiting for a core` : ''} over ${l.wallMs} ms`;
  if (!s.attempts?.length && !s.lag?.lagged) return null;
  // Below the verdict and its checks, closed: how the harness itself ran is a footnote to the verdict, not its headline.
  return (
    <details class="lag" data-testid="lag">
      <summary class="muted">
        {s.attempts?.length
          ? `The harness lagged: this scenario ran ${s.attempts.length + 1} times before its verdict (open for each attempt)`
          : 'The harness lagged during this run; the verdict did not rest on it (open for the figures)'}
      </summary>
      {s.attempts?.length ? (
        <>
          <p>
            <strong>Ran again on a drained lane.</strong> The harness itself lagged while this scenario ran, so its failure was confirmed before it was
            reported, the time the harness owed the client added to its deadline: a failure that does not come back while the harness is quiet is not the
            client's; one that does is, whatever the load.
          </p>
          <ol class="attempts">
            {s.attempts.map((a) => (
              <li data-verdict={a.verdict}>
                <Badge v={a.verdict} /> while the harness lagged: {a.lag.why ?? lag(a.lag)} — {a.reason}
              </li>
            ))}
            <li data-verdict={s.verdict}>
              <Badge v={s.verdict} /> reported
              {s.attempts.at(-1)?.deadlineMs !== undefined && s.attempts.at(-1)!.deadlineMs! < s.deadlineMs
                ? ` (its deadline ${s.deadlineMs} ms: the ${s.attempts.at(-1)!.deadlineMs} ms before, and the time the harness owed that attempt)`
                : ''}
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
    </details>
  );
}

/**
 * A property run's families: counts per verdict, story and rule, and a link to the counterexample. The
 * cases themselves stay in results.json (a compact row each): the page stays small at any run count.
 */
