/**
 * Bodies as the transcript keeps them (harness/core/body.ts): bounded, and no credential kept, whether
 * the body is kept whole, kept as a head (too large, nested too deep) or streamed event by event.
 */
import { describe, expect, it } from 'vitest';
import { addStreamEvent, bodyRecord, BODY_HEAD_CHARS, MAX_BODY_CHARS, MAX_BODY_DEPTH, type BodyRecord } from '../harness/core/body.js';

const record = (value: unknown, type = 'application/json') => {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return bodyRecord(text, Buffer.byteLength(text), type, 'digest');
};

describe('bodies the transcript keeps', () => {
  it('a JSON body whole, every value under a credential key replaced, at any depth', () => {
    const r = record({
      jsonrpc: '2.0',
      result: { configs: [{ url: 'https://h/x', token: 'tok-1', authentication: { scheme: 'Bearer', credentials: 'cred-1' } }] },
      access_token: 'at-1',
    });
    const text = JSON.stringify(r.json);
    for (const secret of ['tok-1', 'cred-1', 'at-1']) expect(text).not.toContain(secret);
    expect(r.redacted).toEqual(expect.arrayContaining(['/result/configs/0/token', '/result/configs/0/authentication/credentials', '/access_token']));
    expect(text).toContain('https://h/x');
  });

  it('a body too large keeps its head, scrubbed: a credential whole or cut at the edge of the head is gone', () => {
    const secret = 'S'.repeat(100);
    const whole = `{"configs":[{"token":"tok-early","url":"${'u'.repeat(MAX_BODY_CHARS)}"}]}`;
    const r = record(whole);
    expect(r.truncated).toMatch(/over/);
    expect(r.text!.length).toBeLessThanOrEqual(BODY_HEAD_CHARS + 10);
    expect(r.text).not.toContain('tok-early');
    // A value the head cuts in half.
    const cut = `${'{"pad":"' + 'p'.repeat(BODY_HEAD_CHARS - 30) + '",'}"token":"${secret}","more":"${'m'.repeat(MAX_BODY_CHARS)}"}`;
    const c = record(cut);
    expect(c.text).not.toContain('SSSSS');
    expect(c.text).toContain('"token":"REDACTED');
  });

  it('JSON nested too deep keeps a scrubbed head as text; a form body has its credential fields replaced', () => {
    let deep: unknown = { token: 'deep-secret' };
    for (let i = 0; i < MAX_BODY_DEPTH + 5; i++) deep = { d: deep };
    const nested = `{"client_secret":"cs-1",${JSON.stringify(deep).slice(1)}`;
    const r = record(nested);
    expect(r.truncated).toMatch(/nested deeper/);
    expect(r.text).not.toContain('cs-1');
    const form = record('grant_type=client_credentials&client_secret=cs-2&scope=a', 'application/x-www-form-urlencoded');
    expect(form.text).toBe('grant_type=client_credentials&client_secret=REDACTED&scope=a');
  });

  it('a stream keeps its first events, without gaps, each redacted', () => {
    const rec: BodyRecord = { bytes: 0, events: [] };
    const budget = { chars: 0 };
    addStreamEvent(rec, JSON.stringify({ result: { task: { id: 't1' } }, token: 'ev-tok' }), budget);
    addStreamEvent(rec, JSON.stringify({ big: 'x'.repeat(MAX_BODY_CHARS) }), budget);
    addStreamEvent(rec, JSON.stringify({ result: { statusUpdate: { taskId: 't1' } } }), budget);
    expect(rec.events).toHaveLength(1);
    expect(JSON.stringify(rec.events)).not.toContain('ev-tok');
    expect(rec.truncated).toMatch(/the first 1 kept/);
  });
});
