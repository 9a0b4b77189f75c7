/**
 * A client's own push receiver: an HTTPS listener on 127.0.0.1, plain (test-CA certificate) or
 * partner mTLS (partner-CA certificate, verifying the dispatcher's certificate against the partner
 * CA), as the certificates the harness hands over say.
 */
import { createServer, type Server } from 'node:https';
import { readPem } from './pem-files.js';
import { randomBytes } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import type { ClientTls } from '../../harness/core/protocol/types.js';

export interface PushDelivery {
  taskId: string;
  state?: string;
  /** Subject of the certificate the sender presented, if any. */
  senderCert?: string;
}

/** How a receiver departs from the spec (the naive client's mistakes); none for the reference. */
export interface ReceiverQuirks {
  /** Takes any delivery to its path, whatever its credentials and token (against §13.2's MUST). */
  trustsAny?: boolean;
  /** Takes each delivery and answers it with this status instead of 200 (against §4.3.3's MUST 2xx). */
  ackStatus?: number;
}

export class PushReceiver {
  readonly deliveries: PushDelivery[] = [];
  private waiters = new Set<() => void>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
    readonly token: string,
    /** The Bearer credentials the agent must present (PushNotificationConfig.authentication, spec §4.3.3). */
    readonly credentials: string,
  ) {}

  static async start(receiver: NonNullable<ClientTls['receiver']>, quirks: ReceiverQuirks = {}): Promise<PushReceiver> {
    const [cert, key, ca] = await Promise.all([
      readPem(receiver.certFile),
      readPem(receiver.keyFile),
      receiver.clientCaFile ? readPem(receiver.clientCaFile) : Promise.resolve(undefined),
    ]);
    const server = createServer({ cert, key, ...(ca ? { ca, requestCert: true, rejectUnauthorized: true } : {}) });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const token = randomBytes(12).toString('hex');
    const credentials = randomBytes(18).toString('base64url');
    const path = `/push/${randomBytes(6).toString('hex')}`;
    const r = new PushReceiver(server, `https://127.0.0.1:${(server.address() as AddressInfo).port}${path}`, token, credentials);
    // Spec §13.2: clients MUST validate webhook authenticity using the credentials they provided.
    const authentic = (auth: string | undefined) => {
      const m = /^(\S+)\s+(.+)$/.exec((auth ?? '').trim());
      return !!m && m[1]!.toLowerCase() === 'bearer' && m[2] === credentials;
    };
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.method !== 'POST' || req.url !== path || (!quirks.trustsAny && req.headers['x-a2a-notification-token'] !== token)) {
          res.writeHead(404).end();
          return;
        }
        if (!quirks.trustsAny && !authentic(req.headers.authorization)) {
          res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
          return;
        }
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, Record<string, unknown>>;
          // v1.0 sends a StreamResponse ({statusUpdate} or {task}); v0.3 the Task itself, its state in kebab case.
          const update = body.statusUpdate ?? body.task ?? (String(body.kind) === 'task' ? (body as Record<string, unknown>) : undefined);
          const raw = (update?.status ?? {}) as { state?: string };
          const status = { state: raw.state && !raw.state.startsWith('TASK_STATE_') ? `TASK_STATE_${raw.state.toUpperCase().replace(/-/g, '_')}` : raw.state };
          const peer = (req.socket as TLSSocket).getPeerCertificate?.();
          const subj = peer?.raw ? peer.subject?.CN : undefined;
          r.deliveries.push({
            taskId: String(update?.taskId ?? update?.id ?? ''),
            ...(status.state ? { state: status.state } : {}),
            ...(subj ? { senderCert: Array.isArray(subj) ? subj.join(',') : subj } : {}),
          });
          res.writeHead(quirks.ackStatus ?? 200).end();
          for (const w of [...r.waiters]) w();
        } catch {
          res.writeHead(400).end();
        }
      });
    });
    return r;
  }

  /** Resolves at the next delivery, or after `ms`. */
  next(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
    });
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
