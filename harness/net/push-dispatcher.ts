/**
 * The peers' push dispatcher: POSTs a `StreamResponse` to a client's receiver over undici, either
 * plain HTTPS (trusting the test CA) or partner mTLS (presenting the partner client certificate and
 * verifying the receiver against the partner CA). Each attempt is recorded with its TLS outcome.
 * Loopback URLs only: anything else is refused without a connection.
 */
import { createHash } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { Agent, request } from 'undici';
import { bodyRecord, keptChars, shedRecord, type BodyRecord } from '../core/body.js';
import type { Pki } from '../pki/index.js';
import type { PushOrder } from '../core/push.js';
import type { PushAttemptEvent, Transcript } from '../core/transcript.js';
import { ownPorts } from './own-ports.js';

/** A peer's push order, and the transcript of the run it belongs to. */
export interface PushRequest extends PushOrder {
  transcript: Transcript;
}

const TLS_ERROR = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET|ALTNAME|HANDSHAKE/;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
const COMMON = { connectTimeout: 2000, keepAliveTimeout: 10, keepAliveMaxTimeout: 10 };
const digest12 = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 12);

function classify(err: unknown): { outcome: PushAttemptEvent['outcome']; error: string } {
  const e = err as { code?: string; cause?: { code?: string; message?: string }; message?: string; name?: string };
  const code = e.code ?? e.cause?.code ?? e.name ?? 'ERROR';
  const msg = `${code}: ${e.cause?.message ?? e.message ?? ''}`.trim();
  if (TLS_ERROR.test(code) || code === 'UND_ERR_SOCKET') return { outcome: 'tls-error', error: msg };
  if (code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'ENOTFOUND') return { outcome: 'connect-error', error: msg };
  if (/TIMEOUT/.test(code)) return { outcome: 'timeout', error: msg };
  return { outcome: 'connect-error', error: msg };
}

export class PushDispatcher {
  private readonly plain: Agent;
  private readonly partner: Agent;
  /** A forger's other identity (`from: 'other'`): the run's untrusted leaf, trusting the receiver as the mode says. Made on first use. */
  private readonly others = new Map<PushOrder['mode'], Agent>();

  constructor(private readonly pki: Pki) {
    // One TLS context per identity, made once: undici otherwise parses the CA, certificate and key again
    // for every connection, and with keep-alive this short each push is a connection of its own.
    this.plain = new Agent({ ...COMMON, connect: { secureContext: createSecureContext({ ca: pki.testCa.cert }) } });
    this.partner = new Agent({
      ...COMMON,
      connect: { secureContext: createSecureContext({ ca: pki.partnerCa.cert, cert: pki.partnerClient.cert, key: pki.partnerClient.key }) },
    });
  }

  private agentFor(p: PushOrder): { agent: Agent; cert?: string } {
    if (p.from !== 'other') return p.mode === 'partner-mtls' ? { agent: this.partner, cert: 'partnerClient' } : { agent: this.plain };
    let agent = this.others.get(p.mode);
    if (!agent) {
      const ca = p.mode === 'partner-mtls' ? this.pki.partnerCa.cert : this.pki.testCa.cert;
      agent = new Agent({ ...COMMON, connect: { secureContext: createSecureContext({ ca, cert: this.pki.untrusted.cert, key: this.pki.untrusted.key }) } });
      this.others.set(p.mode, agent);
    }
    return { agent, cert: 'untrusted' };
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
    const { agent, cert } = this.agentFor(p);
    const headers: Record<string, string> = { 'content-type': 'application/a2a+json' };
    if (p.authentication) headers.authorization = `${p.authentication.scheme} ${p.authentication.credentials ?? ''}`.trim();
    if (p.token) headers['x-a2a-notification-token'] = p.token;
    const base = {
      kind: 'push-attempt' as const,
      sentT: Math.round(p.transcript.elapsed()),
      taskId: p.taskId,
      url: p.url,
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
    try {
      const u = new URL(p.url);
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
    try {
      const res = await request(p.url, {
        method: 'POST',
        dispatcher: agent,
        headers,
        body: text,
        headersTimeout: 2000,
        bodyTimeout: 2000,
      });
      await res.body.dump();
      if (res.statusCode >= 200 && res.statusCode < 300) return p.transcript.record({ ...base, outcome: 'delivered', status: res.statusCode });
      return p.transcript.record({ ...base, outcome: 'http-error', status: res.statusCode });
    } catch (err) {
      return p.transcript.record({ ...base, ...classify(err) });
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.plain.close(), this.partner.close(), ...[...this.others.values()].map((a) => a.close())]);
  }
}
