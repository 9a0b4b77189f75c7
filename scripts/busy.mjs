#!/usr/bin/env node
// Keeps the cores busy, to see the harness on a loaded machine (a CI runner shared with other jobs):
// `node scripts/busy.mjs --workers 8 --seconds 300` runs eight busy loops, each in a worker thread,
// for five minutes at most, then exits. Bounded: at most 64 workers and 3,600 s; Ctrl-C, SIGTERM or
// the end of the time stops every loop (worker threads die with the process).
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';

const { values } = parseArgs({
  options: {
    workers: { type: 'string', default: String(availableParallelism() * 4) },
    seconds: { type: 'string', default: '300' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log('usage: node scripts/busy.mjs [--workers n (1-64)] [--seconds s (1-3600)]');
  process.exit(0);
}
const workers = Number(values.workers);
const seconds = Number(values.seconds);
if (!Number.isInteger(workers) || workers < 1 || workers > 64) {
  console.error('busy: --workers must be an integer from 1 to 64');
  process.exit(2);
}
if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 3600) {
  console.error('busy: --seconds must be a number from 1 to 3600');
  process.exit(2);
}
const until = Date.now() + seconds * 1000;
// Each loop spins on arithmetic, checking the clock now and then, and ends by itself at the deadline.
const loop = `
  const { workerData } = require('node:worker_threads');
  let x = 0;
  while (Date.now() < workerData) { for (let i = 0; i < 1e6; i++) x = (x * 31 + i) | 0; }
`;
const started = Array.from({ length: workers }, () => new Worker(loop, { eval: true, workerData: until }));
console.error(`busy: ${workers} busy loop(s) on ${availableParallelism()} core(s) for ${seconds} s (pid ${process.pid})`);
const stop = (signal) => {
  console.error(`busy: stopped by ${signal}`);
  process.exit(0);
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
await Promise.all(started.map((w) => new Promise((resolve) => w.once('exit', resolve))));
console.error('busy: done');
