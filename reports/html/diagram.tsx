/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/**
 * The sequence diagram of one scenario run's transcript, as inline SVG: lanes for the client, each
 * peer listener and the push receiver; one row per event; failed handshakes and lost pushes in red.
 * Text goes through preact, which escapes it.
 */
import type { WireEvent } from '../../harness/core/transcript.js';

const ROW = 24;
const LANE_W = 190;
const TOP = 36;
const MAX_ROWS = 250;

interface Row {
  seq: number;
  from: string;
  to: string;
  label: string;
  kind: 'arrow' | 'note' | 'fail';
}

function rowsOf(events: WireEvent[]): Row[] {
  const rows: Row[] = [];
  for (const e of events) {
    const peer = (l: string) => `peer (${l})`;
    switch (e.kind) {
      case 'http': {
        const what = e.rpc ? e.rpc.method : `${e.method} ${e.path.replace(/^\/t\/[^/]+/, '')}`;
        // The Authorization scheme and its digest (never the credential), and a 401's challenge: seed 003's evidence.
        const auth = e.headers.authScheme ? ` [${e.headers.authScheme}${e.headers.authDigest ? ` ${e.headers.authDigest.slice(0, 6)}` : ''}]` : '';
        rows.push({ seq: e.seq, from: 'client', to: peer(e.listener), label: `${what}${e.headers.a2aVersion ? '' : ' (no A2A-Version)'}${e.clientCert.presented ? ' [client cert]' : ''}${auth}`, kind: 'arrow' });
        const challenge = e.response?.wwwAuthenticate ? ` · WWW-Authenticate: ${e.response.wwwAuthenticate.slice(0, 80)}` : '';
        const answer = e.rpcError ? `error ${e.rpcError.code}` : `${e.status ?? '—'}${e.taskState ? ` ${e.taskState.replace('TASK_STATE_', '')}` : ''}${challenge}`;
        rows.push({ seq: e.seq, from: peer(e.listener), to: 'client', label: answer, kind: e.rpcError || (e.status ?? 200) >= 300 ? 'fail' : 'arrow' });
        break;
      }
      case 'tls':
        if (!e.ok) rows.push({ seq: e.seq, from: 'client', to: peer(e.listener), label: `TLS handshake failed: ${e.error ?? ''}`, kind: 'fail' });
        break;
      case 'task':
        rows.push({ seq: e.seq, from: 'peer', to: 'peer', label: `${e.taskId}: ${e.state.replace('TASK_STATE_', '')} (${e.cause})`, kind: 'note' });
        break;
      case 'push-register':
        rows.push({ seq: e.seq, from: 'peer', to: 'peer', label: `push registered (${e.via}) → ${e.url}`, kind: 'note' });
        break;
      case 'push-attempt':
        rows.push({ seq: e.seq, from: 'peer', to: 'push receiver', label: `push ${e.state.replace('TASK_STATE_', '')}: ${e.outcome}${e.error ? ` ${e.error}` : ''}`, kind: e.outcome === 'delivered' ? 'arrow' : 'fail' });
        break;
      case 'sse':
        rows.push({ seq: e.seq, from: 'peer', to: 'client', label: `SSE ${e.state ? e.state.replace('TASK_STATE_', '') : 'artifact'}`, kind: 'arrow' });
        break;
      case 'harness':
        rows.push({ seq: e.seq, from: 'peer', to: 'peer', label: `harness ${e.level}: ${e.message.split('\n')[0]}`, kind: 'fail' });
        break;
      case 'decision':
        rows.push({ seq: e.seq, from: 'client', to: 'client', label: e.outcome === 'reported' ? `the client decided: ${e.decision ?? '?'}` : e.outcome === 'timeout' ? 'deadline: no decision' : 'the client gave no valid result', kind: e.outcome === 'reported' ? 'note' : 'fail' });
        break;
    }
  }
  return rows;
}

export function SequenceDiagram({ events }: { events: WireEvent[] }) {
  const all = rowsOf(events);
  const rows = all.slice(0, MAX_ROWS);
  if (rows.length === 0) return <p class="muted">No event reached a peer.</p>;
  const peerLanes = [...new Set(rows.flatMap((r) => [r.from, r.to]).filter((l) => l.startsWith('peer (')))];
  const defaultPeer = peerLanes[0] ?? 'peer (tls)';
  const lanes = ['client', ...(peerLanes.length ? peerLanes : [defaultPeer]), ...(rows.some((r) => r.to === 'push receiver') ? ['push receiver'] : [])];
  const x = (lane: string) => {
    const i = lanes.indexOf(lane === 'peer' ? defaultPeer : lane);
    return 90 + (i < 0 ? 1 : i) * LANE_W;
  };
  const width = 90 + lanes.length * LANE_W + 120;
  const height = TOP + rows.length * ROW + 20;
  return (
    <div class="diagram">
      <svg xmlns="http://www.w3.org/2000/svg" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label="sequence diagram of the transcript">
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M 0 0 L 10 5 L 0 10 z" fill="#555" />
          </marker>
          <marker id="arrow-fail" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M 0 0 L 10 5 L 0 10 z" fill="#c62828" />
          </marker>
        </defs>
        {lanes.map((l) => (
          <g>
            <text x={x(l)} y={20} text-anchor="middle" class="lane">{l}</text>
            <line x1={x(l)} y1={TOP - 8} x2={x(l)} y2={height - 8} stroke="#ccc" stroke-dasharray="4 4" />
          </g>
        ))}
        {rows.map((r, i) => {
          const y = TOP + i * ROW + 12;
          if (r.kind === 'note' || r.from === r.to)
            return (
              <g class={r.kind === 'fail' ? 'ev fail' : 'ev note'}>
                <text x={20} y={y + 4} class="seq">#{r.seq}</text>
                <text x={x(r.from) + 8} y={y + 4} class="label">{r.label}</text>
              </g>
            );
          const x1 = x(r.from);
          const x2 = x(r.to);
          const fail = r.kind === 'fail';
          return (
            <g class={fail ? 'ev fail' : 'ev'}>
              <text x={20} y={y + 4} class="seq">#{r.seq}</text>
              <line x1={x1} y1={y} x2={x2} y2={y} stroke={fail ? '#c62828' : '#555'} stroke-dasharray={fail ? '5 3' : undefined} marker-end={fail ? 'url(#arrow-fail)' : 'url(#arrow)'} />
              <text x={(x1 + x2) / 2} y={y - 4} text-anchor="middle" class="label">{r.label.length > 60 ? `${r.label.slice(0, 57)}…` : r.label}</text>
            </g>
          );
        })}
      </svg>
      {all.length > rows.length ? <p class="muted">{all.length - rows.length} more event(s) are in results.json.</p> : null}
    </div>
  );
}
