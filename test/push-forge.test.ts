/**
 * The push forger (issue 27): deliveries the runtime description forges reach the receiver the client
 * registered, over real TLS, each recorded as a `push-attempt` with `genuine`, `forgery`, the credentials'
 * scheme and digest and the receiver's status; the ledger never sees them. The receiver is the reference
 * client's own (clients/common/push-receiver.ts): what it answers is recorded, not prescribed here.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { h } from 'preact';
import { render } from 'preact-render-to-string';
import { describe, expect, it } from 'vitest';
import { PushReceiver } from '../clients/common/push-receiver.js';
import type { Forgery } from '../harness/core/push.js';
import type { PeerDescription } from '../harness/core/scenario/scenario.js';
import type { PushAttemptEvent, Transcript } from '../harness/core/transcript.js';
import { reached } from '../harness/core/oracle/evidence.js';
import { FORGED_ARTIFACT_ID } from '../peers/runtime/forge.js';
import { bareRpc, rpcUrlOf, sharedPeer } from './helpers/peer.js';
import { scenario } from './helpers/scenarios.js';
import { testTemp } from './helpers/tmp.js';
import { SequenceDiagram } from '../reports/html/diagram.js';
import { scenarioProblem } from '../harness/runner/load/catalogue.js';

const shared = sharedPeer();
const PLAIN = 'neg-push-mtls/bearer-push-no-mtls-signal';
const PARTNER = 'neg-push-mtls/mtls-receiver';

/** The reference client's receiver, plain or partner mTLS, on the run's PKI. */
async function startReceiver(partner: boolean): Promise<PushReceiver> {
  const { pki } = shared.fx;
  const dir = testTemp('forge-');
  const pair = partner ? pki.partnerReceiver : pki.receiver;
  writeFileSync(join(dir, 'cert.pem'), pair.cert);
  writeFileSync(join(dir, 'key.pem'), pair.key);
  if (partner) writeFileSync(join(dir, 'ca.pem'), pki.partnerCa.cert);
  return PushReceiver.start({ certFile: join(dir, 'cert.pem'), keyFile: join(dir, 'key.pem'), ...(partner ? { clientCaFile: join(dir, 'ca.pem') } : {}) });
}

function withForge(id: string, forge: Forgery[], workMs = 150): PeerDescription {
  const peer = scenario(id).peer;
  return { ...peer, runtime: { ...peer.runtime, workMs, push: { ...peer.runtime.push, forge } } };
}

const attempts = (t: Transcript) => t.events.filter((e): e is PushAttemptEvent => e.kind === 'push-attempt');
const digest12 = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 12);

async function until(what: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end && !what()) await new Promise((r) => setTimeout(r, 25));
}

/** Sends `tasks` messages, each registering the receiver inline; waits for the genuine COMPLETED pushes and `forged` forged attempts. */
async function forgeRun(desc: PeerDescription, r: PushReceiver, o: { tasks?: number; forged: number }) {
  const run = shared.fx.start(desc, { deadlineMs: 20_000 });
  const url = rpcUrlOf(run.peer.card);
  const ids: string[] = [];
  for (let i = 0; i < (o.tasks ?? 1); i++) {
    const res = await bareRpc(shared.agent, url, 'SendMessage', {
      message: { messageId: `m${i}`, role: 'ROLE_USER', parts: [{ text: `claim ${i}` }] },
      configuration: {
        returnImmediately: true,
        taskPushNotificationConfig: { url: r.url, token: r.token, authentication: { scheme: 'Bearer', credentials: r.credentials } },
      },
    });
    ids.push(res.json!.result.task.id);
  }
  const done = () =>
    ids.every((id) => attempts(run.transcript).some((a) => a.genuine && !a.forgery && a.taskId === id && a.state === 'TASK_STATE_COMPLETED')) &&
    attempts(run.transcript).filter((a) => a.genuine === false || a.forgery).length >= o.forged;
  await until(done);
  await shared.fx.dispatcher.settled(run.transcript, 5000);
  const tasks = await bareRpc(shared.agent, url, 'ListTasks', { includeArtifacts: true });
  run.end();
  return { run, ids, tasks: tasks.json!.result.tasks as Array<Record<string, any>> };
}

describe('push forger: credentials and forged states (plain receiver)', () => {
  it('none, wrong and foreign credentials are delivered and recorded as forged; the receiver refuses them, takes the genuine ones; the ledger never sees the forged states', async () => {
    const r = await startReceiver(false);
    try {
      const desc = withForge(PLAIN, [
        { credentials: 'none', state: 'COMPLETED' },
        { credentials: 'wrong', state: 'FAILED' },
        { credentials: 'foreign', after: 'registration', afterMs: 0 },
      ]);
      const { run, ids, tasks } = await forgeRun(desc, r, { forged: 3 });
      const all = attempts(run.transcript);
      const genuine = all.filter((a) => a.genuine && !a.forgery);
      const forged = all.filter((a) => a.genuine === false);
      expect(forged.map((a) => a.forgery).sort()).toEqual(['credentials:foreign', 'credentials:none state:COMPLETED', 'credentials:wrong state:FAILED']);
      const registered = digest12(`Bearer ${r.credentials}`);
      for (const a of genuine) {
        expect(a.status, 'the reference receiver takes a genuine delivery').toBeGreaterThanOrEqual(200);
        expect(a.status).toBeLessThan(300);
        expect(a.authScheme).toBe('Bearer');
        expect(a.authDigest).toBe(registered);
        expect(a.tokenDigest).toBe(digest12(r.token));
      }
      const none = forged.find((a) => a.forgery!.startsWith('credentials:none'))!;
      expect(none.authScheme).toBeUndefined();
      expect(none.tokenDigest).toBeUndefined();
      expect(none.state).toBe('TASK_STATE_COMPLETED');
      expect((none.body!.json as any).task.artifacts[0].artifactId).toBe(FORGED_ARTIFACT_ID);
      for (const kind of ['credentials:wrong', 'credentials:foreign']) {
        const a = forged.find((x) => x.forgery!.startsWith(kind))!;
        expect(a.authScheme).toBe('Bearer');
        expect(a.authDigest).toMatch(/^[0-9a-f]{12}$/);
        expect(a.authDigest, `${kind}: other credentials than registered`).not.toBe(registered);
        expect(a.tokenDigest).not.toBe(digest12(r.token));
      }
      // The reference receiver refuses every forged delivery (404 without its token, 401 with wrong credentials).
      for (const a of forged) {
        expect(a.outcome, a.forgery).toBe('http-error');
        expect([401, 403, 404], a.forgery).toContain(a.status);
      }
      expect(r.deliveries.every((d) => d.taskId === ids[0])).toBe(true);
      expect(r.deliveries.map((d) => d.state)).not.toContain('TASK_STATE_FAILED');
      // No secret in a push-attempt: scheme and digests only.
      expect(JSON.stringify(all)).not.toContain(r.credentials);
      expect(JSON.stringify(all)).not.toContain(r.token);
      // The ledger and the task: only the runtime's own states, no forged artifact.
      const rec = run.ledger.get(ids[0]!)!;
      expect(rec.history.map((h) => h.state)).toEqual(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
      expect(run.transcript.events.filter((e) => e.kind === 'task').map((e) => e.kind === 'task' && e.state)).not.toContain('TASK_STATE_FAILED');
      expect(JSON.stringify(tasks)).not.toContain(FORGED_ARTIFACT_ID);
      expect(tasks[0]!.status.state).toBe('TASK_STATE_COMPLETED');
      // The report's sequence diagram draws each forged delivery as forged, with what it changed and the receiver's answer.
      const svg = render(h(SequenceDiagram, { events: run.transcript.events, id: 'f' }));
      expect(svg).toContain(`forged push (credentials:none state:COMPLETED) COMPLETED → ${none.status}`);
      expect(svg.match(/class="ev forged"/g)?.length).toBe(3);
    } finally {
      await r.close();
    }
  });
});

describe('push forger: task ids and duplicates', () => {
  it('with genuine credentials, a foreign task id and another task of the client reach the receiver as forged; the ledger is untouched', async () => {
    const r = await startReceiver(false);
    try {
      const desc = withForge(PLAIN, [
        { taskId: 'foreign', state: 'COMPLETED' },
        { config: 2, taskId: 'other-own', state: 'FAILED' },
      ]);
      const { run, ids, tasks } = await forgeRun(desc, r, { tasks: 2, forged: 2 });
      const forged = attempts(run.transcript).filter((a) => a.genuine === false);
      const foreign = forged.find((a) => a.forgery === 'state:COMPLETED task:foreign')!;
      const other = forged.find((a) => a.forgery === 'state:FAILED task:other-own')!;
      expect(ids).not.toContain(foreign.taskId);
      expect(other.taskId).toBe(ids[0]);
      // Sent to the second task's config, with its (genuine) credentials.
      expect(other.authDigest).toBe(digest12(`Bearer ${r.credentials}`));
      // The reference receiver checks credentials only: it takes both (recorded, not graded here).
      for (const a of [foreign, other]) expect(a.outcome).toBe('delivered');
      expect(r.deliveries.map((d) => d.taskId)).toContain(foreign.taskId);
      expect(tasks.map((t) => t.status.state)).toEqual(['TASK_STATE_COMPLETED', 'TASK_STATE_COMPLETED']);
      expect(run.ledger.all().length).toBe(2);
      for (const rec of run.ledger.all()) expect(rec.history.map((h) => h.state)).not.toContain('TASK_STATE_FAILED');
      expect(JSON.stringify(tasks)).not.toContain(FORGED_ARTIFACT_ID);
    } finally {
      await r.close();
    }
  });

  it('a duplicate is two genuine-marked attempts with the same body; the receiver acknowledges both', async () => {
    const r = await startReceiver(false);
    try {
      const { run } = await forgeRun(withForge(PLAIN, [{ duplicate: true }]), r, { forged: 1 });
      const all = attempts(run.transcript);
      const dup = all.find((a) => a.forgery === 'duplicate')!;
      expect(dup.genuine).toBe(true);
      const first = all.find((a) => !a.forgery && a.state === dup.state)!;
      expect(first.seq).toBeLessThan(dup.seq);
      expect(dup.body!.digest).toBe(first.body!.digest);
      expect(dup.authDigest).toBe(first.authDigest);
      expect([first.status, dup.status]).toEqual([200, 200]);
      const svg = render(h(SequenceDiagram, { events: run.transcript.events, id: 'd' }));
      expect(svg).toContain(`duplicate push ${dup.state.replace('TASK_STATE_', '')} → 200`);
      expect(svg).toContain('class="ev duplicate"');
    } finally {
      await r.close();
    }
  });
});

describe('push forger: foreign credentials', () => {
  it('credentials: foreign presents credentials of a config the client never gave this agent, not those of its other config (refusing those is §13.2’s SHOULD on single-purpose tokens)', async () => {
    const r = await startReceiver(false);
    try {
      const run = shared.fx.start(withForge(PLAIN, [{ config: 2, credentials: 'foreign' }]), { deadlineMs: 20_000 });
      const url = rpcUrlOf(run.peer.card);
      for (const [i, credentials] of [r.credentials, 'another-config-credentials'].entries())
        await bareRpc(shared.agent, url, 'SendMessage', {
          message: { messageId: `m${i}`, role: 'ROLE_USER', parts: [{ text: `claim ${i}` }] },
          configuration: {
            returnImmediately: true,
            taskPushNotificationConfig: { url: r.url, token: r.token, authentication: { scheme: 'Bearer', credentials } },
          },
        });
      await until(() => attempts(run.transcript).some((a) => a.forgery === 'credentials:foreign'));
      await shared.fx.dispatcher.settled(run.transcript, 5000);
      run.end();
      const a = attempts(run.transcript).find((x) => x.forgery === 'credentials:foreign')!;
      expect(a.genuine).toBe(false);
      // Aimed at the second task's config, carrying neither config's credentials.
      expect(a.url).toBe(r.url);
      expect(a.authScheme).toBe('Bearer');
      expect(a.authDigest).not.toBe(digest12(`Bearer ${r.credentials}`));
      expect(a.authDigest).not.toBe(digest12('Bearer another-config-credentials'));
    } finally {
      await r.close();
    }
  });
});

describe('push forger: another certificate', () => {
  it("from: other presents the run's untrusted certificate: a partner-mTLS receiver closes the connection (under TLS 1.3, after the sender's side of the handshake), the genuine deliveries carry the partner certificate", async () => {
    const r = await startReceiver(true);
    try {
      const { run } = await forgeRun(withForge(PARTNER, [{ from: 'other' }]), r, { forged: 1 });
      const all = attempts(run.transcript);
      const other = all.find((a) => a.forgery === 'from:other')!;
      expect(other.genuine).toBe(false);
      expect(other.senderCert).toBe('untrusted');
      // Node's receiver checks the certificate once the handshake is done and closes with no alert: the sender
      // sees its request go out and the connection end unanswered, which never counts as reaching the receiver.
      expect(other).toMatchObject({ outcome: 'unanswered', unanswered: 'closed' });
      expect(reached(other)).toBe(false);
      const genuine = all.filter((a) => !a.forgery);
      expect(genuine.length).toBeGreaterThan(0);
      for (const a of genuine) {
        expect(a.senderCert).toBe('partnerClient');
        expect(a.outcome).toBe('delivered');
      }
      expect(r.deliveries.every((d) => d.senderCert === 'partner-dispatcher')).toBe(true);
    } finally {
      await r.close();
    }
  });

  it('from: other on a plain receiver (which asks no certificate) is recorded with the certificate offered', async () => {
    const r = await startReceiver(false);
    try {
      const { run } = await forgeRun(withForge(PLAIN, [{ from: 'other', credentials: 'wrong' }]), r, { forged: 1 });
      const other = attempts(run.transcript).find((a) => a.forgery === 'credentials:wrong from:other')!;
      expect(other.senderCert).toBe('untrusted');
      // Its token is wrong too: the reference receiver answers 404 before it reads the credentials.
      expect([401, 404]).toContain(other.status);
    } finally {
      await r.close();
    }
  });
});

describe('push forger: timers die with the run', () => {
  it('a forgery due after the run ended is never sent', async () => {
    const r = await startReceiver(false);
    try {
      const run = shared.fx.start(
        withForge(
          PLAIN,
          [
            { after: 'registration', afterMs: 0, credentials: 'none' },
            { after: 'registration', afterMs: 1500, state: 'COMPLETED' },
          ],
          60_000,
        ),
      );
      await bareRpc(shared.agent, rpcUrlOf(run.peer.card), 'SendMessage', {
        message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'claim' }] },
        configuration: {
          returnImmediately: true,
          taskPushNotificationConfig: { url: r.url, token: r.token, authentication: { scheme: 'Bearer', credentials: r.credentials } },
        },
      });
      expect(run.transcript.events.some((e) => e.kind === 'push-register')).toBe(true);
      // The forgery due at once is sent (the timer works); the later one is cut off by the run's end.
      await until(() => attempts(run.transcript).some((a) => a.forgery === 'credentials:none'));
      run.end();
      await new Promise((res) => setTimeout(res, 2500));
      expect(attempts(run.transcript).map((a) => a.forgery ?? 'genuine')).not.toContain('state:COMPLETED');
      expect(attempts(run.transcript).map((a) => a.forgery)).toContain('credentials:none');
      expect(r.deliveries.filter((d) => d.state === 'TASK_STATE_COMPLETED')).toEqual([]);
    } finally {
      await r.close();
    }
  });
});

describe('push forger: the published scenario schema', () => {
  it('takes push.forge with every kind, and names a value it does not know', () => {
    const s = scenario(PLAIN);
    const forge: Forgery[] = [
      { credentials: 'none', state: 'COMPLETED' },
      { credentials: 'wrong', state: 'FAILED', after: 'registration', afterMs: 10 },
      { credentials: 'foreign', config: 2 },
      { taskId: 'foreign', state: 'WORKING' },
      { taskId: 'other-own' },
      { duplicate: true, from: 'other' },
    ];
    expect(scenarioProblem({ ...s, peer: withForge(PLAIN, forge) })).toBeUndefined();
    const bad = scenarioProblem({ ...s, peer: withForge(PLAIN, [{ credentials: 'stolen' } as unknown as Forgery]) });
    expect(bad).toMatch(/forge.*credentials/);
  });
});

describe('push forger: scheduled after the run has ended', () => {
  it('schedules nothing, throws nothing, and holds no task’s end', async () => {
    const { PushForger } = await import('../peers/runtime/forge.js');
    const rejections: unknown[] = [];
    const onRejection = (e: unknown) => rejections.push(e);
    process.on('unhandledRejection', onRejection);
    try {
      const ctx = { key: 'k', later: () => {}, onEnd: (fn: () => void) => fn() } as never;
      const forger = new PushForger([{ after: 'registration', credentials: 'none' }], ctx, { mode: 'plain', tasks: () => [], bodyOf: () => (e) => e });
      const t = { rec: { id: 't', contextId: 'c', state: 'TASK_STATE_WORKING' }, pushConfigs: [] };
      forger.registered(t, { url: 'https://127.0.0.1:1/push' });
      await forger.due(t);
      await new Promise((r) => setTimeout(r, 20));
      expect(rejections).toEqual([]);
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });
});
