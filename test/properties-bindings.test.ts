/**
 * Property cases told over the client's bindings (harness/properties/family.ts `familyArbitrary`,
 * `tellOverBinding`; run.ts): JSON-RPC alone leaves every seed's cases as they were; other bindings
 * tell each case over one of them where its card can be, the same seed giving the same cases and
 * `caseAt` finding them; `properties` and `replay` take `--binding` (and the config's `binding`),
 * checked against the client's hello, and the replay command carries it. No case here runs over
 * gRPC or HTTP+JSON: the replayed case is one that stayed JSON-RPC.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateCardV1 } from '../harness/core/card-validator.js';
import { BAD_CERT_LISTENERS, GRPC_LISTENER_KINDS } from '../harness/core/scenario/runtime.js';
import { fillCard } from '../harness/core/scenario/card.js';
import type { RunResults } from '../harness/core/results.js';
import type { Binding, Dialect } from '../harness/core/protocol/types.js';
import { caseScenario, type GeneratedCase } from '../harness/properties/family.js';
import { FAMILIES } from '../harness/properties/families/index.js';
import { caseAt, generateCases } from '../harness/runner/properties/run.js';
import { resultsValidator } from './helpers/cli.js';
import { runMain } from './helpers/main.js';
import { testTemp } from './helpers/tmp.js';

const V1: Dialect[] = ['a2a-v1'];
const BOTH: Dialect[] = ['a2a-v1', 'a2a-v0.3'];
const VARS = {
  rpcUrl: 'https://127.0.0.1:4443/t/abc/rpc',
  restUrl: 'https://127.0.0.1:4443/t/abc/rpc/rest',
  grpcUrl: 'https://127.0.0.1:4444',
  tokenUrl: 'https://127.0.0.1:4443/t/abc/token',
};
const transport = FAMILIES.find((f) => f.id === 'transport')!;
/** Whether a case's RPC sits on a listener with a gRPC counterpart (untellable's rule). */
const grpcListener = (c: GeneratedCase) => (GRPC_LISTENER_KINDS as readonly string[]).includes(c.runtime.rpcListener);

describe('cases told over bindings', () => {
  it('JSON-RPC alone: the cases of a seed are those of the default, in either dialect set, and none is told over another binding', () => {
    for (const family of FAMILIES)
      for (const dialects of [V1, BOTH]) {
        const cases = generateCases(family, 5, 40, dialects, ['JSONRPC']);
        expect(cases, family.id).toEqual(generateCases(family, 5, 40, dialects));
        expect(cases.some((c) => c.binding)).toBe(false);
        expect(caseAt(family, 5, '23', dialects, ['JSONRPC'])).toEqual(caseAt(family, 5, '23', dialects));
      }
  });

  it('JSON-RPC and gRPC: some cases are told over gRPC (one GRPC interface at {{grpcUrl}}, the case id kept); the same seed, in any order of the bindings, gives the same cases; caseAt finds them', () => {
    const both: Binding[] = ['JSONRPC', 'GRPC'];
    for (const family of FAMILIES) {
      const cases = generateCases(family, 5, 60, V1, both);
      expect(generateCases(family, 5, 60, V1, both)).toEqual(cases);
      expect(generateCases(family, 5, 60, V1, ['GRPC', 'JSONRPC'])).toEqual(cases);
      expect(generateCases(family, 6, 60, V1, both)).not.toEqual(cases);
      for (const i of [0, 17, 59]) expect(caseAt(family, 5, String(i), V1, both)).toEqual(cases[i]);
      const told = cases.filter((c) => c.binding);
      expect(told.length, family.id).toBeGreaterThan(5);
      expect(cases.length - told.length, family.id).toBeGreaterThan(5);
      for (const c of told) {
        expect(c.binding).toBe('GRPC');
        expect(grpcListener(c), `${family.id}/${c.story}: told over gRPC on the ${c.runtime.rpcListener} listener`).toBe(true);
        const s = caseScenario(family, c, `${family.id}/seed-5/x`, c.rules[0]!);
        expect(s.id).toBe(`${family.id}/seed-5/x`);
        expect(s.binding).toBe('GRPC');
        expect(s.peer.card.supportedInterfaces).toEqual([{ url: '{{grpcUrl}}', protocolBinding: 'GRPC', protocolVersion: '1.0' }]);
        expect(s.description).toMatch(/Told over the gRPC binding\.$/);
        expect(validateCardV1(fillCard(s.peer.card, VARS)), JSON.stringify(s.peer.card)).toEqual([]);
      }
      // The JSON-RPC cases are the ones the default makes at no path in particular, but their scenarios are plain ones.
      for (const c of cases.filter((x) => !x.binding)) expect(caseScenario(family, c, 'x', c.rules[0]!).binding).toBeUndefined();
    }
  });

  it('a case its card cannot carry over a binding takes the next the run has (JSON-RPC where it has none); a v0.3 telling stays JSON-RPC', () => {
    const onlyGrpc = generateCases(transport, 2, 80, V1, ['GRPC']);
    // The transport family puts the RPC on the good and the bad certificates' listeners, each with a gRPC counterpart
    // (the RPC channel is verified over gRPC too); a card on a listener without one stays JSON-RPC.
    expect(onlyGrpc.filter((c) => BAD_CERT_LISTENERS.has(c.runtime.rpcListener) && c.binding === 'GRPC').length).toBeGreaterThan(3);
    for (const c of onlyGrpc) expect(c.binding).toBe(grpcListener(c) ? 'GRPC' : undefined);
    for (const c of generateCases(transport, 2, 80, V1, ['HTTP+JSON', 'GRPC']))
      expect(grpcListener(c) ? ['GRPC', 'HTTP+JSON'] : ['HTTP+JSON']).toContain(c.binding);
    for (const family of FAMILIES) {
      const cases = generateCases(family, 8, 60, BOTH, ['JSONRPC', 'HTTP+JSON', 'GRPC']);
      expect(cases.filter((c) => c.dialect === 'a2a-v0.3' && c.binding)).toEqual([]);
      expect(new Set(cases.map((c) => c.binding ?? 'JSONRPC')).size, family.id).toBe(3);
      const rest = cases.find((c) => c.binding === 'HTTP+JSON');
      if (rest)
        expect(caseScenario(family, rest, 'x', rest.rules[0]!).peer.card.supportedInterfaces).toEqual([
          { url: '{{restUrl}}', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
        ]);
      expect(caseAt(family, 8, '31', BOTH, ['JSONRPC', 'HTTP+JSON', 'GRPC'])).toEqual(cases[31]);
    }
  });
});

describe('properties and replay --binding', () => {
  it('replay with --binding finds the case the run made, and its replay command carries --binding; without it, none', async () => {
    // The reference client speaks both dialects and every binding: the first case of the seed that stayed v1.0 JSON-RPC runs here.
    const bindings: Binding[] = ['JSONRPC', 'GRPC'];
    const cases = generateCases(transport, 11, 40, BOTH, bindings);
    const i = cases.findIndex((c) => !c.binding && !c.dialect);
    expect(i).toBeGreaterThanOrEqual(0);
    const out = testTemp('a2a-props-binding-');
    const r = await runMain([
      'replay',
      '--client',
      'reference',
      '--binding',
      'grpc',
      '--binding',
      'jsonrpc',
      '--family',
      'transport',
      '--seed',
      '11',
      '--path',
      String(i),
      '--out',
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n')[0]).toMatch(/^a2a-conformance properties · seed 11 · path \d+ · transport · over JSONRPC, GRPC$/);
    const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as RunResults;
    const validate = resultsValidator();
    expect(validate(results), JSON.stringify(validate.errors)).toBe(true);
    expect(results.properties![0]!.bindings).toEqual(['JSONRPC', 'GRPC']);
    expect(results.properties![0]!.cases.map((c) => [c.path, c.binding])).toEqual([[String(i), undefined]]);
    const p = results.results[0]!.property!;
    expect(p.replay).toBe(`npx a2a-conformance replay --client reference --binding JSONRPC,GRPC --family transport --seed 11 --path ${i}`);
    expect(p.scenario.peer.card).toEqual(cases[i]!.card);
    expect(p.scenario.binding).toBeUndefined();

    // The client's default bindings: no --binding in the command, nothing about bindings in the results.
    const plain = testTemp('a2a-props-binding-');
    const d = await runMain([
      'replay',
      '--client',
      'reference',
      '--binding',
      'jsonrpc',
      '--family',
      'transport',
      '--seed',
      '11',
      '--path',
      '0',
      '--out',
      plain,
    ]);
    expect(d.code, d.stderr).toBe(0);
    const dr = JSON.parse(readFileSync(join(plain, 'results.json'), 'utf8')) as RunResults;
    expect(dr.properties![0]!.bindings).toBeUndefined();
    expect(dr.results[0]!.property!.replay).toBe('npx a2a-conformance replay --client reference --family transport --seed 11 --path 0');
  });

  it('a binding the client does not declare (on the command line or in the config file): exit 2, one line before the usage', async () => {
    const line = /^a2a-conformance: --binding GRPC: the client declares JSONRPC \(hello\.bindings\); tell the scenarios over a binding it speaks$/;
    for (const cmd of [
      ['properties', '--runs', '1'],
      ['replay', '--seed', '1', '--path', '0'],
    ]) {
      const r = await runMain([...cmd, '--client', 'a2a-js-sdk@0.3', '--binding', 'grpc', '--family', 'transport', '--out', testTemp('a2a-props-binding-')]);
      expect(r.code, r.stderr).toBe(2);
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines[0]).toMatch(line);
      expect(lines.slice(1)).toEqual([expect.stringMatching(/^usage: a2a-conformance (properties|replay) /)]);
    }
    const dir = testTemp('a2a-props-binding-');
    const config = join(dir, 'a2a-conformance.config.json');
    writeFileSync(config, JSON.stringify({ client: 'a2a-js-sdk@0.3', binding: ['grpc'] }));
    const c = await runMain(['properties', '--config', config, '--runs', '1', '--family', 'transport', '--out', join(dir, 'out')]);
    expect(c.code, c.stderr).toBe(2);
    expect(c.stderr.split('\n').filter((l) => !l.startsWith('a2a-conformance: using the config file '))[0]).toMatch(line);
    writeFileSync(config, JSON.stringify({ client: 'a2a-js-sdk@0.3', binding: ['pigeon'] }));
    const bad = await runMain(['properties', '--config', config, '--runs', '1', '--out', join(dir, 'out')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.split('\n')[0]).toMatch(/a2a-conformance\.config\.json: \/binding\/0: /);
  });
});
