/**
 * A run's PKI made on a worker thread while the CLI loads its modules and the catalogue (issue 28:
 * the first scenario sooner). Making the certificates is about a quarter of a second of JavaScript
 * (ASN.1 and signatures) that would otherwise wait for the module loading on the one thread; on a
 * second core they overlap. The PKI stays in memory until the run writes it into its own folder, so
 * a command that ends before that leaves nothing behind; a thread that fails is replaced by making
 * the PKI here.
 */
import type { Pki } from '../../pki/index.js';
import { makePki } from '../../pki/index.js';
import type { Worker } from 'node:worker_threads';
import { startThread } from './threads.js';

let early: { pki: Promise<Pki>; worker: Worker } | undefined;
/** The thread a run took its PKI from: a command stopped (a signal) while it still makes keys waits for it too. */
let taken: { pki: Promise<Pki>; worker: Worker } | undefined;

/** Starts making the next run's PKI on a worker thread (once; a second call changes nothing). */
export function makePkiEarly(): void {
  if (early) return;
  const worker = startThread('harness/runner/infrastructure/pki-thread', undefined);
  const pki = new Promise<Pki>((resolve, reject) => {
    worker.once('message', (m: { pki?: Pki; error?: string }) => (m.pki ? resolve(m.pki) : reject(new Error(m.error ?? 'no PKI'))));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the PKI thread exited (${code})`)));
  });
  pki.catch(() => {});
  // After its listeners (adding one refs a worker again): a command that ends before it takes the PKI
  // (a usage error, say) does not wait for the thread.
  worker.unref();
  early = { pki, worker };
}

/**
 * Ends the early thread where no run took its PKI (a command that stopped first: an argument error,
 * say), once it has made its keys. A thread ended while a key is being made, by terminate() or by the
 * process's exit, can abort the whole process (Node: "FATAL ERROR: v8::ToLocalChecked Empty
 * MaybeLocal", exit 134), so it is let finish (about a quarter of a second) and ended after. Says
 * how the thread's work ended: its PKI made, failed, or no thread to end.
 */
export async function dropPkiEarly(): Promise<'none' | 'made' | 'failed'> {
  const made = early ?? taken;
  early = taken = undefined;
  if (!made) return 'none';
  made.worker.ref();
  const outcome = await made.pki.then(
    () => 'made' as const,
    () => 'failed' as const,
  );
  await made.worker.terminate();
  return outcome;
}

/** The PKI made early (taken once), or, where none was started or it failed, a fresh one made here. */
export function takePki(): Promise<Pki> {
  const made = early;
  early = undefined;
  if (!made) return makePki();
  taken = made;
  // Awaited now: the thread keeps the process alive until it has answered.
  made.worker.ref();
  return made.pki.catch(() => makePki());
}
