/**
 * `npm run bench`: the reference client through every built-in scenario, repeatedly, over real TLS
 * on 127.0.0.1, in one process (no vitest driver). Prints scenarios per second, per-scenario latency
 * (median, p95), peak RSS, and the ratio against a bare undici loop that replays the same requests
 * to the same kind of peer on the same listeners.
 *
 * Usage: npm run bench [-- --rounds 5] [-- --big] ; npm run bench -- --load (quiet against loaded verdicts)
 * A benchmark, not a test: the numbers go in the README, never into an assertion.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { createBuiltinClient } from '../clients/index.js';
import type { ScenarioResult } from '../harness/core/results.js';
import type { Scenario } from '../harness/core/scenario/scenario.js';
import type { HttpEvent } from '../harness/core/transcript.js';
import { CODE_ROOT, findScenarioFiles, loadCatalogue, PACKAGE_ROOT, DEFAULT_SCENARIO_GLOB } from '../harness/runner/load/catalogue.js';
import { closeEnv, openEnv } from '../harness/runner/infrastructure/env.js';
import { defaultLanes } from '../harness/runner/engine/lanes.js';
import { defaultWorkers } from '../harness/runner/engine/worker-pool.js';
import { FAMILIES } from '../harness/properties/families/index.js';
import { generateCases, toScenario } from '../harness/runner/properties/run.js';
import { caseId } from '../harness/properties/family.js';
import type { RunEnv } from '../harness/runner/infrastructure/env.js';
import { executeScenario } from '../harness/runner/engine/execute.js';
import { makePki, readPki, writePki } from '../harness/pki/index.js';
import { closeRunFolder, openRunFolder } from '../harness/runner/infrastructure/workspace.js';
import { mountPeer } from '../harness/runner/infrastructure/mount.js';

const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1] ?? 3) || 3;
const BIN = join(PACKAGE_ROOT, 'bin/a2a-conformance.mjs');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Median wall time (ms) of a command, run `n` times. */
function timeCommand(cmd: string, args: string[], env: NodeJS.ProcessEnv, n = 5): number {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const r = spawnSync(cmd, args, { env, cwd: PACKAGE_ROOT, stdio: 'ignore' });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}`);
    times.push(performance.now() - t);
  }
  return median(times);
}

/** Milliseconds from starting `run` to its first scenario's progress line; then the run is stopped (SIGINT, cleaned up). */
function firstScenarioMs(env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((done, fail) => {
    const t = performance.now();
    const child = spawn(process.execPath, [BIN, 'run', '--client', 'reference', '--out', join(PACKAGE_ROOT, 'scratch', 'bench-first')], {
      env,
      cwd: PACKAGE_ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    let at: number | undefined;
    child.stderr.on('data', (c: Buffer) => {
      err += c.toString();
      if (at === undefined && /\[\s*1\/\d+\]/.test(err)) {
        at = performance.now() - t;
        child.kill('SIGINT');
      }
    });
    child.on('exit', () => (at === undefined ? fail(new Error(`no scenario finished: ${err.slice(0, 500)}`)) : done(at)));
  });
}

/** Start-up figures of the CLI: what ships (dist/, as installed) and the clone's TypeScript sources. */
async function startup(): Promise<void> {
  const build = spawnSync('npm', ['run', 'build'], { cwd: PACKAGE_ROOT, stdio: 'ignore' });
  if (build.status !== 0) throw new Error('npm run build failed');
  const dist = { ...process.env, A2A_CONFORMANCE_DIST: '1' };
  const source = { ...process.env, A2A_CONFORMANCE_DIST: '0' };
  const distVersion = timeCommand(process.execPath, [BIN, '--version'], dist);
  const npxVersion = timeCommand('npx', ['a2a-conformance', '--version'], dist);
  // What npx costs any package's bin: `npx tsc --version` against running tsc's bin directly.
  const tsc = join(PACKAGE_ROOT, 'node_modules/typescript/bin/tsc');
  const npxOverhead = timeCommand('npx', ['tsc', '--version'], dist) - timeCommand(process.execPath, [tsc, '--version'], dist);
  const sourceVersion = timeCommand(process.execPath, [BIN, '--version'], source, 3);
  const first = median([await firstScenarioMs(dist), await firstScenarioMs(dist), await firstScenarioMs(dist)]);
  // The README's first command, as a new user runs it in a clone after `npm ci` (which builds dist/: a
  // clone runs it while no source is newer, bin/a2a-conformance.mjs), through npm.
  const conformance = timeCommand('npm', ['run', '-s', 'conformance'], { ...process.env, A2A_CONFORMANCE_DIST: '' }, 3);
  const firstSource = median([await firstScenarioMs(source), await firstScenarioMs(source), await firstScenarioMs(source)]);
  console.log(
    `CLI start-up (--version, median of 5): ${distVersion.toFixed(0)} ms installed (dist/); ${npxVersion.toFixed(0)} ms through npx, which adds about ${npxOverhead.toFixed(0)} ms to any bin (\`npx tsc --version\` against tsc's bin); ${sourceVersion.toFixed(0)} ms from the TypeScript sources`,
  );
  console.log(
    `time to the first scenario (run --client reference, median of 3): ${first.toFixed(0)} ms installed (dist/), ${firstSource.toFixed(0)} ms from the sources, from the command to its first result line`,
  );
  console.log(
    `npm run conformance    ${(conformance / 1000).toFixed(1)} s wall (median of 3: every built-in scenario against the reference client on its default lanes and threads, report written)`,
  );
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Keep-alive dispatchers of the bare replay, and the TLS options a fresh connection is made with. */
interface Dispatchers {
  agent: Agent;
  insecure: Agent;
  connect: { ca: string; cert: string; key: string };
}

/**
 * Replays the requests a recorded run made, with bare undici, against a fresh run of the same peer:
 * its wall time, and the CPU it cost (client and peer, both in this process). `fresh`: a new
 * connection, so a new TLS handshake, for every request.
 */
async function bareReplay(
  env: RunEnv,
  s: Scenario,
  recorded: ScenarioResult,
  d: Dispatchers,
  fresh: boolean | 'per-case' = false,
): Promise<{ wallMs: number; cpuMs: number }> {
  // 'per-case': the case floor. Dispatchers of the case's own, so a fresh connection (a TLS handshake) per origin the case used, kept alive within the case.
  const own = fresh === 'per-case' ? { agent: new Agent({ connect: d.connect }), insecure: new Agent({ connect: { rejectUnauthorized: false } }) } : undefined;
  const { agent, insecure } = own ?? d;
  const m = mountPeer(env.host, env.dispatcher, s.peer, { key: `bare${Math.random().toString(16).slice(2, 8)}`, deadlineMs: s.deadlineMs });
  const key = m.key;
  const recordedKey = /^\/t\/([^/]+)\//.exec((recorded.transcript.find((e) => e.kind === 'http') as HttpEvent | undefined)?.path ?? '')?.[1];
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (const e of recorded.transcript) {
    if (e.kind !== 'http') continue;
    const tls = e.listener === 'tls' || e.listener === 'mtls';
    const once = fresh === true ? new Agent({ connect: tls ? d.connect : { rejectUnauthorized: false }, pipelining: 0 }) : undefined;
    const url = e.origin + (recordedKey ? e.path.replace(`/t/${recordedKey}/`, `/t/${key}/`) : e.path);
    try {
      const res = await request(url, {
        method: e.method as 'GET' | 'POST',
        dispatcher: once ?? (tls ? agent : insecure),
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        ...(e.rpc ? { body: JSON.stringify({ jsonrpc: '2.0', id: e.rpc.id, method: e.rpc.wireMethod ?? e.rpc.method, params: e.rpc.params }) } : {}),
      });
      // An event stream the peer keeps open (a workflow that stays WORKING) never ends: drop it once answered.
      if (s.peer.runtime.staysWorking && String(res.headers['content-type'] ?? '').startsWith('text/event-stream')) res.body.destroy();
      // A stream a generated runtime leaves open ends no dump: read for as long as a client would wait on it.
      else await res.body.dump({ limit: 1 << 30, signal: AbortSignal.timeout(2000) }).catch(() => res.body.destroy());
    } catch {
      /* a refused handshake costs what it costs */
    }
    await once?.close();
  }
  // Destroyed, not closed: a stream the peer keeps open (a generated drift) would hold a close forever.
  if (own) await Promise.all([own.agent.destroy(), own.insecure.destroy()]);
  const used = process.cpuUsage(cpu);
  const elapsed = performance.now() - started;
  m.end();
  return { wallMs: elapsed, cpuMs: (used.user + used.system) / 1000 };
}

async function main() {
  const catalogue = await loadCatalogue(await findScenarioFiles([DEFAULT_SCENARIO_GLOB], CODE_ROOT));
  const folder = await openRunFolder('bench');
  const files = await writePki(await makePki(), folder.pkiDir);
  const env = await openEnv({ pkiDir: files.dir, client: createBuiltinClient('reference'), idSalt: 'bench', deadlineMultiplier: 1 });
  const pki = await readPki(files.dir);
  const connect = { ca: pki.testCa.cert, cert: pki.client.cert, key: pki.client.key };
  const agent = new Agent({ connect });
  const insecure = new Agent({ connect: { rejectUnauthorized: false } });
  const d: Dispatchers = { agent, insecure, connect };
  const latencies: number[] = [];
  const stalls: number[] = [];
  let harnessMs = 0;
  let harnessCpu = 0;
  let bareMs = 0;
  let bareCpu = 0;
  let freshCpu = 0;
  const started = performance.now();
  for (let round = 0; round < rounds; round++) {
    for (const { scenario } of catalogue) {
      const cpu = process.cpuUsage();
      const r = await executeScenario(scenario, env);
      const used = process.cpuUsage(cpu);
      harnessCpu += (used.user + used.system) / 1000;
      if (r.verdict !== r.expect) console.warn(`warning: ${r.id} ${r.verdict}, expected ${r.expect}`);
      // Scenarios whose correct behaviour is to wait out a stalled peer are reported apart.
      (r.durationMs > scenario.deadlineMs / 2 ? stalls : latencies).push(r.durationMs);
      harnessMs += r.durationMs;
      const bare = await bareReplay(env, scenario, r, d);
      bareMs += bare.wallMs;
      bareCpu += bare.cpuMs;
      // The floor with a new connection (a TLS handshake) for every request.
      freshCpu += (await bareReplay(env, scenario, r, d, true)).cpuMs;
    }
  }
  const wall = (performance.now() - started) / 1000;
  const n = rounds * catalogue.length;
  latencies.sort((a, b) => a - b);
  const rss = process.resourceUsage().maxRSS / 1024;
  console.log(`a2a-conformance bench · reference client · ${catalogue.length} scenarios × ${rounds} rounds over real TLS (127.0.0.1)`);
  await startup();
  console.log(`scenarios/s            ${(n / wall).toFixed(2)}  (${n} runs in ${wall.toFixed(1)} s, bare replays included in the wall time)`);
  console.log(`latency (non-stalling) median ${pct(latencies, 50)} ms · p95 ${pct(latencies, 95)} ms · n=${latencies.length}`);
  console.log(
    `stalling scenarios     ${stalls.length} runs, median ${
      pct(
        stalls.sort((a, b) => a - b),
        50,
      ) ?? 0
    } ms (the client waits out a stalled peer by design)`,
  );
  console.log(`peak RSS               ${rss.toFixed(0)} MiB`);
  console.log(
    `harness vs bare undici ${(harnessMs / bareMs).toFixed(1)}× (${harnessMs.toFixed(0)} ms through the reference client vs ${bareMs.toFixed(0)} ms replaying the same requests)`,
  );
  console.log(
    `CPU per scenario       ${(harnessCpu / n).toFixed(1)} ms through the reference client (one lane); bare undici floor ${(bareCpu / n).toFixed(1)} ms with keep-alive, ${(freshCpu / n).toFixed(1)} ms with a new TLS handshake per request (client and peer in one process)`,
  );
  const caseFloor = await caseFloors(env, d);
  await agent.close();
  await insecure.close();
  await closeEnv(env);
  await closeRunFolder(folder);
  await propertyFigures(bareCpu / n, freshCpu / n, caseFloor);
}

/** The case floor's figures, per generated case: the harness's CPU, the floor's, and the connections a case opened. */
interface CaseFloor {
  cases: number;
  harnessCpu: number;
  floorCpu: number;
  connections: number;
}

/**
 * The case floor: generated cases (seed 1, the first CASES_PER_FAMILY of each family) through the
 * reference client on one lane, each then replayed by bare undici in this process over connections
 * of its own (one per origin the case used, kept alive within the case, a TLS handshake each, the
 * same certificates), as each case's client opens its own. CPU per case of each, and the connections.
 */
async function caseFloors(env: RunEnv, d: Dispatchers): Promise<CaseFloor> {
  const CASES_PER_FAMILY = 40;
  let harnessCpu = 0;
  let floorCpu = 0;
  let connections = 0;
  let cases = 0;
  for (const family of FAMILIES) {
    for (const [i, c] of generateCases(family, 1, CASES_PER_FAMILY).entries()) {
      const s = toScenario(family, c, caseId(family.id, 1, String(i)), env.hello);
      if (!s) continue;
      const cpu = process.cpuUsage();
      const r = await executeScenario(s, env);
      const used = process.cpuUsage(cpu);
      harnessCpu += (used.user + used.system) / 1000;
      floorCpu += (await bareReplay(env, s, r, d, 'per-case')).cpuMs;
      connections += new Set(r.transcript.flatMap((e) => (e.kind === 'http' ? [e.origin] : []))).size;
      cases++;
    }
  }
  return { cases, harnessCpu: harnessCpu / cases, floorCpu: floorCpu / cases, connections: connections / cases };
}

/**
 * The property families (issue 13): generated cases per second over real TLS on one lane and on the
 * default lanes, CPU per case against the bare undici floor (per scenario, keep-alive and fresh
 * handshakes), and peak RSS with the report's rendering at 1,000 cases (and 10,000 with `--big`).
 * Each run is a child process of its own, so each peak RSS is that run's alone.
 */
async function propertyFigures(floorCpu: number, freshFloorCpu: number, caseFloor: CaseFloor): Promise<void> {
  /** One run of `cases` generated cases (rounded up to whole runs per family); lanes and workers as `properties` takes them by default unless given. */
  const one = (cases: number, lanes: number | 'default', workers: number | 'default' = 'default') => {
    const runs = Math.ceil(cases / FAMILIES.length);
    const out = execFileSync(process.execPath, [join(PACKAGE_ROOT, 'bench/property-bench.mjs'), String(runs), String(lanes), String(workers)], {
      encoding: 'utf8',
      maxBuffer: 1 << 24,
    });
    return JSON.parse(out.trim().split('\n').at(-1)!) as {
      cases: number;
      failed: string[];
      lanes: number;
      wallMs: number;
      cpuMs: number;
      reportMs: number;
      rssMiB: number;
      renderMs: number;
      renderRssMiB: number;
      htmlKiB: number;
      jsonKiB: number;
    };
  };
  const line = (label: string, r: ReturnType<typeof one>) =>
    console.log(
      `${label.padEnd(30)} ${(r.cases / (r.wallMs / 1000)).toFixed(1)} cases/s (${r.cases} cases in ${(r.wallMs / 1000).toFixed(1)} s on ${r.lanes} lanes, report written in ${r.reportMs} ms) · CPU ${(r.cpuMs / r.cases).toFixed(1)} ms/case · peak RSS ${r.rssMiB} MiB, run and report · ${r.htmlKiB} KiB HTML, ${r.jsonKiB} KiB JSON · rendered again from results.json in ${r.renderMs} ms, peak RSS ${r.renderRssMiB} MiB${r.failed.length ? ` · FAILED: ${r.failed.join(', ')}` : ''}`,
    );
  const threads = defaultWorkers(Number.POSITIVE_INFINITY);
  line('generated, 1 lane', one(100, 1, 1));
  line(`generated, ${defaultLanes()} lanes, 1 thread`, one(400, defaultLanes(), 1));
  line('1,000 cases, 1 thread', one(1000, 'default', 1));
  const k = one(1000, 'default');
  line(`1,000 cases, ${threads} threads`, k);
  const perCase = k.cpuMs / k.cases;
  console.log(
    `CPU per case vs floor   ${perCase.toFixed(1)} ms per generated case (${threads} threads) = ${(perCase / caseFloor.floorCpu).toFixed(1)}× the case floor (${caseFloor.floorCpu.toFixed(1)} ms), ${(perCase / floorCpu).toFixed(1)}× the keep-alive floor (${floorCpu.toFixed(1)} ms), ${(perCase / freshFloorCpu).toFixed(1)}× the fresh-handshake floor (${freshFloorCpu.toFixed(1)} ms)`,
  );
  console.log(
    `case floor              ${caseFloor.floorCpu.toFixed(1)} ms of CPU per generated case: bare undici replaying each case's requests over ${caseFloor.connections.toFixed(2)} fresh connections per case (one per origin it used, kept alive within it), ${caseFloor.cases} cases at seed 1; the same cases through the reference client on one lane: ${caseFloor.harnessCpu.toFixed(1)} ms (${(caseFloor.harnessCpu / caseFloor.floorCpu).toFixed(2)}× the case floor)`,
  );
  if (process.argv.includes('--big')) {
    line(`10,000 cases, ${threads} threads`, one(10_000, 'default'));
    line('10,000 cases, 1 thread', one(10_000, 'default', 1));
  }
}

/** `npm run bench -- --case-floor`: the case floor alone (a minute), as main prints it. */
async function caseFloorOnly(): Promise<void> {
  const folder = await openRunFolder('bench');
  const files = await writePki(await makePki(), folder.pkiDir);
  const env = await openEnv({ pkiDir: files.dir, client: createBuiltinClient('reference'), idSalt: 'bench', deadlineMultiplier: 1 });
  const pki = await readPki(files.dir);
  const connect = { ca: pki.testCa.cert, cert: pki.client.cert, key: pki.client.key };
  const d: Dispatchers = { agent: new Agent({ connect }), insecure: new Agent({ connect: { rejectUnauthorized: false } }), connect };
  const f = await caseFloors(env, d);
  console.log(
    `case floor              ${f.floorCpu.toFixed(1)} ms of CPU per generated case over ${f.connections.toFixed(2)} fresh connections per case (${f.cases} cases at seed 1, one lane); the reference client: ${f.harnessCpu.toFixed(1)} ms (${(f.harnessCpu / f.floorCpu).toFixed(2)}× the case floor)`,
  );
  await Promise.all([d.agent.close(), d.insecure.close()]);
  await closeEnv(env);
  await closeRunFolder(folder);
}

if (process.argv.includes('--case-floor')) await caseFloorOnly();
else if (process.argv.includes('--load')) {
  // Quiet against loaded: the verdicts the harness gives while eight busy loops hold the cores (bench/load-bench.mjs).
  execFileSync(process.execPath, [join(PACKAGE_ROOT, 'bench/load-bench.mjs')], { stdio: 'inherit' });
} else await main();
