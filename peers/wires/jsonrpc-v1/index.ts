/**
 * A2A v1.0 over JSON-RPC (spec §9): one endpoint, PascalCase methods that are the operations' own
 * names (§5.3), params and results in the neutral (ProtoJSON) shapes as they are, SSE for the
 * streaming methods, errors by §5.4's JSON-RPC column with ErrorInfo. Service parameters from headers
 * (§9.2): `A2A-Version` (or, as some clients send it, the query parameter), `A2A-Extensions`.
 */
import type { Wire } from '../wire.js';
import { errorResponse, listParam, parseEnvelope, peekEnvelope, resultResponse, sseFrame, sseResponse } from '../jsonrpc/envelope.js';

export const jsonRpcV1: Wire = {
  dialect: 'a2a-v1',
  binding: 'JSONRPC',
  protocolVersion: '1.0',
  routes: 'exact',
  decode(req) {
    const parsed = parseEnvelope(req.body);
    if ('refusal' in parsed) return parsed;
    const { id, method, params } = parsed.envelope;
    const version = req.headers.get('a2a-version') ?? req.url.searchParams.get('A2A-Version');
    return { call: { op: method, params, id, version, extensions: listParam(req.headers.get('a2a-extensions')) } };
  },
  describe: (req) => peekEnvelope(req.body),
  result: (call, _op, result, activated) => resultResponse(call.id, result, activated.length ? { 'a2a-extensions': activated.join(', ') } : {}),
  error: (call, err) => errorResponse(call.id, err),
  frame: (call, event) => sseFrame(call.id, event),
  stream: (_call, body) => sseResponse(body),
  pushBody: (event) => event,
};
