/** A worker thread that makes a run's PKI (pki-early.ts) and posts it back: plain PEM strings. */
import { parentPort } from 'node:worker_threads';
import { makePki } from '../../pki/index.js';

makePki().then(
  (pki) => parentPort?.postMessage({ pki }),
  (err: unknown) => parentPort?.postMessage({ error: (err as Error).message }),
);
