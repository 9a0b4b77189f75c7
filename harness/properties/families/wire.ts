/**
 * The wire family (issue 40; A2A v1.0.1 §3.1.2, §5.7, §9.1, §9.4.2, §13.4; WHATWG HTML §9.2.6; RFC
 * 6750 §5.3): the bugs A2A clients have in how they read and write the wire. Its stories: legal SSE
 * framings (several `data:` lines, CRLF or lone CR line ends, comments and `event:`/`id:`/`retry:`
 * fields, one long line, an event split across TCP writes); a streaming call or a subscription refused before any event, in the forms
 * servers answer one; members no version defines, beside an answer's own or in every object of it; a
 * stream left open after its terminal event; a line or an event that never ends; OAuth credentials laid out over one, two or three origins
 * (card, token endpoint, RPC). Each story has its control (nothing odd on the wire, or an intent that
 * meets none of it), and every choice shrinks toward the plainest, so a counterexample is the
 * smallest framing, refusal, placement or layout that breaks a client.
 */
import fc from 'fast-check';
import type { ListenerKind, PeerRuntime, SseFraming } from '../../core/scenario/runtime.js';
import type { CompletionPath } from '../../core/protocol/types.js';
import { agentCard } from '../agent-card.js';
import type { Family, GeneratedCase } from '../family.js';
import type { Drift } from '../peer-runtime.js';
import { peerRuntime } from '../peer-runtime.js';
import { taskIntent } from '../task-intent.js';

const STREAMING = [{ pointer: '/capabilities/streaming', kind: 'convention' as const, note: 'the card offers streaming' }];

/** A streaming story's case: a streaming card, an async task followed by the path drawn, the runtime's oddity applied. */
function streamCase(
  story: string,
  rules: GeneratedCase['rules'],
  completion: CompletionPath,
  odd: Partial<PeerRuntime>,
  drifts: Drift[],
  deadlineMs: number,
): fc.Arbitrary<GeneratedCase> {
  return fc
    .record({
      card: agentCard({ streaming: true }),
      runtime: peerRuntime({ streaming: true, workMs: { min: 150, max: 400 } }),
      intent: taskIntent({ taskClass: 'async-completion', input: { mediaType: 'text/plain' }, completion: [completion], accepted: ['text/plain'] }),
    })
    .map(({ card, runtime, intent }) => ({
      story,
      rules,
      drifts,
      card,
      signals: STREAMING,
      runtime: { ...runtime, ...odd },
      profileConstraints: {},
      intent,
      deadlineMs,
    }));
}

/** Mostly the story's path, sometimes polling (the control: the oddity is on a stream the client need not open). */
const pathOf = fc.oneof({ arbitrary: fc.constant<CompletionPath>('stream'), weight: 4 }, { arbitrary: fc.constant<CompletionPath>('poll'), weight: 1 });

/** Legal SSE framings: the plainest first (one `data:` line, LF), then several lines, other line ends, fields, a long line. */
const framings: fc.Arbitrary<GeneratedCase> = fc
  .record({
    multiline: fc.boolean(),
    lineEnd: fc.constantFrom<'lf' | 'crlf' | 'cr'>('lf', 'crlf', 'cr'),
    fields: fc.boolean(),
    lineBytes: fc.option(fc.constantFrom(96 * 1024, 1024 * 1024), { nil: undefined }),
    split: fc.boolean(),
    completion: pathOf,
  })
  .chain((k) => {
    const framing: SseFraming = {
      ...(k.multiline ? { multiline: true } : {}),
      ...(k.lineEnd !== 'lf' ? { lineEnd: k.lineEnd } : {}),
      ...(k.fields ? { fields: true } : {}),
      // One long line, or several: not both (sseFraming says so).
      ...(k.lineBytes !== undefined && !k.multiline ? { lineBytes: k.lineBytes } : {}),
      // Written in small pieces apart in time: not a mebibyte line (a hundred thousand writes).
      ...(k.split && (k.lineBytes === undefined || k.multiline) ? { split: true } : {}),
    };
    const odd = Object.keys(framing).length > 0;
    return streamCase('sse-framing', ['STREAM-FRAMING'], k.completion, odd ? { sseFraming: framing } : {}, odd ? ['sse-framing'] : [], 8000);
  });

/** A streaming call refused before any event: every stream, or the subscription after a stream that left its task early. */
const refusals: fc.Arbitrary<GeneratedCase> = fc
  .record({
    form: fc.constantFrom<'json' | 'untyped' | 'sse-error'>('json', 'untyped', 'sse-error'),
    only: fc.constantFrom<'streams' | 'subscribe'>('streams', 'subscribe'),
    completion: pathOf,
  })
  .chain((k) =>
    streamCase(
      'stream-refused',
      ['STREAM-REFUSAL'],
      k.completion,
      k.only === 'streams' ? { refuseStreams: k.form } : { refuseSubscribe: k.form, streamEnds: { afterEvents: 1 }, workMs: 600 },
      ['stream-refused'],
      8000,
    ),
  );

/** Members or values no version defines: none (the control), a member beside the answer's own or in every object of it, a task state, a kind of part; polled or streamed. */
const unknownMembers: fc.Arbitrary<GeneratedCase> = fc
  .record({
    odd: fc.option(fc.constantFrom<'top' | 'every' | 'state' | 'part'>('top', 'every', 'state', 'part'), { freq: 4, nil: undefined }),
    completion: fc.constantFrom<CompletionPath>('poll', 'stream'),
  })
  .chain((k) =>
    streamCase(
      'unknown-fields',
      ['TOLERANT-DECODING'],
      k.completion,
      k.odd === 'state' || k.odd === 'part' ? { futureValues: k.odd } : k.odd ? { unknownFields: k.odd } : {},
      k.odd ? ['unknown-fields'] : [],
      8000,
    ),
  );

/** After its first event, a line or an event that never ends (the control: polling, where no stream need be opened). */
const hostileStreams: fc.Arbitrary<GeneratedCase> = fc
  .record({ kind: fc.constantFrom<'no-line-end' | 'endless-event'>('no-line-end', 'endless-event'), completion: pathOf })
  .chain((k) => streamCase('hostile-stream', ['STREAM-BOUNDS'], k.completion, { hostileStream: k.kind, workMs: 400 }, ['hostile-stream'], 10000));

/** A stream left open after its terminal event (or closed, the control). */
const openStreams: fc.Arbitrary<GeneratedCase> = fc
  .record({ stayOpen: fc.oneof({ arbitrary: fc.constant(true), weight: 4 }, { arbitrary: fc.constant(false), weight: 1 }), completion: pathOf })
  .chain((k) =>
    streamCase('stream-left-open', ['STREAM-CLOSE'], k.completion, k.stayOpen ? { streamsStayOpen: true } : {}, k.stayOpen ? ['stream-stays-open'] : [], 6000),
  );

/** OAuth 2.0 credentials over one, two or three origins: the card on the RPC's origin or a CDN's, the token endpoint beside the RPC or at an identity provider. */
const credentials: fc.Arbitrary<GeneratedCase> = fc
  .record({ card: fc.constantFrom<ListenerKind>('tls', 'cdn'), token: fc.constantFrom<ListenerKind>('tls', 'vendor-b') })
  .chain((k) =>
    fc
      .record({
        card: agentCard({ security: 'oauth2' }),
        runtime: peerRuntime({ streaming: false, cardListener: k.card, workMs: { min: 60, max: 250 } }),
        intent: taskIntent({ taskClass: 'text', input: { mediaType: 'text/plain' }, completion: ['poll'], accepted: ['text/plain'] }),
      })
      .map(
        ({ card, runtime, intent }): GeneratedCase => ({
          story: 'credential-layout',
          rules: ['CREDENTIAL-SCOPE'],
          drifts: k.card !== 'tls' || k.token !== 'tls' ? ['split-credentials'] : [],
          card,
          signals: [
            { pointer: '/securitySchemes', kind: 'security', note: 'OAuth 2.0 client credentials: the token endpoint and the interfaces they are for' },
          ],
          runtime: { ...runtime, auth: { taskScheme: 'Bearer', tokenTtlSeconds: 300, ...(k.token !== 'tls' ? { tokenListener: k.token } : {}) } },
          profileConstraints: {},
          intent,
          deadlineMs: 5000,
        }),
      ),
  );

export const wireFamily: Family = {
  id: 'wire',
  title: 'Wire (A2A v1.0.1 §3.1.2, §5.7, §9.4.2, §13.4)',
  rules: ['STREAM-FRAMING', 'STREAM-REFUSAL', 'TOLERANT-DECODING', 'STREAM-CLOSE', 'CREDENTIAL-SCOPE', 'STREAM-BOUNDS'],
  spec: 'A2A v1.0.1 §9.1 and WHATWG HTML §9.2.6 (event streams), §9.4.2 and A2A #1262 (a refused stream), §5.7 (unrecognized fields), §3.1.2 (a stream closes at its terminal state), §13.4 and RFC 6750 §5.3 (credentials)',
  arbitrary: fc.oneof(framings, refusals, unknownMembers, openStreams, credentials, hostileStreams),
};
