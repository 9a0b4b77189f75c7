/**
 * The naive client, which trusts a valid card as a contract: the client of the incidents in
 * docs/duties.md.
 * `naive` makes every mistake at once; `naive:<mistake>` makes one. Each mistake names the rule
 * that must catch it.
 */
import type { ClientAdapter } from '../../harness/core/protocol/adapter.js';
import { BINDINGS, TASK_CLASSES } from '../../harness/core/protocol/types.js';
import { runClient } from '../common/engine.js';
import { IMPLEMENTED_EXTENSIONS, type Mistakes } from '../common/negotiate.js';

export interface MistakeInfo {
  name: string;
  flag: keyof Mistakes;
  description: string;
  /** The rule that must catch it. */
  caughtBy: string;
  /**
   * What the rule must give at least: FAIL (or TIMEOUT) where the mistake does harm on the wire, is
   * over-rejection, or is a rejection the wire cannot credit; NON_STRICT where it only misses an
   * up-front duty below MUST (so `--strict` exits 1).
   */
  atLeast: 'FAIL' | 'NON_STRICT';
}

export const MISTAKES: MistakeInfo[] = [
  {
    name: 'streams-live-audio',
    flag: 'streamsLiveAudio',
    description: 'streams live audio frame by frame to a non-streaming agent',
    caughtBy: 'NEG-LIVE-INPUT',
    atLeast: 'NON_STRICT',
  },
  {
    name: 'registers-unusable-push',
    flag: 'registersUnusablePush',
    description: 'registers push its receiver cannot honour and waits on it alone',
    caughtBy: 'NEG-PUSH-MTLS',
    atLeast: 'FAIL',
  },
  {
    name: 'rejects-whole-card',
    flag: 'rejectsWholeCard',
    description: 'rejects the whole card for every task class when any part of it is unnegotiable',
    caughtBy: 'NEG-LIVE-INPUT',
    atLeast: 'FAIL',
  },
  {
    name: 'ignores-resubscribe-only',
    flag: 'ignoresResubscribeOnly',
    description: 'ignores resubscribe-only outputs and insists on SubscribeToTask',
    caughtBy: 'NEG-RESUB-ONLY-OUTPUT',
    atLeast: 'FAIL',
  },
  { name: 'skips-tls-verify', flag: 'skipsTlsVerify', description: 'skips certificate verification', caughtBy: 'SPEC-TLS-VERIFY', atLeast: 'FAIL' },
  { name: 'never-cancels', flag: 'neverCancels', description: 'never cancels the tasks it abandons', caughtBy: 'WIRE-NO-ORPHANS', atLeast: 'FAIL' },
  { name: 'retries-blindly', flag: 'retriesBlindly', description: 'repeats a failed request identically', caughtBy: 'WIRE-NO-BLIND-RETRY', atLeast: 'FAIL' },
  {
    name: 'never-escalates',
    flag: 'neverEscalates',
    description: 'ignores an extension it implements that resolves the card',
    caughtBy: 'NEG-ESCALATE',
    atLeast: 'NON_STRICT',
  },
  { name: 'omits-a2a-version', flag: 'omitsA2aVersion', description: 'sends no A2A-Version header', caughtBy: 'SPEC-A2A-VERSION', atLeast: 'FAIL' },
  { name: 'decides-blind', flag: 'decidesBlind', description: 'declines live input without reading the card', caughtBy: 'NEG-LIVE-INPUT', atLeast: 'FAIL' },
  {
    name: 'skips-signature-verification',
    flag: 'skipsVerification',
    description: 'never verifies a card signature, even where the profile requires signed cards',
    caughtBy: 'TRUST-BAD-SIGNATURE',
    atLeast: 'FAIL',
  },
  {
    name: 'loose-media-match',
    flag: 'looseMediaMatch',
    description: 'matches media types loosely, as docs/duties.md §7 warns: the offered type may carry extra parameters',
    caughtBy: 'TRUST-PARAM-MATCH',
    atLeast: 'NON_STRICT',
  },
  {
    name: 'retries-on-decode',
    flag: 'retriesOnDecode',
    description: 're-sends the same message when an artifact cannot be decoded, as if the failure were transient',
    caughtBy: 'TRUST-NO-RETRY-ON-DECODE',
    atLeast: 'FAIL',
  },
  {
    name: 'trusts-any-jku',
    flag: 'trustsAnyJku',
    description: 'fetches the JWKS any jku names and trusts its keys',
    caughtBy: 'TRUST-UNTRUSTED-JKU',
    atLeast: 'FAIL',
  },
  {
    name: 'binds-blind-to-card-defaults',
    flag: 'ignoresSkillModes',
    description: "binds to the card's default input modes, whatever a skill re-declares",
    caughtBy: 'HS-SKILL-OVERRIDE',
    atLeast: 'NON_STRICT',
  },
  {
    name: 'repeats-challenged-call',
    flag: 'repeatsChallengedCall',
    description: 'repeats a call answered 401 with the same credentials',
    caughtBy: 'HS-CHALLENGE-SCHEME',
    atLeast: 'FAIL',
  },
  {
    name: 'aborts-where-a-surface-works',
    flag: 'abortsOnRefusal',
    description: 'gives up when the push registration is refused, although polling works',
    caughtBy: 'HS-ASPIRATIONAL-CAPABILITY',
    atLeast: 'NON_STRICT',
  },
  {
    name: 'stalls-on-refused-push',
    flag: 'waitsOnRefusedPush',
    description: 'waits on push alone after its registration was refused',
    caughtBy: 'HS-ASPIRATIONAL-CAPABILITY',
    atLeast: 'FAIL',
  },
  {
    name: 'skips-origin-probe',
    flag: 'skipsProbe',
    description: 'sends the task on a card from another origin than the RPC without probing first',
    caughtBy: 'HS-SPLIT-ORIGIN',
    atLeast: 'NON_STRICT',
  },
  {
    name: 'accepts-alg-none',
    flag: 'acceptsAlgNone',
    description: 'takes the algorithm from the signature header: alg none passes, HS256 is keyed with the public key',
    caughtBy: 'TRUST-ALG',
    atLeast: 'FAIL',
  },
  {
    name: 'ignores-interface-order',
    flag: 'ignoresInterfaceOrder',
    description: "uses the binding it likes best (JSON-RPC) wherever the card lists it, not the card's first interface it speaks",
    caughtBy: 'SPEC-INTERFACE-SELECTION',
    atLeast: 'FAIL',
  },
  {
    name: 'resends-on-stream-drop',
    flag: 'resendsOnStreamDrop',
    description: 'takes a stream that ends before its task for a lost request and sends the message again',
    caughtBy: 'STREAM-RECOVERY',
    atLeast: 'FAIL',
  },
  {
    name: 'trusts-any-push',
    flag: 'trustsAnyPush',
    description: 'its push receiver takes any delivery, whatever its credentials, and the client believes the state it names',
    caughtBy: 'PUSH-AUTHENTICITY',
    atLeast: 'FAIL',
  },
  {
    name: 'acts-on-foreign-task-push',
    flag: 'actsOnForeignTaskPush',
    description: 'takes the end a push names for its own task’s, whatever task the push names',
    caughtBy: 'PUSH-TASK-MATCH',
    atLeast: 'NON_STRICT',
  },
  {
    name: 'cancels-on-forged-push',
    flag: 'cancelsOnFailedPush',
    description: 'its push receiver takes any delivery; on one saying the task FAILED it cancels the task, sends the message again and follows the new task',
    caughtBy: 'PUSH-AUTHENTICITY',
    atLeast: 'FAIL',
  },
  {
    name: 'resends-after-stream-drop-by-send',
    flag: 'resendsBySendOnStreamDrop',
    description:
      'takes a stream that ends before its task for a broken task: cancels it and sends the message again by SendMessage, a new messageId and metadata',
    caughtBy: 'STREAM-RECOVERY',
    atLeast: 'FAIL',
  },
  {
    name: 'cancels-on-transient-refusal',
    flag: 'cancelsOnTransientRefusal',
    description: 'takes a 429 or 503 with Retry-After while polling for a failure and cancels its task',
    caughtBy: 'WIRE-NO-DESTROYED-WORK',
    atLeast: 'FAIL',
  },
  {
    name: 'acts-on-each-duplicate',
    flag: 'actsOnEachDelivery',
    description: 'answers each push delivery of its task with a message to the task, a duplicate delivery as much as the original',
    caughtBy: 'PUSH-RECEIPT',
    atLeast: 'NON_STRICT',
  },
  {
    name: 'acks-push-with-error',
    flag: 'acksPushWithError',
    description: 'its push receiver takes each delivery and answers it 500',
    caughtBy: 'PUSH-RECEIPT',
    atLeast: 'FAIL',
  },
  {
    name: 'splits-data-lines',
    flag: 'splitsDataLines',
    description: "dispatches each data: line of a stream's event as an event of its own",
    caughtBy: 'STREAM-FRAMING',
    atLeast: 'FAIL',
  },
  {
    name: 'caps-sse-lines',
    flag: 'capsSseLines',
    description: "reads a stream's lines with a 64 KiB scanner and takes a longer line for the stream's end",
    caughtBy: 'STREAM-FRAMING',
    atLeast: 'NON_STRICT',
  },
  {
    name: 'reads-chunks-as-lines',
    flag: 'readsChunksAsLines',
    description: "takes each read of a stream's body for whole lines, decoded on its own: an event split across TCP writes is lost",
    caughtBy: 'STREAM-FRAMING',
    atLeast: 'NON_STRICT',
  },
  {
    name: 'buffers-without-bound',
    flag: 'buffersWithoutBound',
    description: "buffers a stream's event without bound: a line or an event that never ends is read until its deadline",
    caughtBy: 'STREAM-BOUNDS',
    atLeast: 'NON_STRICT',
  },
  {
    name: 'empties-refused-stream',
    flag: 'emptiesRefusedStream',
    description:
      'reads a streaming call or subscription refused before any event (an error answer, an error event) as a stream that ended empty: for a subscription, the task’s end',
    caughtBy: 'STREAM-REFUSAL',
    atLeast: 'FAIL',
  },
  {
    name: 'rejects-unknown-fields',
    flag: 'rejectsUnknownFields',
    description: 'reads each v1.0 answer with a strict protobuf JSON parser: a member its message does not define fails the call',
    caughtBy: 'TOLERANT-DECODING',
    atLeast: 'NON_STRICT',
  },
  {
    name: 'sends-token-everywhere',
    flag: 'sendsTokenEverywhere',
    description: "gets a token with the run's credentials before anything else and sends it on every request, the card's fetch from a CDN included",
    caughtBy: 'CREDENTIAL-SCOPE',
    atLeast: 'FAIL',
  },
  {
    name: 'caches-rejected-card',
    flag: 'cachesRejectedCard',
    description: 'caches the card before verifying it; after a verification that fails, its retry takes the card from the cache as resolved, unverified',
    caughtBy: 'TRUST-BAD-SIGNATURE',
    atLeast: 'FAIL',
  },
  {
    name: 'waits-for-stream-end',
    flag: 'waitsForStreamEnd',
    description: 'reads a stream until the agent closes it, the terminal event notwithstanding: at its budget it cancels the task it had seen end',
    caughtBy: 'STREAM-CLOSE',
    atLeast: 'NON_STRICT',
  },
  {
    name: 'leaves-stream-open',
    flag: 'leavesStreamOpen',
    description: 'stops reading a stream at its terminal event and reports, never closing it (a reader released, not canceled)',
    caughtBy: 'STREAM-CLOSE',
    atLeast: 'NON_STRICT',
  },
];

export function createNaiveClient(only?: string): ClientAdapter {
  const chosen = only === undefined ? MISTAKES : MISTAKES.filter((m) => m.name === only);
  if (chosen.length === 0) throw new Error(`unknown naive mistake "${only}". Known: ${MISTAKES.map((m) => m.name).join(', ')}`);
  const mistakes: Mistakes = Object.fromEntries(chosen.map((m) => [m.flag, true]));
  const name = only === undefined ? 'naive' : `naive:${only}`;
  return {
    hello: () => ({
      name,
      version: '0.1.0',
      profile: null,
      taskClasses: [...TASK_CLASSES],
      extensions: [...IMPLEMENTED_EXTENSIONS],
      dialects: ['a2a-v1'],
      bindings: [...BINDINGS],
    }),
    run: (req, signal) => runClient(req, signal, mistakes),
  };
}
