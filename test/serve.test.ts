/**
 * `serve`: peers on loopback for debugging by hand. Prints card URLs and certificate files, logs
 * requests as they arrive, keeps the CA across runs with --pki-dir, stops cleanly on SIGINT.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from './helpers/cli.js';
import { testTemp } from './helpers/tmp.js';

/** Every serve started, killed after each test: a failed assertion must not leave one running. */
const started: ChildProcess[] = [];
afterEach(() => {
  for (const c of started.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

function startServe(args: string[]) {
  const child = spawn(process.execPath, [join(ROOT, 'bin/a2a-conformance.mjs'), 'serve', ...args], { cwd: ROOT });
  started.push(child);
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const waitFor = async (re: RegExp, ms = 20_000) => {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      const m = re.exec(out);
      if (m) return m;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`serve did not print ${re}: ${out}`);
  };
  const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, waitFor, exit, output: () => out };
}

describe('a2a-conformance serve', () => {
  it('serves a peer a client can reach with the printed CA, logs the request, keeps the CA, stops on SIGINT', { timeout: 60_000 }, async () => {
    const pkiDir = testTemp('a2a-serve-pki-');
    const s = startServe(['--peer', 'spec-tls-verify/valid-certificate-control', '--pki-dir', pkiDir]);
    await s.waitFor(/ready: 1 peer/);
    const cardUrl = (await s.waitFor(/https:\/\/127\.0\.0\.1:\d+\/t\/\S+\/\.well-known\/agent-card\.json/))[0];
    const caFile = (await s.waitFor(/trust this CA for every peer:\s+(\S+)/))[1]!;
    const ca = await readFile(caFile, 'utf8');
    const agent = new Agent({ connect: { ca } });
    const res = await request(cardUrl, { dispatcher: agent, headers: { 'a2a-version': '1.0' } });
    expect(res.statusCode).toBe(200);
    expect(((await res.body.json()) as { name: string }).name).toBe('Contoso Helpdesk');
    await agent.close();
    await s.waitFor(/GET \/t\/\S+\/\.well-known\/agent-card\.json → 200/);
    s.child.kill('SIGINT');
    expect(await s.exit).toBe(0);

    // Again with the same --pki-dir: the same CA.
    const again = startServe(['--peer', 'contoso-bad-cert', '--pki-dir', pkiDir]);
    await again.waitFor(/ready: 6 peer/); // the factory's three bad certificates, each told in both dialects
    expect(await readFile(caFile, 'utf8')).toBe(ca);
    again.child.kill('SIGTERM');
    expect(await again.exit).toBe(0);
  });

  it('names an unknown peer with a clear error and exit 2', async () => {
    const s = startServe(['--peer', 'nope']);
    expect(await s.exit).toBe(2);
    expect(s.output()).toContain('no scenario id or peer factory named "nope"');
  });
});
