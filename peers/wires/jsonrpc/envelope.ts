/**
 * The JSON-RPC 2.0 envelope, parsed once for every JSON-RPC dialect (v1.0 §9, v0.3.0 §6): the body
 * read as JSON (-32700 where it is not), the request object checked (`jsonrpc: "2.0"`, a string
 * method, an id that is a string, a number or null; -32600 otherwise), and the answers framed: a
 * result, an error with the A2A error's JSON-RPC code (§5.4's JSON-RPC column) and its ErrorInfo in
 * `data` (§9.5), a stream event as an SSE `data:` line (§9.4.2). Not a wire: each JSON-RPC wire
 * (../jsonrpc-v1/, ../jsonrpc-v03/) uses it with its own method names and shapes.
 */
import { HttpResponse } from 'msw';
import type { A2AError } from '../../runtime/errors.js';
import { JSONRPC_CODES } from '../error-map.js';
import { isObj } from '../../runtime/event.js';
import { recordableId } from '../../runtime/record.js';
import type { Params, WireError, WireRefusal } from '../wire.js';

/** A request object as JSON-RPC 2.0 defines it. */
export interface Envelope {
  id: string | number | null;
  method: string;
  /** `params` where it is an object; {} otherwise. */
  params: Params;
  /** The request object as sent. */
  body: Params;
}

const validId = (id: unknown): id is string | number | null => id === null || typeof id === 'number' || typeof id === 'string';

const refusal = (id: unknown, code: number, message: string, recorded: string, note?: string): WireRefusal => ({
  response: HttpResponse.json({ jsonrpc: '2.0', id, error: { code, message } }),
  recorded: { code, message: recorded },
  ...(note ? { note } : {}),
});

/** The request object of a body, or the refusal of a body that is none. */
export function parseEnvelope(raw: string): { envelope: Envelope } | { refusal: WireRefusal } {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return { refusal: refusal(null, -32700, 'Invalid JSON payload', 'Invalid JSON payload') };
  }
  const rawId = isObj(body) ? (body.id ?? null) : null;
  if (!isObj(body) || body.jsonrpc !== '2.0' || typeof body.method !== 'string' || !validId(rawId)) {
    // An id that is not a string, number or null is echoed as null (JSON-RPC 2.0 §5: the id "MUST be Null" when it cannot be detected).
    const note = isObj(body) && !validId(rawId) ? `JSON-RPC id is not a string, number or null: ${JSON.stringify(recordableId(rawId))}` : undefined;
    return { refusal: refusal(validId(rawId) ? rawId : null, -32600, 'Request payload validation error', 'Invalid Request', note) };
  }
  return { envelope: { id: rawId, method: body.method, params: isObj(body.params) ? body.params : {}, body } };
}

/** A body read leniently: any object naming a method (a gate keeps the call it answers, envelope or not). */
export function peekEnvelope(raw: string): { method: string; id: unknown; params: Params } | undefined {
  try {
    const body: unknown = JSON.parse(raw);
    if (isObj(body) && typeof body.method === 'string') return { method: body.method, id: body.id ?? null, params: isObj(body.params) ? body.params : {} };
  } catch {
    // not JSON-RPC: the status is the evidence
  }
  return undefined;
}

export const resultResponse = (id: unknown, result: unknown, headers: Record<string, string> = {}): Response =>
  HttpResponse.json({ jsonrpc: '2.0', id, result }, { headers });

/** An A2A error as a JSON-RPC error object: its code, the message with the detail, and its ErrorInfo in `data` (§9.5). */
export function errorObject(err: A2AError): { code: number; message: string; data?: unknown[] } {
  const info = err.errorInfo;
  return { code: JSONRPC_CODES[err.kind], message: err.text, ...(info ? { data: [info] } : {}) };
}

export function errorResponse(id: unknown, err: A2AError): WireError {
  const json = errorObject(err);
  return { response: HttpResponse.json({ jsonrpc: '2.0', id, error: json }), recorded: { code: json.code, message: json.message } };
}

/** One stream event as an SSE frame of a JSON-RPC response (§9.4.2). */
export const sseFrame = (id: unknown, result: unknown): string => `data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`;

export const sseResponse = (body: ReadableStream<Uint8Array>): Response =>
  new HttpResponse(body, { status: 200, headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } });

/** A comma-separated service parameter (§9.2: several values in one header field). */
export const listParam = (value: string | null): string[] =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
