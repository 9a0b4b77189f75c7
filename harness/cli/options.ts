/**
 * The options and argument parsers several commands share (a new Option per command: commander
 * keeps an option's state in it). Each bad value is a UsageError: one line, the usage, exit 2.
 */
import { Option } from 'commander';
import { RULE_IDS } from '../core/oracle/rules.js';
import { BINDINGS, type Binding, DIALECTS, type Dialect } from '../core/protocol/types.js';
import { UsageError } from '../faults.js';
import { BY_NAME_FAMILY_IDS, FAMILY_IDS } from '../core/family-ids.js';
import type { ScenarioPick } from '../runner/engine/select.js';

/** How a run picks by `--grep` (the run's own type). */
export type Grep = NonNullable<ScenarioPick['grep']>;

/** `--grep`: `/regex/flags` is a regular expression; anything else a case-insensitive substring. */
function grepOf(v: string): Grep {
  const m = /^\/(.+)\/([a-z]*)$/s.exec(v);
  if (m) {
    let re: RegExp;
    try {
      re = new RegExp(m[1]!, m[2]!.replace(/[gy]/g, ''));
    } catch (err) {
      throw new UsageError(`--grep ${v}: not a regular expression: ${(err as Error).message}`);
    }
    return { source: v, test: (t) => re.test(t) };
  }
  if (!v) throw new UsageError('--grep needs a text or a /regex/');
  const needle = v.toLowerCase();
  return { source: v, test: (t) => t.toLowerCase().includes(needle) };
}

function ruleList(v: string, prev: string[] = []): string[] {
  const ids = v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  for (const id of ids) if (!RULE_IDS.includes(id as never)) throw new UsageError(`unknown rule "${id}". Rules: ${RULE_IDS.join(', ')}`);
  return [...prev, ...ids];
}

/** The filters `run` and `list` share (a new Option per command). */
export const ruleOption = () => new Option('--rule <id>', 'only scenarios of this rule (repeatable, or comma-separated)').argParser(ruleList);
export const dialectOption = () =>
  new Option('--dialect <name>', `only scenarios whose peer speaks this A2A dialect (${DIALECTS.join(', ')})`).argParser((v) => {
    if (!(DIALECTS as readonly string[]).includes(v)) throw new UsageError(`--dialect must be one of ${DIALECTS.join(', ')}, got "${v}"`);
    return v as Dialect;
  });
/** A binding as the command line may spell it: its card name, or jsonrpc, grpc, rest, http+json in any case. */
function bindingList(v: string, prev: Binding[] = []): Binding[] {
  const alias: Record<string, Binding> = { jsonrpc: 'JSONRPC', grpc: 'GRPC', rest: 'HTTP+JSON', 'http+json': 'HTTP+JSON' };
  const names = v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  const out = names.map((n) => {
    const b = alias[n.toLowerCase()];
    if (!b) throw new UsageError(`--binding must be one of ${BINDINGS.join(', ')} (or jsonrpc, grpc, rest), got "${n}"`);
    return b;
  });
  return [...new Set([...prev, ...out])];
}
export const bindingOption = () =>
  new Option(
    '--binding <name>',
    `tell the scenarios over this protocol binding (${BINDINGS.join(', ')}; repeatable): each scenario with one JSON-RPC interface gets a telling <id>.grpc or <id>.rest (default: JSONRPC where the client declares it)`,
  ).argParser(bindingList);
export const scenarioIdOption = () =>
  new Option('--scenario <id>', 'only this scenario (repeatable, or comma-separated)').argParser((v: string, prev: string[] = []) => [
    ...prev,
    ...v
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean),
  ]);
export const grepOption = () =>
  new Option('--grep <text|/regex/>', 'only scenarios whose id or title contains the text (case-insensitive) or matches /regex/flags').argParser(grepOf);

/** `--config`, on every command a config file can feed (harness/cli/config.ts). */
export const configOption = () =>
  new Option(
    '--config <file>',
    'the config file (default: a2a-conformance.config.json, .ts, .mts, .mjs or .js in the current folder; docs/config.schema.json)',
  );

/** `--no-config`: no config file, even where one is in the current folder. */
export const noConfigOption = () => new Option('--no-config', 'use no config file, even one in the current folder');

/** `--scenarios` and `--no-builtin`, as `run`, `serve` and `list` take them (a new Option per command). */
export const scenariosOption = () =>
  new Option('--scenarios <glob...>', 'your scenario files, folders or globs, run with the built-in ones (*.scenario.ts|mts|js|mjs|json)');
export const noBuiltinOption = () => new Option('--no-builtin', 'leave out the built-in scenarios: only those of --scenarios');

export function wholeNumber(option: string, v: string, min: number, max: number): number {
  const n = Number(v);
  if (!(Number.isInteger(n) && n >= min && n <= max)) throw new UsageError(`${option} must be a whole number from ${min} to ${max}, got "${v}"`);
  return n;
}

export const multiplierOf = (v: string) => {
  const x = Number(v);
  if (!(x > 0 && x <= 100)) throw new UsageError(`--deadline-multiplier must be a number in (0, 100], got "${v}"`);
  return x;
};

export const lanesOf = (v: string) => wholeNumber('--lanes', v, 1, 64);
export const workersOf = (v: string) => wholeNumber('--workers', v, 1, 16);

/** `--shard i/n` (run and properties), checked: an index from 1 to a count of at most 10,000. */
export function shardOf(v: string): { index: number; count: number } {
  if (!/^[1-9]\d*\/[1-9]\d*$/.test(v)) throw new UsageError(`--shard must look like 1/3, got "${v.slice(0, 40)}"`);
  const [index, count] = v.split('/').map(Number) as [number, number];
  if (count > 10_000) throw new UsageError(`--shard ${v.slice(0, 40)}: at most 10000 shards`);
  if (index > count) throw new UsageError(`--shard ${v}: the index must be at most the count`);
  return { index, count };
}
/** `--family`: ids of the built-in families (checked against the list `list --families` prints). */
export function familyList(v: string, prev: string[] = []): string[] {
  const ids = v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  const known = [...FAMILY_IDS, ...BY_NAME_FAMILY_IDS];
  for (const id of ids) if (!known.includes(id)) throw new UsageError(`unknown family "${id}". Families: ${known.join(', ')}`);
  return [...prev, ...ids];
}
