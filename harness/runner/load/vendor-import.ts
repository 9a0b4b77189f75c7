/**
 * Loads a vendor's scenario modules, each as an ES module whatever its package's `type` says and
 * whatever its extension (.ts, .mts, .js, .mjs): through one Vite module runner, the same transform
 * vitest applies when the file runs as a test module. Node's own loader would read a `.ts` or `.js`
 * file of a CommonJS package as CommonJS, and fail on its `import`. The package's own scenarios
 * (compiled, or loaded through tsx in a clone) keep Node's loader in the CLI's process.
 *
 * A scenario module (or a config module) is code, and it runs with the vendor's rights. It is
 * imported in a child process of its own rather than in the CLI's, so that a mistake in it cannot end,
 * hold or swamp the harness: a `process.exit` ends the loader only; a busy loop, a top-level await
 * that never settles or a long native call is cut off by a time budget (SIGKILL stops native code too,
 * which a worker thread's terminate() does not); a timer or an interval it leaves behind dies with the
 * loader; its heap has a ceiling and its whole memory (a Buffer is outside the heap) a limit, watched
 * from here; and what it writes to stdout, by any route (`fs.writeSync(1, …)` included), is a pipe
 * shown on stderr, never the CLI's stdout. The loader hands back each file's default export as JSON,
 * so what reaches the harness is plain data: a function, a cycle or a value JSON cannot hold is a load
 * error that names the file. This is a guard against accidents, not a sandbox: the module can still
 * read and write whatever the vendor's account can.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { printable } from '../../core/text.js';
import { CODE_EXT, CODE_ROOT } from '../infrastructure/package-root.js';

/**
 * What every vendor module together may take to load (Vite's start included), and the worker's
 * heap. A real scenario file loads in well under a second; the budget is generous for a loaded CI
 * machine, and counts only the time the loader could run (its waits for a core given back, up to
 * four budgets of wall time). Tests lower `budgetMs` to see the cut-off without waiting for it.
 */
export const VENDOR_LOAD = { budgetMs: 30_000, heapMb: 512, memoryMb: 1024 };

/** How often the loader's resident memory is read (Linux: /proc/<pid>/statm). */
const MEMORY_POLL_MS = 100;

/** The loader's resident memory in MiB, where the system says (Linux); undefined elsewhere or once it is gone. */
function residentMb(pid: number): number | undefined {
  try {
    const pages = Number(readFileSync(`/proc/${pid}/statm`, 'latin1').split(' ')[1]);
    return Number.isFinite(pages) ? (pages * 4096) / 1024 / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * How long the loader's main thread has waited for a core so far (Linux: /proc/<pid>/schedstat's run
 * delay), or 0 where the OS does not say: on a busy machine that time is not the module's.
 */
function waitedForCoreMs(pid: number | undefined): number {
  try {
    const ns = Number(readFileSync(`/proc/${pid}/schedstat`, 'latin1').split(' ')[1]);
    return Number.isFinite(ns) ? ns / 1e6 : 0;
  } catch {
    return 0;
  }
}

/** The budget is counted in time the loader could run, and ends by this many budgets of wall time whatever the machine's load. */
const BUDGET_WALL_CAP = 4;

/** The most one file's scenarios may take as JSON: four times the largest scenario file the catalogue reads. */
const MAX_JSON = 16 * 1024 * 1024;

/** What a vendor module may print while it loads (to stderr) before the rest is dropped. */
const MAX_OUTPUT = 64 * 1024;

/** Each file's module, or the error it failed to load with. */
export async function importVendorModules(
  files: string[],
  plain = 'scenarios are plain data',
): Promise<Map<string, { default?: unknown } | VendorImportError>> {
  const out = new Map<string, { default?: unknown } | VendorImportError>();
  if (files.length === 0) return out;
  const vite = pathToFileURL(createRequire(import.meta.url).resolve('vite')).href;
  const { budgetMs, heapMb, memoryMb } = VENDOR_LOAD;
  // The loader needs nothing of the CLI's own flags (a loader hook, a heap size of its own): plain JavaScript, its heap capped.
  const worker = spawn(process.execPath, [`--max-old-space-size=${heapMb}`, '-e', WORKER_CODE], {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    serialization: 'json',
  });
  worker.send({ vite, files, maxJson: MAX_JSON, self: join(CODE_ROOT, `harness/index${CODE_EXT}`), plain });
  // What a module prints goes to stderr, shown inert and bounded: stdout is the CLI's (`list --json`).
  let printed = 0;
  const forward = (chunk: Buffer) => {
    if (printed >= MAX_OUTPUT) return;
    const text = chunk.toString('utf8').slice(0, MAX_OUTPUT - printed);
    printed += text.length;
    process.stderr.write(printable(text) + (printed >= MAX_OUTPUT ? '\n[a scenario module printed more while loading; the rest is dropped]\n' : ''));
  };
  worker.stdout!.on('data', forward);
  // V8's own dump when the loader's heap is full (its last GCs, a native stack) is the harness's affair: the load error says it in one line.
  let dying = false;
  worker.stderr!.on('data', (chunk: Buffer) => {
    if (dying) return;
    const text = chunk.toString('utf8');
    const at = text.search(/<--- Last few GCs --->|FATAL ERROR: /);
    if (at < 0) return forward(chunk);
    dying = true;
    const before = text.slice(0, at).replace(/\n+$/, '');
    if (before.trim()) forward(Buffer.from(`${before}\n`));
  });

  const seconds = `${Math.round(budgetMs / 100) / 10} s`;
  // The file being imported, and the file whose timer runs now (apart from its import): a cut-off names it.
  let loading: string | undefined;
  let running: string | undefined;
  const results: WorkerResult[] = [];
  const fault = await new Promise<{ file: string; message: string } | undefined>((settle) => {
    let settled = false;
    const end = (o?: { file: string; message: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearInterval(watch);
      settle(o);
    };
    // Memory outside the heap (a Buffer, an ArrayBuffer) is not under the heap's cap: the loader's whole resident memory is watched from here.
    const watch = setInterval(() => {
      const mb = worker.pid === undefined ? undefined : residentMb(worker.pid);
      if (mb !== undefined && mb > memoryMb) {
        worker.kill('SIGKILL');
        end({ file: running ?? loading ?? files[0]!, message: `loading it took over ${memoryMb} MiB of memory, the scenario loader's limit` });
      }
    }, MEMORY_POLL_MS);
    const startedAt = performance.now();
    const onBudget = () => {
      // Time the loader spent waiting for a core (a busy machine) is given back: the budget is the time it could run.
      const wall = performance.now() - startedAt;
      const left = Math.min(budgetMs - (wall - waitedForCoreMs(worker.pid)), budgetMs * BUDGET_WALL_CAP - wall);
      if (left > 10) {
        timer = setTimeout(onBudget, left);
        return;
      }
      end({
        file: running ?? loading ?? files[0]!,
        message: running
          ? `a timer it set kept the scenario loader busy past its ${seconds} budget`
          : loading
            ? `its import did not finish within the ${seconds} budget for loading scenario modules (a top-level await that never settles, or a loop at import?)`
            : `the scenario loader did not start within its ${seconds} budget`,
      });
    };
    let timer = setTimeout(onBudget, budgetMs);
    // Every message the loader sent arrives before its channel closes ('disconnect'): a fault or the
    // results sent before it ended are never lost, so the outcome waits for both its exit and that.
    worker.on('message', (m: WorkerMessage) => {
      if (settled) return;
      if (m.kind === 'loading') loading = m.file;
      else if (m.kind === 'timer') running = m.file;
      else if (m.kind === 'loaded') {
        results.push(m.result);
        loading = undefined;
      } else if (m.kind === 'fault') end({ file: m.file ?? running ?? loading ?? files[0]!, message: m.message });
      else if (m.kind === 'done') end();
    });
    worker.on('error', (err: Error) => end({ file: running ?? loading ?? files[0]!, message: `the scenario loader failed: ${firstLine(err)}` }));
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let disconnected = false;
    const ended = () => {
      if (!exit || !disconnected) return;
      const { code, signal } = exit;
      // V8 ends a process whose heap is full with SIGABRT (or exit code 134 through a shell).
      const oom = signal === 'SIGABRT' || code === 134;
      end({
        file: running ?? loading ?? files[0]!,
        message: oom
          ? `loading it used up the ${heapMb} MiB heap of the scenario loader`
          : `the scenario loader ended (${signal ? `signal ${signal}` : `exit code ${code}`}) before the file's scenarios were read`,
      });
    };
    worker.on('exit', (code, signal) => {
      exit = { code, signal };
      ended();
    });
    worker.on('disconnect', () => {
      disconnected = true;
      ended();
    });
  });
  // Whatever the module left running (an interval, a pending await, a loop, a native call) ends with the loader.
  await stop(worker);

  for (const r of results) {
    if (r.error !== undefined) out.set(r.file, new VendorImportError(r.error));
    else out.set(r.file, { default: r.json === undefined ? undefined : (JSON.parse(r.json) as unknown) });
  }
  if (fault) {
    // The culprit's data, if it was read before the fault, is not taken: the fault is what it did.
    out.set(fault.file, new VendorImportError(fault.message));
    // The files the worker never reached: the catalogue stops at the culprit, which comes before them.
    for (const f of files) if (!out.has(f)) out.set(f, new VendorImportError(`not loaded: ${fault.file} stopped the scenario loader`));
  }
  return out;
}

/** Ends the loader (SIGKILL) and waits for it, so nothing of it outlives the load; at once if it is gone. */
function stop(worker: ReturnType<typeof spawn>): Promise<void> {
  if (worker.exitCode !== null || worker.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    worker.once('exit', () => resolve());
    worker.kill('SIGKILL');
  });
}

/** A module that failed to load: its first line of error, said by the catalogue with the file's name. */
export class VendorImportError {
  readonly message: string;
  constructor(err: unknown) {
    this.message = firstLine(err);
  }
}

const firstLine = (err: unknown) => String((err as Error)?.message ?? err).split('\n')[0]!;

interface WorkerResult {
  file: string;
  /** The default export as JSON; absent when the module has none. */
  json?: string;
  error?: string;
}
type WorkerMessage =
  | { kind: 'loading'; file: string }
  | { kind: 'timer'; file?: string }
  | { kind: 'loaded'; result: WorkerResult }
  | { kind: 'fault'; file?: string; message: string }
  | { kind: 'done' };

/**
 * The worker, as plain JavaScript (it runs as it is, from the sources or from dist/, and needs
 * nothing of the harness but Vite). It says which file it is importing before each import, so a
 * budget cut-off names that file; timers a module sets carry that module's name, so a fault in one
 * later is said against the file that set it.
 */
const WORKER_CODE = `
const { dirname } = require('node:path');
// Messages go over the IPC channel; one sent just before the process ends is flushed first (send's callback).
const post = (m, then) => { try { process.send(m, then); } catch { if (then) then(); } };
// The CLI that started this loader is gone: nothing to load for.
process.on('disconnect', () => process.exit(1));
const firstLine = (err) => String((err && err.message) || err).split('\\n')[0];
let importing; // the file being imported
let current; // the file whose code runs now: its import, or a callback it scheduled
let threwIn; // the file whose callback threw, for the uncaught exception that follows
for (const name of ['setTimeout', 'setInterval', 'setImmediate']) {
  const original = globalThis[name];
  const wrapped = function (fn, ...rest) {
    const owner = current;
    if (typeof fn !== 'function' || owner === undefined) return original.call(this, fn, ...rest);
    return original.call(this, function (...args) {
      // Said when it runs outside its own file's import, so a cut-off while it runs names its file.
      const apart = owner !== importing;
      if (apart) post({ kind: 'timer', file: owner });
      const before = current;
      current = owner;
      try { return fn.apply(this, args); } catch (err) { threwIn = owner; throw err; } finally { current = before; if (apart) post({ kind: 'timer' }); }
    }, ...rest);
  };
  Object.defineProperties(wrapped, Object.getOwnPropertyDescriptors(original));
  globalThis[name] = wrapped;
}
const exit = process.exit.bind(process);
let ending = false;
process.exit = (code) => {
  if (ending) return;
  ending = true;
  post({ kind: 'fault', file: current ?? importing, message: 'it called process.exit(' + (code === undefined ? '' : String(code)) + '): a scenario module declares data and must not end the process' }, () => exit(code));
};
process.on('uncaughtException', (err) => {
  if (ending) return;
  ending = true;
  post({ kind: 'fault', file: threwIn ?? current ?? importing, message: 'it threw outside its import: ' + firstLine(err) }, () => exit(1));
});
// Nothing is left that could settle the import: a top-level await that never settles.
let said = false;
process.on('beforeExit', () => {
  if (importing !== undefined && !said) {
    said = true;
    post({ kind: 'fault', file: importing, message: 'its import never finished: a top-level await that never settles' }, () => exit(1));
  }
});
const mib = (n) => (n / 1024 / 1024).toFixed(1) + ' MiB';
const toJson = (value) => {
  const json = asJson(value);
  if (json !== undefined && json.length > workerData.maxJson) throw new Error('its default export is ' + mib(json.length) + ' as JSON, over the ' + mib(workerData.maxJson) + ' limit');
  return json;
};
const asJson = (value) => {
  try {
    return JSON.stringify(value, (key, v) => {
      if (typeof v === 'function' || typeof v === 'symbol') throw new Error('its default export holds a ' + typeof v + (key ? ' (at "' + String(key).slice(0, 60) + '")' : '') + ': ' + workerData.plain);
      return v;
    });
  } catch (err) {
    if (err instanceof RangeError) throw new Error('its default export is nested too deep to pass back as JSON');
    if (/circular/i.test(String(err && err.message))) throw new Error('its default export refers back to itself (a cycle): ' + workerData.plain);
    throw err;
  }
};
let workerData; // what to load: the first message
(async () => {
  workerData = await new Promise((resolve) => process.once('message', resolve));
  // The channel alone keeps no event loop alive: a top-level await that never settles leaves it empty (beforeExit).
  if (process.channel) process.channel.unref();
  const { createServer, createServerModuleRunner } = await import(workerData.vite);
  const server = await createServer({
    configFile: false,
    envFile: false,
    logLevel: 'silent',
    root: dirname(workerData.files[0]),
    appType: 'custom',
    clearScreen: false,
    server: { middlewareMode: true, hmr: false, ws: false, watch: null },
    optimizeDeps: { noDiscovery: true, include: [] },
    // 'a2a-conformance' is the running harness, whatever the vendor's repository holds (no package.json,
    // no node_modules, or another version): a scenario file is checked by the harness that loads it.
    resolve: { alias: [{ find: /^a2a-conformance$/, replacement: workerData.self }] },
  });
  const runner = createServerModuleRunner(server.environments.ssr, { hmr: false });
  for (const file of workerData.files) {
    post({ kind: 'loading', file });
    importing = current = file;
    let result;
    try {
      const mod = await runner.import(file);
      result = { file, json: toJson(mod.default) };
    } catch (err) {
      result = { file, error: firstLine(err) };
    }
    importing = current = undefined;
    post({ kind: 'loaded', result });
  }
  // A turn of the event loop before answering: a timer an import set for right away runs now, and
  // a fault in it is said, instead of racing the answer. The worker is ended once it has answered.
  await new Promise((r) => setTimeout(r, 0));
  await new Promise((r) => setImmediate(r));
  post({ kind: 'done' });
})().catch((err) => post({ kind: 'fault', file: importing, message: 'the scenario loader failed: ' + firstLine(err) }));
`;
