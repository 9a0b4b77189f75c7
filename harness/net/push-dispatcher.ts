/**
 * The peers' push dispatcher: POSTs a `StreamResponse` to a client's receiver over node:https, either
 * plain HTTPS (trusting the test CA) or partner mTLS (presenting the partner client certificate and
 * verifying the receiver against the partner CA). Each attempt is recorded with how far it got: the
 * connection, the handshake, the request written, the answer. Loopback URLs only: anything else is
 * refused without a connection.
 */
import { createHash } from 'node:crypto';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { request, type RequestOptions } from 'node:https';
import { createSecureContext, type SecureContext, type TLSSocket } from 'node:tls';
import { bodyRecord, keptChars, redactUrl, shedRecord, type BodyRecord } from '../core/body.js';
import type { Pki } from '../pki/index.js';
import type { PushOrder } from '../core/push.js';
import type { PushAttemptEvent, Transcript } from '../core/transcript.js';
import { patientTimer } from './lag.js';
import { ownPorts } from './own-ports.js';

/** A peer's push order, and the transcript of the run it belongs to. */
export interface PushRequest extends PushOrder {
  transcript: Transcript;
}

export interface DispatcherOptions {
  /**
   * How long a receiver has to answer once the whole request is written (10 s by default: the
   * shortest webhook timeout A2A v1.0.1 §4.3.3 recommends to agents), times --deadline-multiplier.
   */
  answerMs?: number;
}

/** How long the connection and the TLS handshake may take on loopback. */
const CONNECT_MS = 2000;
export const ANSWER_MS = 10_000;
/** The most of an answer's headers read (node's default): past it, the answer cannot be read. */
const MAX_HEADERS = 16 * 1024;
/** The most of an answer's body read before the connection is closed: the status is the acknowledgement. */
const MAX_BODY = 64 * 1024;

const TLS_ERROR = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET|ALTNAME|HANDSHAKE/;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
const digest12 = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 12);
const codeOf = (err: unknown) => (err as { code?: string }).code ?? (err as Error).name ?? 'ERROR';
const messageOf = (err: unknown) => `${codeOf(err)}: ${(err as Error).message ?? ''}`.trim();

type Outcome = Pick<PushAttemptEvent, 'outcome' | 'error' | 'status' | 'unanswered' | 'openT'>;

export class PushDispatcher {
  private readonly plain: SecureContext;
  private readonly partner: SecureContext;
  /** A forger's other identity (`from: 'other'`): the run's untrusted leaf, trusting the receiver as the mode says. Made on first use. */
  private readonly others = new Map<PushOrder['mode'], SecureContext>();
  /** Posts under way: destroyed when the dispatcher closes. */
  private readonly live = new Set<ClientRequest>();
  readonly answerMs: number;

  constructor(
    private readonly pki: Pki,
    o: DispatcherOptions = {},
  ) {
    // One TLS context per identity, made once: parsing the CA, certificate and key again for every
    // connection costs more than the post (each push is a connection of its own).
    this.plain = createSecureContext({ ca: pki.testCa.cert });
    this.partner = createSecureContext({ ca: pki.partnerCa.cert, cert: pki.partnerClient.cert, key: pki.partnerClient.key });
    this.answerMs = o.answerMs ?? ANSWER_MS;
  }

  /** The longest one delivery can take before its outcome is recorded (each wait given back what the harness owed, at most its length again): what a run waits for at its end. */
  get longestMs(): number {
    return 2 * (CONNECT_MS + this.answerMs) + 500;
  }

  private identityFor(p: PushOrder): { context: SecureContext; cert?: string } {
    if (p.from !== 'other') return p.mode === 'partner-mtls' ? { context: this.partner, cert: 'partnerClient' } : { context: this.plain };
    let context = this.others.get(p.mode);
    if (!context) {
      const ca = p.mode === 'partner-mtls' ? this.pki.partnerCa.cert : this.pki.testCa.cert;
      context = createSecureContext({ ca, cert: this.pki.untrusted.cert, key: this.pki.untrusted.key });
      this.others.set(p.mode, context);
    }
    return { context, cert: 'untrusted' };
  }

  /** Deliveries under way, per transcript: a run's record waits for them (settled). */
  private readonly pending = new Map<Transcript, Set<Promise<PushAttemptEvent>>>();

  /**
   * Posts one push and records its outcome in its run's transcript. The receiver may act on the body
   * before the peer has read the answer (a client that reports as soon as a COMPLETED push lands): the
   * run then waits for `settled` before its transcript is sealed.
   */
  dispatch(p: PushRequest): Promise<PushAttemptEvent> {
    const attempt = this.attempt(p);
    let set = this.pending.get(p.transcript);
    if (!set) {
      set = new Set();
      this.pending.set(p.transcript, set);
    }
    set.add(attempt);
    const done = () => {
      set.delete(attempt);
      if (set.size === 0 && this.pending.get(p.transcript) === set) this.pending.delete(p.transcript);
    };
    attempt.then(done, done);
    return attempt;
  }

  /** Resolves once every delivery of this transcript under way has its outcome recorded, or after `ms`. */
  async settled(transcript: Transcript, ms: number): Promise<void> {
    const set = this.pending.get(transcript);
    if (!set || set.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...set]), new Promise((r) => (timer = setTimeout(r, ms)))]);
    clearTimeout(timer);
  }

  private async attempt(p: PushRequest): Promise<PushAttemptEvent> {
    const text = JSON.stringify(p.payload);
    const digest = createHash('sha256').update(text).digest('hex').slice(0, 16);
    const chars = keptChars(text.length);
    const kept = p.transcript.keep(chars);
    const body = kept
      ? bodyRecord(text, Buffer.byteLength(text), 'application/a2a+json', digest)
      : shedRecord(Buffer.byteLength(text), 'application/a2a+json', digest);
    const ev = await this.deliver(p, text, body);
    if (kept) p.transcript.hold(ev, chars);
    return ev;
  }

  private async deliver(p: PushRequest, text: string, body: BodyRecord): Promise<PushAttemptEvent> {
    const { context, cert } = this.identityFor(p);
    const headers: Record<string, string> = { 'content-type': 'application/a2a+json' };
    if (p.authentication) headers.authorization = `${p.authentication.scheme} ${p.authentication.credentials ?? ''}`.trim();
    if (p.token) headers['x-a2a-notification-token'] = p.token;
    const base = {
      kind: 'push-attempt' as const,
      sentT: Math.round(p.transcript.elapsed()),
      taskId: p.taskId,
      url: redactUrl(p.url),
      state: p.state,
      presentedClientCert: cert !== undefined,
      ...(cert ? { senderCert: cert } : {}),
      genuine: p.genuine !== false,
      ...(p.forgery ? { forgery: p.forgery } : {}),
      // The scheme and a digest, never the credential itself (as request-record.ts records a request's).
      ...(headers.authorization ? { authScheme: headers.authorization.split(/\s+/)[0]!.slice(0, 40), authDigest: digest12(headers.authorization) } : {}),
      ...(p.token ? { tokenDigest: digest12(p.token) } : {}),
      body,
    };
    let host: string;
    let port: number;
    let u: URL;
    try {
      u = new URL(p.url);
      host = u.hostname;
      port = Number(u.port || 443);
      if (u.protocol !== 'https:') throw new Error('not https');
    } catch {
      return p.transcript.record({ ...base, outcome: 'connect-error', error: 'refused: not an https URL' });
    }
    if (!LOOPBACK.has(host))
      return p.transcript.record({ ...base, outcome: 'connect-error', error: `refused: ${host} is not loopback (the harness only ever dials 127.0.0.1)` });
    if (ownPorts.has(port))
      return p.transcript.record({
        ...base,
        outcome: 'connect-error',
        error: `refused: port ${port} is one of the harness's own listeners, not a receiver of the client's (the harness never posts to itself)`,
      });
    const clock = () => Math.round(p.transcript.elapsed());
    return p.transcript.record({ ...base, ...(await this.post(host.replace(/^\[|\]$/g, ''), port, u, headers, text, context, clock)) });
  }

  /**
   * One POST on a connection of its own, and how far it got:
   * - no connection or no handshake within CONNECT_MS: `connect-error`, `tls-error` or `timeout`;
   * - the request written in full and then no answer: `unanswered` (held past answerMs, the connection
   *   closed without a status, or an answer that could not be read). A receiver that refuses the
   *   sender's certificate under TLS 1.3 closes after the sender's side of the handshake is done, which
   *   looks the same on the wire: the rules read `unanswered` of a forged sender so;
   * - a status: `delivered` (2xx) or `http-error`.
   */
  private post(
    host: string,
    port: number,
    url: URL,
    headers: Record<string, string>,
    text: string,
    context: SecureContext,
    clock: () => number,
  ): Promise<Outcome> {
    return new Promise<Outcome>((resolve) => {
      let stage: 'connect' | 'handshake' | 'sending' | 'written' = 'connect';
      let timer: { clear(): void } | undefined;
      let done = false;
      /** When the connection was up: the receiver cannot have had a byte of the delivery before. */
      let openT: number | undefined;
      const finish = (o: Outcome) => {
        if (done) return;
        done = true;
        timer?.clear();
        resolve(openT === undefined ? o : { ...o, openT });
      };
      const req = request({
        host,
        port,
        method: 'POST',
        path: `${url.pathname}${url.search}`,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(text)) },
        agent: false,
        secureContext: context,
        ...(host === 'localhost' ? { servername: 'localhost' } : {}),
        maxHeaderSize: MAX_HEADERS,
        // Passed through to tls.connect (the request options carry no field of it).
      } as RequestOptions & { secureContext: SecureContext });
      this.live.add(req);
      req.on('close', () => this.live.delete(req));
      const giveUp = (o: Outcome) => {
        finish(o);
        req.destroy();
      };
      // Both waits are of the harness's time: what it owed meanwhile (a loaded machine) is given back first.
      timer = patientTimer(CONNECT_MS, () =>
        giveUp({ outcome: 'timeout', error: `no ${stage === 'connect' ? 'connection' : 'TLS handshake'} within ${CONNECT_MS} ms` }),
      );
      req.on('socket', (socket) => {
        socket.once('connect', () => (stage = 'handshake'));
        (socket as TLSSocket).once('secureConnect', () => {
          timer?.clear();
          stage = 'sending';
          openT = clock();
          // The answer's wait starts once the request is on the wire (finish), whatever the receiver's TLS did.
          req.once('finish', () => {
            stage = 'written';
            // Fired in the timers phase: one turn of I/O first, so an answer already in the socket is read
            // before the wait is called over (a harness that stalled must not turn a prompt answer into none).
            timer = patientTimer(this.answerMs, () =>
              setImmediate(() => giveUp({ outcome: 'unanswered', unanswered: 'held', error: `no answer within ${this.answerMs} ms of the request` })),
            );
          });
        });
      });
      req.on('response', (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        finish(status >= 200 && status < 300 ? { outcome: 'delivered', status } : { outcome: 'http-error', status });
        // The status is the acknowledgement: the body is read up to a bound, then the connection goes.
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_BODY) req.destroy();
        });
        res.on('error', () => {});
        setTimeout(() => req.destroy(), this.answerMs).unref();
      });
      req.on('error', (err) => {
        const code = codeOf(err);
        if (TLS_ERROR.test(code)) return finish({ outcome: 'tls-error', error: messageOf(err) });
        if (stage === 'sending') return finish({ outcome: 'connect-error', error: `the connection ended while the request was written (${messageOf(err)})` });
        if (stage !== 'written') return finish({ outcome: 'connect-error', error: messageOf(err) });
        if (code.startsWith('HPE_'))
          return finish({
            outcome: 'unanswered',
            unanswered: 'unreadable',
            error: `the answer could not be read (${messageOf(err)}; headers are read up to ${MAX_HEADERS / 1024} KiB)`,
          });
        return finish({
          outcome: 'unanswered',
          unanswered: 'closed',
          error: `the connection ended after the request, with no answer (${messageOf(err)})`,
        });
      });
      req.end(text);
    });
  }

  /** Destroys every post under way (each records its outcome as it ends). */
  async close(): Promise<void> {
    for (const req of this.live) req.destroy();
    this.live.clear();
  }
}
