/**
 * The config file: `a2a-conformance.config.json` (or `.ts`, `.mts`, `.mjs`, `.js`, whose default
 * export has the same shape) in the folder a command runs from, or the file `--config` names. It
 * holds what a vendor would otherwise repeat on every command line (docs/config.schema.json); each
 * key is a long option in camelCase, and the command line wins over it. A key goes through the same
 * checks as its option, so a bad value is one line that names the file and the key.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { Command, Option } from 'commander';
import { readInputFile } from './input-file.js';
import { shown } from './reporters.js';
import type { ConformanceConfig } from '../runner/load/define.js';

export type { ConformanceConfig };
import { schemaValidator } from '../runner/load/json-schema.js';
import { ConfigError } from '../faults.js';

/** The names a config file is found by, in this order; two of them in one folder is an error. */
export const CONFIG_NAMES = [
  'a2a-conformance.config.json',
  'a2a-conformance.config.ts',
  'a2a-conformance.config.mts',
  'a2a-conformance.config.mjs',
  'a2a-conformance.config.js',
];

/** The largest config file read: a config is a few lines. */
const MAX_BYTES = 1024 * 1024;

/** The config file a command uses: the one `--config` names, else the one in `cwd`, else none. */
export function findConfig(cwd: string, given?: string): string | undefined {
  if (given !== undefined) {
    const file = resolve(cwd, given);
    if (!existsSync(file)) throw new ConfigError(`--config ${given}: no such file`);
    return file;
  }
  const found = CONFIG_NAMES.map((n) => join(cwd, n)).filter((f) => existsSync(f) && statSync(f).isFile());
  if (found.length > 1)
    throw new ConfigError(`two config files in ${cwd} (${found.map((f) => relative(cwd, f)).join(', ')}): keep one, or name it with --config`);
  return found[0];
}

/** Reads and checks a config file: JSON as it is, a module through the scenario loader (its default export). */
export async function loadConfig(file: string): Promise<ConformanceConfig> {
  const name = shown(file);
  let doc: unknown;
  if (file.endsWith('.json')) {
    let text: string;
    try {
      text = await readInputFile(file, MAX_BYTES);
    } catch (err) {
      throw new ConfigError(`cannot read the config file ${name}: ${(err as Error).message}`);
    }
    try {
      doc = JSON.parse(text);
    } catch (err) {
      throw new ConfigError(`${name} is not JSON: ${(err as Error).message}`);
    }
  } else {
    const { importVendorModules, VendorImportError } = await import('../runner/load/vendor-import.js');
    const loaded = (await importVendorModules([file], 'a config is plain data')).get(file);
    if (loaded instanceof VendorImportError || loaded === undefined)
      throw new ConfigError(`the config file ${name} did not load: ${loaded?.message ?? 'no result'}`);
    if (loaded.default === undefined) throw new ConfigError(`the config file ${name} has no default export (export default defineConfig({ … }))`);
    doc = loaded.default;
  }
  const validate = schemaValidator('config.schema.json');
  if (!validate(doc)) {
    const e = validate.errors![0]!;
    const where = e.instancePath || '(the file)';
    const what =
      e.keyword === 'additionalProperties'
        ? `"${(e.params as { additionalProperty: string }).additionalProperty}" is not a key of the config (docs/config.schema.json)`
        : `${where}: ${e.message}`;
    throw new ConfigError(`${name}: ${what}`);
  }
  return doc as ConformanceConfig;
}

/** Keys whose value is a path: read from the config file's folder. */
const PATH_KEYS = new Set(['out', 'expectations']);

/**
 * Sets each option of `cmd` that the command line left alone from the config's key of the same
 * name, through the option's own parser. `problem` turns a parser's complaint into the error to throw.
 */
export function applyConfig(cmd: Command, config: ConformanceConfig, file: string, cwd: string, problem: (message: string) => Error): void {
  const dir = dirname(file);
  const fromCli = (key: string) => cmd.getOptionValueSource(key) === 'cli';
  // One client choice: the command line's, whichever flag it used, or the config's.
  const clientFromCli = fromCli('client') || fromCli('clientCmd');
  // `matrix` takes its lists of clients (`clients`, `clientCmds`) and leaves the one client of `run` (`client`, `clientCmd`) alone.
  const matrix = cmd.name() === 'matrix';
  const MATRIX_KEYS: Record<string, string> = { clients: 'client', clientCmds: 'clientCmd' };
  for (const [given, value] of Object.entries(config)) {
    if (given === '$schema' || value === undefined) continue;
    // Nor does the matrix take the run's --out (it would write over the run's report) or its
    // expectations (one client's baseline, which would judge every client of the matrix).
    if (matrix ? given === 'client' || given === 'clientCmd' || given === 'out' || given === 'expectations' : given in MATRIX_KEYS) continue;
    const key = matrix ? (MATRIX_KEYS[given] ?? given) : given;
    const option = cmd.options.find((o: Option) => o.attributeName() === key);
    // A key for another command (`reporter` in `list`) waits for that command.
    if (!option || fromCli(key) || ((key === 'client' || key === 'clientCmd') && clientFromCli)) continue;
    let v: unknown = value;
    if (PATH_KEYS.has(key)) v = resolve(dir, value as string);
    // Globs stay globs: made relative to the current folder, where the command reads them.
    if (key === 'scenarios') v = (value as string[]).map((g) => (isAbsolute(g) ? g : relative(cwd, join(dir, g)) || '.'));
    // A reporter's file too (`junit=reports/junit.xml`).
    if (key === 'reporter')
      v = (value as string[]).map((r) => (r.includes('=') ? `${r.slice(0, r.indexOf('='))}=${resolve(dir, r.slice(r.indexOf('=') + 1))}` : r));
    try {
      if (option.parseArg && typeof v !== 'boolean') {
        const parse = option.parseArg as (value: string, previous: unknown) => unknown;
        v =
          Array.isArray(v) && !option.variadic
            ? v.reduce((prev: unknown, x) => parse(String(x), prev), undefined)
            : Array.isArray(v)
              ? v
              : parse(String(v), undefined);
      }
    } catch (err) {
      throw problem(`${relative(cwd, file) || file}: "${given}": ${(err as Error).message}`);
    }
    cmd.setOptionValueWithSource(key, v, 'config');
  }
}
