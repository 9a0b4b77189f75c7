/**
 * A2A v0.3 over JSON-RPC (v0.3.0 §6, §7): the same runtime, spoken in v0.3 through ./codec.ts.
 *
 * - Each call is decoded into its neutral operation (`message/send` → SendMessage, …) and params; a
 *   method v0.3 does not have is refused here (-32601), before the runtime, kept under its own name.
 *   The transcript keeps the neutral operation as `rpc.method` and the wire's as `rpc.wireMethod`.
 * - Results and stream events are encoded back: `kind`-tagged objects, kebab-case states,
 *   `status-update` / `artifact-update` events with `final`; a push notification's body is the Task
 *   (v0.3.0 §9.5). Errors are the JSON-RPC errors v1.0 answers (the codes are v0.3's too).
 * - No `A2A-Version` is read or checked: v0.3 has none. Extensions are opted into with
 *   `X-A2A-Extensions` (v0.3.0 docs/topics/extensions.md), or v1.0's `A2A-Extensions`.
 * - The card is a v0.3 card (`url`, `preferredTransport`, `protocolVersion`, `type`-tagged security
 *   schemes), served at `/.well-known/agent-card.json` (v0.3.0 §5.3) and at the legacy
 *   `/.well-known/agent.json` that v0.3-era servers kept serving; the runtime reads it as v1.0 (`readCard`).
 */
import { ownHead } from '../../../harness/core/body.js';
import type { Wire } from '../wire.js';
import { errorResponse, listParam, parseEnvelope, peekEnvelope, resultResponse, sseFrame, sseResponse } from '../jsonrpc/envelope.js';
import { A2AError } from '../../runtime/errors.js';
import { cardIn, pushBodyOut, requestIn, resultOut, streamResultOut } from './codec.js';

/** The legacy card path v0.3-era servers also served (renamed to agent-card.json in v0.3.0). */
export const LEGACY_CARD_PATH = '/.well-known/agent.json';

/** The card as the runtime reads it: v1.0's shape (./codec.ts). */
export const readCard = cardIn;

export const jsonRpcV03: Wire = {
  dialect: 'a2a-v0.3',
  binding: 'JSONRPC',
  protocolVersion: '0.3',
  routes: 'exact',
  pushConfigIdOptional: true,
  decode(req) {
    const parsed = parseEnvelope(req.body);
    if ('refusal' in parsed) return parsed;
    const { id, method, params } = parsed.envelope;
    const call = requestIn(method, params);
    if (!call) {
      const refused = errorResponse(id, new A2AError('methodNotFound', method));
      return { refusal: { ...refused, call: { method, id, params, wireMethod: ownHead(method, 200) } } };
    }
    const extensions = listParam(req.headers.get('a2a-extensions') ?? req.headers.get('x-a2a-extensions'));
    return { call: { op: call.op, params: call.params, id, wireMethod: method.slice(0, 200), extensions } };
  },
  describe(req) {
    const peeked = peekEnvelope(req.body);
    if (!peeked) return undefined;
    const call = requestIn(peeked.method, peeked.params);
    return { ...peeked, ...(call ? { method: call.op, params: call.params } : {}), wireMethod: ownHead(peeked.method, 200) };
  },
  result: (call, op, result) => resultResponse(call.id, resultOut(op, result)),
  error: (call, err) => errorResponse(call.id, err),
  frame: (call, event) => sseFrame(call.id, streamResultOut(event)),
  stream: (_call, body) => sseResponse(body),
  pushBody: pushBodyOut,
};
