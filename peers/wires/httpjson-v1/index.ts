/**
 * A2A v1.0 over HTTP+JSON (spec §11): one route per operation below the interface URL (./routes.ts),
 * each also under a `/{tenant}` prefix; params and results in the neutral (ProtoJSON) shapes as
 * they are; SSE of bare StreamResponse objects for the streaming operations (§11.7); errors as a
 * `google.rpc.Status` body with §5.4's HTTP column as its status (§11.6). Service parameters from
 * headers (§11.2): `A2A-Version` (or the query parameter, as the JSON-RPC wire takes it too),
 * `A2A-Extensions`.
 *
 * The params of a call: the body (routes with `body: "*"`: SendMessageRequest, CancelTaskRequest's
 * metadata, the TaskPushNotificationConfig), then the query (§11.5), then what the path binds (`id`,
 * `taskId`, `tenant`). A field the path binds that the body also names with another value (a body's
 * `tenant` that is not the path's) is refused, 400 INVALID_ARGUMENT: the request names two.
 *
 * The transcript keeps, whatever the answer: the operation, its params, the route's template as
 * `wireMethod` (`POST /message:send`, `GET /{tenant}/tasks/{id}`), and as the error's code §5.4's
 * JSON-RPC column (the neutral id: -32001 for a 404 TaskNotFound). A path with no operation is a
 * 404, a known path with another verb a 405 with `Allow` (both recorded as -32601, with a note), a
 * body that is not a JSON object a 400 (-32700, as on JSON-RPC).
 */
import { HttpResponse } from 'msw';
import type { A2AError } from '../../runtime/errors.js';
import { ERROR_MAP, JSONRPC_CODES } from '../error-map.js';
import { isObj } from '../../runtime/event.js';
import type { CallRecord } from '../../runtime/record.js';
import type { Params, Wire, WireCall, WireRefusal, WireRequest } from '../wire.js';
import { type Matched, queryParams, routesAt, segmentsOf } from './routes.js';

export const A2A_JSON = 'application/a2a+json';

/** A `google.rpc.Status` answer (§11.6). */
export function statusResponse(code: number, status: string, message: string, details: unknown[] = [], headers: Record<string, string> = {}): Response {
  return HttpResponse.json(
    { error: { code, status, message, ...(details.length ? { details } : {}) } },
    { status: code, headers: { 'content-type': A2A_JSON, ...headers } },
  );
}

/** The path below the interface URL (the whole path where the endpoint did not say where the interface is). */
function below(req: WireRequest): string {
  const path = req.url.pathname;
  const base = req.interfaceUrl ? new URL(req.interfaceUrl).pathname.replace(/\/+$/, '') : '';
  return base && path.startsWith(`${base}/`) ? path.slice(base.length) : base && path === base ? '' : path;
}

type Read = { matched: Matched; params: Params } | { refusal: WireRefusal; matched?: Matched; params?: Params };

const listParam = (value: string | null): string[] =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

/** A refusal of a request that names an operation: its call kept as far as it was read. */
function refuseCall(verb: string, m: Matched, params: Params, code: number, status: string, message: string, recorded: number, note: string): Read {
  const call: CallRecord = { method: m.route.op, id: null, params, wireMethod: `${verb} ${m.wireMethod}` };
  return { matched: m, params, refusal: { response: statusResponse(code, status, message), recorded: { code: recorded, message }, note, call } };
}

/** Reads a request: its route, and its params from path, query and body (or the refusal of one that names no operation). */
function read(req: WireRequest): Read {
  const raw = segmentsOf(below(req));
  const verb = req.method.toUpperCase();
  const candidates = raw ? routesAt(raw) : [];
  const m = candidates.find((c) => c.route.verbs.includes(verb));
  if (!m) {
    const path = below(req).slice(0, 200);
    if (candidates.length === 0) {
      const message = `no operation at ${path || '/'} (HTTP+JSON, §11.3)`;
      return { refusal: { response: statusResponse(404, 'NOT_FOUND', message), recorded: { code: -32601, message }, note: `${verb} ${path}: ${message}` } };
    }
    const allow = [...new Set(candidates.flatMap((c) => c.route.verbs))].join(', ');
    const message = `${verb} is not a method of ${path} (HTTP+JSON, §11.3): it takes ${allow}`;
    return {
      refusal: {
        response: statusResponse(405, 'UNIMPLEMENTED', message, [], { allow }),
        recorded: { code: -32601, message },
        note: `${verb} ${path}: ${message}`,
      },
    };
  }
  const q = queryParams(m.route, req.url.searchParams);
  const fromPath: Params = { ...m.bound };
  if ('bad' in q) return refuseCall(verb, m, fromPath, 400, 'INVALID_ARGUMENT', `Invalid parameters: ${q.bad}`, JSONRPC_CODES.invalidParams, q.bad);
  let body: Params = {};
  if (m.route.body && req.body.trim() !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(req.body);
    } catch {
      return refuseCall(verb, m, fromPath, 400, 'INVALID_ARGUMENT', 'Invalid JSON payload', -32700, 'the request body is not JSON');
    }
    if (!isObj(parsed)) return refuseCall(verb, m, fromPath, 400, 'INVALID_ARGUMENT', 'Invalid JSON payload', -32700, 'the request body is not a JSON object');
    body = parsed;
  }
  const params: Params = { ...body, ...q.params, ...fromPath };
  const twice = Object.keys(fromPath).find((k) => body[k] !== undefined && body[k] !== '' && body[k] !== fromPath[k]);
  if (twice) {
    const why = `the path names ${twice} ${JSON.stringify(fromPath[twice])}, the body ${JSON.stringify(body[twice]).slice(0, 80)}`;
    return refuseCall(verb, m, params, 400, 'INVALID_ARGUMENT', `Invalid parameters: ${why}`, JSONRPC_CODES.invalidParams, why);
  }
  return { matched: m, params };
}

const callOf = (req: WireRequest, m: Matched, params: Params): WireCall => ({
  op: m.route.op,
  params,
  id: null,
  wireMethod: `${req.method.toUpperCase()} ${m.wireMethod}`,
  version: req.headers.get('a2a-version') ?? req.url.searchParams.get('A2A-Version'),
  extensions: listParam(req.headers.get('a2a-extensions')),
});

export const httpJsonV1: Wire = {
  dialect: 'a2a-v1',
  binding: 'HTTP+JSON',
  protocolVersion: '1.0',
  routes: 'below',
  decode(req) {
    const r = read(req);
    if ('refusal' in r) return { refusal: r.refusal };
    return { call: callOf(req, r.matched, r.params) };
  },
  describe(req) {
    const r = read(req);
    if (!r.matched) return undefined;
    const { op, id, params, wireMethod } = callOf(req, r.matched, r.params ?? { ...r.matched.bound });
    return { method: op, id, params, ...(wireMethod ? { wireMethod } : {}) };
  },
  result: (_call, _op, result, activated) =>
    HttpResponse.json(result as Record<string, unknown>, {
      status: 200,
      headers: { 'content-type': A2A_JSON, ...(activated.length ? { 'a2a-extensions': activated.join(', ') } : {}) },
    }),
  error(_call, err: A2AError) {
    const [code, status] = ERROR_MAP[err.kind].http;
    const info = err.errorInfo;
    return { response: statusResponse(code, status, err.text, info ? [info] : []), recorded: { code: JSONRPC_CODES[err.kind], message: err.text } };
  },
  frame: (_call, event) => `data: ${JSON.stringify(event)}\n\n`,
  stream: (_call, body) => new HttpResponse(body, { status: 200, headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } }),
  pushBody: (event) => event,
};
