/**
 * TOLERANT-DECODING (issue 40, strict decoding): the peers add a member no version of A2A defines to
 * their JSON answers and stream events (peers/wires/unknown-fields.ts), the reference reads past it
 * on every JSON binding, a strict protobuf JSON parser (naive:rejects-unknown-fields) stops on it and
 * is graded NON_STRICT at §5.7's SHOULD with the answer's sequence number, and gRPC, whose protobuf
 * carries no member by name, is not bound. The same for values no version defines
 * (runtime.futureValues): a task state in place of WORKING (convention), a kind of artifact part.
 */
import { describe, expect, it } from 'vitest';
import { scenarioOverBinding } from '../harness/core/card-binding.js';
import { FUTURE_MEMBER, FUTURE_PART, futureValues, reshapedAnswer, reshapedFrame, unknownMembers, withUnknownMembers } from '../peers/wires/unknown-fields.js';
import { startHarness } from './helpers/harness.js';
import { scenario } from './helpers/scenarios.js';

const answerWithUnknownMembers = async (res: Response, depth: 'top' | 'every') => (await reshapedAnswer(res, unknownMembers(depth))).res;
const frameWithUnknownMembers = (frame: string | Uint8Array, depth: 'top' | 'every') => reshapedFrame(frame, unknownMembers(depth));

const task = {
  id: 't-1',
  status: { state: 'TASK_STATE_COMPLETED', message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'done' }] } },
  artifacts: [{ artifactId: 'a-1', parts: [{ data: { answer: 42 } }, { text: 'x' }], metadata: { mine: true } }],
};

/** Every object under `v` that holds the unknown member, by path. */
function holders(v: unknown, at = '$'): string[] {
  if (Array.isArray(v)) return v.flatMap((x, i) => holders(x, `${at}[${i}]`));
  if (!v || typeof v !== 'object') return [];
  const own = FUTURE_MEMBER in v ? [at] : [];
  return [...own, ...Object.entries(v).flatMap(([k, x]) => (k === FUTURE_MEMBER ? [] : holders(x, `${at}.${k}`)))];
}

describe('the peers’ unknown members', () => {
  it('every: each object of the answer gets one, free-form values (metadata, a data part’s payload) none; top: the answer’s own level only', () => {
    expect(holders(withUnknownMembers({ task }, 'every')).sort()).toEqual(
      [
        '$',
        '$.task',
        '$.task.status',
        '$.task.status.message',
        '$.task.status.message.parts[0]',
        '$.task.artifacts[0]',
        '$.task.artifacts[0].parts[0]',
        '$.task.artifacts[0].parts[1]',
      ].sort(),
    );
    expect(holders(withUnknownMembers({ task }, 'top'))).toEqual(['$']);
    // What the agent sent is all there, unchanged.
    const back = withUnknownMembers({ task }, 'every') as { task: typeof task };
    expect(back.task.artifacts[0]!.parts[0]).toMatchObject({ data: { answer: 42 } });
    expect(back.task.artifacts[0]!.metadata).toEqual({ mine: true });
  });

  it('maps and free-form values of a card keep their keys: security schemes, requirements, scopes, a signature’s header', () => {
    const card = {
      securitySchemes: { oauth: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: 'https://t', scopes: { read: 'r' } } } } } },
      securityRequirements: [{ schemes: { oauth: { list: ['read'] } } }],
      security: [{ oauth: ['read'] }],
      signatures: [{ protected: 'e30', signature: 'x', header: { kid: 'k' } }],
    };
    const out = withUnknownMembers(card, 'every') as typeof card;
    expect(Object.keys(out.securitySchemes)).toEqual(['oauth']);
    expect(Object.keys(out.securitySchemes.oauth.oauth2SecurityScheme.flows.clientCredentials.scopes)).toEqual(['read']);
    expect(Object.keys(out.securityRequirements[0]!.schemes)).toEqual(['oauth']);
    expect(Object.keys(out.security[0]!)).toEqual(['oauth']);
    expect(out.signatures[0]!.header).toEqual({ kid: 'k' });
    // The messages around them get the member: a requirement, a signature.
    expect(FUTURE_MEMBER in out.securityRequirements[0]!).toBe(true);
    expect(FUTURE_MEMBER in out.signatures[0]!).toBe(true);
  });

  it('a JSON-RPC answer keeps its envelope as JSON-RPC 2.0 defines it; an error answer, and a frame that is no single JSON event, pass as they are', async () => {
    const res = new Response(JSON.stringify({ jsonrpc: '2.0', id: 3, result: { task } }), { headers: { 'content-type': 'application/json' } });
    const body = (await (await answerWithUnknownMembers(res, 'top')).json()) as Record<string, unknown>;
    expect(FUTURE_MEMBER in body).toBe(false);
    expect(holders(body)).toEqual(['$.result']);
    const error = JSON.stringify({ jsonrpc: '2.0', id: 3, error: { code: -32001, message: 'no' } });
    const refused = await answerWithUnknownMembers(new Response(error, { headers: { 'content-type': 'application/json' } }), 'every');
    expect(await refused.text()).toBe(error);
    const frame = `data: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { statusUpdate: { taskId: 't-1' } } })}\n\n`;
    expect(holders(JSON.parse((frameWithUnknownMembers(frame, 'every') as string).slice(6)))).toEqual(['$.result', '$.result.statusUpdate']);
    const bytes = new Uint8Array([0, 0, 0, 0, 1, 42]);
    expect(frameWithUnknownMembers(bytes, 'every')).toBe(bytes);
  });
});

describe('the peers’ future values', () => {
  it('state: WORKING (either spelling) becomes a state no version defines, nothing else; part: each artifact gets one part of an unknown kind after its own', () => {
    const working = { task: { id: 't', status: { state: 'TASK_STATE_WORKING' }, metadata: { state: 'TASK_STATE_WORKING' } } };
    expect(futureValues('state')(working)).toEqual({ task: { id: 't', status: { state: 'TASK_STATE_DEFERRED' }, metadata: { state: 'TASK_STATE_WORKING' } } });
    expect(futureValues('state')({ status: { state: 'working' } })).toEqual({ status: { state: 'deferred' } });
    expect(futureValues('state')(task)).toEqual(task);
    const parted = futureValues('part')({ task: { ...task, history: [{ parts: [{ text: 'hi' }] }] } }) as { task: typeof task & { history: unknown } };
    expect(parted.task.artifacts[0]!.parts).toEqual([...task.artifacts[0]!.parts, { [FUTURE_PART]: expect.any(Object), mediaType: 'text/plain' }]);
    expect(parted.task.history).toEqual([{ parts: [{ text: 'hi' }] }]);
    const v03 = futureValues('part')({ artifactId: 'a', parts: [{ kind: 'text', text: 'x' }] }) as { parts: Array<Record<string, unknown>> };
    expect(v03.parts[1]).toMatchObject({ kind: 'future' });
  });
});

describe('TOLERANT-DECODING', () => {
  it('the reference reads past them over JSON-RPC and HTTP+JSON: PASS; over gRPC the rule does not bind', { timeout: 120_000 }, async () => {
    const h = await startHarness('reference');
    try {
      for (const binding of ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const) {
        for (const id of ['tolerant-decoding/every-object-polled', 'tolerant-decoding/every-object-streamed', 'tolerant-decoding/future-state-streamed']) {
          const s = binding === 'JSONRPC' ? scenario(id) : scenarioOverBinding(scenario(id), binding);
          const r = await h.run(s);
          const c = r.checks.find((x) => x.rule === 'TOLERANT-DECODING')!;
          expect(c.verdict, `${binding} ${id}: ${c.reason}`).toBe(binding === 'GRPC' ? 'INFORMATIONAL' : 'PASS');
          expect(r.verdict, `${binding} ${id}`).toBe(binding === 'GRPC' ? 'INFORMATIONAL' : 'PASS');
          const answers = r.transcript.filter((e) => e.kind === 'http' && e.rpc && /runtime\.(unknownFields|futureValues)/.test(e.note ?? ''));
          if (binding === 'GRPC') expect(answers).toEqual([]);
          else expect(answers.length, `${binding} ${id}`).toBeGreaterThan(0);
        }
      }
    } finally {
      await h.close();
    }
  });

  it('a strict protobuf JSON parser stops on the first answer: NON_STRICT at SHOULD citing it; the task it left is the harm rules’ (FAIL); on the control it reads on', {
    timeout: 120_000,
  }, async () => {
    const h = await startHarness('naive:rejects-unknown-fields');
    try {
      const r = await h.run(scenario('tolerant-decoding/top-level-polled'));
      const c = r.checks.find((x) => x.rule === 'TOLERANT-DECODING')!;
      expect(c).toMatchObject({ verdict: 'NON_STRICT', level: 'SHOULD', basis: 'duty' });
      const first = r.transcript.find((e) => e.kind === 'http' && e.rpc && e.note?.includes('runtime.unknownFields'))!;
      expect(c.evidence.map((e) => e.seq)).toContain(first.seq);
      expect(c.reason).toMatch(/§5\.7/);
      expect(r.verdict).toBe('FAIL');
      // A state it cannot name stops it too, graded at convention (the spec does not speak of values).
      const state = await h.run(scenario('tolerant-decoding/future-state-polled'));
      expect(state.checks.find((x) => x.rule === 'TOLERANT-DECODING')).toMatchObject({ verdict: 'NON_STRICT', level: 'convention' });
      // A part it cannot read makes each answer fail for it: it polls a task the answers showed ended, and that shows.
      const part = await h.run(scenario('tolerant-decoding/unknown-part-kind'));
      const p = part.checks.find((x) => x.rule === 'TOLERANT-DECODING')!;
      expect([p.verdict, p.level]).toEqual(['NON_STRICT', 'convention']);
      expect(p.reason).toMatch(/went on polling task .* after #\d+ had shown it ended/);
      const control = await h.run(scenario('tolerant-decoding/control'));
      expect(control.verdict).toBe('INFORMATIONAL');
      expect(control.checks.every((x) => x.verdict === 'PASS' || x.verdict === 'INFORMATIONAL')).toBe(true);
    } finally {
      await h.close();
    }
  });
});
