/**
 * Hardening, third pass (issue 39, H1): nothing a client does to a connection holds the end of a run.
 * A listener's close waits for its connections, so a connection the host does not destroy itself (a
 * TCP connection that never began its TLS handshake; an HTTP/2 session whose client died with
 * thousands of calls open) used to hold `PeerHost.close()`, and with it the report, forever. Each
 * case closes the host within a bound, with the connection still open on the client's side. H2: the
 * reaper reads a dead run's bookkeeping in a folder that was the client's TMPDIR, so what it finds
 * there may be planted: a fifo, a sparse file of gigabytes, a look-alike folder.
 */
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, ftruncateSync, mkdirSync, openSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scenarioOverBinding } from '../harness/core/card-binding.js';
import { grpcFrame } from '../harness/core/vocabulary/grpc-frame.js';
import { encodeV1 } from '../harness/core/vocabulary/proto-wire.js';
import { bounded } from '../harness/runner/infrastructure/env.js';
import { createServer as httpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { makePki } from '../harness/pki/index.js';
import { PushDispatcher } from '../harness/net/push-dispatcher.js';
import { Transcript } from '../harness/core/transcript.js';
import { runConformance } from '../harness/runner/engine/run.js';
import { BUILTIN_FILES } from './helpers/scenarios.js';
import { bareRpc, clientAgent, peerFixture, rpcUrlOf } from './helpers/peer.js';
import { scenario } from './helpers/scenarios.js';
import { ROOT } from './helpers/cli.js';
import { testTemp } from './helpers/tmp.js';

/** The host's close, or 'held' when it has not resolved within `ms`. */
const closeWithin = async (close: () => Promise<void>, ms: number) => {
  const started = Date.now();
  const done = await Promise.race([close().then(() => 'closed' as const), new Promise<'held'>((r) => setTimeout(() => r('held'), ms).unref())]);
  return { done, ms: Date.now() - started };
};

describe('a run’s teardown is never held by a client’s connection', () => {
  it('TCP connections that never begin their handshake, on an HTTPS and a gRPC listener, are destroyed: the host closes at once', async () => {
    const fx = await peerFixture();
    const s = scenarioOverBinding(scenario('spec-tls-verify/valid-certificate-control'), 'GRPC');
    const run = fx.start(s.peer);
    const grpc = new URL((run.peer.card.supportedInterfaces as Array<{ url: string }>)[0]!.url);
    const idle: Socket[] = [Number(grpc.port), Number(new URL(fx.host.origin('tls')).port)].map((port) => {
      const sock = connect({ host: '127.0.0.1', port });
      sock.on('error', () => {});
      return sock;
    });
    try {
      await Promise.all(idle.map((sock) => new Promise((r) => sock.once('connect', r))));
      run.end();
      const c = await closeWithin(() => fx.close(), 5000);
      expect(c.done, `closed after ${c.ms} ms`).toBe('closed');
    } finally {
      for (const sock of idle) sock.destroy();
    }
  });

  it('a gRPC client that dies (SIGKILL) with 2,000 calls open on one HTTP/2 session, the run still active: the host closes at once', {
    timeout: 60_000,
  }, async () => {
    const fx = await peerFixture();
    const s = scenarioOverBinding(scenario('spec-tls-verify/valid-certificate-control'), 'GRPC');
    const run = fx.start(s.peer);
    const url = new URL((run.peer.card.supportedInterfaces as Array<{ url: string }>)[0]!.url);
    const ca = join(testTemp('a2a-h1-'), 'ca.pem');
    writeFileSync(ca, fx.pki.testCa.cert);
    const body = Buffer.from(grpcFrame(encodeV1('SendMessageRequest', { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } })));
    const code = `
      const { connect } = require('node:http2');
      const session = connect(${JSON.stringify(url.origin)}, { ca: require('node:fs').readFileSync(${JSON.stringify(ca)}) });
      session.on('error', () => {});
      session.on('connect', () => {
        for (let i = 0; i < 2000; i++) {
          const req = session.request({ ':method': 'POST', ':path': '/lf.a2a.v1.A2AService/SendStreamingMessage', 'content-type': 'application/grpc', te: 'trailers', 'a2a-version': '1.0' });
          req.on('error', () => {});
          req.end(Buffer.from(${JSON.stringify(body.toString('base64'))}, 'base64'));
        }
        setTimeout(() => process.kill(process.pid, 'SIGKILL'), 1000);
      });`;
    const child = spawn(process.execPath, ['-e', code], { stdio: 'ignore' });
    await new Promise((r) => child.on('exit', r));
    const c = await closeWithin(() => fx.close(), 5000);
    run.end();
    expect(c.done, `closed after ${c.ms} ms`).toBe('closed');
  });

  it('a teardown that cannot finish is left after its bound, never waited for', async () => {
    const started = Date.now();
    await bounded(new Promise(() => {}), 200);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('the reaper reads only what it wrote', () => {
  /** A dead run's folder under a TMPDIR of the test's own, aged past the reaper's minute; `plant` fills it. */
  function deadRunFolder(plant: (dir: string) => void): { base: string; dir: string } {
    const base = testTemp('a2a-reap-');
    const dir = join(base, 'a2a-conformance-run-planted');
    mkdirSync(join(dir, 'procs'), { recursive: true });
    plant(dir);
    const old = new Date(Date.now() - 10 * 60_000);
    utimesSync(dir, old, old);
    return { base, dir };
  }
  /** reapDeadRuns over `base`, in a child process: a reaper that blocks (a fifo) is killed at 10 s. */
  const reapIn = (base: string) =>
    new Promise<{ code: number | null; ms: number; out: string }>((done) => {
      const started = Date.now();
      const child = spawn(process.execPath, ['--import', 'tsx', '-e', REAP], {
        cwd: ROOT,
        env: { ...process.env, TMPDIR: base },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (c) => (out += c));
      child.stderr.on('data', (c) => (out += c));
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.on('exit', (code) => {
        clearTimeout(timer);
        done({ code, ms: Date.now() - started, out });
      });
    });
  const REAP = `import('./harness/runner/infrastructure/workspace.ts').then((w) => console.log(JSON.stringify(w.reapDeadRuns())))`;

  it('owner.json a fifo, a procs/ entry a fifo: never opened, the reaper returns at once and removes the planted folder', { timeout: 60_000 }, async () => {
    const { base, dir } = deadRunFolder((d) => {
      execFileSync('mkfifo', [join(d, 'owner.json'), join(d, 'procs', '4242')]);
    });
    const r = await reapIn(base);
    expect(r.code, r.out).toBe(0);
    expect(r.ms).toBeLessThan(10_000);
    expect(existsSync(dir)).toBe(false);
  });

  it('owner.json a sparse 3 GiB file: not read (the reaper stays small), the folder removed', { timeout: 60_000 }, async () => {
    const { base, dir } = deadRunFolder((d) => {
      const fd = openSync(join(d, 'owner.json'), 'w');
      ftruncateSync(fd, 3 * 1024 ** 3);
      closeSync(fd);
    });
    const r = await reapIn(base);
    expect(r.code, r.out).toBe(0);
    expect(existsSync(dir)).toBe(false);
  });

  it('a folder of the prefix with no owner.json is not a run folder: left alone', { timeout: 60_000 }, async () => {
    const { base, dir } = deadRunFolder((d) => writeFileSync(join(d, 'notes.txt'), 'mine'));
    const r = await reapIn(base);
    expect(r.code, r.out).toBe(0);
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('mine');
  });
});

describe('the harness never posts to itself', () => {
  it("H4: a push URL on the peer's own endpoint is refused before any connection: no delivery is the client's", { timeout: 30_000 }, async () => {
    const fx = await peerFixture();
    const agent = clientAgent(fx.pki);
    try {
      const run = fx.start(scenario('push-receipt/genuine').peer);
      const rpc = rpcUrlOf(run.peer.card);
      const sent = await bareRpc(agent, rpc, 'SendMessage', {
        message: { messageId: 'm-h4', role: 'ROLE_USER', parts: [{ text: 'hi' }] },
        configuration: {
          returnImmediately: true,
          taskPushNotificationConfig: { url: rpc, token: 't', authentication: { scheme: 'Bearer', credentials: 'c' } },
        },
      });
      expect(sent.status).toBe(200);
      const attempts = () => run.transcript.events.filter((e) => e.kind === 'push-attempt');
      const end = Date.now() + 10_000;
      while (attempts().length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
      expect(attempts().length).toBeGreaterThan(0);
      for (const a of attempts()) expect(a).toMatchObject({ outcome: 'connect-error', error: expect.stringMatching(/harness's own listeners/) });
      // Nothing the dispatcher sent reached the peer's own endpoint as a request.
      expect(run.transcript.events.filter((e) => e.kind === 'http' && e.method === 'POST' && !e.rpc)).toEqual([]);
      run.end();
    } finally {
      await agent.close();
      await fx.close();
    }
  });
});

/** A receiver that takes the whole request, then answers as `mode` says (H3). */
type Mute = 'hang' | 'close' | 'late500' | 'bigheaders' | 'ok';

describe('H3: a delivery written and never acknowledged is graded', () => {
  it('the dispatcher records how far each post got: held, closed, an unreadable answer, a late status, a prompt one', { timeout: 60_000 }, async () => {
    const pki = await makePki();
    const dispatcher = new PushDispatcher(pki, { answerMs: 1500 });
    const server = httpsServer({ cert: pki.receiver.cert, key: pki.receiver.key }, (req, res) => {
      req.resume();
      req.on('end', () => {
        const mode = req.url!.slice(1) as Mute;
        if (mode === 'close') req.socket.destroy();
        else if (mode === 'late500') setTimeout(() => res.writeHead(500).end(), 800);
        else if (mode === 'bigheaders') {
          for (let i = 0; i < 200; i++) res.setHeader(`x-padding-${i}`, 'a'.repeat(1000));
          res.writeHead(200).end();
        } else if (mode === 'ok') res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const transcript = new Transcript(() => performance.now());
    try {
      const post = (mode: Mute) =>
        dispatcher.dispatch({
          mode: 'plain',
          url: `https://127.0.0.1:${port}/${mode}`,
          taskId: 't1',
          state: 'TASK_STATE_COMPLETED',
          payload: { mode },
          transcript,
        });
      const started = Date.now();
      const [hang, close, late, big, ok] = await Promise.all((['hang', 'close', 'late500', 'bigheaders', 'ok'] as Mute[]).map(post));
      expect(hang).toMatchObject({ outcome: 'unanswered', unanswered: 'held', error: expect.stringMatching(/no answer within 1500 ms/) });
      expect(close).toMatchObject({ outcome: 'unanswered', unanswered: 'closed' });
      expect(big).toMatchObject({ outcome: 'unanswered', unanswered: 'unreadable', error: expect.stringMatching(/HPE_HEADER_OVERFLOW/) });
      // A status after 800 ms is an answer (the old 2 s headers timeout cut later ones off as "timeout").
      expect(late).toMatchObject({ outcome: 'http-error', status: 500 });
      expect(ok).toMatchObject({ outcome: 'delivered', status: 204 });
      // The held post gave up at its wait, not at the test's timeout.
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(dispatcher.longestMs).toBeGreaterThan(1500);
    } finally {
      await dispatcher.close();
      server.closeAllConnections();
      server.close();
    }
  });

  // The reference client behind the NDJSON protocol, its receiver made to misbehave by a preload
  // (test/fixtures/clients/mute-receiver.mjs): it takes each delivery and acts on it as usual.
  const MUTED = (mode: Mute) =>
    `A2A_MUTE=${mode} "${process.execPath}" --import "${join(ROOT, 'test/fixtures/clients/mute-receiver.mjs')}" "${join(ROOT, 'test/fixtures/clients/reference-ndjson.mjs')}"`;
  const PICK = /^push-receipt\/genuine$/;

  it('a receiver that hangs, closes, answers 500 late or answers unreadably gets PUSH-RECEIPT NON_STRICT or FAIL, never INFORMATIONAL', {
    timeout: 180_000,
  }, async () => {
    const seen: Record<string, string> = {};
    for (const mode of ['hang', 'close', 'late500', 'bigheaders'] as Mute[]) {
      const r = await runConformance({
        clientCmd: MUTED(mode),
        cwd: ROOT,
        files: BUILTIN_FILES,
        pick: { grep: { source: PICK.source, test: (t) => PICK.test(t) } },
        seed: `h3-${mode}`,
      });
      expect(r.results.length, mode).toBe(1);
      const x = r.results[0]!;
      expect(x.stderr ?? '', mode).toContain(`[mute-receiver] ${mode}`);
      const check = x.checks.find((c) => c.rule === 'PUSH-RECEIPT')!;
      seen[mode] = `${check.verdict}: ${check.reason}`;
      expect(x.verdict, `${mode}: ${check.reason}`).not.toBe('PASS');
      expect(check.verdict, `${mode}: ${check.reason}`).toBe(mode === 'late500' ? 'FAIL' : 'NON_STRICT');
      expect(check.reason, mode).toMatch(mode === 'late500' ? /answered 500/ : /never answered/);
    }
    console.log(`H3 verdicts: ${JSON.stringify(seen, null, 1)}`);
  });
});
