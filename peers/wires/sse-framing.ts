/**
 * An event stream's frames as PeerRuntime.sseFraming asks: the same events, framed in ways the SSE
 * standard allows (WHATWG HTML §9.2.6, "Interpreting an event stream"). A frame is the wire's
 * `data: <json>\n\n`; anything else (a gRPC message) passes as it is.
 */
import type { SseFraming } from '../../harness/core/scenario.js';

const END = { lf: '\n', crlf: '\r\n', cr: '\r' } as const;

/** A framer for one stream: it numbers the events it frames (`id:`). */
export function sseFramer(f: SseFraming | undefined): (frame: string | Uint8Array) => string | Uint8Array {
  if (!f) return (frame) => frame;
  let n = 0;
  return (frame) => {
    if (typeof frame !== 'string') return frame;
    const m = /^data: (.*)\n\n$/s.exec(frame);
    if (!m) return frame;
    const json = m[1]!;
    const eol = END[f.lineEnd ?? 'lf'];
    let lines: string[];
    // Pretty-printed JSON has no line end inside a string (JSON escapes them): each of its lines is a `data:` line.
    if (f.multiline) lines = JSON.stringify(JSON.parse(json), null, 1).split('\n');
    // JSON whitespace after the opening brace: the same value, on one longer line.
    else if (f.lineBytes && Buffer.byteLength(json) < f.lineBytes) lines = [`${json[0]}${' '.repeat(f.lineBytes - Buffer.byteLength(json))}${json.slice(1)}`];
    else lines = [json];
    n++;
    const head = f.fields ? [': keep-alive', 'event: message', `id: ${n}`, 'retry: 3000'] : [];
    return [...head, ...lines.map((l) => `data: ${l}`)].join(eol) + eol + eol;
  };
}
