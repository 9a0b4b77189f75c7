/**
 * `a2a-conformance serve` (harness/cli/commands/serve.ts): the scripted peers on loopback, for debugging a client by hand. Prints
 * each card URL and every certificate file a client needs, logs requests as they arrive, keeps its
 * CA across runs with --pki-dir, and stops cleanly on Ctrl-C.
 */
import { existsSync } from 'node:fs';
import { pkiPaths, type PkiFiles } from '../../pki/index.js';
import { closeRunFolder, openRunFolder, type RunFolder } from '../infrastructure/workspace.js';
import { Transcript, type WireEvent } from '../../core/transcript.js';
import { printableInline } from '../../core/text.js';
import type { CatalogueEntry } from '../load/catalogue.js';
import { mountPeer, type MountedPeer } from '../infrastructure/mount.js';
import { closeListeners, freshPki, openListeners } from '../infrastructure/env.js';
import { transportsNamedIn } from '../../../peers/wires/index.js';

/** Events each peer keeps while serving (the oldest go first). */
export const SERVE_EVENTS = 5000;
/** Finished tasks each peer keeps while serving (the oldest finished are forgotten: GetTask then answers TaskNotFound). */
export const SERVE_FINISHED_TASKS = 100;

export interface ServeOptions {
  catalogue: CatalogueEntry[];
  /** A scenario id or a peer factory name; all scenarios when absent. */
  peer?: string;
  pkiDir?: string;
  /** Makes `--pki-dir` where it is missing (the command's, which knows how to say what is wrong with a path). */
  makeFolder(path: string): void;
  out: (line: string) => void;
}

export interface Serving {
  stop(): Promise<void>;
}

function describe(e: WireEvent): string | undefined {
  switch (e.kind) {
    case 'http':
      return `${e.method} ${e.path}${e.rpc ? ` ${e.rpc.method}` : ''} → ${e.status ?? '…'}${e.rpcError ? ` (${e.rpcError.code})` : ''}${e.headers.a2aVersion ? '' : ' [no A2A-Version]'}${e.clientCert.presented ? ' [client cert]' : ''}`;
    case 'tls':
      return e.ok ? undefined : `TLS handshake failed at ${e.listener}: ${e.error}`;
    case 'task':
      return `task ${e.taskId} ${e.state} (${e.cause})`;
    case 'push-attempt':
      return `push ${e.state} → ${e.url}: ${e.outcome}${e.error ? ` ${e.error}` : ''}`;
    case 'push-register':
      return `push registered (${e.via}) → ${e.url}`;
    case 'harness':
      return `harness ${e.level}: ${e.message}`;
    default:
      return undefined;
  }
}

export async function serve(o: ServeOptions): Promise<Serving> {
  const chosen = o.peer ? o.catalogue.filter((e) => e.scenario.id === o.peer || e.scenario.peer.factory === o.peer) : o.catalogue;
  if (chosen.length === 0) throw new Error(`no scenario id or peer factory named "${o.peer}" (see \`a2a-conformance list\`)`);
  let files: PkiFiles;
  // Without --pki-dir the certificates live in a private folder, removed on every exit path.
  let folder: RunFolder | undefined;
  if (o.pkiDir && existsSync(pkiPaths(o.pkiDir).cert.testCa)) files = pkiPaths(o.pkiDir);
  else if (o.pkiDir) {
    o.makeFolder(o.pkiDir);
    files = await freshPki(o.pkiDir);
  } else {
    folder = await openRunFolder('serve');
    files = await freshPki(folder.pkiDir);
  }
  const listeners = await openListeners(files.dir);
  const { host, dispatcher } = listeners;
  o.out('Certificates (PEM):');
  o.out(`  trust this CA for every peer:          ${files.cert.testCa}`);
  o.out(`  client certificate / key (mTLS peers): ${files.cert.client} ${files.key.client}`);
  o.out(`  plain HTTPS push receiver:             ${files.cert.receiver} ${files.key.receiver}`);
  o.out(`  partner-mTLS push receiver:            ${files.cert.partnerReceiver} ${files.key.partnerReceiver}, verify senders with ${files.cert.partnerCa}`);
  o.out('Peers:');
  const mounted: MountedPeer[] = [];
  for (const [i, e] of chosen.entries()) {
    const key = `serve${i + 1}`;
    // Every peer is active at once: one whose card offers a binding with a transport of its own (gRPC) gets that transport's listeners of its own (a call names no peer).
    if (chosen.length > 1) await host.reserveTransports(key, transportsNamedIn(e.scenario.peer.card));
    // A ring: a debugging session of hours keeps the latest events, never stops answering.
    const transcript = new Transcript(() => performance.now(), { ring: SERVE_EVENTS });
    const log = (ev: WireEvent) => {
      const line = describe(ev);
      // One line per event, whatever the client put in its path or headers.
      if (line) o.out(printableInline(`[${new Date().toISOString().slice(11, 23)}] ${e.scenario.id} #${ev.seq} ${line}`));
    };
    // Requests are logged once answered, everything else as it happens.
    transcript.onRecord = (ev) => ev.kind !== 'http' && log(ev);
    transcript.onAnswer = log;
    const m = mountPeer(host, dispatcher, e.scenario.peer, {
      key,
      transcript,
      deadlineMs: e.scenario.deadlineMs,
      retainFinished: SERVE_FINISHED_TASKS,
    });
    mounted.push(m);
    o.out(`  ${e.scenario.id.padEnd(50)} ${m.peer.cardUrl}`);
    // A peer with a token endpoint: the client credentials of this session, as a run hands them over (docs/protocol.md).
    for (const c of m.peer.credentials ?? [])
      o.out(`  ${''.padEnd(50)} OAuth 2.0 client credentials for ${c.tokenUrl}: client_id ${c.clientId}, client_secret ${c.clientSecret}`);
  }
  o.out(`ready: ${chosen.length} peer(s) on 127.0.0.1 — Ctrl-C to stop`);
  return {
    async stop() {
      for (const m of mounted) m.end();
      await closeListeners(listeners);
      await closeRunFolder(folder);
    },
  };
}
