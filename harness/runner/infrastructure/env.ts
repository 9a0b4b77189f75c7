/**
 * The environment scenarios run in: the PKI on disk, the shared listeners, the push dispatcher and,
 * for a run, the client adapter. A run, `doctor` and `serve` all open it here.
 */
import type { ClientAdapter } from '../../adapters/contract.js';
import type { Hello } from '../../core/protocol/types.js';
import { PeerHost, type ForeignConnection } from '../../net/peer-host.js';
import { connectionFrom } from '../../adapters/process-group.js';
import { ANSWER_MS, PushDispatcher } from '../../net/push-dispatcher.js';
import { transports } from '../../../peers/wires/index.js';
import { CLIENT_KEYS, makePki, pkiPaths, readPki, writePki, type Pki, type PkiFiles } from '../../pki/index.js';

/** The listeners peers are mounted on, and the PKI they serve with. */
export interface Listeners {
  host: PeerHost;
  dispatcher: PushDispatcher;
  pki: PkiFiles;
  /** The PEMs, to restart the listeners after a client that would not stop. */
  pems: Pki;
}

/** What a worker holds for all its scenario runs. */
export interface RunEnv extends Listeners {
  client: ClientAdapter;
  hello: Hello;
  idSalt: string;
  deadlineMultiplier: number;
  /** How long after an abort the runner waits for the client to settle (ABORT_GRACE_MS by default). */
  abortGraceMs?: number;
}

export interface EnvOptions {
  /** Where the client's certificates and keys are (drive.ts hands it their paths). */
  pkiDir: string;
  /** The whole PKI, in memory: a run writes only the client's keys to disk (CLIENT_KEYS); read from `pkiDir` where absent. */
  pems?: Pki;
  client: ClientAdapter;
  hello?: Hello;
  idSalt: string;
  deadlineMultiplier: number;
}

/** A fresh PKI (a test CA and every certificate a run needs), written whole into `dir` (`serve`). */
export async function freshPki(dir: string): Promise<PkiFiles> {
  return writePki(await makePki(), dir);
}

/** A fresh PKI for a client under test: in memory, and on disk only what the client is meant to use (CLIENT_KEYS). */
export async function clientPki(dir: string): Promise<{ files: PkiFiles; pems: Pki }> {
  const pems = await makePki();
  return { files: await writePki(pems, dir, CLIENT_KEYS), pems };
}

/** Starts the listeners on the PKI in `pkiDir` (`serve`: every connection is credited). */
export async function openListeners(pkiDir: string): Promise<Listeners> {
  const pems = await readPki(pkiDir);
  return { host: await PeerHost.start(pems, { transports: transports() }), dispatcher: new PushDispatcher(pems), pki: pkiPaths(pkiDir), pems };
}

/** How long one part of a teardown may take before the run goes on without it (a part that hangs must not hold the report). */
export const TEARDOWN_MS = 5000;

/** `work`, or nothing once `ms` have passed: a teardown that cannot finish is left, never waited for. */
export function bounded(work: Promise<unknown> | undefined, ms = TEARDOWN_MS): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise((resolve) => (timer = setTimeout(resolve, ms).unref()));
  return Promise.race([Promise.resolve(work).catch(() => undefined), late]).finally(() => clearTimeout(timer));
}

export async function closeListeners(l: Listeners): Promise<void> {
  await Promise.allSettled([bounded(l.host.close()), bounded(l.dispatcher.close())]);
}

export async function openEnv(o: EnvOptions): Promise<RunEnv> {
  const pki = o.pems ?? (await readPki(o.pkiDir));
  const [host, hello] = await Promise.all([PeerHost.start(pki, { foreign: foreignTo(o.client), transports: transports() }), o.hello ?? o.client.hello()]);
  return {
    host,
    // A receiver's time to answer a delivery scales like every deadline of the run.
    dispatcher: new PushDispatcher(pki, { answerMs: Math.round(ANSWER_MS * o.deadlineMultiplier) }),
    pki: pkiPaths(o.pkiDir),
    pems: pki,
    client: o.client,
    hello,
    idSalt: o.idSalt,
    deadlineMultiplier: o.deadlineMultiplier,
  };
}

/**
 * Where a client runs in processes of its own (ClientAdapter.processes), the host's filter: a connection is foreign when /proc
 * shows it held by none of the client's process groups (undefined, where /proc cannot tell: not foreign).
 */
const foreignTo = (client: ClientAdapter): ForeignConnection | undefined =>
  client.processes ? (from, to) => connectionFrom(client.processes!(), from, to) === false : undefined;

/** Fresh listeners for the next run, after a client that would not stop (its connections must land in no other run's transcript). */
export async function restartHost(env: RunEnv): Promise<void> {
  await env.host.close();
  env.host = await PeerHost.start(env.pems, { foreign: foreignTo(env.client), transports: transports() });
}

export async function closeEnv(env: RunEnv): Promise<void> {
  await Promise.allSettled([bounded(env.host.close()), bounded(env.dispatcher.close()), bounded(env.client.close?.())]);
}
