/**
 * STREAM-FRAMING (issue 40, SSE framing): the peers frame the same events in every way the SSE
 * standard allows (peers/wires/sse-framing.ts), a standard parser reads the same events back, and the
 * rule tells a client that read them from one that did not, without blaming a framing a client
 * reads right. The naive mutants' catch is test/mutants.test.ts's; the reference's verdicts are
 * test/full-runs.test.ts's.
 */
import { createParser } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { SPLIT_NOTE, sseFramer, splitWrites } from '../peers/wires/sse-framing.js';
import { runInProcess } from './helpers/results.js';

/** The `data` of each event a standard parser reads from `text`, fed in pieces of `step` characters. */
function parse(text: string, step = text.length): string[] {
  const out: string[] = [];
  const p = createParser({ onEvent: (e) => out.push(e.data) });
  for (let i = 0; i < text.length; i += step) p.feed(text.slice(i, i + step));
  // A lone CR at the very end is a line end (WHATWG HTML §9.2.6): the parser waits for an LF that cannot come.
  if (text.endsWith('\r')) p.feed('\n');
  return out;
}

describe('the peers’ SSE framings', () => {
  const events = [
    { task: { id: 't-1', status: { state: 'TASK_STATE_WORKING' }, note: 'a "quoted" line\nand a second, ünïcödé' } },
    { statusUpdate: { taskId: 't-1', status: { state: 'TASK_STATE_COMPLETED' } } },
  ];
  const plain = events.map((e) => `data: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: e })}\n\n`);

  it('each framing is read back by a standard parser as the same events, in pieces of any size', () => {
    for (const f of [{ multiline: true }, { lineEnd: 'crlf' as const }, { lineEnd: 'cr' as const, multiline: true }, { fields: true }, { lineBytes: 4096 }]) {
      const framed = sseFramer(f);
      const text = plain.map((p) => framed(p) as string).join('');
      expect(text, JSON.stringify(f)).not.toBe(plain.join(''));
      for (const step of [text.length, 7, 1])
        expect(
          parse(text, step).map((d) => JSON.parse(d)),
          `${JSON.stringify(f)} in pieces of ${step}`,
        ).toEqual(events.map((e) => ({ jsonrpc: '2.0', id: 1, result: e })));
    }
    // Multi-line data is really several data: lines; a long line is one line of that many bytes.
    expect((sseFramer({ multiline: true })(plain[0]!) as string).match(/^data: /gm)!.length).toBeGreaterThan(5);
    const long = sseFramer({ lineBytes: 4096 })(plain[0]!) as string;
    expect(long.split('\n')[0]!.length).toBeGreaterThanOrEqual(4096);
    // A gRPC message passes as it is.
    const bytes = new Uint8Array([0, 0, 0, 0, 1, 42]);
    expect(sseFramer({ multiline: true })(bytes)).toBe(bytes);
  });

  it('split: each event carries non-ASCII metadata and goes out in pieces of 7 bytes, some of them ending inside a UTF-8 sequence; joined, the same bytes', async () => {
    const framed = sseFramer({ split: true })(plain[0]!) as string;
    const event = JSON.parse(framed.slice(6)) as { result: { task: { metadata: Record<string, string> } } };
    expect(event.result.task.metadata).toEqual(SPLIT_NOTE);
    const whole = new TextEncoder().encode(framed);
    const pieces: Uint8Array[] = [];
    const reader = splitWrites(new Blob([whole]).stream()).getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) pieces.push(r.value);
    expect(pieces.length).toBe(Math.ceil(whole.length / 7));
    expect(Buffer.concat(pieces).equals(Buffer.from(whole))).toBe(true);
    // A piece that ends on a UTF-8 lead or continuation byte followed by a continuation byte: a character split across writes.
    const splitChar = pieces.slice(0, -1).some((p, i) => p[p.length - 1]! >= 0x80 && (pieces[i + 1]![0]! & 0xc0) === 0x80);
    expect(splitChar).toBe(true);
  });
});

describe('STREAM-FRAMING', () => {
  it('a mutant that misreads one framing is not blamed for one it reads right; a polling intent binds nothing', { timeout: 120_000 }, async () => {
    const ids = ['stream-framing/crlf-line-ends', 'stream-framing/comments-and-fields', 'stream-framing/poll-intent'];
    for (const client of ['naive:splits-data-lines', 'naive:caps-sse-lines', 'reference']) {
      const r = await runInProcess(client, ids);
      const rule = (id: string) => r.results.find((x) => x.id === id)!.checks.find((c) => c.rule === 'STREAM-FRAMING')!;
      expect(rule('stream-framing/crlf-line-ends').verdict, client).toBe('PASS');
      expect(rule('stream-framing/comments-and-fields').verdict, client).toBe('PASS');
      expect(rule('stream-framing/poll-intent').verdict, client).toBe('INFORMATIONAL');
    }
  });

  it('splits-data-lines on multi-line events: FAIL; caps-sse-lines on a 1 MiB line: NON_STRICT; from the events written and what came after', {
    timeout: 120_000,
  }, async () => {
    const split = await runInProcess('naive:splits-data-lines', ['stream-framing/multiline-data']);
    const s = split.results[0]!.checks.find((c) => c.rule === 'STREAM-FRAMING')!;
    expect(s.verdict).toBe('FAIL');
    expect(s.reason).toMatch(/wrote the event naming task \S+ to the client's connection, and the client's report names no such task/);
    expect(s.evidence.some((e) => e.source === 'wire' && typeof e.seq === 'number')).toBe(true);
    // A search for a task the stream had named is a sign, not proof: NON_STRICT.
    const capped = await runInProcess('naive:caps-sse-lines', ['stream-framing/one-mib-line']);
    const c = capped.results[0]!.checks.find((x) => x.rule === 'STREAM-FRAMING')!;
    expect(c.verdict).toBe('NON_STRICT');
    expect(c.reason).toMatch(/searched for its task with ListTasks at #\d+/);
    // An event split across TCP writes: the reference and the SDK-grade parser read it; one that takes each read for whole lines does not.
    const ok = await runInProcess('reference', ['stream-framing/split-writes']);
    expect(ok.results[0]!.checks.find((x) => x.rule === 'STREAM-FRAMING')!.verdict).toBe('PASS');
    const chunked = await runInProcess('naive:reads-chunks-as-lines', ['stream-framing/split-writes']);
    expect(['FAIL', 'NON_STRICT']).toContain(chunked.results[0]!.checks.find((x) => x.rule === 'STREAM-FRAMING')!.verdict);
  });
});

describe('STREAM-REFUSAL', () => {
  const ids = ['stream-refusal/plain-json-error', 'stream-refusal/untyped-error', 'stream-refusal/error-event'];
  /** The refused streaming call of a run: its status and the Content-Type it was answered with. */
  const refusal = (r: Awaited<ReturnType<typeof runInProcess>>['results'][number]) => {
    const e = r.transcript.find((x) => x.kind === 'http' && x.rpc?.method === 'SendStreamingMessage');
    return e?.kind === 'http' ? { status: e.status, type: e.responseBody?.contentType ?? null, error: e.rpcError?.code } : undefined;
  };

  it('the peers refuse a stream in three forms; the reference reports each (rejected), no task minted', { timeout: 120_000 }, async () => {
    const r = await runInProcess('reference', ids);
    expect(r.results.map(refusal)).toEqual([
      { status: 200, type: expect.stringMatching(/^application\/json/), error: -32603 },
      { status: 200, type: null, error: -32603 },
      { status: 200, type: expect.stringMatching(/^text\/event-stream/), error: -32603 },
    ]);
    for (const x of r.results) {
      expect(x.ledger, x.id).toEqual([]);
      expect(x.checks.find((c) => c.rule === 'STREAM-REFUSAL')!.verdict, x.id).toBe('PASS');
    }
  });

  it('a client that reads the refusal as an empty stream and reports success: FAIL (harm), from the refused call and an empty ledger', {
    timeout: 120_000,
  }, async () => {
    const r = await runInProcess('naive:empties-refused-stream', ids);
    for (const x of r.results) {
      const c = x.checks.find((y) => y.rule === 'STREAM-REFUSAL')!;
      expect([x.id, c.verdict, c.basis]).toEqual([x.id, 'FAIL', 'harm']);
      expect(c.reason).toMatch(/refused before any event and no task of the intent was minted, yet the client reported proceeded/);
    }
  });

  const subscribe = ['stream-refusal/subscribe-plain-json-error', 'stream-refusal/subscribe-error-event'];
  it('only subscriptions refused, after a stream that left its task early: the reference follows the task by GetTask to its end (PASS)', {
    timeout: 120_000,
  }, async () => {
    const r = await runInProcess('reference', subscribe);
    for (const x of r.results) {
      const sub = x.transcript.find((e) => e.kind === 'http' && e.rpc?.method === 'SubscribeToTask');
      expect(sub?.kind === 'http' && sub.rpcError?.code, x.id).toBe(-32603);
      // The stream itself was served: the task was minted by it, and completed.
      expect(
        x.ledger.map((t) => t.state),
        x.id,
      ).toEqual(['TASK_STATE_COMPLETED']);
      const c = x.checks.find((y) => y.rule === 'STREAM-REFUSAL')!;
      expect([c.verdict, c.reason], x.id).toEqual(['PASS', expect.stringMatching(/was refused; the client saw the task end at #\d+ before it reported/)]);
    }
  });

  it('a client that takes the refused subscription for the task’s end: FAIL (harm), though the task completed on its own later', {
    timeout: 120_000,
  }, async () => {
    const r = await runInProcess('naive:empties-refused-stream', subscribe);
    for (const x of r.results) {
      const c = x.checks.find((y) => y.rule === 'STREAM-REFUSAL')!;
      expect([x.id, c.verdict, c.basis]).toEqual([x.id, 'FAIL', 'harm']);
      expect(c.reason).toMatch(/reported (proceeded|downgraded) without having seen the task end/);
      expect(x.transcript.some((e) => e.kind === 'http' && e.rpc?.method === 'GetTask' && e.seq < x.transcript.find((d) => d.kind === 'decision')!.seq)).toBe(
        false,
      );
    }
  });
});
