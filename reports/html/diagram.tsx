/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/**
 * The sequence diagram of one scenario run's transcript, as inline SVG: lanes for the client, each
 * peer listener and the push receiver; one row per event. A request is a solid arrow with a filled
 * head, a response a dashed arrow with an open head; red marks what went wrong (a failed handshake, a
 * lost push, an error answer, a bad certificate the client accepted). Text goes through preact,
 * which escapes it.
 */
import type { BodyRecord } from '../../harness/core/body.js';
import type { WireEvent } from '../../harness/core/transcript.js';

const ROW = 24;
const LANE_W = 190;
const TOP = 36;
const MAX_ROWS = 250;

/** The listeners whose certificate a client must refuse (SPEC-TLS-VERIFY), and what is wrong with it. */
const BAD_CERT: Readonly<Record<string, string>> = {
  expired: 'an expired certificate',
  'wrong-host': 'a certificate for another host',
  'untrusted-ca': 'a certificate from an untrusted CA',
};

interface Row {
  seq: number;
  from: string;
  to: string;
  label: string;
  /** request: solid, filled head; response: dashed, open head; note: text on a lane. */
  kind: 'request' | 'response' | 'note';
  /** Drawn in red: something went wrong here. */
  bad: boolean;
  /** A push the peer forged (not the task's own), or a genuine one posted again: drawn apart, named so in its label. */
  mark?: 'forged' | 'duplicate';
  /** The body this arrow carried, shown under the diagram (its label links to it). */
  body?: BodyRecord;
}

/** Characters of one body shown in the report; the rest is in results.json. */
const BODY_SHOWN = 12_000;

function rowsOf(events: WireEvent[]): Row[] {
  const rows: Row[] = [];
  for (const e of events) {
    const peer = (l: string) => `peer (${l})`;
    switch (e.kind) {
      case 'http': {
        const what = e.rpc ? e.rpc.method : `${e.method} ${e.path.replace(/^\/t\/[^/]+/, '')}`;
        // The Authorization scheme and its digest (never the credential), and a 401's challenge: the evidence of docs/duties.md §9.
        const auth = e.headers.authScheme ? ` [${e.headers.authScheme}${e.headers.authDigest ? ` ${e.headers.authDigest.slice(0, 6)}` : ''}]` : '';
        rows.push({
          seq: e.seq,
          from: 'client',
          to: peer(e.listener),
          label: `${what}${e.headers.a2aVersion ? '' : ' (no A2A-Version)'}${e.clientCert.presented ? ' [client cert]' : ''}${auth}`,
          kind: 'request',
          bad: false,
        });
        const challenge = e.response?.wwwAuthenticate ? ` · WWW-Authenticate: ${e.response.wwwAuthenticate.slice(0, 80)}` : '';
        const answer = e.rpcError
          ? `error ${e.rpcError.code}`
          : `${e.status ?? '—'}${e.taskState ? ` ${e.taskState.replace('TASK_STATE_', '')}` : ''}${challenge}`;
        rows.push({
          seq: e.seq,
          from: peer(e.listener),
          to: 'client',
          label: answer,
          kind: 'response',
          bad: Boolean(e.rpcError) || (e.status ?? 200) >= 300,
          ...(e.responseBody?.bytes ? { body: e.responseBody } : {}),
        });
        break;
      }
      case 'tls': {
        // A handshake is drawn where it matters: on a listener with a bad certificate (accepted: the
        // harm; refused: the right call), or where it failed. Good handshakes are every request's.
        const bad = BAD_CERT[e.listener];
        if (bad && e.ok)
          rows.push({
            seq: e.seq,
            from: 'client',
            to: peer(e.listener),
            label: e.reused ? `TLS connection reused (accepted in an earlier run): ${bad}` : `TLS handshake accepted: ${bad}`,
            kind: 'request',
            bad: true,
          });
        else if (bad)
          rows.push({ seq: e.seq, from: 'client', to: peer(e.listener), label: `TLS handshake refused by the client: ${bad}`, kind: 'request', bad: false });
        else if (!e.ok)
          rows.push({ seq: e.seq, from: 'client', to: peer(e.listener), label: `TLS handshake failed: ${e.error ?? ''}`, kind: 'request', bad: true });
        break;
      }
      case 'task':
        rows.push({ seq: e.seq, from: 'peer', to: 'peer', label: `${e.taskId}: ${e.state.replace('TASK_STATE_', '')} (${e.cause})`, kind: 'note', bad: false });
        break;
      case 'push-register':
        rows.push({ seq: e.seq, from: 'peer', to: 'peer', label: `push registered (${e.via}) → ${e.url}`, kind: 'note', bad: false });
        break;
      case 'push-attempt': {
        const state = e.state.replace('TASK_STATE_', '');
        const answer = e.status !== undefined ? `→ ${e.status}` : `→ ${e.outcome}${e.error ? ` ${e.error}` : ''}`;
        const mark = e.genuine === false ? 'forged' : e.forgery === 'duplicate' ? 'duplicate' : undefined;
        rows.push({
          seq: e.seq,
          from: 'peer',
          to: 'push receiver',
          // A forged delivery is the peer's test, not a fault: whatever the receiver answered, it is drawn apart, not red (its rules grade it).
          label:
            mark === 'forged'
              ? `forged push (${e.forgery ?? '?'}) ${state} ${answer}`
              : mark === 'duplicate'
                ? `duplicate push ${state} ${answer}`
                : `push ${state}: ${e.outcome}${e.error ? ` ${e.error}` : ''}`,
          kind: 'request',
          bad: mark !== 'forged' && e.outcome !== 'delivered',
          ...(mark ? { mark } : {}),
          ...(e.body ? { body: e.body } : {}),
        });
        break;
      }
      case 'sse':
        rows.push({
          seq: e.seq,
          from: 'peer',
          to: 'client',
          label: `SSE ${e.state ? e.state.replace('TASK_STATE_', '') : 'artifact'}`,
          kind: 'response',
          bad: false,
        });
        break;
      case 'harness':
        rows.push({ seq: e.seq, from: 'peer', to: 'peer', label: `harness ${e.level}: ${e.message.split('\n')[0]}`, kind: 'note', bad: true });
        break;
      case 'decision':
        rows.push({
          seq: e.seq,
          from: 'client',
          to: 'client',
          label:
            e.outcome === 'reported'
              ? `the client decided: ${e.decision ?? '?'}`
              : e.outcome === 'timeout'
                ? 'deadline: no decision'
                : 'the client gave no valid result',
          kind: 'note',
          bad: e.outcome !== 'reported',
        });
        break;
    }
  }
  return rows;
}

/** Arrowheads: filled for a request, open for a response; grey, or red where it went wrong. */
function Markers({ id }: { id: string }) {
  const head = (name: string, colour: string, open: boolean) => (
    <marker
      id={`${id}-${name}`}
      viewBox="0 0 10 10"
      refX="9"
      refY="5"
      markerWidth="8"
      markerHeight="8"
      orient="auto-start-reverse"
      markerUnits="userSpaceOnUse"
    >
      <path d={open ? 'M 1 1 L 9 5 L 1 9' : 'M 0 0 L 10 5 L 0 10 z'} fill={open ? 'none' : colour} stroke={colour} stroke-width={open ? 1.6 : 0} />
    </marker>
  );
  return (
    <defs>
      {head('req', '#444', false)}
      {head('req-bad', '#c62828', false)}
      {head('res', '#444', true)}
      {head('res-bad', '#c62828', true)}
    </defs>
  );
}

/** Widest a label is drawn, in characters; the whole label is its tooltip and, for a body, the heading above it. */
const LABEL_CHARS = 60;
/** A generous width per character of the 11 px label font, so that an estimated label is never narrower than the drawn one. */
const CHAR_PX = 6.6;
/** Room left of the first lane, for the step numbers. */
const LEFT = 70;
const clip = (label: string) => (label.length > LABEL_CHARS ? `${label.slice(0, LABEL_CHARS - 1)}…` : label);
const textPx = (label: string) => clip(label).length * CHAR_PX + 2 * CHAR_PX;

/**
 * `id` makes the arrowheads' ids unique in the document: every diagram carries its own markers, so
 * none depends on another panel's SVG (which a closed panel does not render).
 *
 * Each row (request, response or note) has a step number of its own, down the left edge; the
 * transcript's sequence number, which a request and its answer share and the checks' evidence cites,
 * ends each label. Lanes are spaced so that every label fits between the lifelines it lies between,
 * and the drawing is at least that wide: wider where the page has room, with lanes placed in
 * percentages so that they spread over the whole box while the text keeps its size.
 */
export function SequenceDiagram({ events, id }: { events: WireEvent[]; id: string }) {
  const all = rowsOf(events);
  const rows = all.slice(0, MAX_ROWS);
  const labelOf = (r: Row) => `${r.label} · #${r.seq}`;
  if (rows.length === 0) return <p class="muted">No event reached a peer.</p>;
  const peerLanes = [...new Set(rows.flatMap((r) => [r.from, r.to]).filter((l) => l.startsWith('peer (')))];
  const defaultPeer = peerLanes[0] ?? 'peer (tls)';
  const lanes = ['client', ...(peerLanes.length ? peerLanes : [defaultPeer]), ...(rows.some((r) => r.to === 'push receiver') ? ['push receiver'] : [])];
  const laneOf = (lane: string) => {
    const i = lanes.indexOf(lane === 'peer' ? defaultPeer : lane);
    return i < 0 ? 1 : i;
  };
  // The gap after each lane: as wide as the widest label that must fit in it (an arrow's label goes
  // in the gap beside where it starts; a note's runs right from its lane). Past the last lane, the room its notes need.
  const gaps = lanes.map((l) => Math.max(LANE_W, textPx(l)));
  for (const r of rows) {
    const a = laneOf(r.from);
    const b = laneOf(r.to);
    const gap = r.kind === 'note' || a === b || b > a ? a : a - 1;
    gaps[gap] = Math.max(gaps[gap]!, textPx(labelOf(r)) + 16);
  }
  const laneX: number[] = [];
  let at = LEFT;
  for (const g of gaps) {
    laneX.push(at);
    at += g;
  }
  const width = Math.ceil(at);
  const height = TOP + rows.length * ROW + 20;
  // Lanes and labels at a percentage of the drawing's width: at its least width they sit where laid out above; wider, they spread.
  const pct = (px: number) => `${((px / width) * 100).toFixed(3)}%`;
  const x = (lane: string) => laneX[laneOf(lane)]!;
  return (
    <div class="diagram">
      <svg
        xmlns="http://www.w3.org/2000/svg"
        width="100%"
        height={height}
        style={`min-width:${width}px`}
        role="img"
        aria-label="sequence diagram of the transcript"
      >
        <Markers id={id} />
        {lanes.map((l, i) => (
          <g>
            <text x={pct(laneX[i]!)} y={20} text-anchor="middle" class="lane">
              {l}
            </text>
            <line class="lifeline" x1={pct(laneX[i]!)} y1={TOP - 8} x2={pct(laneX[i]!)} y2={height - 8} stroke="#ccc" stroke-dasharray="4 4" />
          </g>
        ))}
        {rows.map((r, i) => {
          const y = TOP + i * ROW + 12;
          const step = (
            <text x={12} y={y + 4} class="seq" data-seq={r.seq}>
              {i + 1}
            </text>
          );
          const text = labelOf(r);
          const tip = text.length > LABEL_CHARS ? <title>{text}</title> : null;
          if (r.kind === 'note' || r.from === r.to)
            return (
              <g class={r.bad ? 'ev note fail' : 'ev note'} data-kind="note">
                {step}
                <text x={pct(x(r.from) + 8)} y={y + 4} class="label">
                  {tip}
                  {clip(text)}
                </text>
              </g>
            );
          const x1 = x(r.from);
          const x2 = x(r.to);
          const head = `${r.kind === 'request' ? 'req' : 'res'}${r.bad ? '-bad' : ''}`;
          // An arrow across several lanes has its label in the gap beside where it starts, clear of the lifelines it crosses.
          const a = laneOf(r.from);
          const b = laneOf(r.to);
          const g = b > a ? a : a - 1;
          const mid = (laneX[g]! + laneX[g + 1]!) / 2;
          const label = (
            <text x={pct(mid)} y={y - 4} text-anchor="middle" class="label">
              {tip}
              {clip(text)}
              {r.body ? ' ▾' : ''}
            </text>
          );
          return (
            <g class={`ev${r.bad ? ' fail' : ''}${r.mark ? ` ${r.mark}` : ''}`} data-kind={r.kind}>
              {step}
              <line
                x1={pct(x1)}
                y1={y}
                x2={pct(x2)}
                y2={y}
                stroke={r.bad ? '#c62828' : r.mark === 'forged' ? '#6a1b9a' : '#444'}
                stroke-width={r.kind === 'request' ? 1.4 : 1.1}
                stroke-dasharray={r.kind === 'response' ? '6 4' : r.mark === 'forged' ? '2 3' : undefined}
                marker-end={`url(#${id}-${head})`}
              />
              {r.body ? (
                <a href={`#${id}-body-${r.seq}`} class="body-link">
                  {label}
                </a>
              ) : (
                label
              )}
            </g>
          );
        })}
      </svg>
      <p class="legend muted">
        solid, filled head: a request · dashed, open head: a response · red: what went wrong · left: each step's number · #n: the transcript's sequence number,
        which a request shares with its answer and the checks cite · ▾: the body is below
        {rows.some((r) => r.mark === 'forged') ? ' · purple, dotted: a push the peer forged (not the task’s own), with what it changed' : ''}
      </p>
      {all.length > rows.length ? <p class="muted">{all.length - rows.length} more event(s) are in results.json.</p> : null}
      <Bodies rows={rows} id={id} />
    </div>
  );
}

/** A body as text for the report: JSON pretty-printed, a stream as its events, cut at BODY_SHOWN characters. */
function bodyText(b: BodyRecord): string {
  const text = b.events
    ? b.events.map((e, i) => `event ${i}: ${typeof e === 'string' ? e : JSON.stringify(e, null, 2)}`).join('\n')
    : b.json !== undefined
      ? JSON.stringify(b.json, null, 2)
      : (b.text ?? '');
  return text.length > BODY_SHOWN ? `${text.slice(0, BODY_SHOWN)}\n… ${text.length - BODY_SHOWN} more character(s) in results.json` : text;
}

/** The bodies the arrows carried, each under its sequence number: what the peer answered, what a push posted. */
function Bodies({ rows, id }: { rows: Row[]; id: string }) {
  const withBody = rows.filter((r) => r.body);
  if (withBody.length === 0) return null;
  return (
    <details class="bodies">
      <summary>Bodies the peers sent ({withBody.length}): answers, stream events and push deliveries, as the transcript keeps them</summary>
      {withBody.map((r) => {
        const b = r.body!;
        return (
          <div class="wire-body" id={`${id}-body-${r.seq}`}>
            <p class="muted">
              <code>#{r.seq}</code> {r.from} → {r.to}: {r.label} · {b.contentType ?? 'no content type'} · {b.bytes} byte(s)
              {b.digest ? ` · sha256 ${b.digest}` : ''}
              {b.redacted?.length ? ` · redacted: ${b.redacted.join(', ')}` : ''}
              {b.truncated ? ` · kept in part: ${b.truncated}` : ''}
            </p>
            {b.omitted ? <p class="muted">{b.omitted}</p> : <pre class="json">{bodyText(b)}</pre>}
          </div>
        );
      })}
    </details>
  );
}
