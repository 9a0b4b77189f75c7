/**
 * Seed 003's peers on the wire, with bare undici requests (no client of ours in the way), and the
 * reference client against the real token endpoint: a token obtained over verified TLS, presented as
 * Bearer, and the transcript keeping the scheme and a digest, never the token or the secret.
 */
import { createHash } from 'node:crypto';
import { type Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpEvent, TlsEvent } from '../harness/core/transcript.js';
import { TOKEN_PATH } from '../peers/runtime/auth.js';
import { bareRpc, peerFixture, rpcUrlOf, type PeerFixture, clientAgent } from './helpers/peer.js';
import { startHarness, type InProcessHarness } from './helpers/harness.js';
import { recorder } from './helpers/regrade.js';
import { scenario } from './helpers/scenarios.js';

const { record, regrade, checkOf } = recorder();

let fx: PeerFixture;
let agent: Agent;
beforeAll(async () => {
  fx = await peerFixture();
  agent = clientAgent(fx.pki);
});
afterAll(async () => {
  await agent.close();
  await fx.close();
});

const text = (t: string, skillId?: string) => ({
  message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text: t, mediaType: 'text/plain' }], ...(skillId ? { metadata: { skillId } } : {}) },
  configuration: { returnImmediately: true },
});
const https = (events: readonly unknown[]) => events.filter((e): e is HttpEvent => (e as HttpEvent).kind === 'http');

async function token(url: string, id: string, secret: string, body = 'grant_type=client_credentials&scope=a2a%3Atasks') {
  const res = await request(url, {
    method: 'POST',
    dispatcher: agent,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`,
    },
    body,
  });
  return { status: res.statusCode, json: (await res.body.json()) as Record<string, unknown>, headers: res.headers };
}

describe('contoso-split-auth: a real OAuth 2.0 token endpoint and an auth gate', () => {
  it("issues a Bearer token for the run's client credentials only; the RPC takes it, challenges without it, and the transcript keeps no token or secret", async () => {
    const run = fx.start(scenario('hs-challenge/token-works').peer);
    const creds = run.peer.credentials![0]!;
    expect(creds.tokenUrl.endsWith(TOKEN_PATH)).toBe(true);
    expect((run.peer.card.securitySchemes as any)['contoso-oauth'].oauth2SecurityScheme.flows.clientCredentials.tokenUrl).toBe(creds.tokenUrl);

    expect((await token(creds.tokenUrl, creds.clientId, 'wrong-secret')).status).toBe(401);
    expect((await token(creds.tokenUrl, creds.clientId, creds.clientSecret, 'grant_type=password')).json.error).toBe('unsupported_grant_type');
    const got = await token(creds.tokenUrl, creds.clientId, creds.clientSecret);
    expect(got.status).toBe(200);
    expect(got.json).toMatchObject({ token_type: 'Bearer', expires_in: 300, scope: 'a2a:tasks' });
    expect(got.headers['cache-control']).toBe('no-store');
    const access = String(got.json.access_token);

    const url = rpcUrlOf(run.peer.card);
    const bare = await bareRpc(agent, url, 'SendMessage', text('hello'));
    expect(bare.status).toBe(401);
    const bearer = await bareRpc(agent, url, 'SendMessage', text('hello'), { authorization: `Bearer ${access}` });
    expect(bearer.json?.result?.task?.id).toBeTruthy();
    const forged = await bareRpc(agent, url, 'SendMessage', text('hello'), { authorization: 'Bearer cto_forged' });
    expect(forged.status).toBe(401);
    run.end();

    const events = https(run.transcript.events);
    const challenge = events.find((e) => e.status === 401 && e.rpc);
    expect(challenge?.rpc?.method).toBe('SendMessage'); // the gate records the call it refused
    expect(challenge?.response?.wwwAuthenticate).toMatch(/^Bearer realm="contoso", scope="a2a:tasks"$/);
    expect(events.find((e) => e.response?.wwwAuthenticate?.includes('invalid_token'))).toBeTruthy();
    const issued = events.find((e) => e.path.endsWith(TOKEN_PATH) && e.status === 200)!;
    const digest = createHash('sha256').update(`Bearer ${access}`).digest('hex').slice(0, 12);
    expect(issued.note).toContain(`digest is ${digest}`);
    expect(events.find((e) => e.rpc?.method === 'SendMessage' && e.status === 200)?.headers).toMatchObject({ authScheme: 'Bearer', authDigest: digest });
    const recorded = JSON.stringify(run.transcript.events);
    expect(recorded).not.toContain(access);
    expect(recorded).not.toContain(creds.clientSecret);
  });

  it('a credential in a query string is recorded by name only (RFC 6750 §2.3 access_token, a client secret)', async () => {
    const run = fx.start(scenario('hs-challenge/token-works').peer);
    const url = rpcUrlOf(run.peer.card);
    await bareRpc(agent, `${url}?access_token=cto_in_the_query&client_secret=s3cret&A2A-Version=1.0&page=2`, 'SendMessage', text('hello'));
    run.end();
    const path = https(run.transcript.events).at(-1)!.path;
    expect(path).toMatch(/\?access_token=REDACTED&client_secret=REDACTED&A2A-Version=1\.0&page=2$/);
    expect(JSON.stringify(run.transcript.events)).not.toMatch(/cto_in_the_query|s3cret/);
  });

  it('with the task scheme DPoP, a live Bearer token is answered 401 naming DPoP, a scheme the card does not list', async () => {
    const run = fx.start(scenario('hs-challenge/unlisted-scheme').peer);
    const creds = run.peer.credentials![0]!;
    const access = String((await token(creds.tokenUrl, creds.clientId, creds.clientSecret)).json.access_token);
    const res = await bareRpc(agent, rpcUrlOf(run.peer.card), 'SendMessage', text('hello'), { authorization: `Bearer ${access}` });
    run.end();
    expect(res.status).toBe(401);
    expect(https(run.transcript.events).at(-1)?.response?.wwwAuthenticate).toMatch(/^DPoP /);
    expect(JSON.stringify(run.peer.card.securitySchemes)).not.toMatch(/dpop/i);
  });
});

describe('contoso-skill-override, contoso-aspirational-push, contoso-cdn-stale, and a ceiling no card shows', () => {
  it("a skill's own input modes: text/plain to intake gets -32005 naming the skill; the parts, the skill named and the one routed to are recorded", async () => {
    const run = fx.start(scenario('hs-skill-override/text-to-json-skill').peer);
    const url = rpcUrlOf(run.peer.card);
    const refused = await bareRpc(agent, url, 'SendMessage', text('hello', 'intake'));
    const unnamed = await bareRpc(agent, url, 'SendMessage', text('hello'));
    const json = await bareRpc(agent, url, 'SendMessage', {
      message: { messageId: 'j1', role: 'ROLE_USER', parts: [{ data: { a: 1 } }], metadata: { skillId: 'intake' } },
      configuration: { returnImmediately: true },
    });
    run.end();
    expect(refused.json?.error).toMatchObject({ code: -32005 });
    expect(refused.json?.error.message).toContain('skill intake');
    expect(unnamed.json?.error?.code).toBe(-32005); // the runtime routes unnamed messages to its one skill
    expect(json.json?.result?.task?.id).toBeTruthy();
    const sends = https(run.transcript.events).filter((e) => e.rpc?.method === 'SendMessage');
    // What the message named, apart from where the runtime routed one that named none.
    expect(sends.map((e) => [e.skillId, e.routedSkill, e.partTypes])).toEqual([
      ['intake', undefined, ['text/plain']],
      [undefined, 'intake', ['text/plain']],
      ['intake', undefined, ['application/json']],
    ]);
  });

  it('push methods that do not exist: -32601, and an inline config dropped with a note; -32003 where they are not supported', async () => {
    const missing = fx.start(scenario('hs-aspirational/push-method-missing').peer);
    const url = rpcUrlOf(missing.peer.card);
    const inline = await bareRpc(agent, url, 'SendMessage', {
      ...text('hello'),
      configuration: { returnImmediately: true, taskPushNotificationConfig: { url: 'https://127.0.0.1:9/hook' } },
    });
    const taskId = inline.json?.result?.task?.id as string;
    expect(taskId).toBeTruthy();
    const create = await bareRpc(agent, url, 'CreateTaskPushNotificationConfig', { taskId, url: 'https://127.0.0.1:9/hook' });
    missing.end();
    expect(create.json?.error?.code).toBe(-32601);
    expect(https(missing.transcript.events).find((e) => e.rpc?.method === 'SendMessage')?.note).toContain('ignored');

    const unsupported = fx.start(scenario('hs-aspirational/push-not-supported').peer);
    const u = rpcUrlOf(unsupported.peer.card);
    const sent = await bareRpc(agent, u, 'SendMessage', text('hello'));
    const refused = await bareRpc(agent, u, 'CreateTaskPushNotificationConfig', { taskId: sent.json?.result?.task?.id, url: 'https://127.0.0.1:9/hook' });
    unsupported.end();
    expect(refused.json?.error?.code).toBe(-32003);
  });

  it("a stale card from the CDN origin: another origin than the RPC; GetExtendedAgentCard serves the runtime's own card; streaming refused with -32004", async () => {
    const run = fx.start(scenario('hs-split-origin/stale-with-extended-card').peer);
    const url = rpcUrlOf(run.peer.card);
    expect(new URL(run.peer.cardUrl).origin).not.toBe(new URL(url).origin);
    const cardRes = await request(run.peer.cardUrl, { dispatcher: agent });
    const served = (await cardRes.body.json()) as { capabilities: { streaming: boolean } };
    expect(served.capabilities.streaming).toBe(true);
    const extended = await bareRpc(agent, url, 'GetExtendedAgentCard', {});
    expect(extended.json?.result?.capabilities).toMatchObject({ streaming: false, extendedAgentCard: true });
    expect(extended.json?.result?.supportedInterfaces[0].url).toBe(url);
    const stream = await bareRpc(agent, url, 'SendStreamingMessage', text('hello'), { accept: 'text/event-stream' });
    run.end();
    expect(stream.json?.error?.code).toBe(-32004);
    const tls = run.transcript.events.filter((e): e is TlsEvent => e.kind === 'tls');
    expect(new Set(tls.map((e) => e.listener))).toEqual(new Set(['cdn', 'tls']));
  });

  it('over maxRequestBytes: HTTP 413 before any task, the call still recorded', async () => {
    const run = fx.start(scenario('hs-split-origin/residual-large-payload').peer);
    const url = rpcUrlOf(run.peer.card);
    const small = await bareRpc(agent, url, 'SendMessage', text('hello'));
    const large = await bareRpc(agent, url, 'SendMessage', text('x'.repeat(5000)));
    run.end();
    expect(small.json?.result?.task?.id).toBeTruthy();
    expect(large.status).toBe(413);
    expect(run.ledger.snapshot()).toHaveLength(1);
    expect(https(run.transcript.events).find((e) => e.status === 413)?.rpc?.method).toBe('SendMessage');
  });
});

describe('the reference client against the real token endpoint', () => {
  let h: InProcessHarness;
  beforeAll(async () => {
    h = await startHarness('reference');
  });
  afterAll(async () => h.close());

  it('gets a token over verified TLS, presents it as Bearer, and the results keep the scheme and a digest, never the token or the secret', async () => {
    const r = await h.run(scenario('hs-challenge/token-works'));
    expect(r.verdict).toBe('PASS');
    const events = https(r.transcript);
    const issued = events.find((e) => e.path.endsWith(TOKEN_PATH) && e.status === 200)!;
    expect(issued.listener).toBe('tls');
    // The handshake on that listener completed before the token request: TLS, with the test CA's certificate.
    expect(r.transcript.some((e) => e.kind === 'tls' && e.listener === 'tls' && e.ok && e.seq < issued.seq)).toBe(true);
    expect(issued.headers.authScheme).toBe('Basic'); // client authentication (RFC 6749 §2.3.1), never the secret
    const digest = /digest is ([0-9a-f]{12})/.exec(issued.note ?? '')![1];
    const rpc = events.filter((e) => e.rpc);
    expect(rpc.length).toBeGreaterThan(1);
    for (const e of rpc) expect(e.headers).toMatchObject({ authScheme: 'Bearer', authDigest: digest });
    expect(events.filter((e) => e.path.endsWith('agent-card.json')).every((e) => !e.headers.authorization)).toBe(true);
    const whole = JSON.stringify(r);
    expect(whole).not.toMatch(/cto_[A-Za-z0-9_-]{20}/);
  });

  it("makes no token request where the token endpoint's certificate does not verify (the same peer, its RPC on the wrong-host listener)", async () => {
    const s = scenario('hs-challenge/token-works');
    const r = await h.run({
      ...s,
      id: 'test/token-on-wrong-host',
      peer: { ...s.peer, runtime: { ...s.peer.runtime, rpcListener: 'wrong-host' } },
      expect: 'INFORMATIONAL',
    });
    const onWrongHost = r.transcript.filter((e) => (e.kind === 'http' || e.kind === 'tls') && e.listener === 'wrong-host');
    expect(onWrongHost.length).toBeGreaterThan(0);
    expect(onWrongHost.every((e) => e.kind === 'tls' && !e.ok)).toBe(true);
    expect(https(r.transcript).some((e) => e.path.endsWith(TOKEN_PATH))).toBe(false);
  });

  it('a real first attempt refused for now (503, Retry-After), then a read, then the same request again: still the first attempt before any probe, not excused as a probe', async () => {
    const r = await record('reference', 'hs-split-origin/stale-no-extended-card');
    expect(checkOf(r, 'HS-SPLIT-ORIGIN').verdict).toBe('PASS');
    const read = https(r.transcript).find((e) => e.rpc?.method === 'ListTasks')!;
    const start = https(r.transcript).find((e) => e.rpc?.method === 'SendMessage' && e.taskId && e.seq > read.seq)!;
    expect(start.paramsDigest).toBeTruthy();
    // The task's request, answered 503 with Retry-After before the read, then sent again as it was.
    const refused = { ...start, seq: read.seq - 0.5, t: read.t - 1, status: 503, taskId: undefined, response: { ...start.response, retryAfter: '1' } };
    const edited = [...r.transcript.filter((e) => e.seq < read.seq), refused as HttpEvent, ...r.transcript.filter((e) => e.seq >= read.seq)];
    const c = checkOf(regrade(r, edited), 'HS-SPLIT-ORIGIN');
    expect(c.verdict).not.toBe('PASS');
    expect(c.reason).toMatch(new RegExp(`the first attempt at the task was sent at #${refused.seq} before any probe`));
  });

  it('marks a probe task in the ledger: a task the client canceled before it started the next', async () => {
    // A client of the test's own: a minimal probe task, canceled, then the real task.
    const s = scenario('hs-split-origin/stale-no-extended-card');
    const { runClient } = await import('../clients/common/engine.js');
    const { A2ATransport, newMessageId } = await import('../clients/common/transport.js');
    const prober = {
      hello: () => ({ name: 'prober', version: '0', profile: null, taskClasses: ['async-completion' as const] }),
      run: async (req: Parameters<typeof runClient>[0], signal: AbortSignal) => {
        const t = await A2ATransport.open({ tls: req.tls, signal });
        const card = await t.getJson(req.cardUrl);
        const url = rpcUrlOf(card.ok ? (card.json as Record<string, unknown>) : {});
        const probe = await t.rpc(url, 'SendMessage', {
          message: { messageId: newMessageId(), role: 'ROLE_USER', parts: [{ text: '.', mediaType: 'text/plain' }] },
          configuration: { returnImmediately: true },
        });
        const id = probe.ok ? (probe.result.task as { id: string }).id : '';
        await t.rpc(url, 'CancelTask', { id });
        await t.close();
        return runClient({ ...req }, signal, { skipsProbe: true });
      },
    };
    const own = await startHarness(prober);
    try {
      const r = await own.run(s);
      expect(
        r.ledger.filter((t) => t.probe),
        JSON.stringify([r.claims, r.outcome, r.ledger, https(r.transcript).map((e) => [e.seq, e.rpc?.method, e.status, e.rpcError?.code])]),
      ).toHaveLength(1);
      expect(r.ledger.filter((t) => !t.probe).length).toBeGreaterThan(0);
      const check = r.checks.find((c) => c.rule === 'HS-SPLIT-ORIGIN')!;
      expect(check.verdict).toBe('PASS');
      expect(check.evidence.some((e) => e.fact.startsWith('probe: task'))).toBe(true);
    } finally {
      await own.close();
    }
  });
});
