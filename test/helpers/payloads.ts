/**
 * What the peers send, checked against the official definitions: every JSON-RPC answer, stream
 * event and push body a run's transcript keeps, for A2A v1.0 by the ProtoJSON field rules of the
 * proto (harness/core/card-validator.ts, cross-checked against the proto by its own test) and for
 * v0.3 by the official v0.3.0 JSON Schema (beside the checkout, in ../shared/spec; never copied).
 */
import { FUTURE_MEMBER, FUTURE_PART, FUTURE_STATE } from '../../peers/wires/unknown-fields.js';
import { V1_MESSAGES } from '../../harness/core/protocol/proto-v1.js';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { isBase64, validateV1 } from '../../harness/core/card-validator.js';
import type { ScenarioResult } from '../../harness/core/results.js';
import type { BodyRecord } from '../../harness/core/body.js';
import type { HttpEvent, WireEvent } from '../../harness/core/transcript.js';
import { ROOT } from './cli.js';

export const V03_SCHEMA = join(ROOT, '..', 'shared', 'spec', 'a2a-v0.3.0.schema.json');

/** The v1.0 result message of each operation (spec §9.4; the proto's service). */
const V1_RESULT: Record<string, string | undefined> = {
  SendMessage: 'SendMessageResponse',
  GetTask: 'Task',
  CancelTask: 'Task',
  ListTasks: 'ListTasksResponse',
  CreateTaskPushNotificationConfig: 'TaskPushNotificationConfig',
  GetTaskPushNotificationConfig: 'TaskPushNotificationConfig',
  ListTaskPushNotificationConfigs: 'ListTaskPushNotificationConfigsResponse',
  DeleteTaskPushNotificationConfig: undefined, // google.protobuf.Empty
  GetExtendedAgentCard: 'AgentCard',
};
const V1_STREAMED = new Set(['SendStreamingMessage', 'SubscribeToTask']);

/** The v0.3.0 schema's response definition of each wire method. */
const V03_RESPONSE: Record<string, string> = {
  'message/send': 'SendMessageResponse',
  'message/stream': 'SendStreamingMessageResponse',
  'tasks/resubscribe': 'SendStreamingMessageResponse',
  'tasks/get': 'GetTaskResponse',
  'tasks/cancel': 'CancelTaskResponse',
  'tasks/pushNotificationConfig/set': 'SetTaskPushNotificationConfigResponse',
  'tasks/pushNotificationConfig/get': 'GetTaskPushNotificationConfigResponse',
  'tasks/pushNotificationConfig/list': 'ListTaskPushNotificationConfigResponse',
  'tasks/pushNotificationConfig/delete': 'DeleteTaskPushNotificationConfigResponse',
  'agent/getAuthenticatedExtendedCard': 'GetAuthenticatedExtendedCardResponse',
};

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export interface PayloadProblem {
  scenario: string;
  seq: number;
  what: string;
  problems: string[];
}

let v03: Ajv | undefined;
const compiled = new Map<string, ValidateFunction>();
/** A validator of one definition of the official v0.3.0 schema (undefined where the schema is absent). */
function v03Def(name: string): ValidateFunction | undefined {
  if (!existsSync(V03_SCHEMA)) return undefined;
  if (!v03) {
    v03 = new Ajv({ strict: false, allErrors: true });
    v03.addSchema(JSON.parse(readFileSync(V03_SCHEMA, 'utf8')) as object, 'a2a-v0.3');
  }
  let fn = compiled.get(name);
  if (!fn) {
    fn = v03.getSchema(`a2a-v0.3#/definitions/${name}`)!;
    compiled.set(name, fn);
  }
  return fn;
}

/** Every v0.3 file part's bytes, which the schema types as a string and describes as base64. */
function v03BytesProblems(value: unknown, at = ''): string[] {
  const out: string[] = [];
  const stack: Array<[unknown, string]> = [[value, at]];
  while (stack.length) {
    const [v, p] = stack.pop()!;
    if (Array.isArray(v)) for (const [i, x] of v.entries()) stack.push([x, `${p}/${i}`]);
    else if (isObj(v)) {
      if (v.kind === 'file' && isObj(v.file) && typeof v.file.bytes === 'string' && !isBase64(v.file.bytes))
        out.push(`${p}/file/bytes is not base64 ("The base64-encoded content of the file.")`);
      for (const [k, x] of Object.entries(v)) stack.push([x, `${p}/${k}`]);
    }
  }
  return out;
}

function v03Problems(def: string, value: unknown): string[] | undefined {
  const fn = v03Def(def);
  if (!fn) return undefined;
  const ok = fn(value);
  const schema = ok ? [] : (fn.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
  return [...schema, ...v03BytesProblems(value)];
}

/** A JSON-RPC 2.0 response envelope (§5): the id, and exactly one of result and error (code, message). */
function envelopeProblems(body: unknown): string[] {
  if (!isObj(body)) return ['not a JSON object'];
  const out: string[] = [];
  if (body.jsonrpc !== '2.0') out.push('jsonrpc is not "2.0"');
  if (!(body.id === null || typeof body.id === 'string' || typeof body.id === 'number')) out.push('id is not a string, number or null');
  if ((body.result === undefined) === (body.error === undefined)) out.push('not exactly one of result and error');
  if (body.error !== undefined) {
    const e = body.error;
    if (!isObj(e) || !Number.isInteger(e.code) || typeof e.message !== 'string') out.push('error is not {code: integer, message: string}');
  }
  return out;
}

function v1ResultProblems(op: string, result: unknown): string[] {
  const def = V1_STREAMED.has(op) ? 'StreamResponse' : V1_RESULT[op];
  if (def === undefined) return Object.hasOwn(V1_RESULT, op) ? (isObj(result) && Object.keys(result).length === 0 ? [] : ['Empty result is not {}']) : [];
  return validateV1(def, result).map((i) => `${i.pointer} ${i.message}`);
}

/** The dialect a call was answered in: v0.3 where it came through a v0.3 interface (its wire method kept). */
const v03Call = (e: HttpEvent) => e.rpc?.wireMethod !== undefined;

function kept(b: BodyRecord | undefined): string | undefined {
  return b?.truncated ? `the transcript kept the body in part only (${b.truncated}): the check cannot see it whole` : undefined;
}

/** Every payload problem of one scenario run's transcript. `v03Checked` counts the v0.3 bodies the schema could check. */
/** The value without the members and values the peers add on purpose (peers/wires/unknown-fields.ts): the state put back, the part taken out. */
function withoutFuture(v: unknown): unknown {
  if (Array.isArray(v)) return v.filter((x) => !(x && typeof x === 'object' && FUTURE_PART in x)).map(withoutFuture);
  if (!v || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([k]) => k !== FUTURE_MEMBER)
      .map(([k, x]) => [
        k,
        k === 'state' && x === FUTURE_STATE.v1 ? 'TASK_STATE_WORKING' : k === 'state' && x === FUTURE_STATE.v03 ? 'working' : withoutFuture(x),
      ]),
  );
}

export function payloadProblems(r: ScenarioResult, count: { v1: number; v03: number; v03Unchecked: number }): PayloadProblem[] {
  const out: PayloadProblem[] = [];
  const ev = r.transcript;
  const bySeq = new Map<number, WireEvent>(ev.map((e) => [e.seq, e]));
  const add = (seq: number, what: string, problems: string[]) => void (problems.length && out.push({ scenario: r.id, seq, what, problems }));
  for (const e of ev) {
    if (e.kind === 'http' && e.rpc && e.responseBody) {
      const b = e.responseBody;
      // A hostile stream (runtime.hostileStream) is cut short in the record on purpose: the events before its endless one are checked.
      const part = /\(runtime\.hostileStream:/.test(e.note ?? '') ? undefined : kept(b);
      if (part) {
        add(e.seq, `${e.rpc.method} response`, [part]);
        continue;
      }
      const what = `${e.rpc.wireMethod ?? e.rpc.method} → ${e.status}`;
      // An answer the scenario cut on purpose (runtime.drop): what was sent is a head of a valid answer, not one.
      if (e.note?.startsWith('scripted: connection dropped')) continue;
      // JSON-RPC over HTTP answers 200, errors included; another status is an HTTP-level answer (a 401 challenge, a 415, a 413), outside JSON-RPC.
      if (e.status !== 200) continue;
      const sent = b.events ? b.events : b.json !== undefined ? [b.json] : [];
      // Members and values the scenario added on purpose (runtime.unknownFields, runtime.futureValues): the rest is checked as it is.
      const bodies = /\(runtime\.(unknownFields|futureValues):/.test(e.note ?? '') ? sent.map(withoutFuture) : sent;
      if (e.status === 200 && bodies.length === 0 && !b.events)
        add(e.seq, what, [`a 200 answer to a JSON-RPC call that is not JSON (${b.contentType ?? 'no content type'})`]);
      // HTTP+JSON and gRPC answer with the response itself, no envelope (a gRPC error has no message: its trailers say it).
      if (e.binding !== undefined && e.binding !== 'JSONRPC') {
        if (e.grpc && e.grpc.status !== 0) continue;
        for (const [i, body] of bodies.entries()) {
          count.v1++;
          const problems = v1ResultProblems(e.rpc.method, body);
          add(
            e.seq,
            `${b.events ? `${what}, event ${i}` : what} (v1.0 ${e.binding} response of ${e.rpc.method})`,
            e.binding === 'GRPC' ? problems.filter((x) => !implicitDefault(x)) : problems,
          );
        }
        continue;
      }
      for (const [i, body] of bodies.entries()) {
        const at = b.events ? `${what}, event ${i}` : what;
        const env = envelopeProblems(body);
        if (env.length) {
          add(e.seq, at, env);
          continue;
        }
        const msg = body as { result?: unknown; error?: unknown };
        if (v03Call(e)) {
          const def = V03_RESPONSE[e.rpc.wireMethod!] ?? 'JSONRPCErrorResponse';
          const p = v03Problems(def, body);
          if (p === undefined) count.v03Unchecked++;
          else {
            count.v03++;
            add(e.seq, `${at} (v0.3 ${def})`, p);
          }
        } else {
          count.v1++;
          if (msg.result !== undefined) add(e.seq, `${at} (v1.0 result of ${e.rpc.method})`, v1ResultProblems(e.rpc.method, msg.result));
        }
      }
    }
    if (e.kind === 'push-attempt' && e.body) {
      const part = kept(e.body);
      if (part) {
        add(e.seq, 'push body', [part]);
        continue;
      }
      // The dialect of the push: that of the call that registered it (a config set through a v0.3 interface gets v0.3's Task, §9.5).
      // A forged delivery may name a task the config is not for (PUSH-TASK-MATCH): the config is the receiver's URL.
      const reg =
        ev.find((x) => x.kind === 'push-register' && x.taskId === e.taskId && x.url === e.url) ?? ev.find((x) => x.kind === 'push-register' && x.url === e.url);
      const call = reg?.kind === 'push-register' ? bySeq.get(reg.requestSeq) : undefined;
      if (call?.kind === 'http' && v03Call(call)) {
        const p = v03Problems('Task', e.body.json);
        if (p === undefined) count.v03Unchecked++;
        else {
          count.v03++;
          add(e.seq, 'push body (v0.3 Task)', p);
        }
      } else {
        count.v1++;
        add(
          e.seq,
          'push body (v1.0 StreamResponse)',
          validateV1('StreamResponse', e.body.json).map((i) => `${i.pointer} ${i.message}`),
        );
      }
    }
  }
  return out;
}

/**
 * A REQUIRED field missing from a gRPC answer's ProtoJSON where protobuf cannot carry it: a proto3
 * field without explicit presence (a string, number, bool, enum, list or map) holding its default
 * value is not on the wire at all, so its JSON has no member for it. A singular message field has
 * presence: missing there is missing.
 */
function implicitDefault(problem: string): boolean {
  const m = /(\w+)\.(\w+) is REQUIRED$/.exec(problem);
  const field = m ? V1_MESSAGES[m[1]!]?.fields[m[2]!] : undefined;
  return !!field && !field.optional && field.type.t !== 'message' && field.type.t !== 'timestamp';
}
